"""Train the suit expert: a card's suit from its two index corners at twice the classifier's
resolution, and export it to ONNX.

    python -m models.suit_train --seed 0   # writes models/suit_expert.onnx and its report

The card classifier sees a card at 72 × 100 px, where the suit sign in the index is a few
pixels tall: a blurred club passes for a spade, and a deck's ornate ace of spades for the ace
of clubs. A card 130 px wide in the frame (1080p, a photo) holds twice that detail. This
network reads only the index corners of the card cut out at `SCALE` times the classifier's
input, which `CardClassifier.sharpness` cuts anyway, and says its suit; the recognizer
multiplies its opinion into the classifier's for the faces in clear view
(`CardClassifier.decide`), and the thresholds are fitted behind both (`models.threshold`).
Same designs split, data and seeds as `models.train`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np

from vision.cardart import FACES, SUITS, variants
from vision.classify import SHARPNESS_SCALE

from .common import in_chunks, kept, run_arguments, save_weights, start_training
from .synth import INPUT_PX, sample
from .train import INDEX_CORNER, WIDTHS, fit_temperature, logits_of, softmax, train

MODELS = Path(__file__).parent
SCALE = SHARPNESS_SCALE  # the card is cut out at this many times the classifier's input
CARD = (SCALE * INPUT_PX[0], SCALE * INPUT_PX[1])  # width × height
# an index corner, as the classifier's own corner view takes it
CORNER = (round(CARD[0] * INDEX_CORNER[0]), round(CARD[1] * INDEX_CORNER[1]))
BATCH = 128


def corners(cards: np.ndarray) -> np.ndarray:
    """The two index corners of cards (N, H, W, 3 at CARD) side by side, (N, h, 2w, 3): the
    top-left, and the bottom-right turned half round (upright, as the top-left)."""
    w, h = CORNER
    top_left = cards[:, :h, :w]
    bottom_right = cards[:, -h:, -w:][:, ::-1, ::-1]
    return np.ascontiguousarray(np.concatenate([top_left, bottom_right], axis=2))


def batch(seed: int, designs: list[str], count: int,
          width_px: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`count` faces over `designs`, as their corners (`corners`), and their suits (an
    index in SUITS)."""
    rng = np.random.default_rng(seed)
    cards = np.empty((count, CARD[1], CARD[0], 3), np.uint8)
    labels = np.empty(count, np.int64)
    for i in range(count):
        design = designs[int(rng.integers(len(designs)))]
        while True:
            label = int(rng.integers(len(FACES)))
            if variants(design, FACES[label]):
                break
        cards[i] = sample(rng, design, label, width_px, input_px=CARD)
        labels[i] = SUITS.index(FACES[label][-1])
    return corners(cards), labels


def make_data(seed: int, designs: list[str], count: int, workers: int,
              width_px: float | None = None, cache: Path | None = None,
              ) -> tuple[np.ndarray, np.ndarray]:
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(batch, seed, count, 500, {"designs": designs, "width_px": width_px},
                          workers, "data")
        return {"images": np.concatenate([p[0] for p in parts]),
                "labels": np.concatenate([p[1] for p in parts])}

    arrays = kept(cache, "suits", [seed, sorted(designs), count, width_px, list(CARD)], made)
    return arrays["images"], arrays["labels"]


def build_model():  # -> torch.nn.Module (lazy torch: train extra)
    """Each corner through shared weights, max-pooled over the corner and then over both
    corners: one covered corner is not fatal, and a half-turned card reads the same."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class SuitNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.corner = nn.Sequential(
                block(3, 16, 1), block(16, 32, 2), block(32, 48, 1), block(48, 64, 2),
                block(64, 96, 2), nn.AdaptiveMaxPool2d(1), nn.Flatten())
            self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(96, len(SUITS)))

        def forward(self, pair: torch.Tensor) -> torch.Tensor:
            """Logits of the suits from corners side by side (`corners`)."""
            w = CORNER[0]
            both = torch.maximum(self.corner(pair[..., :w]), self.corner(pair[..., w:]))
            return self.head(both)

    return SuitNet()


def export(model, temperature: float, path: Path) -> None:
    """ONNX taking whole cards cut out at CARD (uint8-range floats, NCHW), giving the suits'
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


def _figures(probabilities: np.ndarray, labels: np.ndarray) -> dict:
    guess = probabilities.argmax(1)
    return {"n": len(labels), "top1": round(float((guess == labels).mean()), 4),
            "confused": {f"{SUITS[a]}->{SUITS[b]}": int(((labels == a) & (guess == b)).sum())
                         for a in range(len(SUITS)) for b in range(len(SUITS))
                         if a != b and ((labels == a) & (guess == b)).any()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=80_000, help="training samples")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--eval", type=int, default=3_000, help="samples a test set")
    parser.add_argument("--lr", type=float, default=3e-3)
    run_arguments(parser, MODELS / "suit_expert.onnx", BATCH)
    args = parser.parse_args()
    train_designs, calibration_designs, held_designs = start_training(args)
    if args.init:
        sys.exit("--init: the suit expert trains from scratch only")
    data = partial(make_data, workers=args.workers, cache=args.data_cache)
    images, labels = data(args.seed, train_designs, args.train)
    cal_images, cal_labels = data(args.seed + 4, calibration_designs, args.eval)
    model = build_model()
    started = time.perf_counter()
    # no half turns: the two corners of a half-turned card are the same two corners
    train(model, images, labels, args.epochs, args.seed, args.lr, device=args.device,
          batch=args.batch, half_turns=False)
    train_seconds = time.perf_counter() - started
    model.cpu()
    temperature = fit_temperature(logits_of(model, cal_images), cal_labels)
    report: dict = {
        "seed": args.seed, "train_samples": args.train, "epochs": args.epochs,
        "train_seconds": round(train_seconds), "lr": args.lr, "temperature": temperature,
        "classes": list(SUITS), "input_px": list(CARD), "corner_px": list(CORNER),
        "train_designs": train_designs, "calibration_designs": calibration_designs,
        "held_out_designs": held_designs,
        "calibration": _figures(softmax(logits_of(model, cal_images), temperature),
                                cal_labels),
        "held_out": {}}
    for name, width in WIDTHS.items():
        test_images, test_labels = data(args.seed + 2, held_designs, args.eval, width_px=width)
        report["held_out"][name] = _figures(softmax(logits_of(model, test_images), temperature),
                                            test_labels)
    export(model, temperature, args.out)
    save_weights(model, args.out)
    report["onnx_bytes"] = args.out.stat().st_size
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("calibration", "held_out", "temperature")},
                     indent=2))


if __name__ == "__main__":
    main()
