"""Benchmark: the whole recognizer (detector, refiner, classifier) on held-out table scenes.

Renders table scenes whose card designs were held out of every training, at 1280×720 and
1920×1080, runs `Recognizer.observe` on each (with the table homography, as a calibrated
camera gives), and matches what it found to the renderer's labels (rotated-box IoU ≥ 0.5,
the card whose visible part holds the detection's anchor first; every card with ≥ 3 %
showing is a target). Prints, per resolution:

- detection: recall, precision, recall by role and by the width of what shows of a card
  (the widest strip of it in view, in mm of table: a card under others shows a strip),
  orientation right among the cards found
  (where it means something: the minion zone and the weapon; not the discard pile, deck,
  a hand, armor or secrets),
  marker fans (same role, overlapping) counted exactly, by fan size and by role: the
  detections matched to a fan's cards, and any other whose best card is in the fan (a
  second box on a card);
- identity, among the cards found: top-1 (the likeliest class), the share answered above
  the confidence threshold, and the wrong share of those answers, for cards face up and
  fully in view (and among them number cards apart from courts, aces and the joker: minions
  are number cards, weapons and spells the others), face-up cards partly covered (named from
  an index corner that shows: `vision.corners`), all face-up cards, and face-down ones
  (BACK).

`--without` leaves designs out of the held-out set, as in `bench/classifier.py`.

    python -m bench.recognize [--scenes N] [--seed S] [--no-piles | --piles P.onnx]
                              [--detector D.onnx] [--classifier C.onnx] [--without DESIGN ...]
                              [--corner-check K.onnx | --no-corners]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from cards import JOKER
from simulator.layout import random_scene
from simulator.render import RenderResult, render
from tracker.rules.cards import parse_card
from training.designs import held_out_designs
from training.detect_data import MIN_VISIBLE, ROLES, card_extent, marker_fans
from training.evaluate import (
    MAX_FAN,
    STRAY_IOU,
    Scored,
    anchors_show,
    match_found,
    scene_record,
)
from vision import FRAME_SIZES
from vision.classify import MODEL as CLASSIFIER
from vision.classify import UNKNOWN
from vision.corners import MODEL as CORNER_CHECK
from vision.detect import MODEL as DETECTOR
from vision.detect import PILE_MODEL
from vision.pipeline import Recognizer

FULL_VIEW = 0.9  # a card this much in view can be read in full
# where upright and sideways mean nothing: cards at any angle (a messy discard pile, the deck,
# a hand), and the hero's armor and secrets, which the rules lay beside the hero card at no
# stated angle (DESIGN.md's marking: only minion-zone and weapon markers are read by it)
ANY_ANGLE = {"discard", "deck", "held", "in_hand", "other", "armor", "secret"}
WIDTHS_MM = (2.0, 4.0, 8.0, 16.0)  # bin edges of the width of what shows
FULL_NUMBERS = "  of them number cards"
COVERED = "face up, partly covered"
FULL_COURTS = "  courts, aces, the joker"


def shown_width_mm(result: RenderResult, i: int) -> float:
    """The width of the widest strip of card `i` in view, in mm of table: from the largest
    distance of a pixel that shows it to one that does not (a strip n px wide: (n + 1) / 2),
    at the card's own scale."""
    card = result.cards[i]
    (x0, y0), (x1, y1) = card_extent(result, i)
    shows = np.pad(np.uint8(result.owner[y0:y1, x0:x1] == i), 1)
    widest_px = 2.0 * float(cv2.distanceTransform(shows, cv2.DIST_L2, 5).max()) - 1.0
    px_per_mm = np.sqrt(cv2.contourArea(np.float32(card.quad)) /
                        cv2.contourArea(np.float32(card.quad_mm)))
    return widest_px / px_per_mm


def width_bins(found_by_width: list[tuple[float, bool]]) -> str:
    """Recall in bins of the width of what shows (`WIDTHS_MM`)."""
    widths = np.float32([w for w, _ in found_by_width])
    found = np.bool_([f for _, f in found_by_width])
    edges = (0.0, *WIDTHS_MM, np.inf)
    parts = []
    for lo, hi in itertools.pairwise(edges):
        inside = (widths >= lo) & (widths < hi)
        name = f"under {hi:g} mm" if lo == 0 else f"{lo:g} mm or more" if hi == np.inf \
            else f"{lo:g}–{hi:g} mm"
        if inside.any():
            parts.append(f"{name} {found[inside].mean():.0%} of {int(inside.sum())}")
    return ", ".join(parts)


def identity_line(name: str, rows: list[tuple[bool, bool]]) -> str:
    """rows: (best class right, answered) per card."""
    if not rows:
        return f"  {name:28} none"
    right = np.array([r for r, _ in rows])
    answered = np.array([a for _, a in rows])
    wrong = int((~right & answered).sum())
    return (f"  {name:28} {len(rows):5d} cards  top-1 {right.mean():6.1%}  answered "
            f"{answered.mean():6.1%}  wrong among answered {wrong}/{int(answered.sum())}")


