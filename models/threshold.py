"""Fit the classifier's confidence threshold on cards as the detector cuts them out.

Training fits the threshold on clean samples of the calibration designs, outlined about as
well as a good detector would. At run time the classifier sees the shipped detector's quads:
looser, sometimes a few degrees off, some on partly covered cards, so the same confidence is
worth less. This renders table scenes of the calibration designs (never the held-out ones),
runs the whole recognizer on them, and sets the threshold to the lowest one under which
fewer than 1 in 1000 confident answers on the cards it found are wrong: one for backs, one
for faces in clear view (`vision.detect.in_clear_view`) and one for the other faces (the card
on top can pass for a covered one). None is set lower than training's, so they only get
safer.

    python -m models.threshold [--scenes 400] [--seed 11]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from vision.classify import BACK
from vision.classify import MODEL as CLASSIFIER
from vision.detect import iou_matrix
from vision.layout import random_scene
from vision.pipeline import Recognizer
from vision.render import render

from .common import in_chunks, split_designs
from .detect_data import MIN_VISIBLE
from .detect_train import match
from .train import MAX_CONFIDENT_ERRORS, pick_threshold

SIZES = ((1280, 720), (1920, 1080))  # alternating, scene by scene
CHUNK = 10  # scenes a parallel job


def detector_cuts(seed: int, count: int, designs: list[str], classifier: str) -> np.ndarray:
    """(confidence, best class right, best class is BACK, in clear view) of every target
    card the recognizer found in `count` rendered scenes: an (n, 4) array."""
    recognizer = Recognizer(classifier=Path(classifier))
    rows = []
    for k in range(count):
        rng = np.random.default_rng(seed * 1000 + k)
        result = render(random_scene(rng, designs=designs, image_size=SIZES[k % 2]))
        obs = recognizer.observe(result.image, np.linalg.inv(result.homography))
        cards = [c for c in result.cards if c.visible > 0]
        quads = np.float32([c.quad for c in cards]).reshape(-1, 4, 2)
        visible = np.float32([c.visible for c in cards])
        took, _ = match(np.argsort(-obs.extra["score"], kind="stable"),
                        iou_matrix(obs.quads, quads), visible >= MIN_VISIBLE)
        for d in np.nonzero(took >= 0)[0]:
            best = obs.extra["best"][d]
            rows.append((obs.confidence[d], best == cards[took[d]].card, best == BACK,
                         obs.extra["clear"][d]))
    return np.array(rows, np.float64).reshape(-1, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", type=Path, default=CLASSIFIER)
    args = parser.parse_args()

    report_path = args.model.with_suffix(".json")
    report = json.loads(report_path.read_text())
    _, calibration, _ = split_designs(announce=True)
    parts = in_chunks(detector_cuts, args.seed, args.scenes, CHUNK,
                      {"designs": calibration, "classifier": str(args.model)},
                      args.workers, "scenes")
    rows = np.concatenate(parts)
    if not len(rows):
        sys.exit("no cards found in the scenes: is the detector shipped?")
    confidence = rows[:, 0]
    right, back, clear = (rows[:, k].astype(bool) for k in (1, 2, 3))
    trained = float(report.get("threshold_trained", report["threshold"]))
    # they fail differently (a covered face is read as the card on top; a back is a back):
    # each kind gets its own threshold, fewer than 1 in 1000 of its answers wrong
    kinds = {"face": ~back & clear, "covered_face": ~back & ~clear, "back": back}
    thresholds = {kind: max(trained, pick_threshold(confidence[m], right[m]))
                  for kind, m in kinds.items()}
    answered = np.zeros(len(rows), bool)
    for kind, m in kinds.items():
        answered |= m & (confidence >= thresholds[kind])
    summary = {
        "scenes": args.scenes, "seed": args.seed, "cards": len(rows),
        "top1": round(float(right.mean()), 4), "thresholds": thresholds,
        "answered": round(float(answered.mean()), 4),
        **{f"answered_{kind}": round(float(answered[m].mean()), 4) if m.any() else None
           for kind, m in kinds.items()},
        "faces_in_clear_view": int(kinds["face"].sum()),
        "wrong_among_answered": int((answered & ~right).sum()),
        "max_confident_errors": MAX_CONFIDENT_ERRORS}
    report.update(threshold_trained=trained, threshold=thresholds["face"],
                  covered_threshold=thresholds["covered_face"],
                  back_threshold=thresholds["back"], detector_cuts=summary)
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
