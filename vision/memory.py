"""What the classifier said about the cards of the last frames, for live video.

Most cards on a table lie still for minutes; naming each one again every frame is most of the
work of a frame. A card whose quad has not moved and whose rectified pixels have not changed
since it was named keeps that name. The test is against the quad and pixels *as they were
when named*, so slow drift (light, a creeping camera) adds up until the card is named again,
and anything that changes the card (turned over, swapped, a hand over it) changes its pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

THUMB = (18, 25)  # the rectified card shrunk to this (w, h) grey image for the pixel test


def thumbnails(cards: np.ndarray) -> np.ndarray:
    """(N, h, w) float32 grey miniatures of rectified BGR cards (N, H, W, 3)."""
    out = np.empty((len(cards), THUMB[1], THUMB[0]), np.float32)
    for i, card in enumerate(cards):
        grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
        out[i] = cv2.resize(grey, THUMB, interpolation=cv2.INTER_AREA)
    return out


class CardMemory:
    """Names kept from frame to frame for cards that stayed as they were.

    `corner_share`: how far a corner may move, as a share of the card's short side (detector
    jitter is a pixel or two of its input, a few frame pixels); `pixel_change`: the mean
    absolute difference of the grey miniatures, 0–255, under which a card is the same.
    """

    def __init__(self, corner_share: float = 0.06, pixel_change: float = 6.0) -> None:
        self.corner_share = corner_share
        self.pixel_change = pixel_change
        self.forget()

    def forget(self) -> None:
        self.quads = np.zeros((0, 4, 2), np.float32)
        self.thumbs = np.zeros((0, THUMB[1], THUMB[0]), np.float32)
        self.names: list[object] = []

    def recall(self, quads: np.ndarray, thumbs: np.ndarray) -> list[int]:
        """For each new card, the index of the remembered card it still is, or -1."""
        found = [-1] * len(quads)
        if not len(self.quads) or not len(quads):
            return found
        short = np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1)  # portrait: first edge
        moved = np.linalg.norm(quads[:, None] - self.quads[None], axis=3).max(axis=2)
        taken: set[int] = set()
        for i in np.argsort(moved.min(axis=1)):
            for j in np.argsort(moved[i]):
                if moved[i, j] > self.corner_share * short[i]:
                    break
                if j not in taken and np.abs(thumbs[i] - self.thumbs[j]).mean() \
                        < self.pixel_change:
                    found[i] = int(j)
                    taken.add(int(j))
                    break
        return found

    def remember(self, quads: np.ndarray, thumbs: np.ndarray, names: list[object],
                 recalled: list[int]) -> None:
        """This frame's cards; a recalled card keeps the quad and pixels it was named by."""
        quads, thumbs = quads.copy(), thumbs.copy()
        for i, j in enumerate(recalled):
            if j >= 0:
                quads[i], thumbs[i] = self.quads[j], self.thumbs[j]
        self.quads, self.thumbs, self.names = quads, thumbs, list(names)


PILE_THUMB = (32, 32)  # a pile's crop shrunk to this grey image for the pixel test


@dataclass(frozen=True)
class PileLook:
    """Where a pile's crop was cut (centre, card short side: frame px), its pixels then,
    and what the pile network found in it."""

    centre: np.ndarray
    short: float
    thumb: np.ndarray
    found: object


class PileMemory:
    """Live video: a pile whose crop has not changed keeps what the pile network found in it
    (`vision.detect.CardDetector.look_again`), as `CardMemory` keeps names. A crop is cut
    again where it was first cut, and its pixels compared with what they were then; the
    first pass's boxes jitter a little from frame to frame, so the crop it would cut now may
    lie a few pixels off, and is taken for the same pile when its middle is within
    `shift_share` of a card's short side and the card size within that share too."""

    def __init__(self, shift_share: float = 0.06, pixel_change: float = 6.0) -> None:
        self.shift_share = shift_share
        self.pixel_change = pixel_change
        self.looks: list[PileLook] = []  # the last frame's, which this frame can recall
        self.kept: list[PileLook] = []  # this frame's so far, kept or made

    @staticmethod
    def thumbnail(crop: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        return cv2.resize(grey, PILE_THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)

    def near(self, centre: np.ndarray, short: float) -> list[PileLook]:
        """The last frame's looks that could be at this pile."""
        return [look for look in self.looks
                if np.hypot(*(look.centre - centre)) <= self.shift_share * short
                and abs(np.log(look.short / short)) <= self.shift_share]

    def recall(self, look: PileLook, crop: np.ndarray) -> bool:
        """Whether the crop cut again where `look` was (`crop`, cut now) looks as it did
        then; if so, `look` is kept for the next frame."""
        same = np.abs(self.thumbnail(crop) - look.thumb).mean() < self.pixel_change
        if same:
            self.kept.append(look)
        return bool(same)

    def remember(self, centre: np.ndarray, short: float, crop: np.ndarray,
                 found: object) -> None:
        self.kept.append(PileLook(np.asarray(centre, np.float64).copy(), short,
                                  self.thumbnail(crop), found))

    def next_frame(self) -> None:
        """The looks kept or made this frame are the ones the next frame can recall."""
        self.looks, self.kept = self.kept, []
