"""Record what the engine does, so that a change meant to keep its behaviour can prove it.

    python tests/engine_record.py [--games 500] [--chaos 200]

Writes `tests/data/engine_record.jsonl.gz`, one game a line: its event log, what each event
gave (the alerts' codes and messages, or the one-line error of an event refused whole) and
the final state. Three kinds of games:
- `bot`: whole legal games by the bot, cycling over every hero pair (seed = the game's number);
- `chaos`: random events, legal or not (alerts, refusals, events after the end), every pair;
- `test`: every event log the rule tests apply (captured by running them with a recorder);
- `sample`: the bundled sample logs.
`tests/test_engine_record.py` replays them all and compares.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import itertools
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cards import DECK, JOKER  # noqa: E402
from tracker.rules.bot import play_game  # noqa: E402
from tracker.rules.engine import EngineError, Game  # noqa: E402
from tracker.rules.events import (  # noqa: E402
    Attack,
    Concede,
    EndTurn,
    Event,
    HeroPower,
    Markers,
    Mulligan,
    NewGame,
    Play,
    SecretRevealed,
    parse_event,
    read_log,
)
from tracker.rules.heroes import hero_names  # noqa: E402

RECORD = ROOT / "tests" / "data" / "engine_record.jsonl.gz"
SAMPLES = [ROOT / "tests" / "data" / "demo_game.jsonl"]
RULE_TESTS = ["tests/test_rules.py", "tests/test_alerts.py", "tests/test_properties.py",
              "tests/test_events.py", "tests/test_cli.py", *sorted(str(p.relative_to(ROOT))
                                              for p in (ROOT / "tests").glob("test_hero_*.py"))]


def outcome(events: list[Event]) -> tuple[list, dict]:
    """Fold `apply` over the events: what each gave, and the final state."""
    game = Game()
    results = []
    for event in events:
        try:
            results.append([[a.code, a.message] for a in game.apply(event)])
        except EngineError as error:
            results.append(f"error: {error}")
    return results, game.state().model_dump(mode="json")


def entry(kind: str, name: str, events: list[Event]) -> dict:
    results, state = outcome(events)
    return {"kind": kind, "name": name, "events": [json.loads(e.to_json()) for e in events],
            "results": results, "state": state}


def _ids(game: Game) -> list[str]:
    ids = ["p1", "p2", "T1", "T2"]
    if game.table is None:
        return ids
    ids += [m.id for s in game.sides.values() for m in s.minions]
    ids += [c for s in game.sides.values() for c in [*s.hand, *s.secrets] if c]
    return [i for i in ids + game.table.discard if i and i != JOKER]


def chaos_event(game: Game, rng: random.Random) -> Event:
    """One random event aimed mostly at what is on the table: legal or not."""
    ids = _ids(game)
    card = rng.choice(ids + list(DECK) + [JOKER]) if rng.random() < 0.5 else rng.choice(DECK)
    card = card if card in DECK or card == JOKER else rng.choice(DECK)
    me = game.active if rng.random() < 0.8 else rng.choice(["p1", "p2"])
    character = rng.choice([i for i in ids if i != JOKER])
    target = rng.choice([None, None, character, [character, rng.choice(ids[:6])]])
    kind = rng.choices(["play", "attack", "power", "secret", "end", "markers", "mulligan",
                        "concede"], weights=[30, 25, 10, 6, 18, 6, 2, 0.3])[0]
    if kind == "play":
        return Play(player=me, card=card, target=target, choice=rng.choice([None, 1, 2]))
    if kind == "attack":
        return Attack(attacker=rng.choice([me, *ids[4:], character]), target=character)
    if kind == "power":
        return HeroPower(player=me, target=target)
    if kind == "secret":
        secret = card if card != JOKER else rng.choice(DECK)
        return SecretRevealed(player=rng.choice(["p1", "p2"]), card=secret, target=target)
    if kind == "markers":
        return Markers(player=me, place=rng.choice(["armor", "weapon", "damage", "buff"]),
                       count=rng.randint(0, 7), minion=rng.choice([None, character]))
    if kind == "mulligan":
        return Mulligan(player=me, count=rng.randint(0, 5))
    if kind == "concede":
        return Concede(player=me)
    return EndTurn()


CRASHES: list[tuple] = []


def chaos_game(heroes: tuple[str, str], seed: int, length: int = 250) -> list[Event]:
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    events: list[Event] = [NewGame(heroes={"p1": heroes[0], "p2": heroes[1]},
                                   deck=deck if rng.random() < 0.5 else None)]
    game = Game()
    game.apply(events[0])
    while len(events) < length and not (game.over and rng.random() < 0.3):
        event = chaos_event(game, rng)
        try:
            game.apply(event)
        except EngineError:
            pass
        except Exception as error:  # a defect of the engine: kept out of the record
            CRASHES.append((heroes, seed, len(events), repr(error)))
            game = Game()
            for kept in events:
                with contextlib.suppress(EngineError):
                    game.apply(kept)
            continue
        events.append(event)
    return events


class _Recorder:
    """A pytest plugin that keeps every event any Game of the rule tests is asked to apply,
    grouped by game from its new_game on."""

    def __init__(self) -> None:
        self.logs: list[list[Event]] = []
        self._games: dict[int, tuple[Game, list[Event]]] = {}

    def pytest_sessionstart(self, session) -> None:
        original = Game.apply
        recorder = self

        def apply(game: Game, event: Event):
            if isinstance(event, NewGame):
                log: list[Event] = []
                recorder._games[id(game)] = (game, log)  # the game kept: ids are not reused
                recorder.logs.append(log)
            if id(game) in recorder._games:
                recorder._games[id(game)][1].append(event)
            return original(game, event)

        Game.apply = apply


def rule_test_logs() -> list[list[Event]]:
    import pytest

    recorder = _Recorder()
    code = pytest.main(["-q", "-p", "no:cacheprovider", *RULE_TESTS], plugins=[recorder])
    if code != 0:
        raise SystemExit(f"the rule tests failed ({code}); record from a passing tree")
    unique: dict[str, list[Event]] = {}
    for log in recorder.logs:
        unique.setdefault("\n".join(e.to_json() for e in log), log)
    # a log that is the start of a longer one adds nothing (pop and refusals replay prefixes)
    keys = sorted(unique)
    kept = [k for i, k in enumerate(keys)
            if not (i + 1 < len(keys) and keys[i + 1].startswith(k + "\n"))]
    return [[parse_event(line) for line in k.split("\n")] for k in kept]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--chaos", type=int, default=200)
    args = parser.parse_args()
    pairs = list(itertools.product(hero_names(), repeat=2))
    entries = []
    for i in range(args.games):
        heroes = pairs[i % len(pairs)]
        entries.append(entry("bot", f"{heroes[0]}-{heroes[1]}-{i}",
                             play_game(heroes, seed=i).events))
    for i in range(args.chaos):
        heroes = pairs[(7 * i) % len(pairs)]
        entries.append(entry("chaos", f"{heroes[0]}-{heroes[1]}-{i}", chaos_game(heroes, i)))
    for i, log in enumerate(rule_test_logs()):
        entries.append(entry("test", str(i), log))
    for path in SAMPLES:
        entries.append(entry("sample", path.name, read_log(path)))
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(RECORD, "wt", encoding="utf-8") as out:
        for item in entries:
            out.write(json.dumps(item, separators=(",", ":")) + "\n")
    for crash in CRASHES:
        print("engine defect (left out of the record):", *crash)
    kinds = {k: sum(e["kind"] == k for e in entries) for k in ("bot", "chaos", "test", "sample")}
    print(f"wrote {RECORD.relative_to(ROOT)}: {kinds}, {RECORD.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
