"""A real companion server on loopback for tests: uvicorn in a thread of the test process
(so a test can reach the session), or `hearthtop-companion run` as a child process (so a
test can kill it)."""

from __future__ import annotations

import functools
import json
import os
import resource
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from companion_api.app import create_app
from companion_api.server import Network

# What the recogniser read, frame by frame, of a bot game (Anduin against Jaina) rendered as
# table video by the simulator: `python -m bench.track --camera video --games 1 --work DIR`
# keeps it as DIR/game00/video/reading.jsonl.gz. Played again, the camera ends the game with
# four questions open: three hero powers and a Frostbolt whose target it could not see.
READING = Path(__file__).resolve().parent / "data" / "reading_anduin_jaina.jsonl.gz"

# seconds: how long a test polls a server (or a camera) for what it waits for before it
# fails. Not a wait on time: each poll ends as soon as the program says what it waits for;
# this only bounds a hang, generously (a loaded machine may take many seconds).
HANG_S = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class LiveServer:
    url: str
    token: str
    app: Any = None

    @property
    def session(self):
        return self.app.state.table.session

    def post(self, path: str, body: dict | None = None, *, headers: dict | None = None,
             **kwargs) -> httpx.Response:
        return httpx.post(self.url + path, json=body,
                          headers={"Authorization": f"Bearer {self.token}", **(headers or {})},
                          **kwargs)

    def get(self, path: str, **kwargs) -> httpx.Response:
        return httpx.get(self.url + path, **kwargs)

    def event(self, type: str, **fields) -> httpx.Response:
        response = self.post("/api/events", {"type": type, **fields})
        response.raise_for_status()
        return response


def recorded_camera(path: Path = READING):
    """A camera for `create_app(camera=…)`: a recorded reading of a game played through
    the real camera feed (the stabilizer, the live tracker), every frame, as fast as they
    are taken; then the feed waits, as after a recording, taking the phone's answers."""
    from tracker.camera import CameraFeed, Reading

    reading = Reading.load(path)
    return lambda subscriber: CameraFeed(reading, subscriber, speed=None)


def played(reading):
    """The game a reading gives, played through the stabilizer and the live tracker with no
    server, every frame, as the feed plays it."""
    from tracker.camera import LiveTracker, TableReader

    reader = TableReader(LiveTracker())
    for _ in reader.read(enumerate(reading.frames), dict(reading.inputs)):
        pass
    reader.settle()
    return reader.tracker.game


@functools.cache
def recorded_end(read: str | None = None, seen: str | None = None) -> str:
    """The final state (JSON) of the recorded reading played with no server; with `read`
    misread as `seen` every time. Played once a test session: the tests that want it share
    it."""
    from tracker.camera import Reading

    reading = Reading.load(READING)
    if read is not None:
        reading = misread(reading, read, seen)
    return json.dumps(played(reading).state().model_dump(mode="json"))


def misread(reading, read: str, seen: str):
    """The reading with every sighting of card `read` (and every guess of it) named `seen`:
    a camera that misreads one card every time it looks."""
    from dataclasses import replace

    from tracker.camera import Reading

    def fix(sighting):
        return replace(sighting, card=seen if sighting.card == read else sighting.card,
                       guess=seen if sighting.guess == read else sighting.guess)

    return Reading([None if f is None else ([fix(s) for s in f[0]], f[1])
                    for f in reading.frames], reading.fps, reading.inputs)


class HeldFrames:
    """A reading's frames, the feed held before frame `at` (a table left as it is) until
    `go()`, however long the test takes: a person taps meanwhile, and the fix waits for the
    next frame. (A test calls `go()` in a `finally`; a feed still held when its server stops
    is a daemon thread, left.)"""

    def __init__(self, frames: list, at: int) -> None:
        self.frames, self.at = frames, at
        self.reached, self.going = threading.Event(), threading.Event()

    def __iter__(self):
        for index, frame in enumerate(self.frames):
            if index == self.at:
                self.reached.set()
                self.going.wait()
            yield frame

    def __len__(self) -> int:
        return len(self.frames)

    def go(self) -> None:
        self.going.set()


def held_camera(reading, at: int):
    """A camera for `create_app(camera=…)` that plays `reading` as `recorded_camera` does,
    held before frame `at` (`HeldFrames`); and the frames, to let it go on."""
    from dataclasses import replace

    from tracker.camera import CameraFeed

    held = HeldFrames(reading.frames, at)
    return (lambda subscriber: CameraFeed(replace(reading, frames=held), subscriber,
                                          speed=None)), held


def wait_for_camera(live: LiveServer, timeout: float = HANG_S) -> dict:
    """The state once the recorded camera has played its game to the end (`timeout`: a
    bound on a hang, not a wait: the state is polled until it says so)."""
    deadline = time.monotonic() + timeout
    while True:
        state = live.get("/api/state").json()
        if state.get("camera") == "lost" and state["events"] > 1:
            return state
        if time.monotonic() > deadline:
            raise TimeoutError(f"the camera never finished its game: {state.get('camera')}")
        time.sleep(0.05)


class ThreadServer:
    """uvicorn serving `create_app(data, **options)` in a thread, as `run` serves it (its
    `Network`: the bounds on connections, no proxy); a context manager."""

    def __init__(self, data: Path, network: Network | None = None, *,
                 host: str = "127.0.0.1", **options: Any) -> None:
        self.app = create_app(data, **options)
        port = free_port()
        config = (network or Network()).uvicorn_config(self.app, host=host, port=port)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.live = LiveServer(f"http://127.0.0.1:{port}", self.app.state.table.token, self.app)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + HANG_S
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self.live

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


class ProcessServer:
    """`hearthtop-companion run --data DATA` as a child process; `kill()` is SIGKILL.
    `open_files`: the most it may hold open; `trust`: it serves HTTPS (`--certfile` in
    `extra`) with a certificate this context trusts."""

    def __init__(self, data: Path, *extra: str, open_files: int | None = None,
                 trust: ssl.SSLContext | None = None) -> None:
        self.data, self.extra = data, extra
        self.open_files, self.trust = open_files, trust
        self.process: subprocess.Popen | None = None

    def _limits(self) -> None:  # in the child, before it runs
        if self.open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def start(self) -> LiveServer:
        port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion_api.cli", "run", "--host", "127.0.0.1",
             "--port", str(port), "--data", str(self.data), "--no-qr", *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=self._limits)
        url = f"{'https' if self.trust else 'http'}://127.0.0.1:{port}"
        deadline = time.monotonic() + HANG_S  # it answers within seconds
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped: {self.process.stdout.read()}")
            try:
                httpx.get(url + "/api/state", timeout=5, verify=self.trust or True)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError("the server never answered") from None
                time.sleep(0.1)
        token = self.data / "token"  # none for the demo, whose folder is its own
        return LiveServer(url, token.read_text().strip() if token.exists() else "")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> str:
        """Ctrl-C, as a user stops it; what it printed."""
        self.process.send_signal(signal.SIGINT)
        output, _ = self.process.communicate(timeout=15)
        return output
