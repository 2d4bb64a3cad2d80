"""The shipped card classifier alone on held-out designs, per card width and per design,
without retraining: how `models/card_classifier.json` was measured, on new samples.

    python bench/classifier.py [--samples 3000] [--seed 4] [--without guyenne-classic]
                               [--candidate OTHER.onnx]

`--without` leaves designs out of the held-out set, to show what one design costs (the
guyenne courts carry no rank index, only a suit sign, so only their art tells K from J).
`--candidate` measures another model on the same samples, beside the shipped one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.common import split_designs
from models.train import WIDTHS, make_data
from vision.classify import MODEL, CardClassifier, ModelError

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
    parser.add_argument("--candidate", type=Path, help="another classifier, measured beside")
    args = parser.parse_args()
    _, _, held = split_designs()
    unknown = set(args.without) - set(held)
    if unknown:
        sys.exit(f"error: not a held-out design: {', '.join(sorted(unknown))} "
                 f"(held out: {', '.join(held)})")
    designs = [d for d in held if d not in args.without]
    models = [MODEL] + ([args.candidate] if args.candidate else [])
    try:
        classifiers = [CardClassifier(model, threads=args.workers) for model in models]
    except ModelError as error:
        sys.exit(f"error: {error}")
    print(f"top-1 on {len(designs)} held-out designs, {args.samples} samples a width: "
          + " | ".join(str(model) for model in models))

    def measure(what: str, images: np.ndarray, labels: np.ndarray) -> None:
        figures = [100 * top1(classifier, images, labels) for classifier in classifiers]
        change = f"  ({figures[1] - figures[0]:+.1f})" if len(figures) > 1 else ""
        print(f"  {what:28s}" + " | ".join(f"{f:5.1f}%" for f in figures) + change)

    for name, width in WIDTHS.items():
        measure(name, *make_data(args.seed, designs, args.samples, args.workers, width))
    for design in designs:
        measure(design, *make_data(args.seed + 1, [design], args.samples // 3, args.workers))


if __name__ == "__main__":
    main()
