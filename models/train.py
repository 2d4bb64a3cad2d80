"""Train the card classifier on synthetic cards and export it to ONNX.

    pip install -e '.[train]'            # PyTorch, CPU build
    python -m models.train --seed 0      # writes models/card_classifier.onnx and its report

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

from .common import (
    HELD_OUT_FAMILIES,
    as_input,
    batch_indices,
    earlier_run,
    image_tensor,
    in_chunks,
    kept,
    load_weights,
    on_device,
    progress_bar,
    run_arguments,
    save_weights,
    start_training,
    train_mode,
    width_argument,
)
from .synth import CLASSES, INPUT_PX, NO_CARD, WIDTH_RANGE, batch

MODELS = Path(__file__).parent
WIDTHS = {"close-up (200 px)": 200.0, "1080p (130 px)": 130.0, "720p (85 px)": 85.0,
          "far (55 px)": 55.0}
BATCH = 128
MAX_CONFIDENT_ERRORS = 1 / 1000
INDEX_CORNER = (0.34, 0.30)  # the share of a card's width and height its corner view takes


def make_data(seed: int, designs: list[str], count: int, workers: int,
              width_px: float | None = None, relettered: float = 0.0, no_cards: float = 0.0,
              cache: Path | None = None, input_px: tuple[int, int] = INPUT_PX,
              ) -> tuple[np.ndarray, np.ndarray]:
    """Samples made in parallel chunks of 500, each from its own seed: reproducible.
    `relettered` for training data only: tests see each design's own index; `no_cards`,
    the share where no card lies (`synth.no_card`); `input_px`, the size cut out. Kept in
    `cache`, if given (`common.kept`)."""
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(batch, seed, count, 500, {"designs": designs, "width_px": width_px,
                                                   "relettered": relettered,
                                                   "no_cards": no_cards, "input_px": input_px},
                          workers, "data")
        return {"images": np.concatenate([p[0] for p in parts]),
                "labels": np.concatenate([p[1] for p in parts])}

    key = [seed, sorted(designs), count, width_px, relettered, list(input_px)]
    key += [no_cards] if no_cards else []  # earlier runs' data keeps its key
    arrays = kept(cache, "cards", key, made)
    return arrays["images"], arrays["labels"]


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


def train(model, images: np.ndarray, labels: np.ndarray, epochs: int, seed: int,
          lr: float = 3e-3, warm_start: bool = False, device: str = "cpu",
          batch: int = BATCH, half_turns: bool = True) -> None:
    """`half_turns`: half the batches turned half round (a card has no up)."""
    import torch

    torch.manual_seed(seed)
    model.to(device)
    data = on_device({"images": images, "labels": labels}, device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(images) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps)
    # no label smoothing: it caps the logits' margin, so right answers crowd just under the
    # 0.998 or so that 1 wrong in 1,000 needs (0.02 held them at 0.997) and go unanswered
    loss_fn = torch.nn.CrossEntropyLoss()
    order_rng = np.random.default_rng(seed)
    step = 0
    for epoch in range(epochs):
        train_mode(model, warm_start)
        order = order_rng.permutation(len(images))
        seen, correct, started = 0, 0, time.perf_counter()
        for b, index in enumerate(batch_indices(order, batch, device)):
            x = as_input(data["images"][index])
            if half_turns and order_rng.random() < 0.5:
                x = torch.rot90(x, 2, (2, 3))
            y = data["labels"][index]
            logits = model(x)
            loss = loss_fn(logits, y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            seen += len(index)
            correct += (logits.argmax(1) == y).sum()  # a tensor: no wait for the GPU
            if step % 20 == 0:
                rate = seen / (time.perf_counter() - started)
                progress_bar(f"ep {epoch + 1}", (b + 1) * batch, len(order),
                          f"loss {loss.item():.3f} acc {float(correct) / seen:.3f} {rate:.0f}/s")
        progress_bar(f"ep {epoch + 1}", len(order), len(order),
                  f"acc {float(correct) / max(seen, 1):.3f}")


def logits_of(model, images: np.ndarray) -> np.ndarray:
    import torch

    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        return np.concatenate([model(image_tensor(images[i:i + 512]).to(device)).cpu().numpy()
                               for i in range(0, len(images), 512)])


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = logits / temperature
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature that minimises the negative log-likelihood (calibration)."""
    grid = np.exp(np.linspace(np.log(0.3), np.log(5), 60))
    nll = [-np.log(softmax(logits, t)[np.arange(len(labels)), labels] + 1e-12).mean()
           for t in grid]
    return float(grid[int(np.argmin(nll))])


