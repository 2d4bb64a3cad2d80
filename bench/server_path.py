"""Benchmark: from the table settling to the phone, through the real server.

The camera's reading of games that `python -m bench.track --camera video --work DIR` rendered
and read (each game's `reading.jsonl.gz`: the cards the recogniser named in each frame) is
played again at the recording's frame rate, in real time, through the server as `run
--source` serves it: the camera feed's thread (stabilizer, live tracker), the session that
follows the camera's game and keeps its log on disk, the hub, one WebSocket client on
loopback. The recogniser is left out (its reading is given as it was), so the figures are
the tracking and the server, not the pixels.

For each game, and over all:
- settle -> phone: from the frame at which an event is complete on the table (the
  simulator's truth) to the first state on the phone that holds it: median, p95; and its
  two parts, settle -> the camera's change (the stabilizer waiting for the view to hold,
  the tracker explaining it) and the camera's change -> phone (the server);
- the session's CPU for following the camera: per update it was given, per event of the log;
- the process's CPU but the camera's thread (the session, the disk, the hub, the client),
  per event of the log;
- an answer to the game's first question, given at its end (the camera's history changes
  from there): the session's time to follow it, wall and CPU, its log written again.

    python -m bench.server_path --work DIR [--speed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from websockets.asyncio.client import connect

from bench.common import free_port
from companion_api.app import create_app
from companion_api.session import Session
from companion_api.store import DataFolder
from simulator.game_views import event_key
from tracker.camera.feed import CameraFeed, CameraUpdate
from tracker.camera.live import LiveTracker
from tracker.camera.reader import TableReader
from tracker.camera.recording import Reading
from tracker.rules.events import parse_event

SEEN = ("play", "attack", "hero_power", "secret_revealed")  # what the camera reports
READING = "reading.jsonl.gz"


class Timed:
    """CPU seconds of the session following the camera, and of the camera's thread."""

    def __init__(self) -> None:
        self.session = self.feed = 0.0
        self.updates = 0
        follow, run = Session.follow, CameraFeed._run

        def timed_follow(session: Session, update) -> None:
            start = time.thread_time()
            try:
                follow(session, update)
            finally:
                self.session += time.thread_time() - start
                self.updates += 1

        def timed_run(feed: CameraFeed) -> None:
            start = time.thread_time()
            try:
                run(feed)
            finally:
                self.feed += time.thread_time() - start

        Session.follow, CameraFeed._run = timed_follow, timed_run


def phone_client(port: int, arrivals: list[tuple[float, int]], done: threading.Event) -> None:
    """A phone: every state pushed, with when it came and how many events it holds."""

    async def read() -> None:
        async with connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
            while not done.is_set():
                try:
                    message = await asyncio.wait_for(ws.recv(), 0.5)
                except TimeoutError:
                    continue
                arrivals.append((time.monotonic(), json.loads(message)["state"]["events"]))

    asyncio.run(read())


def run_game(folder: Path, speed: float, timed: Timed) -> dict:
    reading = Reading.load(folder / "video" / READING)
    feeds: list[CameraFeed] = []
    changes: list[tuple[float, int]] = []
    started: list[float] = []
    step = CameraFeed._step

    def first_frame(feed: CameraFeed, reader, index, frame, inputs=()) -> None:
        if not started:
            started.append(time.monotonic())  # frame 0 is due now
        step(feed, reader, index, frame, inputs)

    def camera(subscriber) -> CameraFeed:
        def noted(update) -> None:  # when the camera's game changed, and to what length
            changes.append((time.monotonic(), len(update.game.events)))
            subscriber(update)

        feeds.append(CameraFeed(reading, noted, speed=speed))
        feeds[-1]._step = first_frame.__get__(feeds[-1])
        return feeds[-1]

    app = create_app(Path(tempfile.mkdtemp(prefix="hearthtop-server-path-")), camera=camera)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    arrivals: list[tuple[float, int]] = []
    done = threading.Event()
    timed.session = timed.feed = 0.0
    timed.updates = 0
    before = resource.getrusage(resource.RUSAGE_SELF)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    client = threading.Thread(target=phone_client, args=(port, arrivals, done), daemon=True)
    client.start()
    deadline = time.monotonic() + len(reading.frames) / (reading.fps * speed) + 120
    while time.monotonic() < deadline and not (
            feeds and feeds[0].status == "lost" and feeds[0].frame >= len(reading.frames) - 5):
        time.sleep(0.2)
    time.sleep(1.0)
    done.set()
    client.join(5)
    log = app.state.table.session.log()
    server.should_exit = True
    thread.join(10)
    after = resource.getrusage(resource.RUSAGE_SELF)
    delays = settle_to_phone(folder, log, [arrivals, changes], started[0], reading.fps * speed)
    return {"delays": delays, "log": len(log), "session_cpu": timed.session,
            "updates": timed.updates, "feed_cpu": timed.feed,
            "process_cpu": (after.ru_utime + after.ru_stime)
            - (before.ru_utime + before.ru_stime)}


