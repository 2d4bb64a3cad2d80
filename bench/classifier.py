"""The shipped card classifier alone on held-out designs, per card width and per design,
without retraining: how `models/card_classifier.json` was measured, on new samples.

    python -m bench.classifier [--samples 3000] [--seed 4] [--without guyenne-classic]
                               [--candidate OTHER.onnx] [--experts]

`--without` leaves designs out of the held-out set, to show what one design costs (the
guyenne courts carry no rank index, only a suit sign, so only their art tells K from J).
`--candidate` measures another model on the same samples, beside the shipped one.
`--experts` measures the classifier alone beside the classifier with the index experts its
report names (`vision.classify.EXPERTS`), as the recognizer names a card in clear view: each
sample is cut out at the experts' size, and shrunk for the classifier.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from training.classifier_data import INPUT_PX, WIDTHS, make_data
from training.designs import held_out_designs
from training.expert_data import CARD
from vision.classify import MODEL, CardClassifier, ModelError, cut_sharpness

BATCH = 500


def top1(classifier: CardClassifier, images: np.ndarray, labels: np.ndarray) -> float:
    guesses = np.concatenate([classifier.probabilities(images[i:i + BATCH]).argmax(1)
                              for i in range(0, len(images), BATCH)])
    return float((guesses == labels).mean())


def top1_with_experts(classifier: CardClassifier, images: np.ndarray,
                      labels: np.ndarray) -> tuple[float, float]:
    """Top-1 of the classifier alone and with its experts, on samples cut out at CARD."""
    alone, helped = [], []
    for i in range(0, len(images), BATCH):
        cards = images[i:i + BATCH]
        small = np.stack([cv2.resize(card, INPUT_PX, interpolation=cv2.INTER_AREA)
                          for card in cards])
        probabilities = classifier.probabilities(small)
        sharpness = cut_sharpness(cards)
        readings = classifier.expert_readings(cards, sharpness)
        alone.append(probabilities.argmax(1))
        helped.append([classifier.classes.index(p.best) for p in classifier.decide(
            probabilities, sharpness=sharpness, experts=readings)])
    return (float((np.concatenate(alone) == labels).mean()),
            float((np.concatenate(helped) == labels).mean()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3000, help="samples a card width")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--without", nargs="*", default=[], help="held-out designs to skip")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--candidate", type=Path, help="another classifier, measured beside")
    parser.add_argument("--experts", action="store_true",
                        help="the classifier alone beside the classifier with its experts")
    args = parser.parse_args()
    if args.experts and args.candidate:
        sys.exit("error: --experts measures the shipped classifier only (no --candidate)")
    try:
        designs = held_out_designs(args.without)
    except ValueError as error:
        sys.exit(f"error: {error}")
    models = [MODEL] + ([args.candidate] if args.candidate else [])
    try:
        classifiers = [CardClassifier(model, threads=args.workers) for model in models]
    except ModelError as error:
        sys.exit(f"error: {error}")
    print(f"top-1 on {len(designs)} held-out designs, {args.samples} samples a width: "
          + ("alone | with " + ", ".join(classifiers[0].experts) + " experts" if args.experts
             else " | ".join(str(model) for model in models)))
    size = CARD if args.experts else INPUT_PX

    def measure(what: str, images: np.ndarray, labels: np.ndarray) -> None:
        figures = ([100 * f for f in top1_with_experts(classifiers[0], images, labels)]
                   if args.experts else
                   [100 * top1(classifier, images, labels) for classifier in classifiers])
        change = f"  ({figures[1] - figures[0]:+.1f})" if len(figures) > 1 else ""
        print(f"  {what:28s}" + " | ".join(f"{f:5.1f}%" for f in figures) + change)

    for name, width in WIDTHS.items():
        measure(name, *make_data(args.seed, designs, args.samples, args.workers, width,
                                 input_px=size))
    for design in designs:
        measure(design, *make_data(args.seed + 1, [design], args.samples // 3, args.workers,
                                   input_px=size))


if __name__ == "__main__":
    main()
