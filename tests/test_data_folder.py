"""The data folder is its owner's alone, and nothing in it stops the table (issue 42).

Real files in a temporary folder, a real server on loopback: folders 0700 and files 0600 as
they are made (whatever the umask) and an older folder set so at start; a stray file, a
FIFO, a link out of the folder or a folder named like a game harms nobody, and no answer
shows a path or what a stored file holds; a current game that cannot be read starts no
game, is kept as it is, and `run` says so in one line.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import pytest
from live_server import ThreadServer, free_port

from companion_api.decks import DeckStore
from companion_api.store import DataFolder, StoreError
from tracker.rules import NewGame
from vision import Deck
from vision.deck import template_size

HEROES = {"p1": "jaina", "p2": "thrall"}
SECRET = "SECRET-VALUE-123"
SECRET_LINE = f'{{"type":"play","player":"p1","card":"{SECRET}"}}\n'
PROMPT = 5.0  # seconds: far more than any answer takes on loopback


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def modes(root: Path) -> dict[str, int]:
    """Every folder's and file's mode under `root` (itself included), by relative path."""
    found = {".": mode(root)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = mode(path)
    return found


@contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def play_a_little(server) -> None:
    """A new game, a few events, an undo (a log rewritten whole)."""
    server.post("/api/new-game", {"heroes": HEROES}).raise_for_status()
    server.event("mulligan", player="p1", count=0)
    server.event("mulligan", player="p2", count=1)
    server.post("/api/undo").raise_for_status()
    server.event("mulligan", player="p2", count=0)


def a_deck(name: str = "mine") -> Deck:
    return Deck(name, ("AS",), np.zeros((1, template_size()), np.float32), ("AS",))


def leaks(text: str, root: Path) -> bool:
    return SECRET in text or str(root) in text or str(root.resolve()) in text


# --- modes ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mask", [0o022, 0o000, 0o002])
def test_every_folder_and_file_is_the_owners_alone_whatever_the_umask(tmp_path, mask):
    data = tmp_path / "data"
    with umask(mask):
        with ThreadServer(data) as server:
            play_a_little(server)
            assert server.get("/api/games").status_code == 200
            game = server.session.game_id
        DeckStore(data).add(a_deck())
    found = modes(data)
    assert {"token", "current", "games", f"games/{game}.jsonl", "decks",
            "decks/mine.npz"} <= set(found)
    for name, bits in found.items():
        want = 0o700 if (data / name).is_dir() else 0o600
        assert bits == want, f"{name}: {bits:o} (umask {mask:o})"
    assert not list(data.rglob("*.tmp")) and not list((data / "decks").glob(".saving-*"))


def test_a_deck_registered_before_any_game_makes_a_private_data_folder(tmp_path):
    data = tmp_path / "new" / "data"
    with umask(0o022):
        DeckStore(data).add(a_deck("first"))
    assert mode(data) == 0o700 and mode(data / "decks") == 0o700
    assert mode(data / "decks" / "first.npz") == 0o600
    assert DeckStore(data).load("first").cards == ("AS",)


def test_an_older_folder_left_open_is_made_private_at_start(tmp_path):
    data = tmp_path / "data"
    token = "abcdefghijklmnopqrstuvwx"
    for folder in (data, data / "games", data / "decks"):
        folder.mkdir()
        folder.chmod(0o755)
    (data / "token").write_text(token + "\n")
    (data / "token").chmod(0o644)
    with ThreadServer(data) as server:
        assert server.token == token  # the same token: phones keep their address
        play_a_little(server)
    for folder in (data, data / "games", data / "decks"):
        assert mode(folder) == 0o700, folder
    assert mode(data / "token") == 0o600 and mode(data / "current") == 0o600


def test_the_token_file_is_never_open_to_others_while_it_is_made(tmp_path, monkeypatch):
    """No 0644 moment: the file is 0600 from its creation (each file made is looked at as
    it is renamed into place)."""
    seen = []
    real = os.replace

    def replace(src, dst):
        seen.append((Path(dst).name, mode(Path(src))))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with umask(0o022):
        folder = DataFolder(tmp_path / "data")
        folder.token()
        folder.save(DataFolder.new_id(), [NewGame(heroes=HEROES)])
    assert seen and all(bits == 0o600 for _, bits in seen), seen
    assert {"token", "current"} <= {name for name, _ in seen}


def test_a_damaged_token_is_still_a_refusal_in_one_line(tmp_path):
    data = tmp_path / "data"
    DataFolder(data)
    (data / "token").write_text("not a token!\n")
    with pytest.raises(StoreError, match="not a token"):
        DataFolder(data).token()
    (data / "token").unlink()
    outside = tmp_path / "elsewhere"
    outside.write_text("abcdefghijklmnopqrstuvwx\n")
    (data / "token").symlink_to(outside)  # never followed out of the folder
    with pytest.raises(StoreError, match="symbolic link"):
        DataFolder(data).token()
    (data / "token").unlink()
    os.mkfifo(data / "token")  # refused at once, never waited on
    started = time.monotonic()
    with pytest.raises(StoreError, match="not a regular file"):
        DataFolder(data).token()
    assert time.monotonic() - started < 1
    result = _run(data)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith("hearthtop-companion: error: ")


# --- strays -----------------------------------------------------------------------------------
def _strays(tmp_path: Path, games: Path) -> None:
    (tmp_path / "outside.jsonl").write_text(SECRET_LINE)
    (games / "X.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (games / "my game (copy).jsonl").write_text(SECRET_LINE)
    os.mkfifo(games / "20990101-000000-fifo.jsonl")
    (games / "Y.jsonl").mkdir()
    (games / "20200101-000000-aaaa.jsonl.tmp").write_text(SECRET_LINE)
    (games / "notes.txt").write_text(SECRET_LINE)


def test_stray_files_in_the_games_folder_harm_nobody(tmp_path):
    data = tmp_path / "data"
    with ThreadServer(data) as server:
        play_a_little(server)
        game = server.session.game_id
        _strays(tmp_path, data / "games")
        answer = server.get("/api/games", timeout=PROMPT)  # the FIFO is never waited on
        assert answer.status_code == 200 and not leaks(answer.text, tmp_path)
        listed = {g["id"]: g for g in answer.json()}
        # only names that are game ids, never a link out of the folder; what is no regular
        # file is listed as one that cannot be read
        assert set(listed) == {game, "20990101-000000-fifo", "Y"}
        assert listed[game]["error"] is None and listed[game]["current"]
        for odd in ("20990101-000000-fifo", "Y"):
            assert listed[odd]["error"] == f"game {odd} cannot be read: not a regular file"
        assert server.get("/api/games/X/log.jsonl").status_code == 404
        for odd in ("20990101-000000-fifo", "Y"):
            refused = server.get(f"/api/games/{odd}/log.jsonl", timeout=PROMPT)
            assert refused.status_code == 409 and not leaks(refused.text, tmp_path)
            assert refused.json()["detail"] == (f"the log of game {odd!r} cannot be read: "
                                                "not a regular file")
        for name in ("my game (copy)", "my%20game%20(copy)", "20200101-000000-aaaa"):
            assert server.get(f"/api/games/{name}/log.jsonl").status_code == 404
        # the game lock is free: writes go on
        assert server.post("/api/events", {"type": "end_turn"}, timeout=PROMPT
                           ).status_code in (200, 409, 422)
        assert server.get(f"/api/games/{game}/log.jsonl").status_code == 200


def test_reading_a_fifo_or_a_link_is_refused_at_once(tmp_path):
    folder = DataFolder(tmp_path / "data")
    _strays(tmp_path, folder.games)
    assert folder.game_ids() == ["Y", "20990101-000000-fifo"]
    started = time.monotonic()
    with pytest.raises(StoreError, match="not a regular file") as fifo:
        folder.read("20990101-000000-fifo")
    assert time.monotonic() - started < 1 and fifo.value.reason == "not a regular file"
    with pytest.raises(StoreError, match="symbolic link") as link:
        folder.read("X")
    assert SECRET not in str(link.value)


def test_a_game_with_a_broken_line_is_listed_with_its_error_and_no_contents(tmp_path):
    data = tmp_path / "data"
    broken = "20200101-000000-bad1"
    with ThreadServer(data) as server:
        play_a_little(server)
        first = (data / "games" / f"{server.session.game_id}.jsonl").read_text()
        (data / "games" / f"{broken}.jsonl").write_text(
            "\n".join(first.splitlines()[:2]) + "\n" + SECRET_LINE)
        answer = server.get("/api/games")
        listed = {g["id"]: g for g in answer.json()}
        assert listed[broken]["error"] == f"game {broken} cannot be read: line 3 is not an event"
        refused = server.get(f"/api/games/{broken}/log.jsonl")
        assert refused.status_code == 409
        assert refused.json()["detail"] == (f"the log of game {broken!r} cannot be read: "
                                            "line 3 is not an event")
        for text in (answer.text, refused.text):
            assert not leaks(text, tmp_path)
    with pytest.raises(StoreError, match=f"{broken}.jsonl:3: .*{SECRET}"):  # the server's own
        DataFolder(data).read(broken)


def test_a_game_the_rules_refuse_names_its_line(tmp_path):
    data = tmp_path / "data"
    refused = "20200101-000000-bad2"
    DataFolder(data)
    (data / "games" / f"{refused}.jsonl").write_text('\n{"type": "end_turn"}\n')
    with ThreadServer(data) as server:
        [listed] = server.get("/api/games").json()
        assert listed["error"] == f"game {refused} cannot be read: line 2 cannot be played again"
        assert server.get(f"/api/games/{refused}/log.jsonl").status_code == 200  # it parses


# --- a current game that cannot be read -------------------------------------------------------
def _run(data: Path, *extra: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion_api.cli", "run", "--no-qr",
                           "--host", "127.0.0.1", "--port", str(free_port()), "--data",
                           str(data), *extra], capture_output=True, text=True, timeout=timeout)


@contextmanager
def running(data: Path) -> Iterator[tuple[str, dict]]:
    """`hearthtop-companion run` as a child process; yields its address and, once it has
    stopped (Ctrl-C), fills the dict with what it printed."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "companion_api.cli", "run", "--no-qr", "--host", "127.0.0.1",
         "--port", str(port), "--data", str(data)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url, printed = f"http://127.0.0.1:{port}", {}
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise AssertionError(f"the server stopped: {process.communicate()}")
            try:
                httpx.get(url + "/api/state", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.1)
        yield url, printed
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        printed["stdout"], printed["stderr"] = process.communicate(timeout=15)


