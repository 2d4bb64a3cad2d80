"""What the trainings share (torch, the `train` extra, imported where used): tensors on a
device, batches, warm starts and saved weights, the command line, and the loop that trains a
network to name images (the card classifier, the index experts)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from .data import progress_bar
from .designs import split_designs


def image_tensor(images: np.ndarray):  # -> torch.Tensor
    """Images NHWC uint8 as the networks train on them: NCHW floats in [0, 1]."""
    import torch

    return as_input(torch.from_numpy(images))


def as_input(images):  # (torch.Tensor) -> torch.Tensor
    """A uint8 NHWC tensor, wherever it lies, as the networks take it: NCHW in [0, 1]."""
    return images.permute(0, 3, 1, 2).float().div_(255.0)


def on_device(arrays: dict[str, np.ndarray], device: str) -> dict:  # -> {name: torch.Tensor}
    """Training data as tensors on `device`, moved there once so that each batch is cut
    there: on the CPU they share the arrays' memory, on a GPU a batch costs no copy."""
    import torch

    return {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in arrays.items()}


def batch_indices(order: np.ndarray, batch: int, device: str) -> list:  # -> [torch.Tensor]
    """`order` (a permutation) cut into whole batches of `batch`, as index tensors on
    `device`; the last, partial batch is left out."""
    import torch

    return [torch.from_numpy(order[start:start + batch]).to(device)
            for start in range(0, len(order) - batch + 1, batch)]


def load_weights(model, path: Path | None) -> None:
    """Start `model` from a checkpoint that `save_weights` wrote, or from an exported model
    (`from_onnx`), if given: a warm start, whose batch norms stay frozen (`train_mode`).
    A layer the checkpoint has with fewer outputs (a head that has since grown channels, as
    the detector's votes) keeps its own and starts the new ones at zero."""
    if path is None:
        return
    if path.suffix == ".onnx":
        from_onnx(model, path)
        return
    import torch

    state = torch.load(path, map_location="cpu", weights_only=True)
    for name, wanted in model.state_dict().items():
        if name in state and wanted.dim() and state[name].shape[0] < wanted.shape[0]:
            grown = torch.zeros_like(wanted)
            grown[:state[name].shape[0]] = state[name]
            state[name] = grown
    model.load_state_dict(state)
    print(f"weights from {path}", file=sys.stderr)


def from_onnx(model, path: Path) -> None:
    """Start `model` from its exported ONNX, for the models shipped before trainings saved
    their weights. The export folded each batch norm into its convolution, so each
    convolution takes its folded weights and bias and its batch norm becomes an identity, to
    stay frozen (`train_mode`). A node's name is its module's path (`/net/corner/corner.0/
    corner.0.0/Conv`; a shared module called twice gives `corner.0.0_1`, the same weights;
    a model that is a bare `Sequential` gives `net.0.0`, module `0.0`)."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    modules = dict(model.named_modules())
    folded = {}
    for node in graph.node:
        if node.op_type == "Conv" and node.input[1].startswith("onnx::"):
            name = re.sub(r"_\d+$", "", node.name.split("/")[-2]).removeprefix("net.")
            if name not in folded:
                folded[name] = [weights[i] for i in node.input[1:]]
    with torch.no_grad():
        for name, (weight, bias) in folded.items():
            conv, norm = modules[name], modules.get(name.rsplit(".", 1)[0] + ".1")
            if not isinstance(norm, torch.nn.BatchNorm2d) or conv.weight.shape != weight.shape:
                raise SystemExit(f"{path}: convolution {name} does not fit the model")
            conv.weight.copy_(torch.tensor(weight))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.tensor(bias))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        norms = sum(isinstance(m, torch.nn.BatchNorm2d) for m in modules.values())
        if norms != len(folded):
            raise SystemExit(f"{path}: {len(folded)} folded convolutions, the model has "
                             f"{norms} batch norms")
        params = dict(model.named_parameters())
        for name, value in weights.items():
            if name.startswith("net."):
                params[name.removeprefix("net.")].copy_(torch.tensor(value))
    print(f"weights from {path} (batch norms frozen)", file=sys.stderr)


def earlier_run(init: Path | None) -> dict | None:
    """What the run a warm start continues was (its report beside it), for the model card."""
    report = init.with_suffix(".json") if init else None
    if report is None or not report.exists():
        return None
    earlier = json.loads(report.read_text())
    return {k: earlier[k] for k in ("scenes", "train_samples", "epochs", "seed",
                                    "train_seconds", "lr", "real_views", "continued_from")
            if k in earlier}


def train_mode(model, warm_start: bool) -> None:
    """`model.train()`, but after a warm start the batch norms keep the statistics they
    started from: an exported model's were folded away (`from_onnx`)."""
    import torch

    model.train()
    if warm_start:
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.eval()


