"""`hearthtop-companion run` as people use it: the address with the token, the demo, a clean
Ctrl-C, and a game that survives SIGKILL at any moment with nothing acknowledged lost."""

from __future__ import annotations

import contextlib
import errno
import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
from live_server import HANG_S, ProcessServer, ThreadServer

from companion_api import store
from companion_api.app import ServerLimits
from companion_api.cli import replay_log
from companion_api.session import Session
from companion_api.store import DataFolder
from tracker.rules.bot import play_game
from tracker.rules.events import NewGame

VOLATILE = {"version", "recent", "recent_events", "pending", "game", "events"}


def _state(live) -> dict:
    return {k: v for k, v in live.get("/api/state").json().items() if k not in VOLATILE}


def _log(live) -> str:
    """The log as the phone downloads it (with the token: while a secret lies face down,
    the log names it)."""
    response = live.get("/api/log.jsonl", headers={"Authorization": f"Bearer {live.token}"})
    response.raise_for_status()
    return response.text


def _replayed(tmp_path, live) -> dict:
    log = tmp_path / "downloaded.jsonl"
    log.write_text(_log(live))
    return replay_log(log).state().model_dump(mode="json")


def _a_game(heroes: tuple[str, str], seed: int = 3) -> list[dict]:
    """A whole bot game's events after its new_game (whose deck order a phone-kept game
    does not have), as a phone would post them."""
    events = play_game(heroes, seed=seed).events
    assert isinstance(events[0], NewGame)
    return [e.model_dump(mode="json", exclude_none=True, exclude={"source"})
            for e in events[1:]]


def test_run_prints_the_phone_address_with_the_token_and_stops_on_ctrl_c(tmp_path):
    server = ProcessServer(tmp_path / "data")
    live = server.start()
    live.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "thrall"}}).raise_for_status()
    output = server.stop()
    assert server.process.returncode == 0
    assert "Traceback" not in output
    token = (tmp_path / "data" / "token").read_text().strip()
    assert re.search(rf"^http://127\.0\.0\.1:\d+/\?token={re.escape(token)}$", output, re.M)
    assert "/overlay" in output and "stopped." in output
    assert (tmp_path / "data" / "token").stat().st_mode & 0o077 == 0  # the owner's only


def test_the_token_is_kept_across_starts(tmp_path):
    first = DataFolder(tmp_path).token()
    assert DataFolder(tmp_path).token() == first and len(first) >= 20


def test_a_game_survives_sigkill_with_the_same_state_and_log(tmp_path):
    data = tmp_path / "data"
    server = ProcessServer(data)
    live = server.start()
    live.post("/api/new-game", {"heroes": {"p1": "uther", "p2": "guldan"}}).raise_for_status()
    for event in _a_game(("uther", "guldan"))[:40]:
        live.post("/api/events", event).raise_for_status()
    live.post("/api/undo").raise_for_status()
    before, log = _state(live), live.get("/api/log.jsonl").text
    server.kill()

    live = server.start()
    try:
        assert _state(live) == before
        assert live.get("/api/log.jsonl").text == log
        assert _state(live) == {k: v for k, v in _replayed(tmp_path, live).items()
                                if k not in VOLATILE}
    finally:
        server.kill()


def test_sigkill_in_a_stream_of_events_loses_nothing_that_was_acknowledged(tmp_path):
    data = tmp_path / "data"
    server = ProcessServer(data)
    live = server.start()
    live.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "rexxar"}}).raise_for_status()
    acknowledged: list[dict] = []

    def post_until_killed() -> None:
        for event in _a_game(("jaina", "rexxar"), seed=5):
            try:
                response = live.post("/api/events", event, timeout=5)
            except httpx.TransportError:
                return
            if response.status_code == 429:
                time.sleep(0.05)
                continue
            response.raise_for_status()
            acknowledged.append(event)

    poster = threading.Thread(target=post_until_killed)
    poster.start()
    deadline = time.monotonic() + HANG_S
    while len(acknowledged) < 8 and poster.is_alive():  # the stream is under way: kill it
        assert time.monotonic() < deadline, "the events were never acknowledged"
        time.sleep(0.005)
    server.kill()
    poster.join(10)
    assert acknowledged, "no event was acknowledged before the kill"

    live = server.start()
    try:
        kept = [json.loads(line) for line in _log(live).splitlines()]
        kept = [{k: v for k, v in e.items() if k != "source"} for e in kept[1:]]
        # every acknowledged event is there, in order; at most one more (written, then killed
        # before the answer went out)
        assert kept[:len(acknowledged)] == acknowledged
        assert len(kept) - len(acknowledged) in (0, 1)
        assert _state(live) == {k: v for k, v in _replayed(tmp_path, live).items()
                                if k not in VOLATILE}
    finally:
        server.kill()


