"""Benchmark: finding the table in one frame (marker detection + homography) on one core.

Frames are the printed tiles on a synthetic textured table seen through a tilted camera,
with blur and noise, at 1280×720 and 1920×1080. Prints the median and 95th percentile
time a frame of `TableCalibration.from_markers` (the detection and the RANSAC fit) and of
`LiveCalibration.update`: looking for the markers every frame (the same plus blending),
and as it runs, watching the tiles, which lie still here (fresh noise only), so that the
markers are not looked for again.

    python -m bench.calibration [--frames N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import cv2
import numpy as np

from bench.common import pin_to_one_core
from calibration import (
    LiveCalibration,
    TableCalibration,
    make_detector,
    render_mat,
    table_to_view,
)
from vision import FRAME_SIZES

TABLE = (900.0, 600.0)
SIZES = tuple(FRAME_SIZES.values())


def frames(size: tuple[int, int], count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    grain = cv2.resize(rng.normal(0, 1, (30, 225)).astype(np.float32), (1800, 1200))
    tone = np.clip(110 + 30 * grain, 0, 255).astype(np.uint8)
    mat = render_mat(TABLE, 0.5, cv2.merge([tone // 2, tone, tone]))
    quad = np.float32([[0.14, 0.06], [0.84, 0.08], [0.94, 0.94], [0.06, 0.95]]) * np.float32(size)
    table = np.float32([[0, 0], [TABLE[0], 0], [TABLE[0], TABLE[1]], [0, TABLE[1]]])
    to_image = cv2.getPerspectiveTransform(table, quad) @ np.linalg.inv(table_to_view(0.5))
    view = cv2.GaussianBlur(cv2.warpPerspective(mat, to_image, size), (0, 0), 1.0)
    return [np.clip(view + rng.normal(0, 4, view.shape), 0, 255).astype(np.uint8)
            for _ in range(count)]


def timings(step, images: list[np.ndarray], rounds: int) -> list[float]:
    times = []
    for i in range(rounds):
        started = time.perf_counter()
        step(images[i % len(images)])
        times.append(time.perf_counter() - started)
    return times


def report(label: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    print(f"  {label:<34} median {statistics.median(ms):6.2f} ms   p95 {p95:6.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200, help="frames timed per size")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(f"hearthtop calibration benchmark, {pin_to_one_core()}, OpenCV {cv2.__version__}, "
          f"Python {sys.version.split()[0]}")
    detector = make_detector()
    for size in SIZES:
        images = frames(size, 8)
        print(f"{size[0]}×{size[1]}:")
        report("detect + homography (from_markers)",
               timings(lambda f: TableCalibration.from_markers(f, TABLE, detector=detector),
                       images, args.frames))
        live = LiveCalibration(TABLE, still_level=None)
        report("live calibration, markers looked for", timings(live.update, images,
                                                             args.frames))
        live = LiveCalibration(TABLE)  # the tiles lie still: the markers are not
        report("live calibration, tiles still", timings(live.update, images, args.frames))


if __name__ == "__main__":
    main()
