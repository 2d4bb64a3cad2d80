"""The network of the card detector and of the pile network, trained on rendered table scenes.

Both are one CenterNet-style network (`build_model`; targets: `training.detect_data`), trained
on whole frames (`training.detect_train`) or on crops around piles (`training.pile_train`). What
they share lives here: the loss and the loop, the score threshold and NMS overlap chosen on
the calibration families (`training.evaluate.pick_thresholds`), the figures on the held-out
families at 720p and 1080p, the export to ONNX checked against torch, and the report.
"""
from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from vision import FRAME_SIZES
from vision.detect import CHANNELS, FACE_UP, LONG_SIDE, SIN2, STRIDE, VOTE_X

from .data import kept, progress_bar
from .designs import CALIBRATION_FAMILIES, HELD_OUT_FAMILIES
from .detect_data import MIN_VISIBLE
from .evaluate import MATCH_IOU, Scored, pick_thresholds
from .training import (
    as_input,
    batch_indices,
    earlier_run,
    load_weights,
    on_device,
    run_arguments,
    save_weights,
    start_training,
    train_mode,
    width_argument,
)

BATCH = 16


def build_model(width: float = 1.0):  # -> torch.nn.Module (lazy torch: the train extra)
    """Stride-2 stages down to 1/16 (the context that tells a marker's sliver from a card
    edge), a light FPN back up to 1/4, then 3×3 heads: 1 heatmap, 7 box and 2 vote channels.
    `width` scales every layer's channels (1: the shipped networks)."""
    import torch
    from torch import nn

    def c(channels: int) -> int:
        return round(channels * width)

    def conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, dilation, dilation, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class DetectorNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.s4 = nn.Sequential(conv(3, c(16), 2), conv(c(16), c(32), 2), conv(c(32), c(32)))
            self.s8 = nn.Sequential(conv(c(32), c(64), 2), conv(c(64), c(64)))
            self.s16 = nn.Sequential(conv(c(64), c(96), 2), conv(c(96), c(96)),
                                     conv(c(96), c(96), dilation=2))
            self.lat16, self.lat8 = nn.Conv2d(c(96), c(48), 1), nn.Conv2d(c(64), c(48), 1)
            self.fuse8 = conv(c(48), c(48))
            self.up8, self.lat4 = nn.Conv2d(c(48), c(32), 1), nn.Conv2d(c(32), c(32), 1)
            self.fuse4 = conv(c(32), c(32))
            self.heat = nn.Conv2d(c(32), 1, 3, padding=1)
            self.boxes = nn.Conv2d(c(32), len(CHANNELS), 3, padding=1)
            nn.init.constant_(self.heat.bias, -2.19)  # CenterNet: start at p ≈ 0.1

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            up = nn.functional.interpolate
            f4 = self.s4(x)
            f8 = self.s8(f4)
            f16 = self.s16(f8)
            p8 = self.fuse8(self.lat8(f8) + up(self.lat16(f16), scale_factor=2.0))
            p4 = self.fuse4(self.lat4(f4) + up(self.up8(p8), scale_factor=2.0))
            return self.heat(p4), self.boxes(p4)

    return DetectorNet()


def gmacs(model, size: tuple[int, int] = (512, 288)) -> float:
    """Multiply-accumulates of the convolutions for one (w, h) input, in billions."""
    import torch

    total = 0

    def hook(module, _inputs, output) -> None:
        nonlocal total
        k = module.kernel_size[0] * module.kernel_size[1]
        total += output.numel() * module.in_channels // module.groups * k

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, torch.nn.Conv2d)]
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, 3, size[1], size[0], device=next(model.parameters()).device))
    for h in handles:
        h.remove()
    return total / 1e9


def _batch(data: dict, index, rng: np.random.Generator):
    """Tensors for a batch of `data` (`on_device`: the images and their targets), flipped at
    random: a flip moves the anchors and negates the offsets along it and sin 2θ (a half
    turn, both flips, leaves 2θ as it was)."""
    import torch

    x = as_input(data["images"][index])
    heat = data["heatmap"][index].float()[:, None]
    boxes = torch.cat([data["boxes"][index], data["votes"][index]], dim=1).float()
    mask = data["mask"][index][:, None]
    weight = data["vote_weight"][index].float()[:, None]
    for dim, offset in ((3, 0), (2, 1)):
        if rng.random() < 0.5:
            x, heat, boxes, mask, weight = (t.flip(dim) for t in (x, heat, boxes, mask, weight))
            boxes[:, [offset, VOTE_X + offset]] *= -1
            boxes[:, SIN2] *= -1
    return x, heat, boxes, mask, weight