def test_a_line_torn_by_a_kill_is_dropped_and_the_game_goes_on(tmp_path):
    data, game = DataFolder(tmp_path), DataFolder.new_id()
    data.save(game, [NewGame(heroes={"p1": "jaina", "p2": "thrall"})])
    with data.log_path(game).open("a") as log:
        log.write('{"type":"mulligan","player":"p1","cou')  # a power cut mid-write
    stored = DataFolder(tmp_path).current()
    assert stored.torn and len(stored.events) == 1

    server = ProcessServer(tmp_path)
    live = server.start()
    try:
        live.event("mulligan", player="p1", count=1)
        assert live.get("/api/state").json()["events"] == 2
        assert data.log_path(game).read_text().count("\n") == 2
    finally:
        output = server.stop()
    warning = [line for line in output.splitlines() if "cut off" in line]
    assert len(warning) == 1 and warning[0].startswith("hearthtop-companion: warning: ")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion_api.cli", "run", "--no-qr", *args],
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("args, says", [
    (("--port", "0"), "--port 0: a port is a number from 1 to 65535"),
    (("--source", "/no/such/recording"), "--source /no/such/recording: not a camera index"),
    (("--data", "/proc/none/here"), "cannot make the data folder"),
    (("--demo", "--demo-pace", "0"), "--demo-pace 0: give a speed from 0.1 to 100"),
    (("--demo", "--source", "0"), "--demo: the demo plays its own recording"),
])
def test_run_refuses_what_it_cannot_use_in_one_line(args, says):
    result = _run(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("hearthtop-companion: error: ") and says in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_port_in_use_is_a_one_line_error(tmp_path):
    server = ProcessServer(tmp_path / "one")
    live = server.start()
    try:
        port = live.url.rsplit(":", 1)[1]
        result = _run("--host", "127.0.0.1", "--port", port, "--data", str(tmp_path / "two"))
        assert result.returncode == 2
        assert result.stderr == f"hearthtop-companion: error: 127.0.0.1:{port}: is in use: " \
                                "choose another with --port\n"
    finally:
        server.kill()


def _until(live, test, seconds: float, what: str) -> dict:
    """The state once `test(state)` holds, polled; fails after `seconds` (a bound on a
    hang: the poll ends as soon as the state says it)."""
    deadline = time.monotonic() + seconds
    while not test(state := live.get("/api/state").json()):
        assert time.monotonic() < deadline, f"{what} within {seconds:g} s: {state}"
        time.sleep(0.1)
    return state


def _minions(state: dict) -> list[str]:
    return [m["id"] for side in (state["players"] or {}).values() for m in side["minions"]]


def test_the_demo_plays_its_recording_through_the_camera_as_a_live_game(tmp_path):
    # four times real time: the recording's first minion (7H, 40 s in) is read in ~10 s
    server = ProcessServer(tmp_path, "--demo", "--demo-pace", "4")
    live = server.start()
    try:
        state = _until(live, lambda s: s["players"], HANG_S,
                       "the recording's phone inputs started a game")
        assert {p: s["hero"] for p, s in state["players"].items()} == {
            "p1": "valeera", "p2": "thrall"}
        state = _until(live, _minions, HANG_S, "a minion was read from the table")
        assert state["camera"] in ("ok", "moved")
        with httpx.stream("GET", live.url + "/stream.mjpg", timeout=10) as stream:
            chunks = stream.iter_bytes()
            first = next(chunks)
            while first.count(b"\xff\xd9") < 1:  # the whole first JPEG
                first += next(chunks)
        assert first.startswith(b"--frame\r\nContent-Type: image/jpeg")
        jpeg = first[first.index(b"\xff\xd8"):first.index(b"\xff\xd9") + 2]
        assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (
            720, 1280, 3)
    finally:
        output = server.stop()
    assert "Table camera:" in output and "Traceback" not in output
    assert not list(tmp_path.glob("games/*.jsonl"))  # the demo's games are not kept


def test_the_demo_starts_its_game_again_after_the_end(tmp_path):
    server = ProcessServer(tmp_path, "--demo", "--demo-pace", "30")  # 4 s a game
    live = server.start()
    try:
        deadline = time.monotonic() + HANG_S
        while len(games := live.get("/api/games").json()) < 2:
            assert time.monotonic() < deadline, f"the demo never started again: {games}"
            time.sleep(0.2)
        assert all(g["heroes"] == {"p1": "valeera", "p2": "thrall"} for g in games)
        # the game before is kept as it went, not undone into the next one
        assert max(g["events"] for g in games) > 1
    finally:
        server.stop()


def _disk_full(fd: int) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_keeps_the_game_in_memory_and_saves_it_when_there_is_room(
        tmp_path, monkeypatch):
    """Play goes on while the disk is full (the state says why nothing is saved), what was
    saved stays saved, no half line is left, and the whole log is written once there is
    room again, through the running server's own retry."""
    with ThreadServer(tmp_path, limits=ServerLimits(save_again_s=0.1)) as server:
        game = play_game(("jaina", "thrall"), seed=3).events
        server.post("/api/new-game", {"heroes": game[0].heroes,
                                      "deck": game[0].deck}).raise_for_status()
        server.post("/api/events", _body(game[1])).raise_for_status()
        path = server.session.data.log_path(server.session.game_id)
        saved = path.read_bytes()
        monkeypatch.setattr(store.os, "fsync", _disk_full)
        for event in game[2:8]:
            assert server.post("/api/events", _body(event)).status_code == 200
        server.post("/api/undo").raise_for_status()
        state = server.get("/api/state").json()
        assert "No space left on device" in state["unsaved"] and state["events"] == 7
        assert path.read_bytes() == saved  # what was saved stays, with no half line after it
        assert not list(tmp_path.rglob("*.tmp"))  # nor a half-written copy taking room
        monkeypatch.undo()  # room again: saved within the retry's period
        deadline = time.monotonic() + HANG_S
        while "unsaved" in server.get("/api/state").json():
            assert time.monotonic() < deadline, "the game was never saved again"
            time.sleep(0.05)
        assert DataFolder(tmp_path).current().events == server.session.log()
        # a new game begun on a full disk is saved, and made the current one, the same way
        monkeypatch.setattr(store.os, "fsync", _disk_full)
        server.post("/api/new-game", {"heroes": {"p1": "uther", "p2": "rexxar"}})
        assert "unsaved" in server.get("/api/state").json()
        monkeypatch.undo()
        server.post("/api/events", {"type": "mulligan", "player": "p1", "count": 0})
        current = DataFolder(tmp_path).current()
        assert current.game == server.session.game_id and len(current.events) == 2
        assert "unsaved" not in server.get("/api/state").json()


def _body(event) -> dict:
    return event.model_dump(mode="json", exclude_none=True, exclude={"source"})


def test_with_a_source_the_camera_keeps_the_game_and_the_phone_gives_the_rest(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    blank = np.full((360, 640, 3), 60, np.uint8)  # a table the camera cannot find
    for number in range(3):
        cv2.imwrite(str(frames / f"{number:06d}.jpg"), blank)
    (frames / "meta.json").write_text('{"fps": 2}')
    server = ProcessServer(tmp_path / "data", "--source", str(frames))
    live = server.start()
    try:
        deadline = time.monotonic() + HANG_S
        while live.get("/api/state").json().get("camera") != "lost":
            assert time.monotonic() < deadline, "the state never said the camera is lost"
            time.sleep(0.2)
        live.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "thrall"}}
                  ).raise_for_status()
        deadline = time.monotonic() + HANG_S
        while live.get("/api/state").json()["phase"] != "mulligan":
            assert time.monotonic() < deadline, "the phone's new game never reached the state"
            time.sleep(0.1)
        bad = live.post("/api/new-game", {"heroes": {"p1": "bob", "p2": "thrall"}})
        assert bad.status_code == 422 and "unknown hero 'bob'" in bad.json()["detail"]
        refused = live.post("/api/events", {"type": "markers", "player": "p1",
                                            "place": "armor", "count": 2})
        assert refused.status_code == 409 and "read from the table" in refused.json()["detail"]
        assert live.post("/api/undo").status_code == 409
        # a play the camera missed is the phone's to add
        live.post("/api/events", {"type": "play", "player": "p1", "card": "6H"}
                  ).raise_for_status()
        deadline = time.monotonic() + HANG_S
        while live.get("/api/state").json()["events"] < 2:
            assert time.monotonic() < deadline, "the missed play never reached the state"
            time.sleep(0.1)
        ghost = live.post("/api/events", {"type": "attack", "attacker": "9C", "target": "p2"})
        assert ghost.status_code == 422 and "9C" in ghost.json()["detail"]
        with httpx.stream("GET", live.url + "/stream.mjpg", timeout=10) as stream:
            assert stream.headers["content-type"].startswith("multipart/x-mixed-replace")
            first = next(stream.iter_bytes())
        assert first.startswith(b"--frame\r\nContent-Type: image/jpeg")
    finally:
        server.stop()


