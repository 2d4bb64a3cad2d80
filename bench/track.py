"""Benchmark: whole games from the table to the score.

`--camera perfect` (the default) gives the tracker what a camera that never misses a card
would see of each game (`simulator.game_views`): the phone's inputs, the table's view
after each event, an attacker's slide and the cards turned over. It measures the
reconciler and the live tracker alone, in seconds.

`--camera video` runs the real path: each bot game is rendered as table video by the game
simulator (`hearthtop-companion simulate`: held-out card designs, hands, light, a bumped
camera, dropped frames), and read back frame by frame as `track` reads a recording
(calibration, recogniser, motion, stabilizer, live tracker; nothing read from the truth).
It also measures the time each frame takes on this machine (one core, as `track` runs) and
the delay from the table settling after an event to the state changing. A game takes
minutes; `--work DIR` keeps each game's result there so that a run can be resumed. With
`--deck`, each game's deck is registered first as its players would (one photo of it laid
out, `vision.deck`), and the recogniser reads with it.

For each game (bot games that aim as people do, every hero at least twice):

- the final state exactly right (health, armor, crystals, deck count, minions with their
  damage, winner; token ids, which no camera reads, aside);
- events recovered against the truth one by one (aligned in order): precision, recall;
  cards the log names that the game never played there;
- questions a game (the choices the table could not decide): median, max;
- illegal plays written into games: each kind flagged with the engine's code; and no
  illegal alert on a legal game (a rule break the camera may have misread is asked, an
  `unsure` alert, and counted apart).

With `--faults K`, each video game has K camera faults (`simulate --faults`), their kinds
taken in turn so that every kind comes as often as the others, at even spaces through the
game: the game goes on during each exactly as its log says. Beside the figures above: the
events done while the camera was blind (a fault's frames) and how many were recovered; the
events the log gained that never happened; the seconds from a fault's first frame to the
camera's condition saying so, and from its last frame to the table being read again.

    python -m bench.track [--games N] [--seed S]
    python -m bench.track --camera video [--games 30] [--fps 15] [--work DIR] [--deck]
                          [--faults 3]
"""

from __future__ import annotations

import argparse
import difflib
import json
import shutil
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.common import registered_deck
from bench.player import ScriptedPlayer
from simulator.game_views import event_key, readable_state, track_perfectly
from tracker.camera.live import LiveTracker
from tracker.rules.bot import play_game
from tracker.rules.engine import Game
from tracker.rules.events import Attack, EndTurn, Event, Play, dump_log, parse_event
from tracker.rules.heroes import hero_names

SEEN = ("play", "attack", "hero_power", "secret_revealed")  # what the camera reports
READING = "reading.jsonl.gz"  # what the recogniser read of each frame of a video game
# the camera's condition each kind of fault should bring (light and resize blind nothing;
# a dropout gives no frames at all: the live feed says `lost` by its clock, not a frame)
ALERTS = {"freeze": "frozen", "black": "covered", "occlude": "covered", "bump": "moved"}
GLANCE_FRAMES = 5  # the scripted player looks at the phone every 5 frames (3 a second at 15 fps)
FAULT_SECONDS = {"dropout": 2.0, "freeze": 2.0, "black": 1.5, "bump": 0.0, "occlude": 3.0,
                 "light": 6.0, "resize": 3.0}


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
    cases.append(("already_attacked", [*opening, EndTurn(), EndTurn(),
                                       Play(player="p1", card="6H"), EndTurn(), EndTurn(),
                                       Attack(attacker="6H", target="p2"),
                                       Attack(attacker="6H", target="p2")]))
    cases.append(("target_stealthed", [*opening, *[EndTurn()] * 3, Play(player="p2", card="6H"),
                                       EndTurn(), Play(player="p1", card="2C"), EndTurn(),
                                       Attack(attacker="6H", target="2C")]))
    return cases


@dataclass
class Score:
    """One game's figures against its truth."""

    right: bool
    truth: int  # events the table shows
    given: int  # events the tracker gave
    matched: int
    questions: int
    illegal_alerts: int
    misses: dict[str, int]
    wrong_cards: list[str]  # cards the log names that the game never played there
    secret_suits: list[str] = field(default_factory=list)  # of those, face-down secrets
    unsure_alerts: int = 0  # rule breaks the camera may have misread: asked, not flagged
    revisions: int = 0  # provisional events the next view took back (fast, then right)
    invented: int = 0  # events in the final log (anyone's) that did not happen, counted
    # with the scripted player (bench.player): its taps and fixes, and the wrong events
    # that stayed on the phone over 10 s
    taps: int | None = None
    fixes: int = 0
    lingered: int = 0
    frame_ms: list[float] = field(default_factory=list)
    delays_ms: list[float] = field(default_factory=list)
    # with faults: events done while the camera was blind, and of them recovered …
    blind_events: int = 0
    blind_recovered: int = 0
    # … each fault's kind, seconds to its alert (None: none came) and back to reading
    faults: list[tuple[str, float | None, float | None]] = field(default_factory=list)


