"""What the benchmarks share: one core for the timed work, a free port on loopback, a
process's memory, a server process waited for, and a simulated game's deck registered as its
players would."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import httpx


def pin_to_one_core(*, opencv: bool = False) -> str:
    """This process on one core (and OpenCV on one thread): figures of one core, whatever
    else the machine runs; what was done, in words."""
    done = []
    if opencv:
        import cv2

        cv2.setNumThreads(1)
        done.append("OpenCV on 1 thread")
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        done.insert(0, f"pinned to core {core}")
    else:
        done.insert(0, "not pinned (no sched_setaffinity here)")
    return ", ".join(done)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            figures[key] = int(value.split()[0])
    return figures


def registered_deck(video: Path, seed: int = 0):  # -> vision.Deck
    """The deck a simulated game (`simulate`'s folder `video`) was played with, registered as
    its players would: one photo of it laid out, under another light and on another table
    (`bench.deck.registered`)."""
    from bench.deck import registered

    meta = json.loads((video / "meta.json").read_text())
    return registered(meta["design"], seed, meta.get("back_variant", 0))[0].deck


def serving(url: str, process: subprocess.Popen, timeout_s: float = 30.0) -> bool:
    """Whether the server `process` started answers `url`'s /api/state within `timeout_s`
    (False as soon as it has stopped)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        try:
            httpx.get(url + "/api/state", timeout=1)
            return True
        except httpx.TransportError:
            time.sleep(0.1)
    return False