def test_the_session_follows_the_cameras_game_and_its_choices(tmp_path):
    """One engine: the session takes the camera's game as it is; its log on disk gains what
    is new, and is written again only when the camera's history changes (an answer)."""
    from tracker.camera.feed import CameraUpdate
    from tracker.camera.live import LiveTracker
    from tracker.camera.view import expected_view
    from tracker.rules.events import EndTurn, Play

    def update() -> CameraUpdate:
        return CameraUpdate(tracker.game.copy(), "ok", tracker.questions(), game_number=1)

    tracker = LiveTracker()
    tracker.phone(NewGame(heroes={"p1": "jaina", "p2": "garrosh"}))
    for _ in range(6):  # turn 7: p1 has the 4 mana Fireball costs
        tracker.phone(EndTurn())
    folder = DataFolder(tmp_path)
    session = Session(folder)
    session.follow(update())
    log = folder.log_path(session.game_id)
    truth = tracker.game.copy()
    truth.apply(Play(player="p1", card="AH", target="p2"))  # Fireball: no trace on the table
    tracker.seen(expected_view(truth))
    written = log.stat().st_ino
    session.follow(update())
    assert log.stat().st_ino == written  # appended to, not written again
    assert session.state()["camera"] == "ok"
    [question] = session.state()["pending"]
    assert [o["label"] for o in question["options"]] == [
        "p1 plays AH (Fireball) at p2", "p1 plays AH (Fireball) at p1"]
    assert session.game.events == tracker.game.events and session.game is not tracker.game
    hit = 20 - session.game.sides["p2"].health
    assert hit > 0 and session.game.sides["p1"].health == 20

    tracker.answer(tracker.choices[0], 1)  # a person says it went the other way
    session.follow(update())
    assert log.stat().st_ino != written  # the history changed: the log written again whole
    assert session.state()["pending"] == []
    assert session.game.sides["p1"].health == 20 - hit
    assert session.game.sides["p2"].health == 20
    assert [e.target for e in folder.current().events if e.type == "play"] == ["p1"]
    assert session.state()["recent"][-1].endswith(f"p1 plays AH (Fireball) at p1: p1 -{hit}")


