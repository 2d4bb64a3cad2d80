"""`Observation`: the cards seen in one frame, from detection to the tracker.

One typed container of equal-length arrays, after supervision's `Detections`: a stage adds
or fills columns, filtering is boolean indexing (`obs[obs.confidence > 0.9]`), converters
live at the edges (`to_json` gives the `recognize` contract's list). Drawing is elsewhere;
the overlay only reads it. The detector's own stages carry such columns too (`Columns`:
`vision.detect.Boxes`, `Found`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Self

import numpy as np

UPRIGHT, SIDEWAYS = "upright", "sideways"


def _strings(values: object, n: int, default: str | None) -> np.ndarray:
    array = np.empty(n, dtype=object)
    array[:] = [default] * n if values is None else list(values)
    return array


@dataclass
class Columns:
    """A dataclass of equal-length arrays, one entry a card: rows are taken by boolean mask,
    index array, slice or one index, and give the same kind of container. A field holding an
    array is a column, and so is each array of a field holding a dict of them (more
    columns); any other field (a timestamp) belongs to the whole and is kept."""

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))

    def __getitem__(self, index: object) -> Self:
        if isinstance(index, int | np.integer):
            index = [int(index)]
        rows: dict[str, object] = {}
        for column in fields(self):
            value = getattr(self, column.name)
            if isinstance(value, np.ndarray):
                rows[column.name] = value[index]
            elif isinstance(value, dict):
                rows[column.name] = {k: v[index] for k, v in value.items()}
        return replace(self, **rows)

    def copy(self) -> Self:
        """The same rows, in arrays of their own."""
        return self[np.arange(len(self))]


@dataclass
class Observation(Columns):
    quads: np.ndarray  # (N, 4, 2) float32: corners in image pixels, clockwise
    cards: np.ndarray  # (N,) card id, "JK", "BACK" or "UNKNOWN"
    confidence: np.ndarray  # (N,) float32: the classifier's calibrated probability
    orientation: np.ndarray  # (N,) "upright" or "sideways" (long side across the table)
    zones: np.ndarray  # (N,) zone name from the layout, or None
    timestamp: float = 0.0
    extra: dict[str, np.ndarray] = field(default_factory=dict)  # more columns, same length

    def __post_init__(self) -> None:
        n = len(self.quads)
        columns = (self.cards, self.confidence, self.orientation, self.zones,
                   *self.extra.values())
        if any(len(c) != n for c in columns):
            raise ValueError("Observation columns must all have one entry a card")

    @classmethod
    def empty(cls, timestamp: float = 0.0) -> Observation:
        return cls.build(np.zeros((0, 4, 2), np.float32), timestamp=timestamp)

    @classmethod
    def build(cls, quads: np.ndarray, cards: object = None, confidence: object = None,
              orientation: object = None, zones: object = None,
              timestamp: float = 0.0) -> Observation:
        quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        n = len(quads)
        return cls(quads, _strings(cards, n, "UNKNOWN"),
                   np.zeros(n, np.float32) if confidence is None
                   else np.asarray(confidence, np.float32),
                   _strings(orientation, n, UPRIGHT), _strings(zones, n, None), timestamp)

    def to_json(self) -> list[dict]:
        """The `recognize` contract: card, confidence, quad, zone (and orientation)."""
        return [{"card": str(card), "confidence": round(float(conf), 4),
                 "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                 "zone": zone, "orientation": str(orient)}
                for card, conf, quad, zone, orient in zip(
                    self.cards, self.confidence, self.quads, self.zones, self.orientation,
                    strict=True)]