def pick_threshold(confidence: np.ndarray, right: np.ndarray, unseen_errors: int = 0) -> float:
    """The lowest threshold under which fewer than 1 in 1000 confident answers are wrong
    (above 1, so that nothing is ever answered, if there is none), counting `unseen_errors`
    more wrong answers than were seen: the lowest threshold that a sample happens to pass is
    lower than the one its population would, and 1 makes up for that (at least 1000 answers
    even with none wrong)."""
    # a fine grid up to 0.999, then the rarer confidences a model on hard cases needs
    for threshold in (*np.linspace(0.5, 0.999, 500), 0.9995, 0.9998, 0.9999):
        confident = confidence >= threshold
        wrong = (~right & confident).sum() + unseen_errors
        if confident.sum() and wrong / confident.sum() < MAX_CONFIDENT_ERRORS:
            return float(threshold)
    return 1.01


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


def evaluate(probabilities: np.ndarray, labels: np.ndarray, threshold: float) -> dict:
    guess = probabilities.argmax(1)
    confidence = probabilities.max(1)
    right = guess == labels
    confident = confidence >= threshold
    return {"n": len(labels), "top1": float(right.mean()),
            "answered": float(confident.mean()),
            "confident_wrong": float((~right & confident).sum() / max(1, confident.sum()))}


def no_card_figures(probabilities: np.ndarray, threshold: float) -> dict:
    """On samples where no card lies: the share called NO_CARD, and named a card or a back
    at `threshold` (each such name is wrong)."""
    called_no_card = probabilities.argmax(1) == CLASSES.index(NO_CARD)
    named = ~called_no_card & (probabilities.max(1) >= threshold)
    return {"n": len(called_no_card), "called_no_card": float(called_no_card.mean()),
            "named_a_card": float(named.mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=60_000, help="training samples")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--eval", type=int, default=3_000, help="samples a test set")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (lower "
                        "to continue a run)")
    parser.add_argument("--relettered", type=float, default=0.0,
                        help="share of training courts and aces drawn with another index "
                        "letter (V, B, F, D, R, 1); 0.35 taught ancient_french's V and 1, +4 "
                        "points, and cost the other held-out designs up to 1.4 (not shipped)")
    parser.add_argument("--no-card", type=float, default=0.0,
                        help="share of training samples where no card lies (a hero card, "
                        "a hand, a phone, the table), of a class of their own (NONE); 0.06 "
                        "named nothing on no card but half as many backs (not shipped)")
    width_argument(parser)
    run_arguments(parser, MODELS / "card_classifier.onnx", BATCH)
    args = parser.parse_args()
    train_designs, calibration_designs, held_designs = start_training(args)
    data = partial(make_data, workers=args.workers, cache=args.data_cache)
    images, labels = data(args.seed, train_designs, args.train, relettered=args.relettered,
                          no_cards=args.no_card)
    val_images, val_labels = data(args.seed + 1, train_designs, args.eval)
    cal_images, cal_labels = data(args.seed + 4, calibration_designs, args.eval)
    classes = CLASSES if args.no_card else CLASSES[:-1]  # NONE only where it is taught
    model = build_model(len(classes), args.width)
    load_weights(model, args.init)
    started = time.perf_counter()
    train(model, images, labels, args.epochs, args.seed, args.lr,
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
        "held_in_validation": evaluate(val_prob, val_labels, threshold),
        "calibration": evaluate(cal_prob, cal_labels, threshold),
        "held_out": {}, "held_out_by_design": {}, "confusions": [],
    }
    confusions: Counter = Counter()
    for name, width in WIDTHS.items():
        test_images, test_labels = data(args.seed + 2, held_designs, args.eval, width_px=width)
        prob = softmax(logits_of(model, test_images), temperature)
        report["held_out"][name] = evaluate(prob, test_labels, threshold)
        for truth, guess in zip(test_labels, prob.argmax(1), strict=True):
            if truth != guess:
                confusions[(CLASSES[truth], CLASSES[guess])] += 1
    for design in held_designs:
        test_images, test_labels = data(args.seed + 3, [design], args.eval // 3)
        prob = softmax(logits_of(model, test_images), temperature)
        report["held_out_by_design"][design] = evaluate(prob, test_labels, threshold)
    report["confusions"] = [[a, b, n] for (a, b), n in confusions.most_common(15)]
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