def losses(heat_logit, box_out, heat, boxes, mask, weight) -> tuple:
    """CenterNet's focal loss on the heatmap (α 2, β 4); at anchor cells, L1 on the offset,
    log size and angle code and a binary cross-entropy on face up; at the cells a card owns,
    L1 on the votes, weighted to count each card once. Each per card."""
    import torch
    from torch.nn import functional

    pos = heat.eq(1).float()
    n = pos.sum().clamp(min=1)
    log_p = functional.logsigmoid(heat_logit)
    log_not_p = functional.logsigmoid(-heat_logit)
    p = log_p.exp()
    focal = -(pos * (1 - p) ** 2 * log_p
              + (1 - pos) * (1 - heat) ** 4 * p ** 2 * log_not_p).sum() / n
    face_up = slice(FACE_UP, FACE_UP + 1)
    m = mask.expand_as(boxes[:, :FACE_UP]).float()
    l1 = (torch.abs(box_out[:, :FACE_UP] - boxes[:, :FACE_UP]) * m).sum() / n
    face = (functional.binary_cross_entropy_with_logits(box_out[:, face_up], boxes[:, face_up],
                                                        reduction="none") * mask).sum() / n
    votes = (torch.abs(box_out[:, VOTE_X:] - boxes[:, VOTE_X:]) * weight).sum() / n
    return focal, l1, face, votes


