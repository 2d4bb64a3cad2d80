"""What the classifier said about the cards of the last frames, for live video.

Most cards on a table lie still for minutes; naming each one again every frame is most of the
work of a frame. A card whose quad has not moved and whose rectified pixels have not changed
since it was named keeps that name. The test is against the quad and pixels *as they were
when named*, so slow drift (light, a creeping camera) adds up until the card is named again,
and anything that changes the card (turned over, swapped, a hand over it) changes its pixels.
Between plays most frames show nothing new at all: such a frame keeps the whole of what was
found in the last one looked at (`StillFrames`), detector included.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

THUMB = (18, 25)  # the rectified card shrunk to this (w, h) grey image for the pixel test
FRAME_CELL_PX = 16  # a whole frame is compared as grey cells this many px a side


def thumbnails(cards: np.ndarray) -> np.ndarray:
    """(N, h, w) float32 grey miniatures of rectified BGR cards (N, H, W, 3)."""
    out = np.empty((len(cards), THUMB[1], THUMB[0]), np.float32)
    for i, card in enumerate(cards):
        grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
        out[i] = cv2.resize(grey, THUMB, interpolation=cv2.INTER_AREA)
    return out


class StillFrames:
    """Live video: whether a frame shows what the last frame looked at showed, so that what
    was found in that one stands. Frames are compared as grey cells of `cell_px`, where
    the sensor's noise averages out to a few grey levels; a change is any cell that moves by
    `level` or more (a card pushed 2 px changes the cells along its edge by more). The test
    is against the frame *last looked at*, not the last frame, so slow drift adds up until
    it counts."""

    def __init__(self, cell_px: int = FRAME_CELL_PX, level: float = 8.0) -> None:
        self.cell_px = cell_px
        self.level = level
        self.looked: np.ndarray | None = None  # the cells of the frame last looked at

    def cells(self, frame: np.ndarray) -> np.ndarray:
        """The frame (BGR or grey) shrunk to grey cells, uint8: halved while twice the size
        or more (OpenCV's fast 2 × 2 averaging), then the rest in one step."""
        h, w = frame.shape[:2]
        size = (max(1, w // self.cell_px), max(1, h // self.cell_px))
        small = frame
        while small.shape[1] >= 2 * size[0] and small.shape[0] >= 2 * size[1]:
            small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2),
                               interpolation=cv2.INTER_AREA)
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
        return small if small.ndim == 2 else cv2.cvtColor(small[:, :, :3], cv2.COLOR_BGR2GRAY)

    def same(self, cells: np.ndarray) -> bool:
        """Whether a frame's `cells` show what the frame last looked at showed."""
        return (self.looked is not None and cells.shape == self.looked.shape
                and cv2.absdiff(cells, self.looked).max() < self.level)


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


@dataclass
class PileLook:
    """Where a pile's crop was cut (centre, card short side: frame px), its pixels then,
    what the pile network found in it, and the last frame that used it."""

    centre: np.ndarray
    short: float
    thumb: np.ndarray
    found: object
    used: int


class PileMemory:
    """Live video: a pile whose crop has not changed keeps what the pile network found in it
    (`vision.detect.CardDetector.look_again`), as `CardMemory` keeps names. A crop is cut
    again where it was first cut, and its pixels compared with what they were then, so what
    was found in it still holds wherever the crop the first pass would cut now lies. That
    one moves: the first pass's boxes jitter, and a pile's sliver found in one frame and
    missed in the next moves the middle of the pile's boxes by up to half a card's short side
    (docs/vision.md, "A second look at piles"). An earlier crop is tried for a pile when its
    middle is within `centre_share` of a card's short side, nearest first, and the card size
    within `size_share`. Two boxes that overlap in one frame and not the next make a pile
    that comes and goes, so a look is kept for `keep_frames` frames after it was last used."""

    def __init__(self, centre_share: float = 0.5, size_share: float = 0.06,
                 pixel_change: float = 6.0, keep_frames: int = 60) -> None:
        self.centre_share = centre_share
        self.size_share = size_share
        self.pixel_change = pixel_change
        self.keep_frames = keep_frames
        self.frame = 0
        self.looks: list[PileLook] = []

    @staticmethod
    def thumbnail(crop: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        return cv2.resize(grey, PILE_THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)

    def near(self, centre: np.ndarray, short: float) -> list[PileLook]:
        """The looks that could be at this pile, nearest first."""
        away = [float(np.hypot(*(look.centre - centre))) for look in self.looks]
        return [self.looks[k] for k in np.argsort(away, kind="stable")
                if away[k] <= self.centre_share * short
                and abs(np.log(self.looks[k].short / short)) <= self.size_share]

    def recall(self, look: PileLook, crop: np.ndarray) -> bool:
        """Whether the crop cut again where `look` was (`crop`, cut now) looks as it did
        then; if so, `look` counts as used this frame."""
        same = np.abs(self.thumbnail(crop) - look.thumb).mean() < self.pixel_change
        if same:
            look.used = self.frame
        return bool(same)

    def remember(self, centre: np.ndarray, short: float, crop: np.ndarray,
                 found: object) -> None:
        """A new look, in place of those at the same pile that no longer match (a look
        another pile recalled this frame stays)."""
        stale = {id(look) for look in self.near(centre, short) if look.used != self.frame}
        self.looks = [look for look in self.looks if id(look) not in stale]
        self.looks.append(PileLook(np.asarray(centre, np.float64).copy(), short,
                                   self.thumbnail(crop), found, self.frame))

    def next_frame(self) -> None:
        """Looks unused for `keep_frames` frames are forgotten."""
        self.frame += 1
        self.looks = [look for look in self.looks
                      if self.frame - look.used <= self.keep_frames]
