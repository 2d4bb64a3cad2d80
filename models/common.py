"""What the trainings share: the design split, seeded data in parallel chunks, progress."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from vision.cardart import get_design, list_designs

HELD_OUT_FAMILIES = ("paris", "tigullio", "penguins", "simplistic")  # the test
CALIBRATION_FAMILIES = ("neoclassical", "plastic", "jolly_royal")  # temperature, threshold


def split_designs(announce: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Designs for training, for calibration and for the test, by whole families: the
    confidence threshold is set on designs the model has never seen, as a user's deck is."""
    designs = list_designs()
    held = [d for d in designs if get_design(d).family in HELD_OUT_FAMILIES]
    calibration = [d for d in designs if get_design(d).family in CALIBRATION_FAMILIES]
    train = [d for d in designs if d not in held and d not in calibration]
    if announce:
        print(f"designs: {len(train)} for training, {len(calibration)} for calibration, "
              f"{len(held)} held out ({', '.join(held)})", file=sys.stderr)
    return train, calibration, held


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


def image_tensor(images: np.ndarray):  # -> torch.Tensor
    """Images NHWC uint8 as the networks train on them: NCHW floats in [0, 1]."""
    import torch

    return torch.from_numpy(images).permute(0, 3, 1, 2).float().div_(255.0)


def load_weights(model, path: Path | None) -> None:
    """Start `model` from a checkpoint that `save_weights` wrote (a warm start), if given."""
    if path is not None:
        import torch

        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        print(f"weights from {path}", file=sys.stderr)


def save_weights(model, onnx_path: Path) -> Path:
    """The trained weights beside the exported model (`.pt`): `--init` continues from them."""
    import torch

    path = onnx_path.with_suffix(".pt")
    torch.save(model.state_dict(), path)
    return path


def run_arguments(parser: argparse.ArgumentParser, out: Path) -> None:
    """The options both trainings take: seed, workers, a warm start and where to write."""
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--init", type=Path, help="weights to start from (a .pt of an "
                        "earlier run) instead of random ones")
    parser.add_argument("--out", type=Path, default=out)


def start_training(args: argparse.Namespace) -> tuple[list[str], list[str], list[str]]:
    """Torch on `args.workers` threads, the folder `args.out` goes in, and the design split,
    announced."""
    import torch

    torch.set_num_threads(args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    return split_designs(announce=True)
