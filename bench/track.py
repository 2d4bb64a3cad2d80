"""Benchmark: whole games from the table to the score.

`--camera perfect` (the default until the video path is measured here too) gives the
tracker what a camera that never misses a card would see of each game
(`vision.synth.game_views`): the phone's inputs, the table's view after each event, an
attacker's slide and the cards turned over. It measures the stabilizer-free half of the
path: the reconciler and the live tracker. For each game (bot games that aim as people do,
every hero at least twice):

- the final state exactly right (health, armor, crystals, deck count, minions with their
  damage, winner; token ids, which no camera reads, aside);
- events recovered against the truth one by one (aligned in order): precision, recall;
- questions a game (the choices the table could not decide): median, max;
- illegal plays written into games (`--illegal`): each kind flagged with the engine's code,
  and no illegal alert on a legal game.

    python bench/track.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import difflib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tracker.bot import play_game
from tracker.events import Attack, EndTurn, Event, Play, parse_event
from tracker.heroes import hero_names
from tracker.live import LiveTracker
from vision.synth.game_views import event_key, perfect_views, readable_state


def run_game(events: list[Event]) -> tuple[LiveTracker, list[str], list[str]]:
    tracker, truth = LiveTracker(), []
    for step in perfect_views(events):
        if step.phone is not None:
            tracker.phone(step.phone)
        else:
            truth.append(event_key(step.event))
            tracker.seen(step.view, step.hints)
    recovered = [event_key(e) for e in tracker.events if e.source == "camera"]
    return tracker, truth, recovered


# --- illegal plays written into legal games -------------------------------------------------

def illegal_games(seed: int) -> list[tuple[str, list[Event]]]:
    """(alert code, events) for kinds of illegal play: each a legal bot game's opening with
    one illegal event after it, as players might make it."""
    cases: list[tuple[str, list[Event]]] = []
    base = play_game(("jaina", "garrosh"), seed=seed, sensible=True).events
    opening = base[:3]  # new game and both mulligans
    cases.append(("not_enough_mana", [*opening, Play(player="p1", card="5H")]))
    cases.append(("out_of_turn", [*opening, Play(player="p2", card="6H")]))
    cases.append(("hero_power_used", [*opening, EndTurn(), EndTurn(), EndTurn(),
                                      parse_event({"type": "hero_power", "player": "p2"}),
                                      parse_event({"type": "hero_power", "player": "p2"})]))
    cases.append(("attacker_exhausted", [*opening, Play(player="p1", card="6H"),
                                         Attack(attacker="6H", target="p2")]))
    cases.append(("taunt", [*opening, Play(player="p1", card="6C"), EndTurn(),
                            Play(player="p2", card="6H"), EndTurn(),
                            Attack(attacker="6C", target="p2")]))
    cases.append(("card_in_discard", [*opening, Play(player="p1", card="6D"),
                                      Play(player="p1", card="JH", target="6D"), EndTurn(),
                                      EndTurn(), Play(player="p1", card="6D")]))
    cases.append(("board_full", [*opening, *[e for _ in range(5) for e in (EndTurn(), EndTurn())],
                                 *[Play(player="p1", card=c) for c in
                                   ("6H", "6D", "6C", "7H", "7D", "7C")]]))
    cases.append(("no_weapon", [*opening, EndTurn(), EndTurn(),
                                Attack(attacker="p1", target="p2")]))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=36, help="games (default 36)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args()
    names = hero_names()
    started = time.perf_counter()
    right_states, matched, truth_n, recovered_n, questions = 0, 0, 0, 0, []
    legal_alerts = 0
    misses: dict[str, int] = {}
    for number in range(args.games):
        heroes = (names[number % 9], names[(number * 4 + 3) % 9])
        truth = play_game(heroes, seed=args.seed + number, sensible=True)
        tracker, wanted, got = run_game(truth.events)
        right_states += readable_state(tracker.game) == readable_state(truth)
        blocks = difflib.SequenceMatcher(a=wanted, b=got, autojunk=False).get_matching_blocks()
        hits = sum(b.size for b in blocks)
        matched, truth_n = matched + hits, truth_n + len(wanted)
        recovered_n += len(got)
        questions.append(len(tracker.choices))
        legal_alerts += sum(1 for a in tracker.game.alerts if a.severity == "illegal")
        for wanted_event in wanted:
            if wanted_event not in got:
                kind = json.loads(wanted_event)["type"]
                misses[kind] = misses.get(kind, 0) + 1
    elapsed = time.perf_counter() - started
    print(f"hearthtop tracker benchmark: {args.games} bot games through a perfect camera "
          f"(the reconciler and live tracker alone); {elapsed:.1f} s")
    print(f"final state exactly right: {right_states} / {args.games}")
    print(f"events: precision {100 * matched / max(recovered_n, 1):.1f} %, "
          f"recall {100 * matched / max(truth_n, 1):.1f} % ({matched} of {truth_n} "
          f"recovered, {recovered_n} given)")
    print("events not recovered by type: " + ", ".join(f"{k} {v}" for k, v in
                                                        sorted(misses.items()) if v))
    print(f"questions a game: median {statistics.median(questions):g}, max {max(questions)}")
    print(f"illegal alerts on legal games: {legal_alerts}")
    flagged = 0
    cases = illegal_games(args.seed)
    for code, events in cases:
        tracker, _, _ = run_game(events)
        codes = {a.code for a in tracker.game.alerts}
        flagged += code in codes
        print(f"  illegal {code:<20} {'flagged' if code in codes else 'MISSED'}"
              + ("" if code in codes else f" (alerts: {sorted(codes)})"))
    print(f"illegal kinds flagged: {flagged} / {len(cases)}")


if __name__ == "__main__":
    main()