def score(truth: Game, tracker: LiveTracker) -> tuple[Score, list[tuple[int, int]]]:
    """The tracker's game against the truth's; and the matched (truth, tracker) indices of
    the events compared (those of the kinds the camera reports, in order: the camera's, and
    those a person put right on the phone)."""
    wanted = [(i, event_key(e)) for i, e in enumerate(truth.events) if e.type in SEEN]
    got = [(i, event_key(e)) for i, e in enumerate(tracker.events) if e.type in SEEN]
    matcher = difflib.SequenceMatcher(a=[k for _, k in wanted], b=[k for _, k in got],
                                      autojunk=False)
    pairs = [(wanted[b.a + k][0], got[b.b + k][0]) for b in matcher.get_matching_blocks()
             for k in range(b.size)]
    found = {k for _, k in got}
    misses: dict[str, int] = {}
    for _, key in wanted:
        if key not in found:
            kind = json.loads(key)["type"]
            misses[kind] = misses.get(kind, 0) + 1
    played = {(e.player, e.card) for e in truth.events if isinstance(e, Play)}
    wrong = [e for e in tracker.events if isinstance(e, Play)
             and (e.player, e.card) not in played]
    # a secret is set face down: its suit is a guess until it is turned over
    secrets = [e.card for e in wrong if truth.sides[e.player].hero.is_secret(e.card)]
    return Score(readable_state(tracker.game) == readable_state(truth), len(wanted), len(got),
                 len(pairs), len(tracker.asked()),
                 sum(1 for a in tracker.game.alerts if a.severity == "illegal"), misses,
                 [e.card for e in wrong], secret_suits=secrets,
                 unsure_alerts=sum(a.severity == "unsure" for a in tracker.game.alerts),
                 revisions=tracker.revisions, invented=_invented(truth, tracker)), pairs


def _invented(truth: Game, tracker: LiveTracker) -> int:
    """The final log's events of the kinds a camera reports that the game does not have
    (as many of a kind as it has too many), whoever put them there."""
    def kinds(events: list[Event]) -> Counter:
        return Counter(event_key(e) for e in events if e.type in SEEN)
    return sum((kinds(tracker.events) - kinds(truth.events)).values())


def fault_spec(game: int, count: int, events: int) -> str | None:
    """`count` faults for game number `game`: kinds in turn across the games, at even
    spaces through a game of about `events` events."""
    from simulator.game_faults import KINDS
    from simulator.game_video import SECONDS_AN_EVENT

    seconds = SECONDS_AN_EVENT * events
    kinds = [KINDS[(game * count + k) % len(KINDS)] for k in range(count)]
    return ",".join(f"{kind}@{seconds * (k + 1) / (count + 1):.1f}+{FAULT_SECONDS[kind]:g}"
                    for k, kind in enumerate(kinds)) or None