def settle_to_phone(folder: Path, log: list, seen: list[list[tuple[float, int]]],
                    start: float, rate: float) -> list[tuple[float, float]]:
    """Each event the camera got right (matched in order with the truth): ms from the frame
    at which it was complete on the table to the first state on the phone holding it, and
    to the first change of the camera's game holding it (`seen`: the phone's states and
    the camera's changes, each (when, events))."""
    truth = [parse_event(line) for line in (folder / "game.jsonl").read_text().splitlines()
             if line.strip()]
    done = [json.loads(line)["frame"] for line in
            (folder / "video" / "truth.jsonl").read_text().splitlines()]
    wanted = [(i, event_key(e)) for i, e in enumerate(truth) if e.type in SEEN]
    got = [(i, event_key(e)) for i, e in enumerate(log) if e.source == "camera"]
    matcher = difflib.SequenceMatcher(a=[k for _, k in wanted], b=[k for _, k in got],
                                      autojunk=False)
    delays = []
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            t, i = wanted[block.a + k][0], got[block.b + k][0]
            due = start + done[t] / rate
            shown, changed = (next((when for when, count in times
                                    if count > i and when >= due - 5), None) for times in seen)
            if shown is not None and changed is not None:
                delays.append((max(0.0, shown - due) * 1000, max(0.0, changed - due) * 1000))
    return delays


def answer_cost(folder: Path) -> tuple[int, int, float, float] | None:
    """The game read to its end as fast as it can be, then its first question answered the
    other way: where the answer rewrites the log from, the log's length, and the session's
    ms (wall, CPU) to follow the camera's game after it; None if the camera asked nothing."""
    reading = Reading.load(folder / "video" / READING)
    reader = TableReader(LiveTracker())
    inputs = {frame: list(events) for frame, events in reading.inputs.items()}
    for _ in reader.read(enumerate(reading.frames), inputs):
        pass
    reader.settle(len(reading.frames))
    tracker = reader.tracker
    session = Session(DataFolder(Path(tempfile.mkdtemp(prefix="hearthtop-answer-"))))
    session.follow(CameraUpdate(tracker.game.copy(), "ok", tracker.questions(), 1))
    if not tracker.open_choices():
        return None
    choice = tracker.open_choices()[0]
    tracker.answer(choice, 1)
    wall, cpu = time.perf_counter(), time.process_time()
    session.follow(CameraUpdate(tracker.game.copy(), "ok", tracker.questions(), 1))
    return (choice.index, len(tracker.events), 1000 * (time.perf_counter() - wall),
            1000 * (time.process_time() - cpu))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True,
                        help="the folder `bench.track --camera video --work` kept games in")
    parser.add_argument("--speed", type=float, default=1.0, help="1: real time (default)")
    args = parser.parse_args()
    timed = Timed()
    results = []
    for folder in sorted(args.work.glob("game*")):
        if (folder / "video" / READING).exists():
            results.append(run_game(folder, args.speed, timed))
            r = results[-1]
            print(f"{folder.name}: {r['log']} events, {r['updates']} updates, settle -> phone "
                  f"median {statistics.median(d for d, _ in r['delays']):.0f} ms", flush=True)
    if not results:
        raise SystemExit(f"no {READING} under {args.work}: run bench.track --camera video")
    pairs = [d for r in results for d in r["delays"]]
    events = sum(r["log"] for r in results)
    updates = sum(r["updates"] for r in results)
    session = sum(r["session_cpu"] for r in results)
    rest = sum(r["process_cpu"] - r["feed_cpu"] for r in results)
    for name, delays in (("settle -> phone", [shown for shown, _ in pairs]),
                         ("  settle -> the camera's change", [changed for _, changed in pairs]),
                         ("  the camera's change -> phone", [s - c for s, c in pairs])):
        print(f"{name}: median {statistics.median(delays):.1f} ms, p95 "
              f"{statistics.quantiles(delays, n=20)[-1]:.1f} ms over {len(delays)} events")
    print(f"session following the camera: {1000 * session / updates:.2f} ms CPU an update "
          f"({updates}), {1000 * session / events:.2f} ms an event of the log ({events})")
    print(f"process CPU but the camera's thread: {1000 * rest / events:.1f} ms an event")
    for folder in sorted(args.work.glob("game*")):
        if (folder / "video" / READING).exists():
            cost = answer_cost(folder)
            if cost is None:
                print(f"{folder.name}: the camera asked nothing: no answer to time")
                continue
            at, length, wall, cpu = cost
            print(f"{folder.name}: an answer that changes event {at} of {length}: the session "
                  f"follows it in {wall:.1f} ms ({cpu:.1f} ms CPU)")


if __name__ == "__main__":
    main()