def save_weights(model, onnx_path: Path) -> Path:
    """The trained weights beside the exported model (`.pt`): `--init` continues from them."""
    import torch

    path = onnx_path.with_suffix(".pt")
    torch.save(model.state_dict(), path)
    return path


def run_arguments(parser: argparse.ArgumentParser, out: Path, batch: int) -> None:
    """The options every training takes: seed, workers, where it trains and on batches of
    how many, a warm start and where to write."""
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="processes making the data, "
                        "and torch's threads on the CPU")
    parser.add_argument("--device", default="cpu", help="where to train: cpu, or cuda where "
                        "PyTorch sees an NVIDIA GPU (the training data then lives on it)")
    parser.add_argument("--batch", type=int, default=batch, help="samples a training step")
    parser.add_argument("--data-cache", type=Path, help="a folder to keep the data in and "
                        "read it back from, for several runs on the same data (made "
                        "again when the code or a shipped network changes)")
    parser.add_argument("--init", type=Path, help="weights to start from (an earlier run's "
                        ".pt, or its .onnx) instead of random ones")
    parser.add_argument("--out", type=Path, default=out)


def width_argument(parser: argparse.ArgumentParser) -> None:
    """--width, for a network whose channels scale (`build_model(width)`)."""
    parser.add_argument("--width", type=float, default=1.0, help="the network's channels, "
                        "times the shipped network's (an --init must have the same)")


def start_training(args: argparse.Namespace) -> tuple[list[str], list[str], list[str]]:
    """Torch on `args.workers` threads (or on the GPU `args.device` names, at TF32) and
    seeded, the folder `args.out` goes in, and the design split, announced."""
    import torch

    torch.set_num_threads(args.workers)
    torch.manual_seed(args.seed)  # the network's first weights, drawn before training
    if args.device != "cpu":
        if not torch.cuda.is_available():
            raise SystemExit(f"--device {args.device}: PyTorch sees no GPU here")
        torch.backends.cudnn.benchmark = True  # the same input shapes every step
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    args.out.parent.mkdir(parents=True, exist_ok=True)
    return split_designs(announce=True)


def train_classifier(model, images: np.ndarray, labels: np.ndarray, epochs: int, seed: int,
                     lr: float = 3e-3, warm_start: bool = False, device: str = "cpu",
                     batch: int = 128, half_turns: bool = True) -> None:
    """Train a network that names images (the card classifier, an index expert) by
    cross-entropy on `labels`, one cycle of `lr`; `half_turns`: half the batches turned half
    round (a card has no up)."""
    import torch

    torch.manual_seed(seed)
    model.to(device)
    data = on_device({"images": images, "labels": labels}, device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(images) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps)
    # no label smoothing: it caps the logits' margin, so right answers crowd just under the
    # confidence that 1 wrong in 1,000 needs and go unanswered (docs/vision.md)
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
                             f"loss {loss.item():.3f} acc {float(correct) / seen:.3f} "
                             f"{rate:.0f}/s")
        progress_bar(f"ep {epoch + 1}", len(order), len(order),
                     f"acc {float(correct) / max(seen, 1):.3f}")


def logits_of(model, images: np.ndarray) -> np.ndarray:
    import torch

    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        return np.concatenate([model(image_tensor(images[i:i + 512]).to(device)).cpu().numpy()
                               for i in range(0, len(images), 512)])
