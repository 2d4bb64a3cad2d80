"""Benchmark: from a frame's pixels to an `Observation` (detector + classifier), one core.

Rendered table scenes with 20 or more cards, at 1280×720 and 1920×1080; prints the median
and p95 time per frame and the frames per second they mean.

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

from vision.layout import random_scene
from vision.pipeline import Recognizer
from vision.render import render


def frames(size: tuple[int, int], count: int) -> list[tuple[np.ndarray, int]]:
    found, seed = [], 0
    while len(found) < count:
        seed += 1
        result = render(random_scene(np.random.default_rng(seed), image_size=size))
        if len(result.cards) >= 20:
            found.append((result.image, len(result.cards)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    import cv2

    cv2.setNumThreads(1)
    recognizer = Recognizer(threads=1)
    print(f"pixels to Observation, one core, {args.frames} rendered frames a size")
    for size in ((1280, 720), (1920, 1080)):
        scenes = frames(size, args.frames)
        recognizer.observe(scenes[0][0])  # warm up
        times = []
        for image, _ in scenes:
            started = time.perf_counter()
            recognizer.observe(image)
            times.append(time.perf_counter() - started)
        median, p95 = np.median(times) * 1000, np.percentile(times, 95) * 1000
        cards = np.median([n for _, n in scenes])
        print(f"{size[0]}×{size[1]}: median {median:.1f} ms ({1000 / median:.0f} fps), "
              f"p95 {p95:.1f} ms; {cards:.0f} cards a frame (median)")


if __name__ == "__main__":
    main()
