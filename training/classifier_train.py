"""Train the card classifier on synthetic cards and export it to ONNX.

    pip install -e '.[train]'                     # PyTorch, CPU build
    python -m training.classifier_train --seed 0  # models/card_classifier.onnx, its report

Whole design families are held out of training (a family shares its card art under several
names), and the report gives accuracy on them per design and per card width, the confusions,
and the confidence threshold under which the classifier answers UNKNOWN. Reproducible from
the seed: the same seed gives the same data, the same weights and the same figures.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np

from vision.classify import CLASSES

from .classifier_data import INDEX_CORNER, INPUT_PX, LABELS, WIDTH_RANGE, WIDTHS, make_data
from .data import MODELS
from .designs import HELD_OUT_FAMILIES
from .evaluate import (
    answer_figures,
    fit_temperature,
    no_card_figures,
    pick_threshold,
    softmax,
)
from .real_photos import make_real_classifier_data, real_arguments
from .training import (
    earlier_run,
    load_weights,
    logits_of,
    run_arguments,
    save_weights,
    start_training,
    train_classifier,
    width_argument,
)

BATCH = 128


def build_model(classes: int, width: float = 1.0):  # -> torch.nn.Module (lazy torch: train extra)
    """Two views of a rectified card: the whole card at half resolution (colour, pips, a
    back's pattern) and its two index corners at full resolution (rank and suit, which every
    design prints alike). The corners share weights and are max-pooled, so the answer is the
    same for a half-turned card and survives one covered corner. `width` scales every
    layer's channels (1: the shipped network)."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int) -> nn.Sequential:
        cin, cout = (c if c == 3 else round(c * width) for c in (cin, cout))
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    image_w, image_h = INPUT_PX
    corner_w, corner_h = round(image_w * INDEX_CORNER[0]), round(image_h * INDEX_CORNER[1])

    class CardNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.whole = nn.Sequential(
                nn.AvgPool2d(2), block(3, 16, 1), block(16, 32, 2), block(32, 64, 2),
                block(64, 96, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.corner = nn.Sequential(
                block(3, 24, 1), block(24, 48, 2), block(48, 64, 1), block(64, 96, 2),
                nn.AdaptiveMaxPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(2 * round(96 * width),
                                                                 classes))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            top_left = x[:, :, :corner_h, :corner_w]
            bottom_right = torch.flip(x[:, :, image_h - corner_h:, image_w - corner_w:],
                                      (2, 3))
            corners = torch.maximum(self.corner(top_left), self.corner(bottom_right))
            return self.head(torch.cat([self.whole(x), corners], dim=1))

    return CardNet()


def export(model, temperature: float, path: Path) -> None:
    """ONNX taking uint8-range float images NCHW (1/255 inside), giving probabilities."""
    import torch

    class Calibrated(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = model

        def forward(self, images: torch.Tensor) -> torch.Tensor:
            return torch.softmax(self.net(images / 255.0) / temperature, dim=1)

    model.eval()
    dummy = torch.zeros(1, 3, INPUT_PX[1], INPUT_PX[0])
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="torch.onnx")
    torch.onnx.export(Calibrated(), dummy, str(path), input_names=["cards"],
                      output_names=["probabilities"], opset_version=17, dynamo=False,
                      dynamic_axes={"cards": {0: "n"}, "probabilities": {0: "n"}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=60_000, help="training samples")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--eval", type=int, default=3_000, help="samples a test set")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (lower "
                        "to continue a run)")
    parser.add_argument("--relettered", type=float, default=0.0,
                        help="share of training courts and aces drawn with another index "
                        "letter (V, B, F, D, R, 1); 0 for the shipped model (what more did: "
                        "docs/vision.md, Next 2)")
    parser.add_argument("--no-card", type=float, default=0.0,
                        help="share of training samples where no card lies (a hero card, "
                        "a hand, a phone, the table), of a class of their own (NONE); 0 for the "
                        "shipped model (what 0.06 did: docs/vision.md, Next 6)")
    real_arguments(parser)
    width_argument(parser)
    run_arguments(parser, MODELS / "card_classifier.onnx", BATCH)
    args = parser.parse_args()
    train_designs, calibration_designs, held_designs = start_training(args)
    data = partial(make_data, workers=args.workers, cache=args.data_cache)
    images, labels = data(args.seed, train_designs, args.train, relettered=args.relettered,
                          no_cards=args.no_card)
    if args.real is not None:
        real_images, real_labels = make_real_classifier_data(
            args.real, "train", args.seed, args.real_per_card, args.workers, args.real_detector)
        print(f"{len(real_images)} samples of the real photographs of {args.real}")
        images, labels = np.concatenate([images, real_images]), np.concatenate([labels,
                                                                               real_labels])
    val_images, val_labels = data(args.seed + 1, train_designs, args.eval)
    cal_images, cal_labels = data(args.seed + 4, calibration_designs, args.eval)
    classes = LABELS if args.no_card else CLASSES  # NONE only where it is taught
    model = build_model(len(classes), args.width)
    load_weights(model, args.init)
    started = time.perf_counter()
    train_classifier(model, images, labels, args.epochs, args.seed, args.lr,
                     warm_start=args.init is not None, device=args.device, batch=args.batch)
    train_seconds = time.perf_counter() - started

    temperature = fit_temperature(logits_of(model, cal_images), cal_labels)
    cal_prob = softmax(logits_of(model, cal_images), temperature)
    threshold = pick_threshold(cal_prob.max(1), cal_prob.argmax(1) == cal_labels)
    val_prob = softmax(logits_of(model, val_images), temperature)
    report: dict = {
        "seed": args.seed, "train_samples": args.train, "epochs": args.epochs,
        "train_seconds": round(train_seconds), "lr": args.lr, "batch": args.batch,
        "device": args.device, "width": args.width, "width_range": list(WIDTH_RANGE),
        **({"relettered": args.relettered} if args.relettered else {}),
        **({"no_card_share": args.no_card} if args.no_card else {}),
        "init": str(args.init) if args.init else None, "continued_from": earlier_run(args.init),
        "train_designs": train_designs,
        "held_out_designs": held_designs, "held_out_families": list(HELD_OUT_FAMILIES),
        "calibration_designs": calibration_designs,
        "temperature": temperature, "threshold": threshold, "classes": list(classes),
        "input_px": list(INPUT_PX),
        "held_in_validation": answer_figures(val_prob, val_labels, threshold),
        "calibration": answer_figures(cal_prob, cal_labels, threshold),
        "held_out": {}, "held_out_by_design": {}, "confusions": [],
    }
    confusions: Counter = Counter()
    for name, width in WIDTHS.items():
        test_images, test_labels = data(args.seed + 2, held_designs, args.eval, width_px=width)
        prob = softmax(logits_of(model, test_images), temperature)
        report["held_out"][name] = answer_figures(prob, test_labels, threshold)
        for truth, guess in zip(test_labels, prob.argmax(1), strict=True):
            if truth != guess:
                confusions[(LABELS[truth], LABELS[guess])] += 1
    for design in held_designs:
        test_images, test_labels = data(args.seed + 3, [design], args.eval // 3)
        prob = softmax(logits_of(model, test_images), temperature)
        report["held_out_by_design"][design] = answer_figures(prob, test_labels, threshold)
    report["confusions"] = [[a, b, n] for (a, b), n in confusions.most_common(15)]
    report["real_photos"] = None
    if args.real is not None:
        valid_images, valid_labels = make_real_classifier_data(
            args.real, "valid", args.seed + 6, 1, args.workers, args.real_detector)
        prob = softmax(logits_of(model, valid_images), temperature)
        report["real_photos"] = {"data": str(args.real), "train_samples": len(real_labels),
                                 "per_card": args.real_per_card,
                                 "detector": str(args.real_detector or ""),
                                 "valid": answer_figures(prob, valid_labels, threshold)}
    if args.no_card:
        nothing, _ = data(args.seed + 5, held_designs, args.eval // 3, no_cards=1.0)
        report["no_card"] = no_card_figures(softmax(logits_of(model, nothing), temperature),
                                            threshold)
    model.cpu()
    export(model, temperature, args.out)
    save_weights(model, args.out)
    report["onnx_bytes"] = args.out.stat().st_size
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("held_in_validation", "calibration", "held_out",
                                             "temperature", "threshold")}, indent=2))


if __name__ == "__main__":
    main()
