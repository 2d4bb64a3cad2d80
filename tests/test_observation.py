"""Observation: equal-length columns, boolean filtering, the recognize contract's JSON; the
detector's own column containers take rows the same way."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.detect import Boxes, Found
from vision.observation import SIDEWAYS, Observation


def _three() -> Observation:
    quads = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    return Observation.build(quads, cards=["QH", "BACK", "UNKNOWN"],
                             confidence=[0.998, 0.97, 0.4],
                             orientation=["upright", SIDEWAYS, "upright"],
                             zones=["p1.minions", None, None], timestamp=1.5)


def test_filtering_is_boolean_indexing_and_keeps_every_column():
    obs = _three()
    sure = obs[obs.confidence > 0.9]
    assert len(sure) == 2 and list(sure.cards) == ["QH", "BACK"]
    assert sure.quads.shape == (2, 4, 2) and sure.timestamp == 1.5
    assert list(obs[obs.orientation == SIDEWAYS].cards) == ["BACK"]
    assert list(obs[1].cards) == ["BACK"]
    obs.extra["score"] = np.float32([0.9, 0.5, 0.2])
    assert list(obs[[2, 0]].extra["score"]) == [np.float32(0.2), np.float32(0.9)]


def test_json_follows_the_recognize_contract():
    rows = json.loads(json.dumps(_three().to_json()))
    assert rows[0] == {"card": "QH", "confidence": 0.998,
                       "quad": [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]],
                       "zone": "p1.minions", "orientation": "upright"}
    assert Observation.empty().to_json() == []


def test_columns_of_different_lengths_are_refused():
    obs = _three()
    with pytest.raises(ValueError):
        Observation(obs.quads, obs.cards[:2], obs.confidence, obs.orientation, obs.zones)


def test_every_stage_takes_rows_alike():
    # the detector's boxes, its detections in frame px and the Observation: one `Columns`
    n = np.arange(3, dtype=np.float64)
    boxes = Boxes(np.stack([n, n], 1), np.stack([n + 2, n + 1], 1), n, n / 4, n / 3, n / 5,
                  np.stack([n, -n], 1))
    found = Found(np.arange(24.0).reshape(3, 4, 2), n / 4, n / 3, n / 5, np.stack([n, -n], 1))
    for rows in (boxes, found, _three()):
        assert len(rows) == 3
        for index, kept in (([2, 0], [2, 0]), (np.array([True, False, True]), [0, 2]),
                            (slice(1, None), [1, 2]), (1, [1]), (np.int64(2), [2])):
            taken = rows[index]
            assert type(taken) is type(rows) and len(taken) == len(kept)
            for name, value in vars(rows).items():
                if isinstance(value, np.ndarray):
                    assert np.array_equal(getattr(taken, name), value[kept]), name
    assert _three()[[0]].timestamp == 1.5  # what belongs to the whole is kept