def video_game(truth: Game, folder: Path, seed: int, fps: float, deck: bool = False,
               faults: str | None = None, player: bool = False) -> tuple[Score, LiveTracker]:
    """Render the game (with the camera `faults` of `simulate --faults`), read it back
    through the real path, score it; with `deck`, the game's deck registered first
    (`registered_deck`); with `player`, the scripted player at the phone (`bench.player`)."""
    from simulator.game_video import simulate
    from tracker.camera.reader import TableReader
    from tracker.camera.recording import Reading, frames_of, read_phone

    folder.mkdir(parents=True, exist_ok=True)
    dump_log(truth.events, folder / "game.jsonl")
    simulate(folder / "game.jsonl", folder / "video", seed=seed, fps=fps, faults=faults,
             progress=False)
    inputs = read_phone(folder / "video" / "phone.jsonl")
    video = folder / "video"
    reader = TableReader(LiveTracker(), deck=registered_deck(video, seed) if deck else None)
    applied: list[int] = []  # the frame at which each of the tracker's events was applied
    frame_ms: list[float] = []
    seen = []  # each frame's cards and moving zones, kept to study a game again offline
    conditions: dict[int, str] = {}  # the camera's condition at each frame there was
    at_the_phone = ScriptedPlayer(truth.events, fps, _done(folder)) if player else None
    for index, frame in frames_of(folder / "video" / "frames"):
        started = time.thread_time()
        if frame is not None:
            reader.look(index, frame)
            conditions[index] = reader.status
        for event in inputs.pop(index, []):
            reader.phone(index, event)
        frame_ms.append(1000 * (time.thread_time() - started))
        applied += [index] * (len(reader.tracker.events) - len(applied))
        seen.append(None if reader.seen is None else (reader.sighted, reader.moving))
        _glance(at_the_phone, index, reader.tracker)
    result = _read_to_the_end(truth, reader, applied, folder, fps, frame_ms,
                              conditions if faults else None, at_the_phone)
    result.frame_ms = frame_ms
    Reading(seen, fps, read_phone(folder / "video" / "phone.jsonl")).save(
        folder / "video" / READING)
    shutil.rmtree(folder / "video" / "frames")  # hundreds of MB a game
    return result, reader.tracker


def _score_faults(result: Score, truth: Game, pairs: list[tuple[int, int]], done: list[int],
                  video: Path, conditions: dict[int, str], fps: float) -> None:
    """Each fault's alert and recovery (`conditions`: the camera's at each frame read, in
    order), and the events done (`done`: their frames) while the camera was blind."""
    faults = [json.loads(line) for line in (video / "faults.jsonl").read_text().splitlines()]
    matched = {t for t, _ in pairs}
    blind = [i for i, frame in enumerate(done) if truth.events[i].type in SEEN and any(
        f["first_frame"] <= frame <= f["last_frame"] + 1 for f in faults)]
    result.blind_events, result.blind_recovered = len(blind), len(set(blind) & matched)
    for fault in faults:
        first, last, kind = fault["first_frame"], fault["last_frame"], fault["kind"]
        alert = next((n for n in conditions if n >= first
                      and conditions[n] == ALERTS.get(kind)), None) if kind in ALERTS else None
        back = next((n for n in conditions if n > last and conditions[n] == "ok"), None)
        result.faults.append((kind, None if alert is None or alert > last + fps else
                              (alert - first) / fps, None if back is None else (back - last) / fps))


def replay_game(truth: Game, folder: Path, fps: float, player: bool = False) -> Score:
    """A game `video_game` rendered and read, its recogniser's cards and moving zones a
    frame (its `Reading`) given again to the stabilizer and tracker as TableReader gives them:
    the tracking half of the path as it is now, on the camera's reading as it was; with
    `player`, the scripted player at the phone."""
    from tracker.camera.reader import TableReader
    from tracker.camera.recording import Reading

    reading = Reading.load(folder / "video" / READING)
    inputs = {frame: list(events) for frame, events in reading.inputs.items()}
    reader = TableReader(LiveTracker())
    applied: list[int] = []
    at_the_phone = ScriptedPlayer(truth.events, fps, _done(folder)) if player else None
    for index, _ in reader.read(enumerate(reading.frames), inputs):
        applied += [index] * (len(reader.tracker.events) - len(applied))
        _glance(at_the_phone, index, reader.tracker)
    return _read_to_the_end(truth, reader, applied, folder, fps, [0.0] * len(reading.frames),
                            player=at_the_phone)


def _done(folder: Path) -> list[int]:
    """The frame at which each of the truth's events is complete on the table."""
    return [json.loads(line)["frame"] for line in
            (folder / "video" / "truth.jsonl").read_text().splitlines()]


def _glance(player: ScriptedPlayer | None, index: int, tracker: LiveTracker) -> None:
    """The scripted player looks at the phone a few times a second."""
    if player is not None and index % GLANCE_FRAMES == 0:
        player.look(index, tracker)


