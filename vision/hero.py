"""How a hero's reference card lies: upright, or turned sideways (its hero power used).

The hero card is not one of the 53 the recogniser names, so it is found the plain way: in
a picture of its zone seen from straight above (table millimetres), the outline of the
largest card-sized thing there. A card is 63 × 88 mm; whether its long side runs along the
table's depth (upright), across it (sideways), or about halfway between (tilted: its hero
attacks, `docs/table.md`) is all there is to read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CARD_MM = (63.0, 88.0)  # short and long side
SIZE_TOLERANCE = 0.2  # a found outline this far from a card's sides is not the card
EDGES = ((50, 150), (80, 200))  # Canny thresholds tried in turn
TILTED_DEG = (25.0, 65.0)  # the long side this far off the table's depth: tilted (a card
# laid untidily is off by 10° at most)


@dataclass(frozen=True)
class HeroCard:
    x: float  # the card's centre in the picture, px
    y: float
    sideways: bool  # its long side across the picture's y axis
    tilted: bool = False  # turned about 45°, neither upright nor sideways (then not sideways)


def find_hero_card(view: np.ndarray, px_per_mm: float) -> HeroCard | None:
    """The card-sized outline in `view` (BGR, table axes, `px_per_mm`), or None."""
    gray = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view,
                            (5, 5), 0)
    for low, high in EDGES:  # the table's own grain closes the outline at low contrast
        edges = cv2.Canny(gray, low, high)
        edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:5]:
            found = _card(cv2.boxPoints(cv2.minAreaRect(contour)), px_per_mm)
            if found is not None:
                return found
    return None


def _card(corners: np.ndarray, px_per_mm: float) -> HeroCard | None:
    short, long = (side * px_per_mm for side in CARD_MM)
    sides = corners[1:3] - corners[0:2]
    lengths = np.hypot(sides[:, 0], sides[:, 1])
    a, b = sorted(lengths)
    if abs(a - short) > SIZE_TOLERANCE * short or abs(b - long) > SIZE_TOLERANCE * long:
        return None
    along = sides[int(np.argmax(lengths))]  # the long side's direction
    angle = np.degrees(np.arctan2(abs(along[0]), abs(along[1])))  # 0: upright, 90: sideways
    tilted = bool(TILTED_DEG[0] <= angle <= TILTED_DEG[1])
    centre = corners.mean(axis=0)
    return HeroCard(float(centre[0]), float(centre[1]), bool(angle > 45.0) and not tilted,
                    tilted)
