"""Benchmark: the companion server on loopback with many WebSocket clients.

Starts the server (uvicorn, as `run` starts it, in a process of its own; the write rate
limit and the cap on connections per address lifted so that one address may post as fast
as it likes and hold every client), connects `--clients`
WebSocket clients (asyncio + websockets, compression negotiated as browsers do), plays the
events of bot games through `POST /api/new-game` and `POST /api/events`, and prints:

- fan-out delay: from posting an event to the last of the clients holding a state that
  includes it (its `version` or a later one), one event at a time: median, p95, max;
- sustained events/s: events posted back to back, each as soon as the last was answered
  (validation, the rules engine, the fsync of the log, the fan-out to every client),
  and how long after the last answer the last client held the final state;
- the server's memory (VmRSS from /proc) idle, with the clients connected, and after
  the events, and its peak (VmHWM).

The clients run in this process, on one event loop: their own time is in the delays (the
figures are an upper bound on what the server alone costs). The target: p95 < 100 ms with
200 clients.

    python -m bench.api [--clients N] [--events N] [--seed S] [--no-compression]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from bench.common import free_port, memory_kib, serving
from tracker.rules.bot import play_game
from tracker.rules.heroes import hero_names

TARGET_P95_MS = 100.0
VERSION = re.compile(rb'"version":(\d+)')
# served as `run` serves it (its connection guard included); the clients all come from
# loopback, so the cap per address is raised to let every one of them in
SERVER = """
import sys
from pathlib import Path
import uvicorn
from companion_api.app import ServerLimits, create_app
from companion_api.connections import ConnectionLimits
from companion_api.server import Network
data, port, sockets = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
limits = ServerLimits(writes_per_s=1e9, write_burst=10**9, max_sockets=sockets)
app = create_app(data, limits=limits)
network = Network(connections=ConnectionLimits(per_address=sockets + 10))
uvicorn.Server(network.uvicorn_config(app, host="127.0.0.1", port=port)).run()
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def game_requests(count: int, seed: int) -> list[tuple[str, dict]]:
    """`count` posts from whole bot games: each game's new-game, then its events."""
    names = hero_names()
    posts: list[tuple[str, dict]] = []
    number = 0
    while len(posts) < count:
        heroes = (names[number % len(names)], names[(number * 7 + 3) % len(names)])
        game = play_game(heroes, seed=seed + number)
        first, *rest = game.events
        posts.append(("/api/new-game", {"heroes": first.heroes, "deck": first.deck}))
        posts += [("/api/events", e.model_dump(mode="json", exclude_none=True,
                                               exclude={"source"})) for e in rest]
        number += 1
    return posts[:count]


class Client:
    """One WebSocket client: the time it first held each version (or a later one)."""

    def __init__(self) -> None:
        self.latest = 0
        self.reached: list[tuple[int, float]] = []  # (version, time), versions increasing
        self.messages = 0
        self.bytes = 0

    async def run(self, url: str, compression: bool, ready: asyncio.Event,
                  connected: list) -> None:
        options = {} if compression else {"compression": None}
        async with connect(url, max_size=None, open_timeout=60, ping_interval=None,
                           **options) as ws:
            connected.append(self)
            if len(connected) == CLIENTS:
                ready.set()
            async for message in ws:
                now = time.perf_counter()
                raw = message.encode() if isinstance(message, str) else message
                found = VERSION.search(raw)
                self.messages += 1
                self.bytes += len(raw)
                version = int(found.group(1)) if found else 0
                if version > self.latest:
                    self.latest = version
                    self.reached.append((version, now))

    def time_of(self, version: int) -> float | None:
        for reached, at in self.reached:
            if reached >= version:
                return at
        return None


CLIENTS = 0


async def wait_all(clients: list[Client], version: int, timeout: float = 30.0) -> float:
    """Wait until every client holds `version`; the time the last one got it."""
    deadline = time.perf_counter() + timeout
    while any(c.latest < version for c in clients):
        if time.perf_counter() > deadline:
            behind = sum(c.latest < version for c in clients)
            raise SystemExit(f"{behind} clients never got version {version}")
        await asyncio.sleep(0.0005)
    return max(c.time_of(version) for c in clients)


