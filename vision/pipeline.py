"""From a frame to an `Observation`: detect every card, then name each one.

The two models load once; `observe` runs both on a frame. Calibration and zones are not
vision's business: a caller that has a table homography passes it for orientation, and fills
`zones` from its layout.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .classify import MODEL as CLASSIFIER
from .classify import CardClassifier
from .detect import MODEL as DETECTOR
from .detect import CardDetector
from .observation import Observation


class Recognizer:
    def __init__(self, detector: Path = DETECTOR, classifier: Path = CLASSIFIER, *,
                 threads: int = 1) -> None:
        self.detector = CardDetector(detector, threads=threads)
        self.classifier = CardClassifier(classifier, threads=threads)

    def observe(self, frame: np.ndarray, table_from_image: np.ndarray | None = None,
                timestamp: float = 0.0) -> Observation:
        """Every card in `frame`: its quad, name (or UNKNOWN) and calibrated confidence."""
        obs = self.detector.detect(frame, table_from_image, timestamp)
        predictions = self.classifier.classify_quads(frame, list(obs.quads))
        for i, prediction in enumerate(predictions):
            obs.cards[i] = prediction.card
            obs.confidence[i] = prediction.confidence
        return obs
