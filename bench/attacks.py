"""The attacks of issue 42, tried against `hearthtop-companion run` as someone on the same
Wi-Fi would, each printed with what the server did. Run it from a checkout; `--root` runs
another checkout's server (an older commit, for the before-and-after table):

    python -m bench.attacks [--root PATH]

Each line: the attack, and what happened. The server runs with 256 open files at most.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

from bench.common import free_port, serving

HEROES = {"p1": "jaina", "p2": "garrosh"}
OPEN_FILES = 256


class Server:
    def __init__(self, root: Path, data: Path) -> None:
        self.root, self.data, self.port = root, data, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> bool:
        def lower() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion_api.cli", "run", "--host", "127.0.0.1",
             "--port", str(self.port), "--data", str(self.data), "--no-qr"],
            cwd=self.root, env={**os.environ, "PYTHONPATH": str(self.root)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=lower)
        return serving(self.url, self.process)

    def stop(self, kill: bool = False) -> str:
        if self.process.poll() is None:
            (self.process.kill if kill else self.process.terminate)()
        _, err = self.process.communicate(timeout=15)
        return err.strip().splitlines()[-1] if err.strip() else ""

    @property
    def token(self) -> str:
        return (self.data / "token").read_text().strip()

    def post(self, path: str, body: object, **headers: str) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=5,
                          headers={"Authorization": f"Bearer {self.token}", **headers})


def mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))[2:]


def attack_long_event(root: Path, work: Path) -> list[str]:
    data = work / "long"
    server = Server(root, data)
    server.start()
    server.post("/api/new-game", {"heroes": HEROES})
    said = []
    for name, event in (("4,000 targets", {"type": "hero_power", "player": "p1",
                                           "target": ["p2"] * 4000}),
                        ("a 30,000-digit token id", {"type": "hero_power", "player": "p1",
                                                     "target": "T1" + "9" * 30000})):
        said.append(f"{name}: {server.post('/api/events', event).status_code}")
    server.stop(kill=True)
    again = Server(root, data)
    started = again.start()
    said.append("restart after SIGKILL: " + ("starts" if started else
                                            f"refuses ({again.stop()[:70]})"))
    if started:
        again.stop()
    return said


def attack_modes(root: Path, work: Path) -> list[str]:
    data = work / "modes"
    data.mkdir()
    (data / "token").write_text("A" * 24 + "\n")
    (data / "token").chmod(0o644)
    server = Server(root, data)
    server.start()
    server.post("/api/new-game", {"heroes": HEROES})
    server.stop()
    games = data / "games"
    log = next(games.glob("*.jsonl"))
    return [f"token left 0644 -> {mode(data / 'token')}, folder {mode(data)}, games/ "
            f"{mode(games)}, a log {mode(log)}, current {mode(data / 'current')}"]


def attack_strays(root: Path, work: Path) -> list[str]:
    data = work / "strays"
    server = Server(root, data)
    server.start()
    server.post("/api/new-game", {"heroes": HEROES})
    games = data / "games"
    secret = work / "secret.txt"
    secret.write_text('{"type":"new_game","heroes":{"p1":"jaina","p2":"garrosh"}}\n'
                      '{"type":"play","player":"p1","card":"SECRET-VALUE-123"}\n')
    said = []
    (games / "my game (copy).jsonl").write_text("{}\n")
    reply = httpx.get(server.url + "/api/games", timeout=5)
    said.append(f"a stray 'my game (copy).jsonl': /api/games {reply.status_code}")
    (games / "my game (copy).jsonl").unlink()
    (games / "linked.jsonl").symlink_to(secret)
    listed = httpx.get(server.url + "/api/games", timeout=5)
    log = httpx.get(server.url + "/api/games/linked/log.jsonl", timeout=5)
    leaked = [w for w in ("SECRET-VALUE-123", str(work)) if w in listed.text + log.text]
    said.append(f"a symlink out of the folder: /api/games {listed.status_code}, its log "
                f"{log.status_code}, showing {', '.join(leaked) or 'nothing of it'}")
    (games / "linked.jsonl").unlink()
    os.mkfifo(games / "pipe.jsonl")
    try:
        reply = httpx.get(server.url + "/api/games", timeout=3)
        said.append(f"a FIFO: /api/games {reply.status_code}")
    except httpx.TimeoutException:
        said.append("a FIFO: /api/games hangs (no answer in 3 s)")
    with contextlib.suppress(OSError):  # let a reader blocked on the FIFO go
        fd = os.open(games / "pipe.jsonl", os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    (games / "pipe.jsonl").unlink()
    server.stop(kill=True)
    return said


def attack_hosts(root: Path, work: Path) -> list[str]:
    server = Server(root, work / "hosts")
    server.start()
    said = []
    reply = httpx.get(server.url + "/api/state", headers={"Host": "attacker.example"})
    said.append(f"Host: attacker.example: {reply.status_code}")
    try:
        with connect(server.url.replace("http", "ws") + "/ws", origin="http://attacker.example",
                     open_timeout=5) as ws:
            ws.recv(timeout=5)
            said.append("a WebSocket from http://attacker.example: accepted")
    except Exception as error:
        said.append(f"a WebSocket from http://attacker.example: refused ({type(error).__name__})")
    server.post("/api/new-game", {"heroes": HEROES})
    said.append(f"mulligan count true: {server.post('/api/events', {'type': 'mulligan', 'player': 'p1', 'count': True}).status_code}")  # noqa: E501
    codes = [server.post("/api/undo", None, **{"X-Forwarded-For": f"10.0.0.{n}"})
             for n in range(150)]
    limited = [r for r in codes if r.status_code == 429]
    echoed = any("10.0.0." in r.text for r in limited)
    said.append(f"150 writes, each with another X-Forwarded-For: {len(limited)} slowed (429)"
                f"{', the forged address echoed' if echoed else ''}")
    docs = httpx.get(server.url + "/docs")
    said.append(f"/docs: Content-Security-Policy {'content-security-policy' in docs.headers}, "
                f"X-Frame-Options {'x-frame-options' in docs.headers}")
    server.stop()
    return said


def attack_sockets(root: Path, work: Path) -> list[str]:
    server = Server(root, work / "sockets")
    server.start()
    held = []
    try:
        for _ in range(300):
            with contextlib.suppress(OSError):
                held.append(socket.create_connection(("127.0.0.1", server.port), timeout=2))
        slow = []
        for _ in range(50):
            with contextlib.suppress(OSError):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=2)
                sock.send(b"GET /api/state HTTP/1.1\r\nHo")
                slow.append(sock)
        time.sleep(0.5)
        started = time.monotonic()
        try:
            with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2")) as phone:
                code = phone.get(server.url + "/api/state", timeout=5).status_code
            outcome = f"{code} in {time.monotonic() - started:.2f} s"
        except httpx.TransportError as error:
            outcome = f"no answer ({type(error).__name__} after {time.monotonic() - started:.1f} s)"
        return [f"300 idle sockets and 50 slow headers ({OPEN_FILES} open files): "
                f"a phone's /api/state: {outcome}"]
    finally:
        for sock in held:
            sock.close()
        server.stop(kill=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    print(f"attacks on `run` from {args.root}")
    with tempfile.TemporaryDirectory() as work:
        for attack in (attack_long_event, attack_modes, attack_strays, attack_hosts,
                       attack_sockets):
            folder = Path(work) / attack.__name__
            folder.mkdir()
            for line in attack(args.root.resolve(), folder):
                print(f"  {line}", flush=True)
    print(json.dumps({"done": True}))


if __name__ == "__main__":
    main()
