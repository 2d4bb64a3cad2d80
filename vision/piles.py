"""A second look at each pile, at the frame's own resolution.

The detector sees the frame with its long side at 512 px, where a card is about 34 px wide
and one output cell about 7 mm of table; the markers of a fan lie 3–12 mm apart, so their
anchors are often a cell or less apart and the second and later cards of a pile are what it
misses. Where its boxes crowd one another, the same kind of network, trained on crops at
that size (`training.pile_train`), looks again at a square crop of the frame scaled so that a
card's short side is `CARD_PX` px: about the frame's own pixels at 720p, a cell then 3 mm
of table. Its detections in the middle of the crop (its *core*) are added in place of the
first pass's boxes they overlap; near the crop's edge, where cards are cut, the first pass
stands. A face-up card is looked at again even alone: the markers tucked under a minion
often show as a strip along its edge that the first pass takes for part of the minion, and
its box crowds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

INPUT_PX = 224  # the crop's side, network input px
CARD_PX = 84.0  # a card's short side in the crop, input px
CORE_MARGIN = 0.35  # of a card's short side: a crop's edge band where the first pass stands
CROWDED_IOU = 0.1  # first-pass boxes overlapping this much are one pile
KEEP_IOU = 0.7  # a first-pass box in a core stays unless a second-look box overlaps it so much


@dataclass(frozen=True)
class PileView:
    """How a square crop of the frame maps onto the pile network's input."""

    origin: tuple[int, int]  # frame px of the crop's first pixel
    scale: tuple[float, float]  # input px per frame px, (x, y): the same twice
    padded: tuple[int, int]  # the network input, (w, h)

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """Frame px -> input px (pixel centres at integers in both)."""
        return (np.asarray(points, np.float64) + 0.5 - self.origin) * self.scale - 0.5

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, np.float64) + 0.5) / self.scale - 0.5 + self.origin

    def core(self, points: np.ndarray, card_short: float) -> np.ndarray:
        """Which frame points lie in the crop's middle: `CORE_MARGIN` card shorts in from
        its edges, given the card's short side in frame px."""
        p = self.to_input(np.asarray(points, np.float64).reshape(-1, 2))
        margin = CORE_MARGIN * card_short * self.scale[0]
        return np.all((p >= margin - 0.5) & (p <= np.float64(self.padded) - 0.5 - margin),
                      axis=1)


def pile_crop(frame: np.ndarray, centre: np.ndarray, card_short: float,
              size: int = INPUT_PX, card_px: float = CARD_PX) -> tuple[np.ndarray, PileView]:
    """The network input (size, size, 3) uint8 BGR: the square of the frame around `centre`
    (frame px) in which a card of short side `card_short` (frame px) comes out `card_px`
    wide; black beyond the frame's edge."""
    side = max(8, round(size * card_short / card_px))  # frame px the crop spans
    x0, y0 = (round(float(c) - side / 2) for c in np.asarray(centre).reshape(2))
    h, w = frame.shape[:2]
    patch = np.zeros((side, side, 3), np.uint8)
    fx0, fy0, fx1, fy1 = max(x0, 0), max(y0, 0), min(x0 + side, w), min(y0 + side, h)
    if fx1 > fx0 and fy1 > fy0:
        part = frame[fy0:fy1, fx0:fx1]
        patch[fy0 - y0:fy1 - y0, fx0 - x0:fx1 - x0] = (
            part[:, :, :3] if part.ndim == 3 else part[:, :, None])
    # area averaging when shrinking, as `vision.detect.prepare`: no aliasing of card edges
    shrink = side > size
    image = cv2.resize(patch, (size, size),
                       interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    k = size / side
    return image, PileView((x0, y0), (k, k), (size, size))


def piles(overlaps: np.ndarray, min_iou: float = CROWDED_IOU,
          alone: np.ndarray | None = None) -> list[np.ndarray]:
    """Groups of detections (indices) whose boxes overlap by `min_iou` or more, through one
    another; a detection that overlaps none is in no pile, unless `alone` (a mask) says it
    is a pile by itself. Crowded piles come first: where crops overlap, the first has the
    say (`CardDetector.look_again`), and a crowded pile is what its crop is cut for."""
    crowded = np.asarray(overlaps, np.float64) >= min_iou
    np.fill_diagonal(crowded, False)
    label = np.arange(len(crowded))
    for i, j in zip(*np.nonzero(np.triu(crowded)), strict=True):
        label[label == label[j]] = label[i]  # merge j's group into i's
    groups = [np.nonzero(label == g)[0] for g in np.unique(label)]
    alone = np.zeros(len(crowded), bool) if alone is None else np.asarray(alone, bool)
    return [g for g in groups if len(g) > 1] + [g for g in groups if len(g) == 1 and alone[g[0]]]