def train(model, images: np.ndarray, targets: dict, epochs: int, seed: int,
          lr: float = 2e-3, warm_start: bool = False, device: str = "cpu",
          batch: int = BATCH) -> None:
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model.to(device)
    wanted = ("heatmap", "boxes", "votes", "mask", "vote_weight")
    data = on_device({"images": images, **{k: targets[k] for k in wanted}}, device)
    batch = min(batch, len(images))
    steps = max(1, epochs * (len(images) // batch))
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps,
                                                   pct_start=0.15)
    step = 0
    for epoch in range(epochs):
        train_mode(model, warm_start)
        order = rng.permutation(len(images))
        started, running = time.perf_counter(), None
        batches = batch_indices(order, batch, device)
        for b, index in enumerate(batches):
            x, heat, boxes, mask, weight = _batch(data, index, rng)
            heat_logit, box_out = model(x)
            focal, l1, face, votes = losses(heat_logit, box_out, heat, boxes, mask, weight)
            loss = focal + l1 + 0.5 * face + votes
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            optimiser.step()
            if step < steps - 1:
                schedule.step()
            step += 1
            if b % 10 and b + 1 < len(batches):  # reading the losses waits for the GPU
                continue
            parts = torch.stack([focal, l1, face, votes]).detach().cpu().numpy()
            running = parts if running is None else 0.6 * running + 0.4 * parts
            rate = (b + 1) * batch / (time.perf_counter() - started)
            progress_bar(f"ep {epoch + 1}", b + 1, len(batches),
                         f"heat {running[0]:.3f} box {running[1]:.3f} face {running[2]:.3f} "
                         f"votes {running[3]:.3f} {rate:.1f} img/s")


def exported(model):  # -> torch.nn.Module
    """The network as shipped: BGR 0–255 in; heatmap and face up as probabilities."""
    import torch

    class Shipped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = model

        def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            heat, boxes = self.net(image / 255.0)
            return torch.sigmoid(heat), torch.cat(
                [boxes[:, :FACE_UP], torch.sigmoid(boxes[:, FACE_UP:VOTE_X]), boxes[:, VOTE_X:]],
                dim=1)

    return Shipped().eval()


def outputs(model, images: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    import torch

    shipped = exported(model)
    device = next(model.parameters()).device
    heats, boxes = [], []
    with torch.no_grad():
        for i in range(0, len(images), 32):
            x = torch.from_numpy(images[i:i + 32]).to(device).permute(0, 3, 1, 2).float()
            h, b = shipped(x)
            heats.append(h[:, 0].cpu().numpy())
            boxes.append(b.cpu().numpy())
    return np.concatenate(heats), np.concatenate(boxes)


def export(model, path: Path) -> None:
    import torch

    # dynamo=False is the exporter that handles this graph; its deprecation notice is noise
    warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX",
                            category=DeprecationWarning)
    dummy = torch.zeros(1, 3, 288, LONG_SIDE)
    torch.onnx.export(exported(model), dummy, str(path), input_names=["image"],
                      output_names=["heatmap", "boxes"], opset_version=17, dynamo=False,
                      dynamic_axes={"image": {0: "n", 2: "height", 3: "width"},
                                    "heatmap": {0: "n", 2: "rows", 3: "cols"},
                                    "boxes": {0: "n", 2: "rows", 3: "cols"}})


def check_onnx(model, path: Path, images: np.ndarray) -> dict:
    """The exported file against torch on the same images, and its time on one thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    heat, boxes = outputs(model, images[:2])
    diff = 0.0
    for k in range(min(2, len(images))):
        x = images[k:k + 1].transpose(0, 3, 1, 2).astype(np.float32)
        h, b = session.run(None, {"image": x})
        diff = max(diff, float(np.abs(h[0, 0] - heat[k]).max()),
                   float(np.abs(b[0] - boxes[k]).max()))
    x = images[:1].transpose(0, 3, 1, 2).astype(np.float32)
    times = []
    for _ in range(15):
        started = time.perf_counter()
        session.run(None, {"image": x})
        times.append(time.perf_counter() - started)
    return {"max_abs_diff_vs_torch": diff, "ms_one_thread": round(1000 * np.median(times), 1),
            "input": [int(images.shape[2]), int(images.shape[1])]}


def scene_data(make: Callable, args: argparse.Namespace, seed: int, designs: list[str],
               count: int, size: tuple[int, int], own_backs: float = 0.0
               ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """`make(seed, designs, count, size, args.workers, own_backs=…)`: images and their
    targets, kept in `args.data_cache` if given (`training.data.kept`)."""
    def arrays() -> dict[str, np.ndarray]:
        images, targets = make(seed, designs, count, size, args.workers, own_backs=own_backs)
        return {"images": images, **targets}

    key = [seed, sorted(designs), count, list(size)] + ([own_backs] if own_backs else [])
    found = kept(args.data_cache, make.__name__, key, arrays)
    return found.pop("images"), found


def trained_network(make: Callable, args: argparse.Namespace, designs: list[str],
                    extra: tuple[np.ndarray, dict[str, np.ndarray]] | None = None
                    ) -> tuple[Any, float, int]:
    """A network trained on data from `make` (`make_detector_data`, or the pile crops'
    `training.pile_data.make_pile_data`) of `args.scenes` scenes of `designs`, a share
    `args.share_1080` of them at 1080p and the rest at 720p, and the `extra` images and
    targets (views of real photographs: `training.real_photos`): the network, the seconds
    the training took and how many images it saw."""
    n1080 = round(args.scenes * args.share_1080)
    parts = [scene_data(make, args, args.seed, designs, args.scenes - n1080,
                        FRAME_SIZES["720p"], args.own_backs)]
    if n1080:
        parts.append(scene_data(make, args, args.seed + 5, designs, n1080,
                                FRAME_SIZES["1080p"], args.own_backs))
    if extra is not None:
        parts.append(extra)
    images = np.concatenate([p[0] for p in parts])
    targets = {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}
    del parts
    model = build_model(args.width)
    load_weights(model, args.init)
    started = time.perf_counter()
    train(model, images, targets, args.epochs, args.seed, args.lr,
          warm_start=args.init is not None, device=args.device, batch=args.batch)
    return model, time.perf_counter() - started, len(images)


def calibrate_and_test(make: Callable, model, args: argparse.Namespace,
                       calibration_designs: list[str], held_designs: list[str]) -> dict:
    """The score threshold and NMS overlap with the best F1 on `args.eval` scenes of the
    calibration designs at 720p, and the figures there and on as many of the held-out
    designs at each size; `test_images` the last of those (to check the export on)."""
    images, targets = scene_data(make, args, args.seed + 1, calibration_designs, args.eval,
                                 FRAME_SIZES["720p"])
    calibration = Scored.from_outputs(*outputs(model, images), targets)
    threshold, nms_iou = pick_thresholds(calibration)
    found = {"score_threshold": threshold, "nms_iou": nms_iou,
             "calibration": calibration.metrics(threshold, nms_iou), "held_out": {}}
    for k, (name, size) in enumerate(FRAME_SIZES.items()):
        images, targets = scene_data(make, args, args.seed + 2 + k, held_designs, args.eval,
                                     size)
        found["held_out"][name] = Scored.from_outputs(
            *outputs(model, images), targets).metrics(threshold, nms_iou)
    found["test_images"] = images
    return found


def run_report(args: argparse.Namespace, model, train_seconds: float, figures: dict,
               designs: tuple[list[str], list[str], list[str]]) -> dict:
    """What the card detector's and the pile detector's reports share: the run, the
    network's outputs, the design split and the figures (`calibrate_and_test`)."""
    train_designs, calibration_designs, held_designs = designs
    return {
        "seed": args.seed, "scenes": args.scenes, "share_1080": args.share_1080,
        "own_backs": args.own_backs,
        "epochs": args.epochs, "train_seconds": round(train_seconds), "lr": args.lr,
        "batch": args.batch, "device": args.device, "width": args.width,
        "init": str(args.init) if args.init else None,
        "continued_from": earlier_run(args.init),
        "stride": STRIDE, "channels": list(CHANNELS), "min_visible": MIN_VISIBLE,
        "match_iou": MATCH_IOU, "score_threshold": figures["score_threshold"],
        "nms_iou": figures["nms_iou"],
        "parameters": sum(p.numel() for p in model.parameters()),
        "train_designs": train_designs, "calibration_designs": calibration_designs,
        "held_out_designs": held_designs, "held_out_families": list(HELD_OUT_FAMILIES),
        "calibration_families": list(CALIBRATION_FAMILIES),
        "calibration": figures["calibration"], "held_out": figures["held_out"]}


def write_model(model, report: dict, test_images: np.ndarray, out: Path) -> None:
    """Export to `out` (ONNX, checked against torch), the weights beside it, and the report
    (`.json`); print its figures."""
    model.cpu()
    export(model, out)
    save_weights(model, out)
    report["onnx"] = check_onnx(model, out, test_images)
    report["onnx_bytes"] = out.stat().st_size
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("score_threshold", "nms_iou", "calibration",
                                             "held_out", "onnx")}, indent=2))


