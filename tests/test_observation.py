"""Observation: equal-length columns, boolean filtering, the recognize contract's JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

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