def _read_to_the_end(truth: Game, reader, applied: list[int], folder: Path, fps: float,
                     frame_ms: list[float], conditions: dict[int, str] | None = None,
                     player: ScriptedPlayer | None = None) -> Score:
    """The recording read (`applied`: the frame each of the tracker's events came at, so
    far; `frame_ms`: each frame's time): what waits is decided, the game scored, and each
    event's delay from the card laid (the event done) to the state changed; with the
    camera's `conditions` a frame, its faults scored too (`_score_faults`); with the
    scripted `player`, after its last look at the phone, and its taps."""
    reader.settle(len(frame_ms))  # the recording ended
    if player is not None:
        player.look(len(frame_ms) - 1, reader.tracker, final=True)
    applied += [len(frame_ms) - 1] * (len(reader.tracker.events) - len(applied))
    result, pairs = score(truth, reader.tracker)
    if player is not None:
        result.taps, result.fixes, result.lingered = player.taps, player.fixes, player.lingered
    done = _done(folder)
    result.delays_ms = [max(0.0, (applied[i] - done[t]) * 1000 / fps) + frame_ms[applied[i]]
                        for t, i in pairs]
    if conditions is not None:
        _score_faults(result, truth, pairs, done, folder / "video", conditions, fps)
    return result


def perfect_game(truth: Game) -> Score:
    tracker, _, _ = track_perfectly(truth.events)
    return score(truth, tracker)[0]


def report(scores: list[Score], what: str, elapsed: float) -> None:
    games = len(scores)
    if not games:
        return
    matched = sum(s.matched for s in scores)
    truth, given = sum(s.truth for s in scores), sum(s.given for s in scores)
    misses: dict[str, int] = {}
    for s in scores:
        for kind, n in s.misses.items():
            misses[kind] = misses.get(kind, 0) + n
    questions = [s.questions for s in scores]
    print(f"hearthtop tracker benchmark: {games} bot games {what}; {elapsed:.1f} s")
    print(f"final state exactly right: {sum(s.right for s in scores)} / {games}")
    print(f"events: precision {100 * matched / max(given, 1):.1f} %, recall "
          f"{100 * matched / max(truth, 1):.1f} % ({matched} of {truth} recovered, "
          f"{given} given)")
    print("events not recovered by type: " + ", ".join(f"{k} {v}" for k, v in
                                                        sorted(misses.items()) if v))
    wrong = [c for s in scores for c in s.wrong_cards]
    secrets = [c for s in scores for c in s.secret_suits]
    print(f"cards named that the game did not play there: {len(wrong)} {sorted(wrong)}; of "
          f"them face-down secrets, whose suit no camera sees until turned: {len(secrets)}")
    print(f"questions a game: median {statistics.median(questions):g}, max {max(questions)}")
    print(f"events in the final logs that did not happen: {sum(s.invented for s in scores)}")
    print(f"illegal alerts on legal games: {sum(s.illegal_alerts for s in scores)}; rule "
          f"breaks asked, not flagged (unsure): {sum(s.unsure_alerts for s in scores)}")
    frames = [ms for s in scores for ms in s.frame_ms]
    if frames:
        p95 = statistics.quantiles(frames, n=20)[-1]
        print(f"time a frame (one core, 1280x720, decoding aside): median "
              f"{statistics.median(frames):.1f} ms, p95 {p95:.1f} ms, max {max(frames):.0f} ms "
              f"over {len(frames)} frames")
    delays = [ms for s in scores for ms in s.delays_ms]
    if delays:
        print(f"table settled -> state changed: median {statistics.median(delays):.0f} ms, "
              f"p95 {statistics.quantiles(delays, n=20)[-1]:.0f} ms over {len(delays)} events;"
              f" revisions a game: median "
              f"{statistics.median(s.revisions for s in scores):g}, max "
              f"{max(s.revisions for s in scores)}")
    taps = [s.taps for s in scores if s.taps is not None]
    if taps:
        print(f"scripted player: taps a game median {statistics.median(taps):g}, max "
              f"{max(taps)} ({sum(s.fixes for s in scores)} fixes in all); wrong events on "
              f"the phone over 10 s: {sum(s.lingered for s in scores)}")
    faults = [f for s in scores for f in s.faults]
    if faults:
        fault_report(scores, faults, given - matched)


def fault_report(scores: list[Score], faults: list, invented: int) -> None:
    blind = sum(s.blind_events for s in scores)
    print(f"camera faults: {len(faults)}; events done while the camera was blind: "
          f"{sum(s.blind_recovered for s in scores)} of {blind} recovered; events in the logs "
          f"that did not happen (given, not matched): {invented}")
    for kind in sorted({f[0] for f in faults}):
        mine = [f for f in faults if f[0] == kind]
        alerts = [f[1] for f in mine if f[1] is not None]
        backs = [f[2] for f in mine if f[2] is not None]
        said = (f"alert ({ALERTS[kind]}) in {len(alerts)}/{len(mine)}" + (
            f", median {statistics.median(alerts):.2f} s, max {max(alerts):.2f} s"
            if alerts else "")) if kind in ALERTS else "no alert expected"
        print(f"  {kind:<8} x{len(mine):<3} {said}; read again after: " + (
            f"median {statistics.median(backs):.2f} s, max {max(backs):.2f} s" if backs
            else "never"))


