"""Train the corner check (`vision.corners`), fit its thresholds and export it to ONNX.

    pip install -e '.[train]'                      # PyTorch, CPU build
    python -m training.corner_train --scenes 3000 --fit-scenes 400 --test-scenes 400
                                  # writes models/corner_check.onnx and its .json report

Data: rendered table scenes (training designs), read by the shipped recogniser as the table
is read; every card it found that is not in clear view and that the detector takes for a face
gives both its index corners (`vision.corners.corner_patches`). A corner *shows* where at
least SHOWS of the corner (as the found outline places it) is that card's own in the
renderer's owner map, and the card lies face up; a corner under SHOWS_NOT is hidden; those
between are left out of training. The CNN is trained on the training designs' corners; the
visibility and the experts' confidence that name a card (`CornerCheck.name`) are chosen on
the calibration designs so that none is named wrong, and the figures are on the test
designs: how many covered faces are named, and how many wrongly. Reproducible from the seed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from cards import DECK
from vision.classify import MODEL as CLASSIFIER
from vision.corners import (
    FACE_UP,
    MODEL,
    PATCH_PX,
    CornerCheck,
    corner_odds,
    corner_patches,
    fine_card,
    index_corner,
)
from vision.pipeline import Recognizer
from vision.rectify import portrait_orders

from .data import in_chunks, kept
from .designs import split_designs
from .threshold import scene_found

SHOWS, SHOWS_NOT = 0.9, 0.6  # a corner's share that is its card's own: shows, hidden
CHUNK = 20  # scenes a parallel job
VISIBLE_GRID = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)
CONFIDENCE_GRID = (0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999)


def own_share(owner: np.ndarray, quad: np.ndarray, card: int) -> tuple[float, float]:
    """The share of each index corner of `quad` (as the experts cut it) that is card
    `card`'s own in the owner map."""
    width, height = fine_card()
    w, h = index_corner()
    to_image = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [width, 0], [width, height], [0, height]]),
        portrait_orders(np.float32(quad)[None])[0])
    shares = []
    for x0, y0 in ((0, 0), (width - w, height - h)):
        corner = np.float32([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])
        poly = cv2.perspectiveTransform(corner[None], to_image)[0]
        mask = np.zeros(owner.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.int32(np.rint(poly)), 1)
        own = owner[mask > 0]
        shares.append(float((own == card).mean()) if own.size else 0.0)
    return shares[0], shares[1]


def corner_rows(seed: int, count: int, designs: list[str]) -> dict[str, np.ndarray]:
    """The covered faces the recogniser found in `count` rendered scenes: their corners'
    patches (n, 2, H, W, 3), the share of each that is the card's own (n, 2), whether the
    card lies face up, its index in DECK (-1 for a back, the joker), and the table experts'
    `deck_odds` for each corner alone (n, 2, 52), the cards the recogniser named elsewhere
    in the frame (n, 52 bool), and the scene's number (its seed)."""
    recognizer = Recognizer(corner_check=None)  # what the table names without it
    patches, shares, face_up, truth, odds, elsewhere, scene = [], [], [], [], [], [], []
    for k in range(count):
        result, obs, index, _, took = scene_found(recognizer, designs, seed, k)
        covered = np.nonzero((took >= 0) & ~obs.extra["clear"]
                             & (obs.extra["face_up"] >= FACE_UP))[0]
        if not len(covered):
            continue
        quads = obs.quads[covered]
        patches.append(corner_patches(result.image, quads))
        odds.append(corner_odds(recognizer.classifier, result.image, quads))
        for d in covered:
            others = {obs.cards[j] for j in range(len(obs)) if j != d}
            elsewhere.append([card in others for card in DECK])
            scene.append(seed * 1000 + k)
            card = result.cards[index[took[d]]]
            shares.append(own_share(result.owner, obs.quads[d], index[took[d]]))
            face_up.append(card.face_up)
            truth.append(DECK.index(card.card) if card.card in DECK else -1)
    if not patches:
        return {"patches": np.zeros((0, 2, PATCH_PX[1], PATCH_PX[0], 3), np.uint8),
                "shares": np.zeros((0, 2), np.float32), "face_up": np.zeros(0, bool),
                "truth": np.zeros(0, np.int16), "odds": np.zeros((0, 2, 52), np.float32),
                "elsewhere": np.zeros((0, 52), bool), "scene": np.zeros(0, np.int64)}
    return {"patches": np.concatenate(patches), "shares": np.float32(shares),
            "face_up": np.array(face_up, bool), "truth": np.int16(truth),
            "odds": np.concatenate(odds).astype(np.float32),
            "elsewhere": np.array(elsewhere, bool).reshape(-1, 52),
            "scene": np.int64(scene)}


