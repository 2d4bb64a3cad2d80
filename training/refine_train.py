"""Train the card refiner (`vision.refine`) on the shipped detector's cuts and export it.

    pip install -e '.[train]'                                  # PyTorch, CPU build
    python -m training.refine_train --scenes 2400 --epochs 10 --seed 0
                                  # writes models/card_refiner.onnx and its .json report
    python -m training.refine_train --measure-only   # its figures again, on a new detector

Samples are the shipped detector's cuts of rendered table scenes of the training designs
(`training.refine_data`). The figures are on scenes of the held-out designs
(`training.evaluate.outline_rows`): how far the corners
are from the true ones before and after, the overlap with the true outline, and how often
the classifier names a face-up card in full view right from each outline.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

from vision.refine import CROP_PX, MARGIN

from .data import MODELS, in_chunks, progress_bar
from .evaluate import outline_figures, outline_rows
from .refine_data import JITTER, MAX_SHIFT, make_data
from .training import (
    as_input,
    batch_indices,
    load_weights,
    on_device,
    run_arguments,
    save_weights,
    start_training,
    train_mode,
)

BATCH = 128


def build_model():  # -> torch.nn.Module (torch is imported lazily: the train extra)
    """Convolutions down to 1/16 of the cut-out, then the 8 offsets from the whole map (a
    corner's place is in where the features are, so no global pooling)."""
    from torch import nn

    def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    rows, cols = -(-CROP_PX[1] // 16), -(-CROP_PX[0] // 16)
    return nn.Sequential(conv(3, 24, 2), conv(24, 32, 2), conv(32, 48), conv(48, 64, 2),
                         conv(64, 64), conv(64, 96, 2), nn.Flatten(),
                         nn.Linear(96 * rows * cols, 128), nn.ReLU(inplace=True),
                         nn.Linear(128, 8))


def half_turn(offsets):
    """Offsets of a cut-out turned half round: corner i becomes i + 2, directions flip."""
    import torch

    return -torch.roll(offsets.reshape(-1, 4, 2), 2, dims=1).reshape(-1, 8)


def train(model, cuts: np.ndarray, offsets: np.ndarray, epochs: int, seed: int,
          warm_start: bool = False, device: str = "cpu", batch: int = BATCH) -> None:
    import torch

    torch.manual_seed(seed)
    model.to(device)
    data = on_device({"cuts": cuts, "offsets": offsets}, device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * (len(cuts) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 2e-3, total_steps=steps)
    order_rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        train_mode(model, warm_start)
        order = order_rng.permutation(len(cuts))
        total, seen, started = 0.0, 0, time.perf_counter()
        for b, index in enumerate(batch_indices(order, batch, device)):
            x, y = as_input(data["cuts"][index]), data["offsets"][index]
            if order_rng.random() < 0.5:  # a card has no up
                x, y = torch.rot90(x, 2, (2, 3)), half_turn(y)
            loss = torch.nn.functional.l1_loss(model(x), y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total, seen = total + loss.detach() * len(index), seen + len(index)
            if b % 20 == 0:
                rate = seen / (time.perf_counter() - started)
                progress_bar(f"ep {epoch + 1}", (b + 1) * batch, len(order),
                             f"L1 {float(total) / seen:.4f} {rate:.0f}/s")
        progress_bar(f"ep {epoch + 1}", len(order), len(order),
                     f"L1 {float(total) / max(seen, 1):.4f}")


def export(model, path: Path) -> None:
    """ONNX as the run time takes it: uint8-range floats NCHW in (1/255 inside), offsets out."""
    import torch

    class Scaled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = model

        def forward(self, cuts: torch.Tensor) -> torch.Tensor:
            return self.net(cuts / 255.0)

    model.eval()
    warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX",
                            category=DeprecationWarning)
    dummy = torch.zeros(1, 3, CROP_PX[1], CROP_PX[0])
    torch.onnx.export(Scaled(), dummy, str(path), input_names=["cuts"],
                      output_names=["offsets"], opset_version=17, dynamo=False,
                      dynamic_axes={"cuts": {0: "n"}, "offsets": {0: "n"}})


def measure(out: Path, seed: int, scenes: int, workers: int, held_designs: list[str]) -> dict:
    """The figures of the refiner at `out` on held-out scenes, written into its report."""
    parts = in_chunks(outline_rows, seed + 2, scenes, 10,
                      {"designs": held_designs, "refiner_path": str(out)}, workers, "held out")
    report_path = out.with_suffix(".json")
    report = json.loads(report_path.read_text())
    report["held_out"] = outline_figures([row for part in parts for row in part])
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    return report["held_out"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=2400, help="training scenes")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--eval", type=int, default=150, help="held-out scenes")
    parser.add_argument("--passes", type=int, default=2, help="refinements at run time")
    parser.add_argument("--measure-only", action="store_true", help="no training: measure "
                        "the refiner at --out again (after the detector changed)")
    run_arguments(parser, MODELS / "card_refiner.onnx", BATCH)
    args = parser.parse_args()
    train_designs, _, held_designs = start_training(args)
    if not args.measure_only:
        cuts, offsets = make_data(args.seed, train_designs, args.scenes, args.workers,
                                  args.data_cache)
        print(f"{len(cuts)} samples", flush=True)
        model = build_model()
        load_weights(model, args.init)
        started = time.perf_counter()
        train(model, cuts, offsets, args.epochs, args.seed, warm_start=args.init is not None,
              device=args.device, batch=args.batch)
        train_seconds = time.perf_counter() - started
        model.cpu()
        export(model, args.out)
        save_weights(model, args.out)
        report = {
            "seed": args.seed, "scenes": args.scenes, "samples": len(cuts),
            "epochs": args.epochs, "train_seconds": round(train_seconds),
            "crop_px": list(CROP_PX), "margin": MARGIN, "passes": args.passes,
            "max_shift": MAX_SHIFT, "jitter": list(JITTER), "train_designs": train_designs,
            "held_out_designs": held_designs,
            "parameters": sum(p.numel() for p in model.parameters()),
            "onnx_bytes": args.out.stat().st_size}
        args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    figures = measure(args.out, args.seed, args.eval, args.workers, held_designs)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
