"""The classifier's threshold fit on detector cuts: the real pipeline on calibration scenes."""

from __future__ import annotations

import numpy as np

from models.common import split_designs
from models.threshold import detector_cuts
from vision.classify import MODEL


def test_detector_cuts_score_the_cards_the_recognizer_found() -> None:
    _, calibration, _ = split_designs()
    rows = detector_cuts(3, 2, calibration, str(MODEL))
    confidence, right = rows[:, 0], rows[:, 1]
    assert len(rows) >= 20  # two table scenes, a score of cards each
    assert np.all((confidence > 0) & (confidence <= 1))
    assert set(np.unique(right)) <= {0.0, 1.0}
    # cards the classifier is most sure of are the ones it reads right
    sure = confidence >= np.quantile(confidence, 0.75)
    assert right[sure].mean() > right[~sure].mean()
    assert right[sure].mean() >= 0.8