def test_the_recent_lines_stay_those_of_the_game_through_adds_undos_and_rewrites(tmp_path):
    """The state's `recent` lines are kept from one change to the next (one line told a
    change, not eight): after any change they are what the game itself tells."""
    from companion_api.session import narration
    from tracker.camera.feed import CameraUpdate
    from tracker.rules.engine import EngineError, Game
    from tracker.rules.events import parse_event

    demo = Path(__file__).parent / "data" / "demo_game.jsonl"
    events = [parse_event(line) for line in demo.read_text().splitlines()[:30]]
    session = Session(DataFolder(tmp_path))
    session.new_game(events[0])
    for step, event in enumerate(events[1:], 1):
        session.add(event)
        if step % 7 == 0:
            for _ in range(3):
                session.undo()
                assert session.state()["recent"] == narration(session.game)
            for again in events[step - 2:step + 1]:
                session.add(again)
        assert session.state()["recent"] == narration(session.game)
    camera = Game.replay(events[:20])
    session.follow(CameraUpdate(camera, "ok", [], game_number=1))  # another game: afresh
    assert session.state()["recent"] == narration(camera)
    rewritten = Game.replay(events[:12])  # history changed at 12: two events taken out
    for event in events[14:20]:
        with contextlib.suppress(EngineError):
            rewritten.apply(event)
    session.follow(CameraUpdate(rewritten, "ok", [], game_number=1))
    assert session.state()["recent"] == narration(rewritten)
    assert len(narration(rewritten)) == 8
