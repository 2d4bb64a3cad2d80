"""The server against the network it runs on, tried as someone on the same Wi-Fi would: a
page of another site (a foreign Host by DNS rebinding, a foreign Origin), sockets held idle
or fed a byte at a time, a forged X-Forwarded-For, the security headers on every answer,
and HTTPS with a certificate of the user's own."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import re
import socket
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from live_server import ProcessServer, ThreadServer, free_port
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from companion_api.cli import main
from companion_api.connections import ConnectionLimits
from companion_api.dependencies import ServerLimits
from companion_api.server import Network

HEROES = {"heroes": {"p1": "jaina", "p2": "garrosh"}}
PROMPT = 10


def sentence(response: httpx.Response) -> str:
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and len(detail) < 200
    return detail


def ws_url(url: str) -> str:
    return url.replace("http", "ws", 1) + "/ws"


# --- other hosts, other sites ----------------------------------------------------------------
def test_a_foreign_host_is_refused_and_the_servers_own_names_answered(tmp_path):
    with ThreadServer(tmp_path, allow_hosts=("table.example.com",)) as live:
        port = live.url.rsplit(":", 1)[1]
        for host in ("attacker.example", "attacker.example:" + port, "127.0.0.1.evil.test",
                     "", "[bad"):
            refused = httpx.get(live.url + "/api/state", headers={"Host": host})
            assert refused.status_code == 403, host
            assert "allow-host" in sentence(refused)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST",
                     f"table.example.com:{port}", socket.gethostname()):
            assert httpx.get(live.url + "/api/state", headers={"Host": host}).status_code == 200
        # a refused write changes nothing, even with the token
        before = live.get("/api/state").json()["version"]
        write = live.post("/api/new-game", HEROES, headers={"Host": "attacker.example"})
        assert write.status_code == 403 and live.get("/api/state").json()["version"] == before
        with pytest.raises(InvalidStatus) as refused_socket:
            connect(ws_url(live.url), additional_headers={"Host": "attacker.example"},
                    open_timeout=PROMPT)
        assert refused_socket.value.response.status_code == 403


def test_the_address_a_request_came_in_on_is_one_of_the_servers_names(tmp_path):
    """Bound to every interface, the server answers to whichever of its addresses a phone
    used, with no list to keep: the one the connection came in on."""
    with ThreadServer(tmp_path, host="0.0.0.0") as live:
        port = int(live.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.2", port)) as raw:  # another loopback address
            raw.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.2:{port}\r\n"
                        "Connection: close\r\n\r\n".encode())
            assert _read_all(raw).startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.2", port)) as raw:
            raw.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.3:{port}\r\n"
                        "Connection: close\r\n\r\n".encode())
            assert _read_all(raw).startswith(b"HTTP/1.1 403")


def test_writes_and_sockets_from_another_sites_page_are_refused(tmp_path):
    allowed = "https://obs.example.com"
    with ThreadServer(tmp_path, allow_origins=(allowed,)) as live:
        own = live.url  # the phone's page: its Origin is the server's own address
        assert live.post("/api/new-game", HEROES, headers={"Origin": own}).status_code == 200
        assert live.post("/api/new-game", HEROES, headers={"Origin": allowed}).status_code == 200
        version = live.get("/api/state").json()["version"]
        for origin in ("http://attacker.example", "null", own.replace("127.0.0.1", "localhost"),
                       own.replace("http:", "https:")):
            refused = live.post("/api/events", {"type": "end_turn"},
                                headers={"Origin": origin})
            assert refused.status_code == 403, origin
            assert "allow-origin" in sentence(refused)
        assert live.get("/api/state").json()["version"] == version
        # reading is for anyone: a watch page elsewhere may GET the state
        assert live.get("/api/state", headers={"Origin": "http://elsewhere"}).status_code == 200
        with pytest.raises(InvalidStatus) as refused_socket:
            connect(ws_url(live.url), origin="http://attacker.example", open_timeout=PROMPT)
        assert refused_socket.value.response.status_code == 403
        with connect(ws_url(live.url), origin=own, open_timeout=PROMPT) as mine:
            assert '"type":"state"' in mine.recv(timeout=PROMPT)
        with connect(ws_url(live.url), open_timeout=PROMPT) as tool:  # no browser, no Origin
            assert '"type":"state"' in tool.recv(timeout=PROMPT)


# --- headers on every answer -----------------------------------------------------------------
def _secured(response: httpx.Response) -> str:
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    policy = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy
    return policy


def test_every_answer_carries_the_security_headers(tmp_path, monkeypatch):
    with ThreadServer(tmp_path) as live:
        for path in ("/api/state", "/api/nothing-here", "/openapi.json", "/", "/overlay"):
            _secured(live.get(path))
        assert _secured(live.get("/api/state")) == "default-src 'none'; frame-ancestors 'none'"
        for path in ("/docs", "/redoc"):
            page = live.get(path)
            policy = _secured(page)
            assert "'unsafe-eval'" not in policy and "script-src 'unsafe-inline'" not in policy
            # the page's inline script runs because the policy names it, and only it does
            for body in re.findall(rb"<script>(.*?)</script>", page.content, re.DOTALL):
                digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
                assert f"'sha256-{digest}'" in policy
        # a bug's 500 is answered outside every middleware: its headers are its own
        session = live.app.state.table.session

        def broken() -> list:
            raise RuntimeError("a bug")
        monkeypatch.setattr(session, "games", broken)
        failed = live.get("/api/games")
        assert failed.status_code == 500 and "unchanged" in failed.json()["detail"]
        _secured(failed)


# --- what a client says of itself ------------------------------------------------------------
def test_a_forged_forwarded_for_neither_dodges_the_rate_limit_nor_is_echoed(tmp_path):
    limits = ServerLimits(writes_per_s=1, write_burst=3)
    with ThreadServer(tmp_path, limits=limits) as live:
        live.post("/api/new-game", HEROES).raise_for_status()
        codes = []
        for n in range(8):
            forged = {"X-Forwarded-For": f"10.9.8.{n}", "X-Real-IP": f"10.9.8.{n}"}
            reply = live.post("/api/undo", headers=forged)
            codes.append(reply.status_code)
            if reply.status_code == 429:
                assert "10.9.8" not in reply.text and "127.0.0.1" not in reply.text
                assert "slow down" in sentence(reply)
        assert codes.count(429) >= 4, codes


def test_behind_a_proxy_its_forwarded_address_is_the_client(tmp_path):
    limits = ServerLimits(writes_per_s=1, write_burst=2)
    proxied = Network(behind_proxy=True)
    with ThreadServer(tmp_path, network=proxied, limits=limits,
                      allow_hosts=("table.example.com",)) as live:
        live.post("/api/new-game", HEROES).raise_for_status()
        codes = [live.post("/api/undo", headers={"X-Forwarded-For": f"192.168.1.{n}"}
                           ).status_code for n in range(6)]
        assert 429 not in codes, codes  # six phones behind the proxy, one write each
        # docs/tls.md's proxy: the phone's page came over HTTPS under the proxy's name
        page = {"Host": "table.example.com", "Origin": "https://table.example.com",
                "X-Forwarded-Proto": "https", "X-Forwarded-For": "192.168.1.50"}
        assert live.post("/api/new-game", HEROES, headers=page).status_code == 200
        with connect(ws_url(live.url), additional_headers=page, open_timeout=PROMPT) as ws:
            assert '"type":"state"' in ws.recv(timeout=PROMPT)


# --- bounded connections ---------------------------------------------------------------------
def _read_all(sock: socket.socket, timeout: float = PROMPT) -> bytes:
    sock.settimeout(timeout)
    chunks = []
    with contextlib.suppress(OSError):
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


def test_a_connection_that_sends_no_whole_request_in_time_is_closed(tmp_path):
    network = Network(connections=ConnectionLimits(request_s=1.0))
    with ThreadServer(tmp_path, network=network) as live:
        port = int(live.url.rsplit(":", 1)[1])
        idle = socket.create_connection(("127.0.0.1", port))
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never ends
        body = socket.create_connection(("127.0.0.1", port))
        body.sendall(b"POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100"
                     b"\r\n\r\n{")  # a body that never comes
        with connect(ws_url(live.url), open_timeout=PROMPT) as kept:  # a socket is not a request
            started = time.monotonic()
            for sock in (idle, slow, body):
                assert _closed_within(sock, 5), "a connection was held past its deadline"
                sock.close()
            assert time.monotonic() - started < 4
            time.sleep(1.2)
            assert '"type":"state"' in kept.recv(timeout=PROMPT)  # still open
        assert live.get("/api/state").status_code == 200


def test_one_address_holds_only_so_many_connections(tmp_path):
    network = Network(connections=ConnectionLimits(per_address=4))
    with ThreadServer(tmp_path, network=network) as live:
        port = int(live.url.rsplit(":", 1)[1])
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
        try:
            time.sleep(0.2)
            with socket.create_connection(("127.0.0.1", port)) as over:
                answer = _read_all(over)
            assert answer.startswith(b"HTTP/1.1 503") and b"too many connections" in answer
            # another address is not held up, and a freed place is taken again
            with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0)
                                          ) as other:
                other.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Connection: close\r\n\r\n")
                assert _read_all(other).startswith(b"HTTP/1.1 200")
            held.pop().close()
            time.sleep(0.2)
            assert live.get("/api/state").status_code == 200
        finally:
            for sock in held:
                sock.close()


def test_idle_and_slow_sockets_do_not_shut_a_phone_out(tmp_path):
    """`run` with 256 open files: 300 idle sockets and 50 clients sending their headers a
    byte a second, all from one address; a phone on another still gets the state within a
    second."""
    server = ProcessServer(tmp_path / "data", open_files=256)
    url = server.start().url
    port = int(url.rsplit(":", 1)[1])
    attack: list[socket.socket] = []
    try:
        for _ in range(300):
            attack.append(socket.create_connection(("127.0.0.1", port)))
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
        attack += slow
        request = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
        times = []
        for step in range(4):
            for sock in slow:
                with contextlib.suppress(OSError):
                    sock.send(request[step:step + 1])
            with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as phone:
                started = time.monotonic()
                assert phone.get(url + "/api/state", timeout=5).status_code == 200
                times.append(time.monotonic() - started)
            time.sleep(1)
        assert max(times) < 1.0, times
        assert server.process.poll() is None
    finally:
        for sock in attack:
            sock.close()
        server.kill()


# --- HTTPS -------------------------------------------------------------------------------------
def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, as docs/tls.md makes one."""
    cert, key = folder / "table.crt", folder / "table.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=hearthtop",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


