"""What making data shares: seeded parallel chunks, progress, and the data cache.

The same seed gives the same data whatever the number of workers (`in_chunks`), and data made
once is read back by any later run of the same code (`kept`, `code_version`).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]  # the checkout
MODELS = ROOT / "models"  # the shipped models, which the trainings write


def progress_bar(what: str, done: int, total: int, extra: str = "") -> None:
    bar = "#" * (30 * done // max(total, 1))
    print(f"\r{what:>8} [{bar:<30}] {done}/{total} {extra}", end="", file=sys.stderr,
          flush=True)
    if done >= total:
        print(file=sys.stderr)


def in_chunks(make: Callable[..., Any], seed: int, count: int, chunk: int,
              kwargs: dict[str, Any], workers: int, what: str, progress: bool = True) -> list:
    """`make(seed=…, count=…, **kwargs)` over chunks of `count`, each chunk from its own
    seed: the same seed gives the same data, whatever the number of workers."""
    seeds = [seed * 100_003 + i for i in range(-(-count // chunk))]
    jobs = [{"seed": s, "count": min(chunk, count - i * chunk), **kwargs}
            for i, s in enumerate(seeds)]
    parts = []
    if workers <= 1:
        for i, job in enumerate(jobs, 1):
            parts.append(make(**job))
            if progress:
                progress_bar(what, i, len(jobs))
        return parts
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(make, **job) for job in jobs]
        for i, future in enumerate(futures, 1):
            parts.append(future.result())
            if progress:
                progress_bar(what, i, len(jobs))
    return parts


def code_version(root: Path = ROOT) -> str:
    """A digest of what training data is made with: the code of `vision`, of `simulator`
    (the renderer and the card art), of `cards` (the card ids, whose order labels follow)
    and of `training`, and the shipped networks (the refiner's data are the shipped
    detector's cuts). Broader than any one kind of data needs: a cache made again costs
    minutes, data made by older code and taken for new costs a run."""
    digest = hashlib.sha1()
    for path in sorted([*(root / "vision").rglob("*.py"), *(root / "simulator").rglob("*.py"),
                        *(root / "cards").rglob("*.py"), *(root / "training").glob("*.py"),
                        *(root / "models").glob("*.onnx")]):
        digest.update(f"{path.relative_to(root)}\n".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def kept(cache: Path | None, what: str, key: list,
         make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """`make()`'s arrays, kept in the folder `cache` (if given) under `what`, `key` (the
    arguments that make them, as JSON) and the code's version (`code_version`), and read
    back from there by any later run with the same: two networks trained on one set of data
    make it once, and a change to the code makes it again."""
    if cache is None:
        return make()
    digest = hashlib.sha1(json.dumps([code_version(), *key]).encode()).hexdigest()[:16]
    path = cache / f"{what}-{digest}.npz"
    if path.exists():
        with np.load(path) as arrays:
            return {k: arrays[k] for k in arrays.files}
    arrays = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.npz")
    np.savez(partial, **arrays)
    partial.replace(path)  # whole or absent, for a run reading it at the same time
    return arrays