def run(recognizer: Recognizer, designs: list[str], size: tuple[int, int], scenes: int,
        seed: int) -> None:
    records, oriented, found_by_width = [], [], []
    identity: dict[str, list[tuple[bool, bool]]] = {"face up, in full view": [],
                                                    FULL_NUMBERS: [], FULL_COURTS: [],
                                                    "face up, any part in view": [],
                                                    COVERED: [],
                                                    "face down (BACK)": [],
                                                    "on no card (hero card, hand)": []}
    times = []
    for k in range(scenes):
        result = render(random_scene(np.random.default_rng(seed * 1000 + k), designs=designs,
                                     image_size=size))
        started = time.perf_counter()
        obs = recognizer.observe(result.image, np.linalg.inv(result.homography))
        times.append(time.perf_counter() - started)
        index = [i for i, c in enumerate(result.cards) if c.visible > 0]
        cards = [result.cards[i] for i in index]
        fans = marker_fans(result, [i for i in index if result.cards[i].visible >= MIN_VISIBLE])
        record = scene_record(
            obs.extra["score"], obs.quads, np.float32([c.quad for c in cards]).reshape(-1, 4, 2),
            np.float32([c.visible for c in cards]),
            np.int8([ROLES.index(c.role) if c.role in ROLES else len(ROLES) - 1 for c in cards]),
            np.int16([fans.get(i, -1) for i in index]),
            anchors_show(obs.extra["anchor"], result.owner, index))
        records.append(record)
        took = match_found(obs, result, index, record["cards"])
        found = set(took[took >= 0].tolist())
        found_by_width += [(shown_width_mm(result, i), j in found) for j, i in enumerate(index)
                           if result.cards[i].visible >= MIN_VISIBLE]
        for d in np.nonzero(took >= 0)[0]:
            card = cards[took[d]]
            if card.role not in ANY_ANGLE:
                oriented.append(obs.orientation[d] == card.orientation)
            row = (obs.extra["best"][d] == card.card, obs.cards[d] != UNKNOWN)
            if card.face_up:
                identity["face up, any part in view"].append(row)
                if card.visible < FULL_VIEW:
                    identity[COVERED].append(row)
                else:
                    identity["face up, in full view"].append(row)
                    minion = card.card != JOKER and parse_card(card.card).is_minion
                    identity[FULL_NUMBERS if minion else FULL_COURTS].append(row)
            else:
                identity["face down (BACK)"].append(row)
        for d in np.nonzero(record["cards"].max(axis=1, initial=0.0) < STRAY_IOU)[0]:
            identity["on no card (hero card, hand)"].append((False, obs.cards[d] != UNKNOWN))
    metrics = Scored(records).metrics(0.0, 2.0)  # the pipeline's own threshold and NMS
    print(f"{size[0]}×{size[1]}: {scenes} scenes, {metrics['cards']} cards "
          f"(median {1000 * np.median(times):.0f} ms a frame on this machine)")
    print(f"  detection: recall {metrics['recall']:.1%}, precision {metrics['precision']:.1%}, "
          f"orientation right {np.mean(oriented):.2%} of {len(oriented)} found")
    print("  recall by role: " + ", ".join(f"{role} {share:.0%}" for role, share in
                                           metrics["recall_by_role"].items()))
    print("  recall by width of what shows: " + width_bins(found_by_width))
    fans = metrics["marker_fans_by_size"]
    upto5 = [(n, e) for size, (n, e) in fans.items() if size <= MAX_FAN]
    exact = sum(n * e for n, e in upto5) / max(1, sum(n for n, _ in upto5))
    print(f"  marker fans of up to {MAX_FAN} counted exactly: {exact:.1%} of "
          f"{sum(n for n, _ in upto5)} (" + ", ".join(
              f"{size}: {e:.0%} of {n}" for size, (n, e) in fans.items()) + ")")
    print("    by role: " + ", ".join(f"{role} {e:.0%} of {n}" for role, (n, e) in
                                     metrics["marker_fans_by_role"].items()))
    for name, rows in identity.items():
        print(identity_line(name, rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=60, help="scenes a resolution")
    parser.add_argument("--seed", type=int, default=7)
    looks = parser.add_mutually_exclusive_group()
    looks.add_argument("--no-piles", action="store_true",
                       help="the detector's first pass alone, no second look at piles")
    looks.add_argument("--piles", type=Path, default=PILE_MODEL, help="a candidate pile network")
    parser.add_argument("--detector", type=Path, default=DETECTOR, help="a candidate detector")
    parser.add_argument("--classifier", type=Path, default=CLASSIFIER,
                        help="a candidate classifier (its .json, with thresholds, beside it)")
    corners = parser.add_mutually_exclusive_group()
    corners.add_argument("--corner-check", type=Path, default=CORNER_CHECK,
                         help="a candidate corner check (vision.corners)")
    corners.add_argument("--no-corners", action="store_true",
                         help="name no covered face from a corner")
    parser.add_argument("--without", nargs="*", default=[], help="held-out designs to skip")
    args = parser.parse_args()
    try:
        held_out = held_out_designs(args.without)
    except ValueError as error:
        sys.exit(f"error: {error}")
    recognizer = Recognizer(args.detector, args.classifier,
                            piles=None if args.no_piles else args.piles,
                            corner_check=None if args.no_corners else args.corner_check)
    print(f"held-out designs: {', '.join(held_out)}")
    for k, size in enumerate(FRAME_SIZES.values()):
        run(recognizer, held_out, size, args.scenes, args.seed + k)


if __name__ == "__main__":
    main()