def illegal_report(seed: int, video: tuple[Path, float] | None = None) -> None:
    """Each kind of illegal play in a game, seen by the perfect camera or, with `video`
    (work folder, fps), rendered and read back."""
    flagged = 0
    cases = illegal_games(seed)
    for number, (code, events) in enumerate(cases):
        if video is None:
            tracker, _, _ = track_perfectly(events)
        else:
            game = Game.replay(events)
            _, tracker = video_game(game, video[0] / f"illegal{number:02d}", seed, video[1])
        codes = {a.code for a in tracker.game.alerts if a.severity == "illegal"}
        flagged += code in codes
        print(f"  illegal {code:<20} {'flagged' if code in codes else 'MISSED'}"
              + ("" if code in codes else f" (alerts: {sorted(codes)})"), flush=True)
    print(f"illegal kinds flagged: {flagged} / {len(cases)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--camera", choices=("perfect", "video", "replay"), default="perfect",
                        help="what the tracker is given (default perfect; replay: the "
                             "cards each frame of the games a video run kept in --work)")
    parser.add_argument("--games", type=int, help="games (default 36 perfect, 30 video)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--first", type=int, default=0,
                        help="video: the first game to run (the others are read from --work "
                             "if there, skipped if not: runs may share the games)")
    parser.add_argument("--fps", type=float, default=15.0, help="video frames a second")
    parser.add_argument("--work", type=Path, help="video: keep each game here, and resume")
    parser.add_argument("--deck", action="store_true",
                        help="video: each game's deck registered first, as its players would "
                             "(one photo of it laid out)")
    parser.add_argument("--stop", type=int,
                        help="video: the game to stop before (with --first: a share of the "
                             "games, for runs side by side)")
    parser.add_argument("--faults", type=int, default=0, metavar="K",
                        help="video: K camera faults a game, kinds in turn (simulate --faults)")
    parser.add_argument("--player", action="store_true",
                        help="video, replay: a scripted player at the phone answers the "
                             "questions and fixes wrong events as the page offers "
                             "(bench.player); the figures are after its taps")
    parser.add_argument("--no-illegal", action="store_true",
                        help="leave out the illegal plays (a run sharing --work with another)")
    args = parser.parse_args()
    games = args.games or (36 if args.camera == "perfect" else 30)
    names = hero_names()
    started = time.perf_counter()
    scores = []
    work = args.work or Path(tempfile.mkdtemp(prefix="hearthtop-bench-"))
    for number in range(games):
        heroes = (names[number % 9], names[(number * 4 + 3) % 9])
        truth = play_game(heroes, seed=args.seed + number, sensible=True)
        if args.camera == "perfect":
            scores.append(perfect_game(truth))
            continue
        if args.camera == "replay":
            if (work / f"game{number:02d}" / "video" / READING).exists():
                scores.append(replay_game(truth, work / f"game{number:02d}", args.fps,
                                          args.player))
            continue
        done = work / f"game{number:02d}" / ("score-player.json" if args.player
                                             else "score.json")
        if done.exists():
            scores.append(Score(**json.loads(done.read_text())))
            continue
        if number < args.first or (args.stop is not None and number >= args.stop):
            continue
        scores.append(video_game(truth, done.parent, args.seed + number, args.fps,
                                 args.deck, fault_spec(number, args.faults,
                                                       len(truth.events)), args.player)[0])
        done.write_text(json.dumps(asdict(scores[-1])))
        print(f"game {number}: {heroes[0]} v {heroes[1]}, right {scores[-1].right}, "
              f"{scores[-1].matched}/{scores[-1].truth} events", flush=True)
    what = {"perfect": "through a perfect camera (the reconciler and live tracker alone)",
            "video": f"simulated as table video at {args.fps:g} fps and read back by the real "
                     "path" + (f", {args.faults} camera faults a game" if args.faults else ""),
            "replay": "read from video once, their cards replayed to the stabilizer and "
                      "tracker as they are now"}[args.camera]
    report(scores, what, time.perf_counter() - started)
    if not args.no_illegal and args.camera != "replay":
        illegal_report(args.seed, None if args.camera == "perfect" else (work, args.fps))


if __name__ == "__main__":
    main()
