"""The card classifier at run time: onnxruntime on the shipped model, nothing else.

The model names a rectified card as one of the 52 cards, the joker or a card back, with a
calibrated probability (temperature scaling, fitted in training). Below the threshold that
training chose (fewer than 1 in 1000 confident answers wrong on validation) the answer is
UNKNOWN, never a guess.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .rectify import rectify

UNKNOWN = "UNKNOWN"
MODEL = Path(__file__).resolve().parents[1] / "models" / "card_classifier.onnx"


class ModelError(RuntimeError):
    """The model file is missing or unreadable (one line)."""


@dataclass(frozen=True)
class Prediction:
    card: str  # a card id, JK, BACK or UNKNOWN
    confidence: float  # the calibrated probability of the best class
    best: str  # the best class even when not confident


class CardClassifier:
    def __init__(self, model: Path = MODEL, *, threads: int = 1) -> None:
        import onnxruntime as ort

        report = Path(model).with_suffix(".json")
        try:
            meta = json.loads(report.read_text())
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            self.session = ort.InferenceSession(str(model), options,
                                                providers=["CPUExecutionProvider"])
        except (OSError, ValueError, KeyError) as error:
            raise ModelError(f"cannot load the card classifier {model}: {error}") from None
        except Exception as error:  # onnxruntime raises its own types for a bad file
            raise ModelError(f"cannot load the card classifier {model}: "
                             f"{str(error).splitlines()[0]}") from None
        self.classes: list[str] = meta["classes"]
        self.threshold: float = meta["threshold"]
        self.input_px: tuple[int, int] = tuple(meta["input_px"])

    def probabilities(self, cards: np.ndarray) -> np.ndarray:
        """Class probabilities for rectified cards (N, H, W, 3 BGR uint8 at input_px)."""
        if len(cards) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        x = np.ascontiguousarray(cards.transpose(0, 3, 1, 2), dtype=np.float32)
        return self.session.run(None, {"cards": x})[0]

    def predict(self, cards: np.ndarray) -> list[Prediction]:
        found = []
        for row in self.probabilities(cards):
            best = int(row.argmax())
            confidence = float(row[best])
            card = self.classes[best] if confidence >= self.threshold else UNKNOWN
            found.append(Prediction(card, confidence, self.classes[best]))
        return found

    def classify_quads(self, image: np.ndarray, quads: list[np.ndarray]) -> list[Prediction]:
        """Rectify each card quadrilateral of `image` and name it."""
        if not quads:
            return []
        cards = np.stack([rectify(image, q, self.input_px) for q in quads])
        return self.predict(cards)
