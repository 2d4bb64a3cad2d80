"""Benchmark: the whole live path at 1280×720 on one core, frame by frame, against 30 fps.

A game goes through `TableReader.look` as `track` and the live source run it: the
calibration following the markers, the recogniser (detector, second look at piles, refiner,
classifier, with its video memory), the sightings in table mm, the stabilizer and the live
tracker; the phone's inputs at their frames. The game is a bot game rendered as a webcam's
recording (`simulate`: 1280×720, 15 fps, hands over the table at every play), or
`--recording DIR` (frames/ and phone.jsonl, as `simulate` writes them).

The process is pinned to one core, onnxruntime and OpenCV run on one thread, and each frame
is timed as CPU time of the thread (what the path costs, whatever else the machine runs)
and as wall time. Decoding the JPEG is the camera's work and is listed apart. Prints the
median, p95 and max ms a frame, frames a second (from the mean), the share of frames over
33 ms (30 fps), and how often the shortcuts served: frames the recogniser found unchanged
(the last Observation stands) and frames whose marker tiles lay still (ArUco not run).

Beside it, the same frames with both shortcuts off (every frame looked at in full, as before
them), the ratio, and how far the sightings of the two agree: per frame, each card's name,
zone and orientation, and its centre within 1 mm.

With `--deck`, a pass more with the game's deck registered (`vision.deck`), and its ratio to
the live pass.

    python -m bench.live_speed [--recording DIR] [--frames N] [--seed S] [--no-baseline]
                               [--deck]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from bench.common import pin_to_one_core, registered_deck
from tracker.camera.live import LiveTracker
from tracker.camera.reader import TableReader, sightings
from tracker.camera.recording import IMAGES, read_phone
from tracker.camera.stabilize import Sighting
from tracker.rules.bot import play_game

FRAME_BUDGET_MS = 1000 / 30
SAME_MM = 1.0  # a sighting agrees when its card, zone and side agree and it lies this near


@dataclass
class Run:
    """Per-frame figures of one pass over the recording."""

    cpu: list[float] = field(default_factory=list)  # ms, the path's thread
    wall: list[float] = field(default_factory=list)  # ms
    decode: list[float] = field(default_factory=list)  # ms CPU, the camera's
    unchanged: list[bool] = field(default_factory=list)  # the last Observation stood
    markers: list[str] = field(default_factory=list)  # the calibration's status
    seen: list[list[Sighting]] = field(default_factory=list)
    process_cpu: float = 0.0  # s: the whole process, to show no other thread works


def record(seed: int, out: Path) -> Path:
    """A bot game rendered as a 1280×720 recording in `out`."""
    from simulator.game_video import simulate  # only makes data; loaded when asked for

    game = play_game(("jaina", "garrosh"), seed=seed, sensible=True)
    log = out / "game.jsonl"
    log.write_text("".join(e.model_dump_json(exclude_none=True) + "\n" for e in game.events))
    summary = simulate(log, out / "sim", seed=seed, size=(1280, 720), progress=False)
    print(summary.line())
    return out / "sim"


def watched(update: Callable, statuses: list[str]) -> Callable:
    """`LiveCalibration.update` that notes each status."""
    def noting(frame: np.ndarray):
        result = update(frame)
        statuses.append(result.status)
        return result
    return noting


def run(paths: list[Path], phone: Path, shortcuts: bool, deck=None) -> Run:
    """The path over the frames, each timed; `shortcuts` off looks at every frame in full;
    `deck`, a registered deck (`vision.deck`) the recogniser reads with."""
    reader = TableReader(LiveTracker(), deck=deck)
    if not shortcuts:
        reader.recognizer.still = None
        reader.calibrations.still_level = None
    figures = Run()
    reader.calibrations.update = watched(reader.calibrations.update, figures.markers)
    inputs = read_phone(phone)
    started = time.process_time()
    for index, path in enumerate(paths):
        cpu = time.thread_time()
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        figures.decode.append((time.thread_time() - cpu) * 1000)
        cpu, wall = time.thread_time(), time.perf_counter()
        if frame is not None:
            reader.look(index, frame)
        for event in inputs.pop(index, []):
            reader.phone(index, event)
        figures.cpu.append((time.thread_time() - cpu) * 1000)
        figures.wall.append((time.perf_counter() - wall) * 1000)
        figures.unchanged.append(reader.seen is not None and not reader.recognizer.looked)
        calibration = reader.calibrations.calibration
        figures.seen.append([] if reader.seen is None else sightings(
            reader.seen, calibration.to_table, reader.layout))
    figures.process_cpu = time.process_time() - started
    return figures


def agreement(a: list[list[Sighting]], b: list[list[Sighting]],
              keep: Callable[[Sighting], bool]) -> tuple[float, int]:
    """The share of sightings (of both runs) that the other run has in the same frame, and
    how many sightings the first run has."""
    matched = total = 0
    for first, second in zip(a, b, strict=True):
        first, second = [s for s in first if keep(s)], [s for s in second if keep(s)]
        free = list(second)
        for s in first:
            near = [t for t in free if (t.card, t.zone, t.sideways) == (
                s.card, s.zone, s.sideways) and np.hypot(t.x - s.x, t.y - s.y) <= SAME_MM]
            if near:
                free.remove(min(near, key=lambda t: np.hypot(t.x - s.x, t.y - s.y)))
                matched += 2
        total += len(first) + len(second)
    return matched / max(total, 1), sum(len([s for s in f if keep(s)]) for f in a)


def line(label: str, ms: list[float]) -> str:
    ms_ = np.asarray(ms)
    return (f"  {label:<24} {np.median(ms_):7.1f} {np.percentile(ms_, 95):7.1f} "
            f"{ms_.max():7.1f} {1000 / ms_.mean():9.1f} "
            f"{100 * np.mean(ms_ > FRAME_BUDGET_MS):8.1f} %")


def report(name: str, figures: Run) -> None:
    print(line(f"{name}, CPU", figures.cpu))
    print(line(f"{name}, wall", figures.wall))


def ratio(base: list[float], fast: list[float]) -> str:
    b, f = np.asarray(base), np.asarray(fast)
    return (f"  {'ratio (CPU)':<24} {np.median(b) / np.median(f):6.1f}× "
            f"{np.percentile(b, 95) / np.percentile(f, 95):6.1f}× {b.max() / f.max():6.1f}× "
            f"{b.mean() / f.mean():8.1f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recording", type=Path, help="frames/ and phone.jsonl (default: "
                        "a game simulated now)")
    parser.add_argument("--frames", type=int, help="only the first N frames")
    parser.add_argument("--seed", type=int, default=1, help="the simulated game (default 1)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the pass with the shortcuts off")
    parser.add_argument("--deck", action="store_true",
                        help="a pass more with the game's deck registered (bench/deck.py)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    print(f"hearthtop live path benchmark, {pin_to_one_core()}, OpenCV {cv2.__version__}, "
          f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as scratch:
        recording = args.recording or record(args.seed, Path(scratch))
        paths = sorted(p for p in (recording / "frames").iterdir()
                       if p.suffix.lower() in IMAGES)[: args.frames]
        size = cv2.imread(str(paths[0])).shape[1::-1]
        print(f"{len(paths)} frames of {size[0]}×{size[1]} from {recording}")
        fast = run(paths, recording / "phone.jsonl", shortcuts=True)
        base = None if args.no_baseline else run(paths, recording / "phone.jsonl", False)
        decked = run(paths, recording / "phone.jsonl", True, registered_deck(recording)) \
            if args.deck else None
    print(f"  {'ms a frame':<24} {'median':>7} {'p95':>7} {'max':>7} {'frames/s':>9} "
          f"{'> 33 ms':>10}")
    report("live", fast)
    if base is not None:
        report("every frame in full", base)
        print(ratio(base.cpu, fast.cpu))
    if decked is not None:
        report("with the deck", decked)
        print(ratio(decked.cpu, fast.cpu).replace("ratio (CPU)", "deck / live (CPU)"))
    print(line("decode (camera's)", fast.decode))
    unchanged, cpu = np.asarray(fast.unchanged), np.asarray(fast.cpu)
    print(f"unchanged frames (the last Observation stands): {100 * unchanged.mean():.1f} %"
          + (f", {np.median(cpu[unchanged]):.1f} ms CPU median" if unchanged.any() else ""))
    if (~unchanged).any():
        print(f"other frames: CPU median {np.median(cpu[~unchanged]):.1f} ms, "
              f"p95 {np.percentile(cpu[~unchanged], 95):.1f} ms")
    still = np.mean([s == "still" for s in fast.markers])
    print(f"marker tiles still (ArUco not run): {100 * still:.1f} % of frames")
    print(f"CPU of the whole process over the path's thread: "
          f"{fast.process_cpu / (sum(fast.cpu) / 1000 + sum(fast.decode) / 1000):.2f}")
    if base is not None:
        for label, keep in (("all", lambda s: True),
                            ("named, in a zone", lambda s: s.card != "UNKNOWN" and s.zone)):
            share, count = agreement(base.seen, fast.seen, keep)
            print(f"sightings agreeing with every frame in full, {label}: "
                  f"{100 * share:.2f} % of {count}")


if __name__ == "__main__":
    main()
