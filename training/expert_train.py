"""Train an index expert: a face's suit, or its rank, from its two index corners at twice the
classifier's resolution, and export it to ONNX.

    python -m training.expert_train --reads suit --seed 0   # writes models/suit_expert.onnx
    python -m training.expert_train --reads rank --seed 0   # writes models/rank_expert.onnx

The card classifier sees a card at 72 × 100 px, where the index is a few pixels tall: a
blurred club passes for a spade, a deck's ornate ace of spades for the ace of clubs, and a
queen whose art the model has not seen for a king, though her corner prints a Q. A card
130 px wide in the frame (1080p, a photo) holds twice that detail. An expert reads only the
index corners of the card cut out at `SCALE` times the classifier's input, which
`CardClassifier.sharpness` cuts anyway, and says the suit or the rank; the recognizer
multiplies its opinion into the classifier's for the faces in clear view
(`CardClassifier.decide`), and the thresholds are fitted behind both (`training.threshold`).
The rank expert also learns the letters other decks print (V, D, R, 1: `classifier_data.reletter`)
and corners with no rank at all, which leave it unsure among the courts and the ace.
Same designs split, data and seeds as `training.classifier_train`; its data:
`training.expert_data`. `--real` adds the index corners of real photographs' cards, cut along
the outlines the photo detector finds (`training.real_photos`): printed indices are alike
from deck to deck, far more than faces are, so what is learnt of one real deck carries.

    python -m training.expert_train --reads rank --init models/rank_expert.pt \
        --train 30000 --epochs 3 --lr 1e-3 --real REAL   # the real photographs continued
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np

from cards import SUITS
from vision.classify import CLASSES, EXPERTS
from vision.detect import PHOTO_MODEL

from .classifier_data import WIDTHS
from .data import MODELS
from .evaluate import fit_temperature, reading_figures, softmax
from .expert_data import CARD, CORNER, corners, make_data
from .real_photos import make_real_classifier_data, real_arguments
from .training import (
    earlier_run,
    load_weights,
    logits_of,
    run_arguments,
    save_weights,
    start_training,
    train_classifier,
)

BATCH = 128


def build_model(classes: int = len(SUITS)):  # -> torch.nn.Module (lazy torch: train extra)
    """Each corner through shared weights, max-pooled over the corner and then over both
    corners: one covered corner is not fatal, and a half-turned card reads the same."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class IndexNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.corner = nn.Sequential(
                block(3, 16, 1), block(16, 32, 2), block(32, 48, 1), block(48, 64, 2),
                block(64, 96, 2), nn.AdaptiveMaxPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(96, classes))

        def forward(self, pair: torch.Tensor) -> torch.Tensor:
            """Logits of the classes from corners side by side (`corners`)."""
            w = CORNER[0]
            both = torch.maximum(self.corner(pair[..., :w]), self.corner(pair[..., w:]))
            return self.head(both)

    return IndexNet()


