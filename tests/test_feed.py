"""The live source's recordings: a recorded game found with the phone's inputs that came
with it, played by the wall clock (frames dropped, never lagging), and the session keeping
each game the camera starts."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
from live_server import HANG_S, free_port

from companion_api.cli import main
from companion_api.server import DEMO_RECORDING
from companion_api.session import Session
from companion_api.store import DataFolder
from tracker.camera.feed import CameraFeed, CameraUpdate
from tracker.camera.live import LiveTracker
from tracker.camera.recording import Recording
from tracker.rules.events import EndTurn, NewGame

NEW = {"type": "new_game", "heroes": {"p1": "jaina", "p2": "thrall"}}
BLANK = np.full((180, 320, 3), 60, np.uint8)  # a table the camera cannot find


def _simulated(folder, frames: int, fps: float, phone: list[tuple[int, dict]]):
    """A folder laid out as `simulate` writes it: frames/, phone.jsonl, meta.json."""
    (folder / "frames").mkdir(parents=True)
    for number in range(frames):
        cv2.imwrite(str(folder / "frames" / f"{number:06d}.jpg"), BLANK)
    (folder / "meta.json").write_text(json.dumps({"fps": fps}))
    (folder / "phone.jsonl").write_text("".join(
        json.dumps({"frame": frame, "event": event}) + "\n" for frame, event in phone))
    return folder


def test_a_simulated_game_is_found_with_its_phone_inputs_and_frame_rate(tmp_path):
    folder = _simulated(tmp_path / "game", 3, 12.5, [(0, NEW), (2, {"type": "end_turn"})])
    for given in (folder, folder / "frames"):
        recording = Recording.at(given)
        assert recording.frames == folder / "frames" and recording.fps == 12.5
        assert sorted(recording.inputs) == [0, 2]
        assert recording.inputs[2][0].type == "end_turn"


def test_a_video_file_plays_at_its_own_frame_rate(tmp_path):
    video = tmp_path / "table.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 12, (320, 180))
    for _ in range(3):
        writer.write(BLANK)
    writer.release()
    recording = Recording.at(video)
    assert recording.fps == 12 and recording.inputs == {}


def test_a_recording_whose_phone_file_is_broken_is_refused_in_one_line(tmp_path, capsys):
    folder = _simulated(tmp_path / "game", 1, 15, [(0, NEW)])
    (folder / "phone.jsonl").write_text('{"frame": 0, "event": {"type": "play"}}\n')
    code = main(["run", "--source", str(folder), "--data", str(tmp_path / "data"),
                 "--port", "1", "--no-qr"])
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert "phone.jsonl:1: not a phone input" in error
    assert not (tmp_path / "data").exists()


def test_a_recording_that_is_no_video_is_refused_in_one_line(tmp_path, capsys):
    junk = tmp_path / "table.mp4"
    junk.write_bytes(bytes(range(256)) * 64)
    empty = tmp_path / "frames"
    empty.mkdir()
    for source, says in ((junk, "not a picture, a video or an image folder"),
                         (empty, "no images")):
        code = main(["run", "--source", str(source), "--data", str(tmp_path / "data"),
                     "--port", "1", "--no-qr"])
        error = capsys.readouterr().err
        assert code == 2 and error.count("\n") == 1 and says in error
    assert not (tmp_path / "data").exists()


def test_a_recording_too_fast_to_read_drops_frames_but_not_the_phone_inputs(tmp_path):
    # 100,000 frames a second: every frame is late once the one before has been read
    folder = _simulated(tmp_path / "game", 40, 100_000,
                        [(3, NEW), (20, {"type": "end_turn"}), (39, {"type": "end_turn"})])
    published = []
    feed = CameraFeed(Recording.at(folder), lambda update: published.append(
        (len(update.game.events), update.camera, update.game_number)))
    feed.start()
    deadline = time.monotonic() + HANG_S
    while not published or published[-1] != (3, "lost", 1):
        assert time.monotonic() < deadline, f"the recording never ended: {published}"
        time.sleep(0.05)
    feed.stop()
    assert feed.frame < 10  # looked at: the first, and a few the clock allowed
    assert [e.type for e in feed.tracker.events] == ["new_game", "end_turn", "end_turn"]


def test_a_new_game_from_the_camera_with_the_same_heroes_keeps_the_last_one(tmp_path):
    tracker = LiveTracker()
    tracker.phone(NewGame(heroes={"p1": "jaina", "p2": "thrall"}))
    tracker.phone(EndTurn())
    session = Session(DataFolder(tmp_path))
    session.follow(CameraUpdate(tracker.game.copy(), "ok", [], game_number=1))
    first = session.game_id
    tracker.phone(NewGame(heroes={"p1": "jaina", "p2": "thrall"}))  # the same first event
    session.follow(CameraUpdate(tracker.game.copy(), "ok", [], game_number=2))
    assert session.game_id != first and len(session.game.events) == 1
    assert len(DataFolder(tmp_path).read(first).events) == 2  # not undone into the new one


class _MjpegCamera:
    """An IP camera on loopback: `frames` (JPEG) looped as an MJPEG stream at `fps`, that
    can be switched off (every connection dropped) and on again at the same address."""

    def __init__(self, frames: list[bytes], port: int, fps: float = 12.0) -> None:
        self.frames, self.port, self.fps = frames, port, fps
        self.server: ThreadingHTTPServer | None = None

    def on(self) -> None:
        camera = self

        class Stream(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                number = 0
                with contextlib.suppress(OSError):
                    while camera.server is server:
                        jpeg = camera.frames[number % len(camera.frames)]
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\n"
                                         b"Content-Length: %d\r\n\r\n" % len(jpeg) + jpeg
                                         + b"\r\n")
                        number += 1
                        time.sleep(1 / camera.fps)

            def log_message(self, *args) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Stream)
        server.daemon_threads = True
        self.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def off(self) -> None:
        server, self.server = self.server, None  # the streams stop at their next frame
        server.shutdown()
        server.server_close()


def test_a_stream_that_stops_is_reopened_and_the_game_goes_on(tmp_path):
    """A phone used as an IP camera goes to sleep and wakes: the feed says the camera is
    lost within 2 s, keeps taking the phone's inputs, and reads the table again once the
    stream is back, at the same address."""
    video = cv2.VideoCapture(str(DEMO_RECORDING))
    frames = [cv2.imencode(".jpg", video.read()[1])[1].tobytes() for _ in range(24)]
    video.release()
    camera = _MjpegCamera(frames, free_port())
    camera.on()
    seen: list[tuple[float, str]] = []
    feed = CameraFeed(f"http://127.0.0.1:{camera.port}/stream.mjpg",
                      lambda update: seen.append((time.monotonic(), update.camera)))

    def wait_for(status: str, seconds: float) -> float:
        deadline = time.monotonic() + seconds
        while not seen or seen[-1][1] != status:
            assert time.monotonic() < deadline, f"never {status}: {seen}"
            time.sleep(0.02)
        return seen[-1][0]

    feed.start()
    try:
        wait_for("ok", HANG_S)  # the models load first
        frames_before = feed.frame
        off = time.monotonic()
        camera.off()
        assert wait_for("lost", 10) - off <= 2.0
        feed.phone(NewGame(heroes={"p1": "jaina", "p2": "thrall"}))  # the phone still counts
        time.sleep(3)  # the feed tries again, waiting longer each time
        camera.on()
        back = time.monotonic()
        assert wait_for("ok", 15) - back <= 8.0
        assert feed.frame > frames_before
        assert [e.type for e in feed.tracker.events] == ["new_game"]
    finally:
        feed.stop()
        camera.off()


def test_camera_updates_that_wait_collapse_within_a_game_never_across_games(tmp_path):
    """While the game is busy (the lock held: a slow disk, a long request), the camera's
    updates wait: of one game only the newest is followed (it holds the whole game); the
    last update of a game is followed before the next game's, so its log is kept whole."""
    import asyncio

    from live_server import ThreadServer

    def update(tracker: LiveTracker, number: int) -> CameraUpdate:
        return CameraUpdate(tracker.game.copy(), "ok", [], game_number=number)

    with ThreadServer(tmp_path) as live:
        table = live.app.state.table
        held, release = threading.Event(), threading.Event()

        async def hold() -> None:
            async with table.lock:
                held.set()
                await asyncio.to_thread(release.wait, HANG_S)  # until released

        asyncio.run_coroutine_threadsafe(hold(), table._loop)
        assert held.wait(HANG_S)
        version = live.get("/api/state").json()["version"]
        first = LiveTracker()
        first.phone(NewGame(heroes={"p1": "jaina", "p2": "thrall"}))
        table.camera_changed(update(first, 1))
        for _ in range(2):
            first.phone(EndTurn())
            table.camera_changed(update(first, 1))
        second = LiveTracker()
        second.phone(NewGame(heroes={"p1": "jaina", "p2": "thrall"}))
        table.camera_changed(update(second, 2))
        release.set()
        deadline = time.monotonic() + HANG_S
        while (state := live.get("/api/state").json())["version"] < version + 2:
            assert time.monotonic() < deadline, state["version"]
            time.sleep(0.02)
        assert state["version"] == version + 2  # two follows: the first game's last, the second
        assert state["events"] == 1
        kept = DataFolder(tmp_path)
        games = kept.game_ids()
        assert len(games) == 2
        assert sorted(len(kept.read(g).events) for g in games) == [1, 3]
