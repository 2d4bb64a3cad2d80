"""From a frame to an `Observation`: detect every card, then name each one.

The two models load once; `observe` runs both on a frame. Calibration and zones are not
vision's business: a caller that has a table homography passes it for orientation, and fills
`zones` from its layout. For live video, a card that has neither moved nor changed since an
earlier frame keeps the name it was given then (`vision.memory`), so a frame costs the
detector and the cards that changed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .classify import MODEL as CLASSIFIER
from .classify import CardClassifier, Prediction
from .detect import MODEL as DETECTOR
from .detect import CardDetector
from .memory import CardMemory, thumbnails
from .observation import Observation


class Recognizer:
    def __init__(self, detector: Path = DETECTOR, classifier: Path = CLASSIFIER, *,
                 threads: int = 1, video: bool = False) -> None:
        """`video`: frames come from one camera in order, and still cards keep their names;
        otherwise every frame stands alone (photos)."""
        self.detector = CardDetector(detector, threads=threads)
        self.classifier = CardClassifier(classifier, threads=threads)
        self.memory = CardMemory() if video else None

    def observe(self, frame: np.ndarray, table_from_image: np.ndarray | None = None,
                timestamp: float = 0.0, zooms: tuple[float, ...] = (1.0,)) -> Observation:
        """Every card in `frame`: its quad, name (or UNKNOWN) and calibrated confidence; the
        extra column `best` holds the likeliest class even where the name is UNKNOWN.
        `zooms`: see `CardDetector.detect` (`PHOTO_ZOOMS` for photos of any framing)."""
        obs = self.detector.detect(frame, table_from_image, timestamp, zooms)
        cards = self.classifier.rectify_quads(frame, obs.quads)
        predictions = self._name(cards, obs.quads, obs.extra["face_up"])
        obs.extra["best"] = np.empty(len(obs), dtype=object)
        for i, prediction in enumerate(predictions):
            obs.cards[i] = prediction.card
            obs.confidence[i] = prediction.confidence
            obs.extra["best"][i] = prediction.best
        return obs

    def _name(self, cards: np.ndarray, quads: np.ndarray,
              face_up: np.ndarray) -> list[Prediction]:
        if self.memory is None:
            return self.classifier.predict(cards, face_up)
        thumbs = thumbnails(cards)
        recalled = self.memory.recall(quads, thumbs)
        fresh = [i for i, j in enumerate(recalled) if j < 0]
        named = iter(self.classifier.predict(cards[fresh], face_up[fresh]))
        predictions = [self.memory.names[j] if j >= 0 else next(named) for j in recalled]
        self.memory.remember(quads, thumbs, predictions, recalled)
        return predictions