def make_corner_data(seed: int, designs: list[str], count: int, workers: int,
                     cache: Path | None = None) -> dict[str, np.ndarray]:
    """`corner_rows` over chunks of CHUNK scenes, each from its own seed, joined; kept in
    `cache` if given (`training.data.kept`)."""
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(corner_rows, seed, count, CHUNK, {"designs": designs}, workers,
                          "scenes")
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    return kept(cache, "corners", [seed, sorted(designs), count], made)


def shows(data: dict[str, np.ndarray]) -> np.ndarray:
    """Each corner's target (n, 2): 1 shows, 0 hidden, NaN in between (left out)."""
    up = data["face_up"][:, None]
    target = np.full(data["shares"].shape, np.nan, np.float32)
    target[(data["shares"] >= SHOWS) & up] = 1.0
    target[(data["shares"] < SHOWS_NOT) | ~up] = 0.0
    return target


def named(data: dict[str, np.ndarray], visible: np.ndarray, at: float,
          threshold: float) -> tuple[int, int]:
    """Covered face-up cards named and named wrong at visibility `at` and expert confidence
    `threshold` (`visible`, the CNN's, (n, 2)), as the recogniser names them
    (`Recognizer._corner_look`): by `CornerCheck.name`'s rule, a card named elsewhere in the
    frame left out, and a card that two covered cards of one frame claim named for neither."""
    best = data["odds"].argmax(axis=2)
    sure = data["odds"].max(axis=2)
    passes = ((visible >= at) & (sure >= threshold)
              & ~np.take_along_axis(data["elsewhere"], best, axis=1))
    reads = {}
    for k in np.nonzero(passes.any(axis=1))[0]:
        names = set(best[k][passes[k]].tolist())
        if len(names) == 1:
            reads[k] = names.pop()
    claims = Counter((data["scene"][k], card) for k in range(len(best))
                     for card in CornerCheck.claims(visible[k], data["odds"][k]))
    right = wrong = 0
    for k, card in reads.items():
        if claims[data["scene"][k], card] > 1:
            continue
        if data["face_up"][k] and card == data["truth"][k]:
            right += 1
        else:
            wrong += 1
    return right, wrong


def fit(data: dict[str, np.ndarray], visible: np.ndarray) -> dict:
    """The visibility and confidence (from VISIBLE_GRID and CONFIDENCE_GRID) that name the
    most covered faces of the calibration designs with none wrong there nor one step looser
    on either grid: a margin, as the calibration designs are few (the surer confidence first
    where two name as many)."""
    counts = {(at, threshold): named(data, visible, at, threshold)
             for at in VISIBLE_GRID for threshold in CONFIDENCE_GRID}
    best = None
    for i, threshold in enumerate(CONFIDENCE_GRID):
        for j, at in enumerate(VISIBLE_GRID):
            looser = [(at, CONFIDENCE_GRID[max(0, i - 1)]), (VISIBLE_GRID[max(0, j - 1)],
                                                             threshold)]
            right = counts[at, threshold][0]
            if any(counts[step][1] for step in [(at, threshold), *looser]):
                continue
            if best is None or right > best["named"]:
                best = {"visible": at, "threshold": threshold, "named": right}
    if best is None:
        raise SystemExit("no threshold names a covered face without a wrong name")
    return best


class CornerNet:
    """A small CNN: is this index corner the card's own, unhidden? (built lazily: torch is
    training's only)."""

    @staticmethod
    def build():
        import torch.nn as nn

        def block(cin: int, cout: int) -> list:
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                    nn.ReLU(inplace=True)]

        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.features = nn.Sequential(
                    *block(3, 16), nn.MaxPool2d(2), *block(16, 32), nn.MaxPool2d(2),
                    *block(32, 48), nn.MaxPool2d(2), *block(48, 64),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 1))

            def forward(self, x):
                return self.features((x - 128.0) / 64.0).squeeze(1)

        return Net()


