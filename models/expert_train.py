"""Train an index expert: a face's suit, or its rank, from its two index corners at twice the
classifier's resolution, and export it to ONNX.

    python -m models.expert_train --reads suit --seed 0   # writes models/suit_expert.onnx
    python -m models.expert_train --reads rank --seed 0   # writes models/rank_expert.onnx

The card classifier sees a card at 72 × 100 px, where the index is a few pixels tall: a
blurred club passes for a spade, a deck's ornate ace of spades for the ace of clubs, and a
queen whose art the model has not seen for a king, though her corner prints a Q. A card
130 px wide in the frame (1080p, a photo) holds twice that detail. An expert reads only the
index corners of the card cut out at `SCALE` times the classifier's input, which
`CardClassifier.sharpness` cuts anyway, and says the suit or the rank; the recognizer
multiplies its opinion into the classifier's for the faces in clear view
(`CardClassifier.decide`), and the thresholds are fitted behind both (`models.threshold`).
The rank expert also learns the letters other decks print (V, D, R, 1: `synth.reletter`)
and corners with no rank at all, which leave it unsure among the courts and the ace.
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
from vision.classify import EXPERTS, SHARPNESS_SCALE

from .common import in_chunks, kept, run_arguments, save_weights, start_training
from .synth import INPUT_PX, RELETTERS, sample
from .train import INDEX_CORNER, WIDTHS, fit_temperature, logits_of, softmax, train

MODELS = Path(__file__).parent
SCALE = SHARPNESS_SCALE  # the card is cut out at this many times the classifier's input
CARD = (SCALE * INPUT_PX[0], SCALE * INPUT_PX[1])  # width × height
# an index corner, as the classifier's own corner view takes it
CORNER = (round(CARD[0] * INDEX_CORNER[0]), round(CARD[1] * INDEX_CORNER[1]))
BATCH = 128
# the rank expert's other index letters: a deck's own, or none at all (guyenne's courts)
RANK_LETTERS = {rank: (*letters, "") for rank, letters in RELETTERS.items()}


def corners(cards: np.ndarray) -> np.ndarray:
    """The two index corners of cards (N, H, W, 3 at CARD) side by side, (N, h, 2w, 3): the
    top-left, and the bottom-right turned half round (upright, as the top-left)."""
    w, h = CORNER
    top_left = cards[:, :h, :w]
    bottom_right = cards[:, -h:, -w:][:, ::-1, ::-1]
    return np.ascontiguousarray(np.concatenate([top_left, bottom_right], axis=2))


def batch(seed: int, designs: list[str], count: int, width_px: float | None = None,
          reads: str = "suit", relettered: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """`count` faces over `designs`, as their corners (`corners`), and what they are (an index
    in EXPERTS[reads].classes); `relettered`: the share of courts and aces whose index is
    redrawn with another letter or erased (RANK_LETTERS)."""
    kind = EXPERTS[reads]
    rng = np.random.default_rng(seed)
    cards = np.empty((count, CARD[1], CARD[0], 3), np.uint8)
    labels = np.empty(count, np.int64)
    for i in range(count):
        design = designs[int(rng.integers(len(designs)))]
        while True:
            label = int(rng.integers(len(FACES)))
            if variants(design, FACES[label]):
                break
        cards[i] = sample(rng, design, label, width_px, relettered, CARD, RANK_LETTERS)
        labels[i] = kind.classes.index(kind.of_face(FACES[label]))
    return corners(cards), labels


def make_data(seed: int, designs: list[str], count: int, workers: int,
              width_px: float | None = None, cache: Path | None = None, reads: str = "suit",
              relettered: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(batch, seed, count, 500, {"designs": designs, "width_px": width_px,
                                                    "reads": reads, "relettered": relettered},
                          workers, "data")
        return {"images": np.concatenate([p[0] for p in parts]),
                "labels": np.concatenate([p[1] for p in parts])}

    key = [seed, sorted(designs), count, width_px, list(CARD)]
    if reads != "suit" or relettered:  # the suit expert's earlier caches still match
        key += [reads, relettered]
    arrays = kept(cache, f"{reads}s", key, made)
    return arrays["images"], arrays["labels"]


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


def _figures(probabilities: np.ndarray, labels: np.ndarray, classes: tuple[str, ...]) -> dict:
    guess = probabilities.argmax(1)
    pairs = {f"{classes[a]}->{classes[b]}": int(((labels == a) & (guess == b)).sum())
             for a in range(len(classes)) for b in range(len(classes)) if a != b}
    return {"n": len(labels), "top1": round(float((guess == labels).mean()), 4),
            "confused": {pair: n for pair, n in sorted(pairs.items(), key=lambda p: -p[1]) if n}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=80_000, help="training samples")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--eval", type=int, default=3_000, help="samples a test set")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--reads", choices=sorted(EXPERTS), default="suit")
    parser.add_argument("--relettered", type=float, help="share of training courts and aces "
                        "with another index letter or none (default: 0.35 for ranks, else 0)")
    run_arguments(parser, None, BATCH)
    args = parser.parse_args()
    args.out = args.out or MODELS / f"{args.reads}_expert.onnx"
    relettered = args.relettered if args.relettered is not None else (
        0.35 if args.reads == "rank" else 0.0)
    classes = EXPERTS[args.reads].classes
    train_designs, calibration_designs, held_designs = start_training(args)
    if args.init:
        sys.exit("--init: an expert trains from scratch only")
    data = partial(make_data, workers=args.workers, cache=args.data_cache, reads=args.reads)
    images, labels = data(args.seed, train_designs, args.train, relettered=relettered)
    cal_images, cal_labels = data(args.seed + 4, calibration_designs, args.eval)
    model = build_model(len(classes))
    started = time.perf_counter()
    # no half turns: the two corners of a half-turned card are the same two corners
    train(model, images, labels, args.epochs, args.seed, args.lr, device=args.device,
          batch=args.batch, half_turns=False)
    train_seconds = time.perf_counter() - started
    model.cpu()
    temperature = fit_temperature(logits_of(model, cal_images), cal_labels)
    report: dict = {
        "reads": args.reads, "seed": args.seed, "train_samples": args.train,
        "relettered": relettered, "epochs": args.epochs,
        "train_seconds": round(train_seconds), "lr": args.lr, "temperature": temperature,
        "classes": list(classes), "input_px": list(CARD), "corner_px": list(CORNER),
        "train_designs": train_designs, "calibration_designs": calibration_designs,
        "held_out_designs": held_designs,
        "calibration": _figures(softmax(logits_of(model, cal_images), temperature),
                                cal_labels, classes),
        "held_out": {}}
    for name, width in WIDTHS.items():
        test_images, test_labels = data(args.seed + 2, held_designs, args.eval, width_px=width)
        report["held_out"][name] = _figures(softmax(logits_of(model, test_images), temperature),
                                            test_labels, classes)
    export(model, temperature, args.out)
    save_weights(model, args.out)
    report["onnx_bytes"] = args.out.stat().st_size
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("calibration", "held_out", "temperature")},
                     indent=2))


if __name__ == "__main__":
    main()