def scene_training_arguments(description: str, out: Path, *, scenes: int, scenes_help: str,
                             epochs: int, share_1080: float, eval_scenes: int, lr: float,
                             lr_help: str,
                             more: Callable[[argparse.ArgumentParser], None] | None = None
                             ) -> argparse.Namespace:
    """The command line of a network trained on rendered table scenes (the card detector,
    the pile network), with these defaults."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--scenes", type=int, default=scenes, help=scenes_help)
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--share-1080", type=float, default=share_1080,
                        help="share of the training scenes rendered at 1080p (rest 720p)")
    parser.add_argument("--eval", type=int, default=eval_scenes, help="scenes a test set")
    parser.add_argument("--lr", type=float, default=lr, help=lr_help)
    width_argument(parser)
    parser.add_argument("--own-backs", type=float, default=0.0, help="share of the training "
                        "scenes whose deck has a back of no design (simulator.backs); the "
                        "test scenes have none")
    run_arguments(parser, out, BATCH)
    if more is not None:
        more(parser)
    return parser.parse_args()


def train_on_scenes(make: Callable, args: argparse.Namespace,
                    extra: tuple[np.ndarray, dict[str, np.ndarray]] | None = None
                    ) -> tuple[Any, int, dict, np.ndarray]:
    """A network trained on data from `make` (`trained_network`) and tested: the network, how
    many images it trained on, its report's common part (`run_report`) and the test images to
    check its export on."""
    designs = start_training(args)  # training, calibration, held out
    model, train_seconds, images = trained_network(make, args, designs[0], extra)
    figures = calibrate_and_test(make, model, args, *designs[1:])
    test_images = figures.pop("test_images")
    report = run_report(args, model, train_seconds, figures, designs)
    return model, images, report, test_images
