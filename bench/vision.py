"""Benchmark: from a frame's pixels to an `Observation` (detector, refiner, classifier), one core.

Rendered table scenes with 20 cards in view (19–21), at 1280×720 and 1920×1080; prints the
median and p95 time per frame and the frames per second they mean, two ways:

- **cold**: every frame a new scene, every card named afresh (photos; the worst case);
- **video**: one scene filmed still, fresh sensor noise every frame, with
  `Recognizer(video=True)`: still cards keep their names, as at a table between plays.

    python bench/vision.py [--frames N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.detect_data import MIN_VISIBLE
from vision import FRAME_SIZES
from vision.pipeline import Recognizer
from vision.synth.layout import random_scene
from vision.synth.render import render


def scenes(size: tuple[int, int], count: int) -> list[np.ndarray]:
    """`count` rendered frames with 19–21 cards in view."""
    found, seed = [], 0
    while len(found) < count:
        seed += 1
        result = render(random_scene(np.random.default_rng(seed), image_size=size))
        if 19 <= sum(c.visible >= MIN_VISIBLE for c in result.cards) <= 21:
            found.append(result.image)
    return found


def timed(recognizer: Recognizer, frames: list[np.ndarray]) -> tuple[float, float]:
    """Median and p95 ms a frame."""
    recognizer.observe(frames[0])  # warm up
    times = []
    for frame in frames:
        started = time.perf_counter()
        recognizer.observe(frame)
        times.append(time.perf_counter() - started)
    return float(np.median(times) * 1000), float(np.percentile(times, 95) * 1000)


def noisy(frame: np.ndarray, count: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.clip(frame + rng.normal(0, 2.5, frame.shape), 0, 255).astype(np.uint8)
            for _ in range(count)]


def line(name: str, median: float, p95: float) -> str:
    return (f"  {name:6} median {median:5.1f} ms ({1000 / median:3.0f} fps), "
            f"p95 {p95:5.1f} ms ({1000 / p95:3.0f} fps)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import cv2

    cv2.setNumThreads(1)
    photos, video = Recognizer(threads=1), Recognizer(threads=1, video=True)
    print(f"pixels to Observation, one core, {args.frames} frames with 20 cards a size")
    for size in FRAME_SIZES.values():
        frames = scenes(size, args.frames)
        print(f"{size[0]}×{size[1]}:")
        print(line("cold", *timed(photos, frames)))
        print(line("video", *timed(video, noisy(frames[0], args.frames))))


if __name__ == "__main__":
    main()