def test_run_serves_https_with_a_certificate_of_the_users_own(tmp_path):
    cert, key = _certificate(tmp_path)
    trusting = ssl.create_default_context(cafile=str(cert))
    server = ProcessServer(tmp_path / "data", "--certfile", str(cert), "--keyfile", str(key),
                           trust=trusting)
    url = server.start().url
    port = url.rsplit(":", 1)[1]
    try:
        assert httpx.get(url + "/api/state", verify=trusting).status_code == 200
        token = (tmp_path / "data" / "token").read_text().strip()
        played = httpx.post(url + "/api/new-game", json=HEROES, verify=trusting,
                            headers={"Authorization": f"Bearer {token}", "Origin": url})
        assert played.status_code == 200
        with connect(ws_url(url), ssl=trusting, origin=url, open_timeout=PROMPT) as pushed:
            assert '"type":"state"' in pushed.recv(timeout=PROMPT)
        with pytest.raises(httpx.TransportError):  # nothing in cleartext
            httpx.get(f"http://127.0.0.1:{port}/api/state", timeout=2).raise_for_status()
    finally:
        printed = server.stop()
    assert f"https://127.0.0.1:{port}/?token=" in printed


@pytest.mark.parametrize("options, said", [
    (["--certfile", "CERT"], "go together"),
    (["--certfile", "NOWHERE", "--keyfile", "NOWHERE"], "cannot serve TLS"),
    (["--certfile", "KEY", "--keyfile", "KEY"], "cannot serve TLS"),
    (["--allow-host", "bad name/with slash"], "--allow-host"),
])
def test_a_tls_or_host_option_it_cannot_use_is_one_line(tmp_path, capsys, options, said):
    cert, key = _certificate(tmp_path)
    options = [{"CERT": str(cert), "KEY": str(key)}.get(o, o) for o in options]
    assert main(["run", "--data", str(tmp_path / "data"), "--no-qr", "--port",
                 str(free_port()), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hearthtop-companion: error: ") and err.count("\n") == 1
    assert said in err


def test_an_ipv4_phone_on_a_dual_stack_socket_is_known_by_its_address():
    from companion_api.security import _arrived_at

    assert _arrived_at({"server": ("::ffff:192.168.1.5", 8000)}) == "192.168.1.5"
    assert _arrived_at({"server": ("fe80::1", 8000)}) == "fe80::1"
    assert _arrived_at({}) == ""
