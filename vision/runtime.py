"""Loading a shipped ONNX model and its JSON report for onnxruntime, with one-line errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

Settings = TypeVar("Settings")


class ModelError(RuntimeError):
    """The model file is missing or unreadable (one line)."""


def shipped(name: str) -> Path:
    """A model file that ships with the product, found through the installed `models`
    package: beside the sources in a checkout, in site-packages from a wheel."""
    return Path(str(resources.files("models").joinpath(name)))


def load_model(model: Path, what: str, read: Callable[[dict], Settings], *, threads: int = 1,
               missing: str | None = None) -> tuple[Any, Settings]:
    """An onnxruntime session on `model` (CPU, `threads` threads) and `read(report)`, where
    the report is the JSON file beside the model. Any failure is a ModelError naming `what`
    and the file; `missing` is the hint given when the model file does not exist."""
    import onnxruntime as ort

    try:
        if missing and not Path(model).is_file():
            raise OSError(missing)
        report = json.loads(Path(model).with_suffix(".json").read_text())
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        return session, read(report)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ModelError(f"cannot load the {what} {model}: {error}") from None
    except Exception as error:  # onnxruntime raises its own types for a bad file
        raise ModelError(f"cannot load the {what} {model}: "
                         f"{str(error).splitlines()[0]}") from None