async def bench(args: argparse.Namespace, url: str, token: str, pid: int) -> dict:
    global CLIENTS
    CLIENTS = args.clients
    figures: dict = {"memory_idle": memory_kib(pid)}
    posts = game_requests(2 * args.events, args.seed)
    latency_posts, rate_posts = posts[:args.events], posts[args.events:]
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as http:
        ready, connected = asyncio.Event(), []
        clients = [Client() for _ in range(args.clients)]
        ws_url = url.replace("http://", "ws://") + "/ws"
        started = time.perf_counter()
        tasks = [asyncio.create_task(c.run(ws_url, not args.no_compression, ready, connected))
                 for c in clients]
        await asyncio.wait_for(ready.wait(), 60)
        first = (await http.get("/api/state")).json()["version"]
        await wait_all(clients, first)
        figures["connect_s"] = time.perf_counter() - started
        figures["memory_connected"] = memory_kib(pid)

        # fan-out delay: one event at a time, each once every client holds the last
        delays = []
        cpu = cpu_seconds(pid)
        for path, body in latency_posts:
            sent = time.perf_counter()
            answer = await http.post(path, json=body)
            if answer.status_code != 200:
                raise SystemExit(f"{path} {body}: {answer.status_code} {answer.text}")
            version = int(VERSION.search(answer.content).group(1))
            delays.append((await wait_all(clients, version)) - sent)
        figures["delays_ms"] = sorted(d * 1000 for d in delays)
        figures["cpu_ms"] = (cpu_seconds(pid) - cpu) * 1000 / len(latency_posts)

        # sustained rate: back to back, each post as soon as the last is answered
        started = time.perf_counter()
        version = 0
        for path, body in rate_posts:
            answer = await http.post(path, json=body)
            if answer.status_code != 200:
                raise SystemExit(f"{path} {body}: {answer.status_code} {answer.text}")
            version = int(VERSION.search(answer.content).group(1))
        answered = time.perf_counter()
        last = await wait_all(clients, version)
        figures["rate"] = len(rate_posts) / (answered - started)
        figures["rate_events"] = len(rate_posts)
        figures["drain_ms"] = (last - answered) * 1000
        figures["memory_after"] = memory_kib(pid)
        figures["messages"] = sum(c.messages for c in clients)
        figures["message_bytes"] = sum(c.bytes for c in clients) / max(figures["messages"], 1)
        figures["state_bytes"] = len((await http.get("/api/state")).content)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return figures


def percentile(sorted_values: list[float], share: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(share * (len(sorted_values) - 1))))
    return sorted_values[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200, help="WebSocket clients (200)")
    parser.add_argument("--events", type=int, default=200,
                        help="events timed one at a time, and as many back to back (200)")
    parser.add_argument("--seed", type=int, default=1, help="of the bot games (1)")
    parser.add_argument("--no-compression", action="store_true",
                        help="clients do not negotiate permessage-deflate")
    args = parser.parse_args()
    if args.clients < 1 or args.events < 1:
        parser.error("--clients and --events must be at least 1")
    try:
        import uvloop
        uvloop.install()
        loop_name = "uvloop"
    except ImportError:
        loop_name = "asyncio"

    port = free_port()
    with tempfile.TemporaryDirectory(prefix="hearthtop-bench-") as data:
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, data, str(port), str(args.clients + 10)],
            cwd=Path(__file__).resolve().parents[1])
        try:
            url = f"http://127.0.0.1:{port}"
            if not serving(url, server):
                raise SystemExit("the server did not start")
            token = (Path(data) / "token").read_text().strip()
            print(f"hearthtop API benchmark: {args.clients} WebSocket clients "
                  f"({'no compression' if args.no_compression else 'permessage-deflate'}), "
                  f"uvicorn in its own process, clients on one {loop_name} loop; "
                  f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
            started = time.perf_counter()
            figures = asyncio.run(bench(args, url, token, server.pid))
            seconds = time.perf_counter() - started
        finally:
            server.terminate()
            server.wait(10)
    report(args, figures, seconds)


def report(args: argparse.Namespace, figures: dict, seconds: float) -> None:
    delays = figures["delays_ms"]
    p95 = percentile(delays, 0.95)
    mib = {k: v["VmRSS"] / 1024 for k, v in figures.items() if k.startswith("memory_")}
    peak = figures["memory_after"]["VmHWM"] / 1024
    print(f"connect {args.clients} clients and each gets the state: "
          f"{figures['connect_s'] * 1000:8.0f} ms")
    print(f"state: {figures['state_bytes']} bytes of JSON at the end; "
          f"{figures['messages']} messages received, {figures['message_bytes']:.0f} bytes "
          "on average (as received, after any decompression)")
    print(f"fan-out delay, post → last of {args.clients} clients holds it "
          f"({len(delays)} events, one at a time):")
    print(f"  median {statistics.median(delays):8.1f} ms")
    print(f"  p95    {p95:8.1f} ms")
    print(f"  max    {max(delays):8.1f} ms")
    print(f"  server CPU time {figures['cpu_ms']:.1f} ms an event (the request, the engine, "
          f"the fsync and {args.clients} sends)")
    print(f"sustained, back to back ({figures['rate_events']} events): "
          f"{figures['rate']:8.1f} events/s; the last client had the final state "
          + (f"{figures['drain_ms']:.1f} ms after the last answer" if figures["drain_ms"] > 0
             else "before the last answer came back"))
    print(f"server memory (VmRSS): idle {mib['memory_idle']:.1f} MiB, "
          f"{args.clients} clients connected {mib['memory_connected']:.1f} MiB, "
          f"after the events {mib['memory_after']:.1f} MiB; peak {peak:.1f} MiB")
    verdict = "met" if p95 < TARGET_P95_MS else "NOT met"
    print(f"target p95 < {TARGET_P95_MS:.0f} ms with 200 clients: {verdict} "
          f"(p95 {p95:.1f} ms with {args.clients} clients); {seconds:.1f} s in all")


if __name__ == "__main__":
    main()
