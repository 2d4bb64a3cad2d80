"""Benchmark: from a frame's pixels to an `Observation` (detector, refiner, classifier), one core.

Rendered table scenes with 20 cards in view (19–21), at 1280×720 and 1920×1080; prints the
median and p95 time per frame and the frames per second they mean, two ways:

- **cold**: every frame a new scene, every card named afresh (photos; the worst case);
- **moving**: one scene filmed while a card slides across it (4 mm a frame, as a minion is
  pushed forward to attack), fresh sensor noise every frame, with `Recognizer(video=True)`:
  the still cards keep their names, the moving one is looked at again. (A table where
  nothing moves costs far less: the recogniser's unchanged-frame shortcut; the whole live
  path over a game, shortcuts and all, is `python -m bench.live_speed`.)

    python -m bench.vision [--frames N]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import numpy as np

from simulator.layout import random_scene
from simulator.render import render
from simulator.scene import Scene
from training.detect_data import MIN_VISIBLE
from vision import FRAME_SIZES
from vision.pipeline import Recognizer

SLIDE_MM = 4.0  # a frame, the moving card


def scenes(size: tuple[int, int], count: int) -> list[tuple[Scene, np.ndarray]]:
    """`count` rendered scenes with 19–21 cards in view, and their frames."""
    found, seed = [], 0
    while len(found) < count:
        seed += 1
        scene = random_scene(np.random.default_rng(seed), image_size=size)
        result = render(scene)
        if 19 <= sum(c.visible >= MIN_VISIBLE for c in result.cards) <= 21:
            found.append((scene, result.image))
    return found


def sliding(scene: Scene, count: int) -> list[np.ndarray]:
    """The scene's topmost face-up card slid `SLIDE_MM` further each frame, the rest still,
    with fresh sensor noise every frame."""
    card = max((c for c in scene.cards if c.face_up), key=lambda c: c.z)
    frames = []
    for k in range(count):
        moved = replace(card, center=(card.center[0] + SLIDE_MM * k, card.center[1]))
        image = render(replace(scene, cards=[moved if c is card else c
                                             for c in scene.cards])).image
        frames += noisy(image, 1, seed=k)
    return frames


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
        found = scenes(size, args.frames)
        print(f"{size[0]}×{size[1]}:")
        print(line("cold", *timed(photos, [image for _, image in found])))
        print(line("moving", *timed(video, sliding(found[0][0], args.frames))))


if __name__ == "__main__":
    main()
