"""The card classifier on real photographs (../shared/data/real_photos_dev), for validation.

Each labelled box holds one card; the card's outline inside it is the card-shaped rectangle
that fits the box with its sides on the photo's edges, moved onto the card's corners by the
shipped refiner (`training.real_photos`), rectified, and named by the shipped model. This
measures the classifier on real cameras and a real deck design, apart from detection;
`--recognize` measures the whole `recognize` path instead (detector, refiner, classifier):
identity (named right), abstained, confidently wrong, not found, and phantom outlines
(detections on no labelled card). The photos are read in place, never copied, never trained on.

    python -m bench.real_photos [--data DIR] [--split valid] [--recognize [--one-zoom]]
                                [--detector D.onnx] [--classifier C.onnx]

`--data` may also be the training set `../shared/tools/real_photos_train.py` exports (the
Roboflow-100 poker-cards photos, CC BY 4.0): `--split valid` keeps its validation photos,
on which the abstention is to be chosen; its `train` photos are for training only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import cv2

from training.real_photos import Photo, load, outline, photo_export, recognized
from vision.classify import MODEL as CLASSIFIER
from vision.classify import UNKNOWN, CardClassifier
from vision.detect import PHOTO_MODEL as DETECTOR
from vision.detect import PHOTO_ZOOMS
from vision.refine import CardRefiner

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real_photos_dev"


def read(photo: Photo):  # -> np.ndarray
    """The photo's image; a photo that cannot be read ends the run in one line."""
    image = cv2.imread(str(photo.file))
    if image is None:
        print(f"bench.real_photos: error: {photo.file}: not an image", file=sys.stderr)
        raise SystemExit(2)
    return image


def recognize_all(photos: list[Photo], zooms: tuple[float, ...], detector: Path,
                  classifier: Path) -> None:
    """The whole `recognize` path (detector, then classifier) on every photo."""
    from vision.pipeline import Recognizer

    recognizer = Recognizer(detector, classifier, photo_detector=detector)
    outcome: Counter = Counter()
    extra = 0
    started = time.perf_counter()
    for photo in photos:
        image = read(photo)
        obs, found = recognized(recognizer, photo, image, zooms)
        for card, best in zip(photo.cards, found, strict=True):
            if best < 0:
                outcome["not found"] += 1
                continue
            named = obs.cards[best]
            key = "unknown" if named == UNKNOWN else "right" if named == card.card else "wrong"
            outcome[key] += 1
            outcome["best guess right"] += obs.extra["best"][best] == card.card
        extra += len(obs) - sum(best >= 0 for best in found)
    total = sum(len(photo.cards) for photo in photos)
    print(f"recognize on real photos: {total} cards in {len(photos)} photos, "
          f"{time.perf_counter() - started:.1f} s")
    for key, name in (("right", "identity"), ("unknown", "abstained"),
                      ("wrong", "conf. wrong"), ("not found", "not found")):
        print(f"  {name:11} {outcome[key]:4d}  {outcome[key] / total:6.1%}")
    found = total - outcome["not found"]
    print(f"  best guess right among the {found} found: {outcome['best guess right']} "
          f"({outcome['best guess right'] / max(1, found):.1%})")
    print(f"  phantom outlines (matching no labelled card): {extra} "
          f"({extra / len(photos):.2f} a photo; some photos hold unlabelled cards)")


def classify_all(photos: list[Photo], classifier_model: Path, data: Path) -> None:
    """The classifier alone on every labelled card, cut along its box-derived outline."""
    classifier = CardClassifier(classifier_model)
    refiner = CardRefiner()
    outcome: Counter = Counter()
    confusions: Counter = Counter()
    started = time.perf_counter()
    for photo in photos:
        image = read(photo)
        outline(photo, image, refiner)
        predictions = classifier.classify_quads(image, [c.quad for c in photo.cards])
        for card, prediction in zip(photo.cards, predictions, strict=True):
            truth = card.card
            if prediction.card == UNKNOWN:
                outcome["unknown"] += 1
            elif prediction.card == truth:
                outcome["right"] += 1
            else:
                outcome["confident wrong"] += 1
                confusions[(truth, prediction.card)] += 1
            outcome["top1 right"] += prediction.best == truth
    total = sum(len(photo.cards) for photo in photos)
    seconds = time.perf_counter() - started
    print(f"real photos: {total} labelled cards in {seconds:.1f} s ({data})")
    for key in ("top1 right", "right", "unknown", "confident wrong"):
        print(f"  {key:16} {outcome[key]:4d}  {outcome[key] / total:6.1%}")
    print("  most confused:", ", ".join(f"{a}->{b} ×{n}" for (a, b), n in
                                       confusions.most_common(8)) or "none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=photo_export, default=str(DATA))
    parser.add_argument("--recognize", action="store_true",
                        help="run the whole recognize path instead of the labelled boxes")
    parser.add_argument("--one-zoom", action="store_true",
                        help="with --recognize: the detector at one zoom only, as on video")
    parser.add_argument("--detector", type=Path, default=DETECTOR,
                        help="with --recognize: a candidate detector (default: the shipped "
                        "photo detector, vision.detect.PHOTO_MODEL)")
    parser.add_argument("--classifier", type=Path, default=CLASSIFIER,
                        help="a candidate classifier (its .json beside it)")
    parser.add_argument("--split", help="only the rows of this split (the `split` column)")
    args = parser.parse_args()
    photos = load(args.data, args.split)
    if not photos:
        parser.error(f"{args.data / 'labels.csv'}: no labelled card"
                     + (f" in split {args.split!r}" if args.split else ""))
    if args.recognize:
        recognize_all(photos, (1.0,) if args.one_zoom else PHOTO_ZOOMS, args.detector,
                      args.classifier)
    else:
        classify_all(photos, args.classifier, args.data)


if __name__ == "__main__":
    main()
