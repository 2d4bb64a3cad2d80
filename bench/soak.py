"""Soak: the live path for an hour. The bundled demo recording, looped, played at 30 fps (twice
its own rate) through the server as `run --demo` serves it (the camera feed's thread, the
recogniser, the stabilizer, the live tracker, the session and its log on disk), with
`--clients` WebSocket clients connected and reading every state pushed.

The server runs in a process of its own. Every `--every` frames it writes a line of figures:
frames offered (the recording's frames whose time came) and looked at (the others were late
and dropped, as live), games begun, the CPU time of the feed's thread per frame looked at
(median, p95), and the process's resident memory. At the end: memory at the start (after
the first `--warm` frames: the models loaded, the first game seen) and at the end, its
growth (target under 5 %), its growth over the second half alone (where a leak still grows
and a cache that fills has stopped), and the per-frame time at both ends.

    python -m bench.soak [--frames 100000] [--clients 20] [--speed 2] [--every 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

from bench.common import free_port, memory_kib

TARGET_GROWTH = 0.05
SERVER = """
import json, resource, sys, threading, time
from pathlib import Path
import uvicorn
from companion_api.app import create_app
from tracker.camera.feed import CameraFeed
from companion_api.server import DEMO_RECORDING, live_source

data, port, speed, every, stats = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), \\
    int(sys.argv[4]), Path(sys.argv[5])
counts = {"offered": 0, "looked": 0, "games": 0}
times = []
step = CameraFeed._step


def timed_step(feed, reader, index, frame, inputs=()):
    start = time.thread_time()
    step(feed, reader, index, frame, inputs)
    counts["offered"] += 1
    counts["games"] = feed.games
    if frame is not None:
        counts["looked"] += 1
        times.append((time.thread_time() - start) * 1000)
    if counts["offered"] % every == 0:
        rss = int(next(line for line in open("/proc/self/status")
                       if line.startswith("VmRSS")).split()[1])
        ordered = sorted(times) or [0.0]
        line = dict(counts, rss_kib=rss, median_ms=ordered[len(ordered) // 2],
                    p95_ms=ordered[int(0.95 * (len(ordered) - 1))], at=time.time())
        with stats.open("a") as out:
            out.write(json.dumps(line) + "\\n")
        times.clear()


CameraFeed._step = timed_step
app = create_app(data, camera=live_source(str(DEMO_RECORDING), demo=True, speed=speed))
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
            ws_max_size=64 * 1024)
"""


async def reader(url: str, received: list[int], stop: asyncio.Event) -> None:
    """One page: reads every message until told to stop; connects again if dropped."""
    while not stop.is_set():
        try:
            async with connect(url, max_size=None, open_timeout=60) as ws:
                while not stop.is_set():
                    try:
                        await asyncio.wait_for(ws.recv(), 1.0)
                        received[0] += 1
                    except TimeoutError:
                        continue
        except OSError:
            await asyncio.sleep(0.5)


async def soak(args: argparse.Namespace, url: str, stats: Path, server: subprocess.Popen
               ) -> list[dict]:
    stop, received = asyncio.Event(), [0]
    pages = [asyncio.create_task(reader(url, received, stop)) for _ in range(args.clients)]
    lines: list[dict] = []
    while not lines or lines[-1]["offered"] < args.frames:
        await asyncio.sleep(2)
        if server.poll() is not None:
            raise SystemExit(f"the server stopped (exit {server.returncode})")
        if stats.exists():
            shown, lines = len(lines), [json.loads(line) for line in stats.read_text().splitlines()]
            if len(lines) > shown:
                last = lines[-1]
                print(f"  {last['offered']:>7} frames offered, {last['looked']:>7} looked, "
                      f"{last['games']} games, {last['rss_kib'] / 1024:.0f} MB, "
                      f"{last['median_ms']:.1f}/{last['p95_ms']:.1f} ms, "
                      f"{received[0]} messages to the pages", flush=True)
    stop.set()
    await asyncio.gather(*pages)
    lines[-1]["messages"] = received[0]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--speed", type=float, default=2.0,
                        help="times the recording's 15 fps (2: 30 fps)")
    parser.add_argument("--every", type=int, default=2000, help="frames between figures")
    parser.add_argument("--warm", type=int, default=4000,
                        help="frames before the starting memory is taken")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        stats, port = Path(work) / "stats.jsonl", free_port()
        server = subprocess.Popen([sys.executable, "-c", SERVER, str(Path(work) / "data"),
                                   str(port), str(args.speed), str(args.every), str(stats)])
        started = time.monotonic()
        try:
            lines = asyncio.run(soak(args, f"ws://127.0.0.1:{port}/ws", stats, server))
            peak = memory_kib(server.pid).get("VmHWM", 0)
        finally:
            server.terminate()
            server.wait(10)
    report(args, lines, peak, time.monotonic() - started)


def report(args: argparse.Namespace, lines: list[dict], peak_kib: int, seconds: float) -> None:
    warm = next(line for line in lines if line["offered"] >= min(args.warm, lines[-1]["offered"]))
    first, last = warm, lines[-1]
    growth = last["rss_kib"] / first["rss_kib"] - 1
    looked = last["looked"]
    print(f"\nsoak: {last['offered']} frames offered at {15 * args.speed:g} fps, {looked} "
          f"looked at ({looked / last['offered']:.0%}; the rest were late and dropped), "
          f"{last['games']} games, {args.clients} WebSocket clients, "
          f"{last['messages']} messages to them, {seconds / 60:.1f} min")
    print(f"memory: {first['rss_kib'] / 1024:.0f} MB after {first['offered']} frames, "
          f"{last['rss_kib'] / 1024:.0f} MB at the end: {growth:+.1%} "
          f"({'under' if growth < TARGET_GROWTH else 'OVER'} the {TARGET_GROWTH:.0%} target); "
          f"peak {peak_kib / 1024:.0f} MB")
    middle = next(line for line in lines if line["offered"] >= last["offered"] // 2)
    print(f"memory over the second half ({middle['offered']} frames on): "
          f"{middle['rss_kib'] / 1024:.0f} -> {last['rss_kib'] / 1024:.0f} MB, "
          f"{last['rss_kib'] / middle['rss_kib'] - 1:+.1%} (a leak grows here too)")
    print(f"per frame looked at (CPU of the feed's thread), median / p95: "
          f"{first['median_ms']:.1f} / {first['p95_ms']:.1f} ms at the start, "
          f"{last['median_ms']:.1f} / {last['p95_ms']:.1f} ms at the end "
          f"({last['median_ms'] / first['median_ms']:.2f}×)")
    print(f"median per frame over the run, each {args.every} frames: "
          f"{statistics.median(line['median_ms'] for line in lines):.1f} ms")


if __name__ == "__main__":
    main()
