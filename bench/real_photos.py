"""The card classifier on real photographs (../shared/data/real_photos_dev), for validation.

Each labelled box holds one card; the card's outline inside it is found as the largest
card-shaped bright region (Otsu threshold, minimum-area rectangle), rectified, and named by
the shipped model. This measures the classifier on real cameras and a real deck design, apart
from detection; `--recognize` measures the whole `recognize` path instead (detector, refiner,
classifier). The photos are read in place, never copied, never trained on.

    python -m bench.real_photos [--data DIR] [--split valid] [--recognize [--one-zoom]]
                                [--detector D.onnx] [--classifier C.onnx]

`--data` may also be the training set `../shared/tools/real_photos_train.py` exports (the
Roboflow-100 poker-cards photos, CC BY 4.0): `--split valid` keeps its validation photos,
on which the abstention is to be chosen; its `train` photos are for training only.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision.classify import MODEL as CLASSIFIER
from vision.classify import UNKNOWN, CardClassifier
from vision.detect import MODEL as DETECTOR
from vision.detect import PHOTO_ZOOMS

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real_photos_dev"


def card_quad(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray | None:
    """The outline of the bright card inside `box`, in image pixels, or None."""
    x1, y1, x2, y2 = box
    pad = int(0.04 * max(x2 - x1, y2 - y1))
    x1, y1 = max(0, x1 - pad), max(0, y1 - pad)
    x2, y2 = min(image.shape[1], x2 + pad), min(image.shape[0], y2 + pad)
    grey = cv2.cvtColor(image[y1:y2, x1:x2], cv2.COLOR_BGR2GRAY)
    _, mask = cv2.threshold(cv2.GaussianBlur(grey, (5, 5), 0), 0, 255,
                            cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    biggest = max(contours, key=cv2.contourArea)
    if cv2.contourArea(biggest) < 0.2 * grey.size:
        return None
    return cv2.boxPoints(cv2.minAreaRect(biggest)) + np.float32([x1, y1])


def _box_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def labelled_detections(quads: np.ndarray, shape: tuple[int, ...],
                        labels: list[dict]) -> list[int]:
    """For each labelled card of a photo of `shape`, the detection (a quad) whose box
    overlaps its box best, by IoU 0.5 or more, each taken once; -1 for none. A label boxes
    what shows of a card, so a card cut by the frame's edge is matched by its box clipped
    to the frame."""
    frame = np.float32(shape[1::-1])
    boxes = [(*np.clip(q.min(axis=0), 0, frame), *np.clip(q.max(axis=0), 0, frame))
             for q in quads]
    taken: list[int] = []
    for label in labels:
        box = tuple(float(label[k]) for k in ("x1", "y1", "x2", "y2"))
        iou, best = max(((_box_iou(box, b), i) for i, b in enumerate(boxes) if i not in taken),
                        default=(0.0, -1))
        taken.append(best if iou >= 0.5 else -1)
    return taken


def recognize_all(data: Path, rows: list[dict], zooms: tuple[float, ...], detector: Path,
                  classifier: Path) -> None:
    """The whole `recognize` path (detector, then classifier) on every photo."""
    from vision.pipeline import Recognizer

    recognizer = Recognizer(detector, classifier)
    outcome: Counter = Counter()
    extra = 0
    by_file: dict[str, list[dict]] = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    started = time.perf_counter()
    for file, labels in by_file.items():
        image = cv2.imread(str(data / file))
        obs = recognizer.observe(image, zooms=zooms)
        found = labelled_detections(obs.quads, image.shape, labels)
        for row, best in zip(labels, found, strict=True):
            truth = row["rank"] + row["suit"]
            if best < 0:
                outcome["not found"] += 1
                continue
            card = obs.cards[best]
            key = "unknown" if card == UNKNOWN else "right" if card == truth else "wrong"
            outcome[key] += 1
            outcome["best guess right"] += obs.extra["best"][best] == truth
        extra += len(obs) - sum(best >= 0 for best in found)
    total = len(rows)
    print(f"recognize on real photos: {total} cards in {len(by_file)} photos, "
          f"{time.perf_counter() - started:.1f} s")
    for key in ("right", "unknown", "wrong", "not found"):
        print(f"  {key:10} {outcome[key]:4d}  {outcome[key] / total:6.1%}")
    found = total - outcome["not found"]
    print(f"  best guess right among the {found} found: {outcome['best guess right']} "
          f"({outcome['best guess right'] / max(1, found):.1%})")
    print(f"  detections matching no labelled card: {extra} "
          f"({extra / len(by_file):.1f} a photo; some photos hold unlabelled cards)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--recognize", action="store_true",
                        help="run the whole recognize path instead of the labelled boxes")
    parser.add_argument("--one-zoom", action="store_true",
                        help="with --recognize: the detector at one zoom only, as on video")
    parser.add_argument("--detector", type=Path, default=DETECTOR,
                        help="with --recognize: a candidate detector")
    parser.add_argument("--classifier", type=Path, default=CLASSIFIER,
                        help="a candidate classifier (its .json beside it)")
    parser.add_argument("--split", help="only the rows of this split (the `split` column)")
    args = parser.parse_args()
    rows = [row for row in csv.DictReader((args.data / "labels.csv").open())
            if args.split is None or row.get("split") == args.split]
    if not rows:
        parser.error(f"{args.data / 'labels.csv'}: no labelled card"
                     + (f" in split {args.split!r}" if args.split else ""))
    if args.recognize:
        recognize_all(args.data, rows, (1.0,) if args.one_zoom else PHOTO_ZOOMS, args.detector,
                      args.classifier)
        return
    classifier = CardClassifier(args.classifier)
    outcome: Counter = Counter()
    confusions: Counter = Counter()
    started = time.perf_counter()
    for row in rows:
        image = cv2.imread(str(args.data / row["file"]))
        truth = row["rank"] + row["suit"]
        box = tuple(int(row[k]) for k in ("x1", "y1", "x2", "y2"))
        quad = None if image is None else card_quad(image, box)
        if quad is None:
            outcome["no outline"] += 1
            continue
        prediction = classifier.classify_quads(image, [quad])[0]
        if prediction.card == UNKNOWN:
            outcome["unknown"] += 1
            outcome["unknown but best right"] += prediction.best == truth
        elif prediction.card == truth:
            outcome["right"] += 1
        else:
            outcome["confident wrong"] += 1
            confusions[(truth, prediction.card)] += 1
        outcome["top1 right"] += prediction.best == truth
    total = len(rows)
    seconds = time.perf_counter() - started
    print(f"real photos: {total} labelled cards in {seconds:.1f} s ({args.data})")
    for key in ("top1 right", "right", "unknown", "confident wrong", "no outline"):
        print(f"  {key:16} {outcome[key]:4d}  {outcome[key] / total:6.1%}")
    print("  most confused:", ", ".join(f"{a}->{b} ×{n}" for (a, b), n in
                                       confusions.most_common(8)) or "none")


if __name__ == "__main__":
    main()