def train(data: dict[str, np.ndarray], epochs: int, seed: int, lr: float,
          device: str = "cpu"):
    """The CNN trained on `data`'s corners that show or are hidden (`shows`), on `device`;
    returned on the CPU."""
    import torch

    torch.manual_seed(seed)
    target = shows(data).ravel()
    keep = ~np.isnan(target)
    x = data["patches"].reshape(-1, PATCH_PX[1], PATCH_PX[0], 3)[keep]
    y = torch.from_numpy(target[keep]).to(device)
    model = CornerNet.build().to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * -(-len(x) // 128)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps)
    positive = float(y.mean())
    loss_of = torch.nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor((1 - positive) / positive, device=device))
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for batch in np.array_split(rng.permutation(len(x)), -(-len(x) // 128)):
            images = torch.from_numpy(_jitter(rng, x[batch]).transpose(0, 3, 1, 2).copy())
            loss = loss_of(model(images.to(device).float()), y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(batch)
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f}", flush=True)
    return model.cpu().eval()


def _jitter(rng: np.random.Generator, images: np.ndarray) -> np.ndarray:
    """Brightness and contrast varied a batch at a time, as lights and cameras vary."""
    gain = rng.uniform(0.75, 1.25, (len(images), 1, 1, 1))
    offset = rng.uniform(-20, 20, (len(images), 1, 1, 1))
    return np.clip(images * gain + offset, 0, 255).astype(np.float32)


def visibility(model, data: dict[str, np.ndarray]) -> np.ndarray:
    """The CNN's probability that each corner of `data` shows, (n, 2)."""
    import torch

    x = data["patches"].reshape(-1, PATCH_PX[1], PATCH_PX[0], 3)
    out = []
    with torch.no_grad():
        for part in np.array_split(x, max(1, -(-len(x) // 512))):
            if len(part):
                images = torch.from_numpy(part.transpose(0, 3, 1, 2).astype(np.float32))
                out.append(torch.sigmoid(model(images)).numpy())
    return np.concatenate(out).reshape(-1, 2) if out else np.zeros((0, 2), np.float32)


def export(model, out: Path) -> None:
    """The CNN to ONNX: `patches` (N, 3, H, W) float BGR 0–255 -> `shows` (N,) probability."""
    import torch

    class WithSigmoid(torch.nn.Module):
        def __init__(self, net) -> None:
            super().__init__()
            self.net = net

        def forward(self, x):
            return torch.sigmoid(self.net(x))

    example = torch.zeros(2, 3, PATCH_PX[1], PATCH_PX[0])
    torch.onnx.export(WithSigmoid(model), example, str(out), input_names=["patches"],
                      output_names=["shows"], dynamic_axes={"patches": {0: "n"},
                                                            "shows": {0: "n"}},
                      opset_version=17, dynamo=False)


def figures(data: dict[str, np.ndarray], visible: np.ndarray, chosen: dict) -> dict:
    """The test designs' covered faces: how many, how many show a corner, how many the
    chosen thresholds name and how many wrong, and the CNN's accuracy on its targets."""
    target = shows(data)
    known = ~np.isnan(target)
    right, wrong = named(data, visible, chosen["visible"], chosen["threshold"])
    return {"covered_faces": int(data["face_up"].sum()),
            "with_a_corner_that_shows": int((target == 1).any(axis=1).sum()),
            "named": right, "named_wrong": wrong,
            "corner_accuracy": round(float(((visible >= 0.5) == (target == 1))[known].mean()),
                                     4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=3000, help="training scenes")
    parser.add_argument("--fit-scenes", type=int, default=400, help="calibration scenes")
    parser.add_argument("--test-scenes", type=int, default=400, help="test scenes")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="where to train: cpu, or cuda")
    parser.add_argument("--data-cache", type=Path, help="a folder to keep the data in and "
                        "read it back from (made again when the code or a model changes)")
    parser.add_argument("--out", type=Path, default=MODEL)
    args = parser.parse_args()
    train_designs, cal_designs, test_designs = split_designs(announce=True)
    started = time.time()
    data = {name: make_corner_data(args.seed * 10 + k, designs, count, args.workers,
                                   args.data_cache)
            for k, (name, designs, count) in enumerate(
                (("train", train_designs, args.scenes), ("fit", cal_designs, args.fit_scenes),
                 ("test", test_designs, args.test_scenes)))}
    made = time.time()
    print({name: len(d["truth"]) for name, d in data.items()}, f"cards in {made - started:.0f} s")
    model = train(data["train"], args.epochs, args.seed, args.lr, args.device)
    fit_visible = visibility(model, data["fit"])
    chosen = fit(data["fit"], fit_visible)
    report = {"visible": chosen["visible"], "threshold": chosen["threshold"],
              "fit": {"designs": "calibration", "scenes": args.fit_scenes,
                      **figures(data["fit"], fit_visible, chosen)},
              "test": {"designs": "test", "scenes": args.test_scenes,
                       **figures(data["test"], visibility(model, data["test"]), chosen)},
              "train_scenes": args.scenes, "train_corners": int(
                  (~np.isnan(shows(data["train"]))).sum()),
              "epochs": args.epochs, "lr": args.lr, "seed": args.seed,
              "classifier": CLASSIFIER.name, "data_seconds": round(made - started),
              "train_seconds": round(time.time() - made), "patch_px": list(PATCH_PX)}
    export(model, args.out)
    report["onnx_bytes"] = args.out.stat().st_size
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
