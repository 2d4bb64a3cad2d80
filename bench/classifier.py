"""The shipped card classifier alone on held-out designs, per card width and per design,
without retraining: how `models/card_classifier.json` was measured, on new samples.

    python bench/classifier.py [--samples 3000] [--seed 4] [--without guyenne-classic]
                               [--model CANDIDATE.onnx]

`--without` leaves designs out of the held-out set, to show what one design costs (the
guyenne courts carry no rank index, only a suit sign, so only their art tells K from J).
`--model` measures a candidate on the same samples as the shipped model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.common import split_designs
from models.train import WIDTHS, make_data
from vision.classify import MODEL, CardClassifier

BATCH = 500


def top1(classifier: CardClassifier, images: np.ndarray, labels: np.ndarray) -> float:
    guesses = np.concatenate([classifier.probabilities(images[i:i + BATCH]).argmax(1)
                              for i in range(0, len(images), BATCH)])
    return float((guesses == labels).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3000, help="samples a card width")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--without", nargs="*", default=[], help="held-out designs to skip")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", type=Path, default=MODEL, help="the classifier to measure")
    args = parser.parse_args()
    _, _, held = split_designs()
    unknown = set(args.without) - set(held)
    if unknown:
        sys.exit(f"error: not a held-out design: {', '.join(sorted(unknown))} "
                 f"(held out: {', '.join(held)})")
    designs = [d for d in held if d not in args.without]
    classifier = CardClassifier(args.model, threads=args.workers)
    print(f"{args.model} on {len(designs)} held-out designs, {args.samples} samples a width")
    for name, width in WIDTHS.items():
        images, labels = make_data(args.seed, designs, args.samples, args.workers, width)
        print(f"  {name:16s} top-1 {100 * top1(classifier, images, labels):5.1f}%")
    for design in designs:
        images, labels = make_data(args.seed + 1, [design], args.samples // 3, args.workers)
        print(f"  {design:28s} top-1 {100 * top1(classifier, images, labels):5.1f}%")


if __name__ == "__main__":
    main()