def export(model, temperature: float, path: Path) -> None:
    """ONNX taking whole cards cut out at CARD (uint8-range floats, NCHW), giving the classes'
    probabilities: the corners are cut inside, as `corners` cuts them."""
    import torch

    w, h = CORNER

    class WholeCard(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = model

        def forward(self, cards: torch.Tensor) -> torch.Tensor:
            top_left = cards[:, :, :h, :w]
            bottom_right = torch.flip(cards[:, :, CARD[1] - h:, CARD[0] - w:], (2, 3))
            pair = torch.cat([top_left, bottom_right], dim=3) / 255.0
            return torch.softmax(self.net(pair) / temperature, dim=1)

    model.eval()
    with warnings.catch_warnings():  # the TorchScript exporter's deprecation
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(WholeCard(), torch.zeros(1, 3, CARD[1], CARD[0]), str(path),
                          input_names=["cards"], output_names=["probabilities"],
                          opset_version=17, dynamo=False,
                          dynamic_axes={"cards": {0: "n"}, "probabilities": {0: "n"}})


def real_corners(args: argparse.Namespace, split: str, seed: int, per_card: int,
                 classes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The index corners (`corners`) of the cards of the real photographs' `split` whose
    index shows, `per_card` cuts of each, and what each is among the expert's classes."""
    cards, labels = make_real_classifier_data(args.real, split, seed, per_card, args.workers,
                                              args.real_detector, CARD)
    kind = EXPERTS[args.reads]
    faces = [kind.of_face(CLASSES[label]) for label in labels]
    return corners(cards), np.int64([classes.index(face) for face in faces])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=80_000, help="training samples")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--eval", type=int, default=3_000, help="samples a test set")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--reads", choices=sorted(EXPERTS), default="suit")
    parser.add_argument("--relettered", type=float, help="share of training courts and aces "
                        "with another index letter or none (default: 0.35 for ranks, else 0)")
    real_arguments(parser, PHOTO_MODEL)
    run_arguments(parser, None, BATCH)
    args = parser.parse_args()
    args.out = args.out or MODELS / f"{args.reads}_expert.onnx"
    relettered = args.relettered if args.relettered is not None else (
        0.35 if args.reads == "rank" else 0.0)
    classes = EXPERTS[args.reads].classes
    train_designs, calibration_designs, held_designs = start_training(args)
    data = partial(make_data, workers=args.workers, cache=args.data_cache, reads=args.reads)
    images, labels = data(args.seed, train_designs, args.train, relettered=relettered)
    real_train = 0
    if args.real is not None:
        real_images, real_labels = real_corners(args, "train", args.seed, args.real_per_card,
                                                classes)
        real_train = len(real_labels)
        print(f"{real_train} index-corner pairs of the real photographs of {args.real}")
        images = np.concatenate([images, real_images])
        labels = np.concatenate([labels, real_labels])
    cal_images, cal_labels = data(args.seed + 4, calibration_designs, args.eval)
    model = build_model(len(classes))
    load_weights(model, args.init)
    started = time.perf_counter()
    # no half turns: the two corners of a half-turned card are the same two corners
    train_classifier(model, images, labels, args.epochs, args.seed, args.lr,
                     warm_start=args.init is not None, device=args.device, batch=args.batch,
                     half_turns=False)
    train_seconds = time.perf_counter() - started
    model.cpu()
    temperature = fit_temperature(logits_of(model, cal_images), cal_labels)
    report: dict = {
        "reads": args.reads, "seed": args.seed, "train_samples": args.train,
        "relettered": relettered, "epochs": args.epochs,
        "train_seconds": round(train_seconds), "lr": args.lr, "temperature": temperature,
        "init": str(args.init) if args.init else None, "continued_from": earlier_run(args.init),
        "classes": list(classes), "input_px": list(CARD), "corner_px": list(CORNER),
        "train_designs": train_designs, "calibration_designs": calibration_designs,
        "held_out_designs": held_designs,
        "calibration": reading_figures(softmax(logits_of(model, cal_images), temperature),
                                       cal_labels, classes),
        "held_out": {}}
    for name, width in WIDTHS.items():
        test_images, test_labels = data(args.seed + 2, held_designs, args.eval, width_px=width)
        report["held_out"][name] = reading_figures(
            softmax(logits_of(model, test_images), temperature), test_labels, classes)
    report["real_photos"] = None
    if args.real is not None:
        valid_images, valid_labels = real_corners(args, "valid", args.seed + 6, 1, classes)
        report["real_photos"] = {
            "data": str(args.real), "train_samples": real_train,
            "per_card": args.real_per_card, "detector": str(args.real_detector),
            "valid": reading_figures(softmax(logits_of(model, valid_images), temperature),
                                     valid_labels, classes)}
    export(model, temperature, args.out)
    save_weights(model, args.out)
    report["onnx_bytes"] = args.out.stat().st_size
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("calibration", "held_out", "real_photos",
                                             "temperature")},
                     indent=2))


if __name__ == "__main__":
    main()
