"""What a synthetic table holds, in table millimetres: placed cards, flat decals, hands.

Table frame: origin at the table's far-left corner as p1 (the near side) sees it, x to the
right, y towards p1, both in mm; seen from above that is image-like (x right, y down).

A card's `rotation` is in degrees, clockwise seen from above. At 0 the card is
**upright**: its long side runs along the table's y axis and its printed top points to
-y (away from p1). **Sideways** means turned about 90 degrees (a damage or durability
marker). Orientation is the rotation folded to [0, 180): within 45 degrees of 0 (or 180,
an upside-down card is still upright) it is upright, otherwise sideways.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cards import DECK
from simulator import cardart
from simulator.camera import Camera
from simulator.hands import Hand
from simulator.photometric import Photometric
from simulator.textures import Background

CARD_HEIGHT_MM = 88.0  # the long side of every card; its width follows the design's art

UPRIGHT = "upright"
SIDEWAYS = "sideways"


@dataclass
class PlacedCard:
    """One card on the table. `card` is its identity (a card id, or BACK when it does not
    matter); a face-down card shows the design's back whatever its identity. Higher `z`
    is drawn later, on top (markers tucked under a minion have a lower z)."""

    card: str
    center: tuple[float, float]
    rotation: float = 0.0
    face_up: bool = True
    z: float = 0.0
    role: str = ""  # free tag from the layout: "minion", "marker", "deck", ...
    shade: float = 1.0  # brightness of this card's print and finish


@dataclass
class Decal:
    """A flat image lying on the table (a calibration marker, a hero card, a phone):
    `size` is (width, height) in mm, BGR or BGRA. Decals above a card (higher z) hide it."""

    image: np.ndarray
    center: tuple[float, float]
    size: tuple[float, float]
    rotation: float = 0.0
    z: float = -1.0
    role: str = ""


@dataclass
class Scene:
    """Everything needed to draw one frame; `render(scene)` is a pure function of it."""

    design: str
    cards: list[PlacedCard] = field(default_factory=list)
    decals: list[Decal] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    table_size: tuple[float, float] = (900.0, 600.0)
    table: Background = field(default_factory=Background)
    surround: Background = field(default_factory=lambda: Background(kind="solid",
                                                                   colors=((40, 45, 50),)))
    camera: Camera = field(default_factory=Camera)
    photometric: Photometric = field(default_factory=Photometric)
    back_variant: int = 0  # which of the design's backs this deck has
    # a back of no design (BGRA, `simulator.backs`) this deck has instead of the design's own
    back: np.ndarray | None = None


def card_size_mm(design: str) -> tuple[float, float]:
    """(width, height) of this design's cards: 88 mm tall, as wide as its art says."""
    img = cardart.load_card(design, DECK[0])
    return CARD_HEIGHT_MM * img.shape[1] / img.shape[0], CARD_HEIGHT_MM


def orientation(rotation: float) -> str:
    """UPRIGHT or SIDEWAYS for a rotation in degrees (see the module docstring)."""
    folded = rotation % 180.0
    return UPRIGHT if folded < 45.0 or folded >= 135.0 else SIDEWAYS


def rect_corners(center: tuple[float, float], size: tuple[float, float],
                 rotation: float) -> np.ndarray:
    """Corners (4, 2) of a w x h rectangle turned `rotation` degrees clockwise about its
    centre, ordered top-left, top-right, bottom-right, bottom-left of the unturned
    rectangle (for a card: as printed on its visible side)."""
    w, h = size
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    t = np.deg2rad(rotation)
    # clockwise on screen with y down is the usual counter-clockwise matrix
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return local @ rot.T + np.asarray(center, dtype=float)
