"""The table's server keeps its token and its data folder to itself: tokens compared in
constant time, never in an access log, pages that load only their own code and send no
referrer, no CORS unless asked for, and no game id that leads out of the data folder."""

from __future__ import annotations

import logging
import threading
import time

import httpx
import pytest
import uvicorn
from live_server import ThreadServer, free_port

from companion_api import security
from companion_api.app import create_app
from companion_api.cli import main
from companion_api.store import DataFolder, StoreError


def test_the_token_is_compared_in_constant_time(tmp_path, monkeypatch):
    compared = []

    def compare(a, b):
        compared.append((a, b))
        return a == b

    monkeypatch.setattr(security.secrets, "compare_digest", compare)
    with ThreadServer(tmp_path) as server:
        wrong = httpx.post(server.url + "/api/undo", headers={"Authorization": "Bearer nope"})
        right = server.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "thrall"}})
    assert wrong.status_code == 403 and right.status_code == 200
    assert compared == [(b"nope", server.token.encode()),
                        (server.token.encode(), server.token.encode())]


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_the_token_is_never_in_the_access_log(tmp_path):
    """uvicorn logs each request's path and query: the phone's address carries the token."""
    app = create_app(tmp_path)
    token, port = app.state.table.token, free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="info",
                                           access_log=True))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    access, log = logging.getLogger("uvicorn.access"), _Lines()
    access.addHandler(log)
    try:
        url = f"http://127.0.0.1:{port}"
        httpx.get(f"{url}/?token={token}")
        httpx.get(f"{url}/api/state?x=1&TOKEN={token}&y=2")
        httpx.post(f"{url}/api/undo?token={token}")
    finally:
        access.removeHandler(log)
        server.should_exit = True
        thread.join(10)
    lines = log.lines
    assert len(lines) == 3 and "/api/state?x=1&TOKEN=…&y=2" in lines[1]
    assert not any(token in line for line in lines)


def test_pages_load_only_their_own_code_and_send_no_referrer(tmp_path):
    with ThreadServer(tmp_path) as server:
        for path in ("/", "/overlay", "/watch"):
            headers = server.get(path).headers
            policy = headers["content-security-policy"]
            assert "script-src 'self'" in policy and "connect-src 'self'" in policy
            assert "frame-ancestors 'none'" in policy and "unsafe" not in policy
            assert headers["referrer-policy"] == "no-referrer"
        for path in ("/api/state", "/static/phone.js", "/api/nothing"):
            headers = server.get(path).headers
            assert headers["referrer-policy"] == "no-referrer"
            assert headers["x-content-type-options"] == "nosniff"


def _preflight(server, origin: str) -> httpx.Response:
    return httpx.options(server.url + "/api/events", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type"})


def test_no_cors_unless_asked_for(tmp_path):
    with ThreadServer(tmp_path / "closed") as server:
        assert "access-control-allow-origin" not in _preflight(server, "http://evil.test").headers
        answer = server.get("/api/state", headers={"Origin": "http://evil.test"})
        assert "access-control-allow-origin" not in answer.headers
    with ThreadServer(tmp_path / "open", allow_origins=("http://obs.test:8080",)) as server:
        allowed = _preflight(server, "http://obs.test:8080")
        assert allowed.headers["access-control-allow-origin"] == "http://obs.test:8080"
        assert "access-control-allow-origin" not in _preflight(server, "http://evil.test").headers


@pytest.mark.parametrize("origin", ["obs.test", "http://obs.test/path", "javascript:alert(1)"])
def test_an_origin_that_is_not_one_is_one_line(origin, capsys):
    assert main(["run", "--allow-origin", origin]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hearthtop-companion: error: --allow-origin") and err.count("\n") == 1


def test_no_game_id_leads_out_of_the_data_folder(tmp_path):
    (tmp_path / "secret.jsonl").write_text('{"type": "end_turn"}\n')
    with ThreadServer(tmp_path / "data") as server:
        server.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "thrall"}})
        for game in ("..%2F..%2Fsecret", "%2E%2E", "a%00b", "x" * 300):
            answer = server.get(f"/api/games/{game}/log.jsonl")
            assert answer.status_code == 404, game
            assert answer.headers["content-type"] == "application/json"
        assert server.get("/api/games/../../secret/log.jsonl").status_code == 404
    folder = DataFolder(tmp_path / "data")
    for game in ("../secret", "/etc/passwd", "", ".hidden", "a/b", "a\nb"):
        with pytest.raises(StoreError, match="not a game id"):
            folder.log_path(game)


def test_a_current_game_pointer_out_of_the_folder_starts_no_game_and_leads_nowhere(tmp_path):
    """Not refused (one unreadable pointer must not stop the table): no game in progress, a
    new one may start, and nothing out of the folder is read."""
    data = tmp_path / "data"
    DataFolder(data)
    (tmp_path / "secret.jsonl").write_text('{"type": "end_turn"}\n')
    (data / "current").write_text("../../secret\n")
    with ThreadServer(data) as server:
        assert "not a game id" in server.session.unreadable
        assert "\n" not in server.session.unreadable
        assert server.get("/api/state").json()["game"] is None
        assert server.get("/api/games").json() == []
        server.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "thrall"}}
                    ).raise_for_status()
    assert (data / "current").read_text().strip() == server.session.game_id
