"""The zone layout: where each zone lies on the table, in table millimetres (a JSON file).

    {"table_mm": [900, 600],
     "p1": {"minions": {"rect": [x, y, width, height]}, "attack": ..., "hero": ...,
            "weapon": ..., "armor": ..., "secrets": ..., "totems": ...},
     "p2": {...the same seven...},
     "shared": {"deck": {"polygon": [[x, y], [x, y], [x, y], ...]}, "discard": ...}}

A zone is a rectangle or a convex polygon. Zones lie inside the table and do not overlap,
so every point of the table is in one zone or none. Zone names are "p1.minions",
"p2.weapon", ... and "deck", "discard". The default (`default_layout.json` beside this
file) is for a 90 × 60 cm table, each player's side the other's turned half round.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Annotated

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

DEFAULT_LAYOUT = files("calibration") / "default_layout.json"
TABLE = "table"  # the play area between the zones
PLAYER_ZONES = ("minions", "attack", "hero", "weapon", "armor", "secrets", "totems")
SHARED_ZONES = ("deck", "discard")
# Zones that share an edge rasterise into no area; anything bigger than a pin-head is real.
OVERLAP_MM2 = 1.0

Positive = Annotated[float, Field(gt=0)]
Point = tuple[float, float]


class LayoutError(ValueError):
    """A layout file that cannot be used; the message is one line naming the file."""


class Zone(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    rect: tuple[float, float, Positive, Positive] | None = None
    polygon: list[Point] | None = Field(default=None, min_length=3)

    @model_validator(mode="after")
    def _one_shape(self) -> Zone:
        if (self.rect is None) == (self.polygon is None):
            raise ValueError("a zone is either a rect [x, y, width, height] or a polygon")
        if self.polygon is not None:
            outline = np.array(self.polygon, np.float32)
            if not cv2.isContourConvex(outline) or abs(cv2.contourArea(outline)) == 0:
                raise ValueError("a zone polygon must be convex and enclose some area")
        return self

    def outline(self) -> np.ndarray:
        """The zone as an N×2 float32 polygon in table mm."""
        if self.rect is not None:
            x, y, w, h = self.rect
            return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
        return np.array(self.polygon, np.float32)


class PlayerZones(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    minions: Zone
    attack: Zone
    hero: Zone
    weapon: Zone
    armor: Zone
    secrets: Zone
    totems: Zone


class SharedZones(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    deck: Zone
    discard: Zone


class Layout(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = ""
    table_mm: tuple[Positive, Positive] = (900.0, 600.0)
    p1: PlayerZones
    p2: PlayerZones
    shared: SharedZones
    # Derived in validation; points as tuples so that layouts still compare with ==.
    _outlines: dict[str, tuple[Point, ...]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _zones_fit_the_table(self) -> Layout:
        outlines = {f"{player}.{zone}": getattr(getattr(self, player), zone).outline()
                    for player in ("p1", "p2") for zone in PLAYER_ZONES}
        outlines |= {zone: getattr(self.shared, zone).outline() for zone in SHARED_ZONES}
        width, height = self.table_mm
        for name, outline in outlines.items():
            if (outline.min() < 0 or outline[:, 0].max() > width
                    or outline[:, 1].max() > height):
                raise ValueError(f"zone {name} reaches outside the {width:g} × {height:g} mm "
                                 "table")
        names = list(outlines)
        for i, first in enumerate(names):
            for second in names[i + 1:]:
                area, _ = cv2.intersectConvexConvex(outlines[first], outlines[second])
                if area > OVERLAP_MM2:
                    raise ValueError(f"zones {first} and {second} overlap ({area:.0f} mm²)")
        self._outlines = {name: tuple(map(tuple, outline.tolist()))
                          for name, outline in outlines.items()}
        return self

    @property
    def zones(self) -> dict[str, np.ndarray]:
        """Zone name -> its outline (N×2 float32, table mm)."""
        return {name: np.array(outline, np.float32) for name, outline in self._outlines.items()}

    def zone_at(self, point_mm: tuple[float, float] | np.ndarray) -> str | None:
        """The zone holding a table point (a card's centre, say), or None between zones."""
        return self.zones_at(np.asarray(point_mm, np.float64).reshape(1, 2))[0]

    def zones_at(self, points_mm: np.ndarray) -> list[str | None]:
        """`zone_at` of each of N table points (N×2), at once (a frame's cards)."""
        names, start, end = _edges(tuple(self._outlines.items()))
        points = np.asarray(points_mm, np.float64).reshape(-1, 2)
        x, y = points[:, 0, None, None], points[:, 1, None, None]
        # Zones are convex: inside (or on the edge) is on the same side of every edge.
        sides = ((end[..., 0] - start[..., 0]) * (y - start[..., 1])
                 - (end[..., 1] - start[..., 1]) * (x - start[..., 0]))  # (N, zones, edges)
        inside = (sides >= 0).all(axis=2) | (sides <= 0).all(axis=2)
        first = inside.argmax(axis=1)
        return [names[z] if inside[i, z] else None for i, z in enumerate(first)]

    def zone_map(self, to_image: Callable[[np.ndarray], np.ndarray],
                 shape: tuple[int, int]) -> tuple[np.ndarray, list[str]]:
        """Each pixel of a picture of `shape` (h, w) labelled with the zone it shows (0 for
        none, k for the k-th name returned); `to_image` maps table mm to its pixels. The
        play area between the zones is the last name, TABLE."""
        labels = np.zeros(shape, np.int32)
        names = [*self._outlines, TABLE]
        w, h = self.table_mm
        table = to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
        cv2.fillPoly(labels, [np.round(table).astype(np.int32)], len(names))
        for k, name in enumerate(names[:-1], 1):
            outline = to_image(np.array(self._outlines[name], np.float64))
            cv2.fillPoly(labels, [np.round(outline).astype(np.int32)], k)
        return labels, names


@lru_cache(maxsize=8)
def _edges(outlines: tuple[tuple[str, tuple[Point, ...]], ...]
           ) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The zones' names and their edges' start and end points, (zones, edges, 2); a zone of
    fewer corners repeats its last edge (an edge twice says nothing new)."""
    most = max(len(outline) for _, outline in outlines)
    start, end = np.empty((2, len(outlines), most, 2))
    for z, (_, outline) in enumerate(outlines):
        corners = np.array(outline, np.float64)
        n = len(corners)
        start[z, :n], end[z, :n] = corners, np.roll(corners, -1, axis=0)
        start[z, n:], end[z, n:] = start[z, n - 1], end[z, n - 1]
    return [name for name, _ in outlines], start, end


def load_layout(path: str | Path) -> Layout:
    """Read and check a layout file; LayoutError is one line naming the file and the problem."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LayoutError(f"{path}: cannot read ({error.__class__.__name__}: "
                          f"{getattr(error, 'strerror', None) or error})") from None
    return parse_layout(text, str(path))


def parse_layout(text: str, where: str = "layout") -> Layout:
    """A layout from JSON text; `where` names it in the one-line LayoutError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise LayoutError(f"{where}: not valid JSON ({error.msg}, line {error.lineno} "
                          f"column {error.colno})") from None
    if not isinstance(data, dict):
        raise LayoutError(f"{where}: a layout must be a JSON object")
    try:
        return Layout.model_validate(data)
    except ValidationError as error:
        raise LayoutError(f"{where}: {_explain(error)}") from None


def default_layout() -> Layout:
    """The shipped layout for a 90 × 60 cm table."""
    return parse_layout(DEFAULT_LAYOUT.read_text(encoding="utf-8"), "default_layout.json")


def _explain(error: ValidationError) -> str:
    first = error.errors()[0]
    # a key of the file's own may hold any character: a line break is shown, not made
    where = ".".join(str(p) if str(p).isprintable() else repr(p) for p in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "missing"
    message = " ".join(message.split())  # pydantic messages may span lines
    return f"{where}: {message}" if where else message
