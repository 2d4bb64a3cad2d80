"""The card classifier at run time: onnxruntime on the shipped model, nothing else.

The model names a rectified card as one of the 52 cards, the joker or a card back, with a
calibrated probability (temperature scaling, fitted in training). Below the threshold that
training chose (fewer than 1 in 1000 confident answers wrong on validation) the answer is
UNKNOWN, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .rectify import portrait_orders, rectify
from .runtime import ModelError, load_model

__all__ = ["MODEL", "UNKNOWN", "CardClassifier", "ModelError", "Prediction"]

UNKNOWN = "UNKNOWN"
MODEL = Path(__file__).resolve().parents[1] / "models" / "card_classifier.onnx"


@dataclass(frozen=True)
class Prediction:
    card: str  # a card id, JK, BACK or UNKNOWN
    confidence: float  # the calibrated probability of the best class
    best: str  # the best class even when not confident


class CardClassifier:
    def __init__(self, model: Path = MODEL, *, threads: int = 1) -> None:
        def read(report: dict) -> tuple[list[str], float, tuple[int, int]]:
            return report["classes"], float(report["threshold"]), tuple(report["input_px"])

        self.session, (self.classes, self.threshold, self.input_px) = load_model(
            model, "card classifier", read, threads=threads)

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

    def rectify_quads(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """Each card quadrilateral of `image` cut out as the model's input, (N, H, W, 3)."""
        quads = portrait_orders(quads)
        out = np.empty((len(quads), self.input_px[1], self.input_px[0], 3), np.uint8)
        for i, quad in enumerate(quads):
            out[i] = rectify(image, quad, self.input_px, ordered=True)
        return out

    def classify_quads(self, image: np.ndarray, quads: list[np.ndarray]) -> list[Prediction]:
        """Rectify each card quadrilateral of `image` and name it."""
        return self.predict(self.rectify_quads(image, np.float32(quads).reshape(-1, 4, 2)))
