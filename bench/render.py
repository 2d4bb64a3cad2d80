"""Benchmark: synthetic table scenes rendered on one core.

Prints the render time (median, p95) of random Hearthtop tables at 720p and 1080p:
"cold" draws each scene's cards from the PNG cache on disk (a training worker that has just
switched design), "warm" has them in memory, and "video" draws the same scene again
(consecutive frames of a game video also share the warped table plane). Card art is
extracted first and not timed (`python -m simulator.cardart` does it once for good).

    python -m bench.render [--scenes N] [--seed S] [--design NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from bench.common import pin_to_one_core
from simulator import cardart
from simulator.render import clear_caches, random_scene, render
from vision import FRAME_SIZES


def stats(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=40, help="scenes a size (default 40)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--design", action="append", help="limit to these designs")
    args = parser.parse_args()
    designs = args.design or cardart.list_designs()
    print("extracting card art (not timed) ...", file=sys.stderr)
    cardart.extract(designs)
    print(pin_to_one_core(opencv=True))
    for size in FRAME_SIZES.values():
        rng = np.random.default_rng(args.seed)
        t0 = time.perf_counter()
        scenes = [random_scene(rng, designs=designs, image_size=size)
                  for _ in range(args.scenes)]
        layout = (time.perf_counter() - t0) / args.scenes
        times: dict[str, list[float]] = {"cold": [], "warm": [], "video": []}
        for scene in scenes:
            clear_caches()  # cold: this scene's cards come from the PNG cache
            for rep in ("cold", "warm", "video"):
                if rep == "warm":
                    clear_caches(cards=False)  # cards in memory, table plane redrawn
                t = time.perf_counter()
                render(scene)
                times[rep].append(time.perf_counter() - t)
        cards = statistics.median(len(s.cards) for s in scenes)
        print(f"{size[0]}x{size[1]}, {len(scenes)} scenes, median {cards:.0f} cards "
              f"(random_scene itself: {layout * 1000:.1f} ms)")
        for rep, seconds in times.items():
            print(f"  {rep:5}  {stats(seconds)}")


if __name__ == "__main__":
    main()