UNREADABLE = {
    "a broken line": ("{first}" + SECRET_LINE, "line 2 is not an event", ".jsonl:2: "),
    "a line the rules refuse": ('\n{"type": "end_turn"}\n{first}',  # before any game
                                "line 2 cannot be played again", ".jsonl:2: "),
    "a link out of the folder": (None, "cannot be opened (a symbolic link, not a file)",
                                 "symbolic link"),
}


@pytest.mark.parametrize("case", UNREADABLE)
def test_a_folder_whose_current_game_cannot_be_read_starts(tmp_path, case):
    text, reason, said = UNREADABLE[case]
    data, game = tmp_path / "data", "20261127-101010-ab12"
    folder = DataFolder(data)
    folder.save(game, [NewGame(heroes=HEROES)])
    log = folder.log_path(game)
    first = log.read_text()
    if text is None:
        (tmp_path / "outside.jsonl").write_text(first + SECRET_LINE)
        log.unlink()
        log.symlink_to(tmp_path / "outside.jsonl")
    else:
        log.write_text(text.replace("{first}", first))
    before = os.lstat(log), (tmp_path / "outside.jsonl" if text is None else log).read_bytes()

    with running(data) as (url, printed):
        state = httpx.get(url + "/api/state").json()
        assert state["game"] is None and state["events"] == 0  # as a fresh folder
        games = httpx.get(url + "/api/games")
        if text is not None:
            [listed] = games.json()
            assert listed["id"] == game and not listed["current"]
            assert listed["error"] == f"game {game} cannot be read: {reason}"
        assert not leaks(games.text, tmp_path) and not leaks(httpx.get(url + "/api/state").text,
                                                             tmp_path)
        token = (data / "token").read_text().strip()
        started = httpx.post(url + "/api/new-game", json={"heroes": HEROES},
                             headers={"Authorization": f"Bearer {token}"})
        assert started.status_code == 200 and started.json()["state"]["game"] != game

    lines = printed["stderr"].splitlines()
    assert len(lines) == 1, printed["stderr"]
    assert lines[0].startswith(f"hearthtop-companion: warning: game {game} cannot be read (")
    assert said in lines[0]
    assert lines[0].endswith("; it is kept as it is, and a new game can be started")
    after = os.lstat(log), (tmp_path / "outside.jsonl" if text is None else log).read_bytes()
    assert after[1] == before[1]  # the bad log is kept as it was
    assert (after[0].st_ino, after[0].st_mtime_ns) == (before[0].st_ino, before[0].st_mtime_ns)


def test_a_current_pointer_that_names_no_game_starts_with_one_warning(tmp_path):
    data = tmp_path / "data"
    DataFolder(data)
    (data / "current").write_text("../../secret\n")
    with running(data) as (url, printed):
        assert httpx.get(url + "/api/state").json()["game"] is None
    lines = printed["stderr"].splitlines()
    assert len(lines) == 1 and lines[0].startswith("hearthtop-companion: warning: ")
    assert "'../../secret' is not a game id" in lines[0]
    assert lines[0].endswith("no game is in progress, and a new game can be started")
