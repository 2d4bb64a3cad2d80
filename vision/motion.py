"""Where the picture is changing: hands, arms and cards on the move.

A card that lies still is read the same frame after frame; a hand over the table is not a
card, and what it covers is not gone. The difference between one frame and the last, at a
small size (averaging away the sensor's noise), says where something moves, so that the
tracker can hold its judgement there until it is still again.
"""

from __future__ import annotations

import cv2
import numpy as np

WIDTH = 160  # px of the small picture compared (a cell about 6 mm of table at 720p)
THRESHOLD = 24  # a channel that changes this much (of 255) between frames moves
MIN_CELLS = 3  # fewer changed cells than this in a blob is noise or a flicker


class MotionMask:
    """Frame after frame, the cells of a small picture that changed since the last one."""

    def __init__(self, width: int = WIDTH, threshold: int = THRESHOLD) -> None:
        self.width, self.threshold = width, threshold
        self._last: np.ndarray | None = None

    def update(self, frame: np.ndarray) -> np.ndarray:
        """A bool mask (the small picture's size) of what moved since the last frame; all
        False for the first frame, or one of another size."""
        small = self.shrink(frame)
        last, self._last = self._last, small
        if last is None or last.shape != small.shape:
            return np.zeros(small.shape[:2], bool)
        changed = (cv2.absdiff(small, last).max(axis=2) > self.threshold).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        return cv2.dilate(changed, np.ones((3, 3), np.uint8)).astype(bool)

    def shrink(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        size = (self.width, max(1, round(h * self.width / w)))
        small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        return small if small.ndim == 3 else small[:, :, None]

    def scale(self, frame_shape: tuple[int, ...]) -> float:
        """Small-picture px per frame px."""
        return self.width / frame_shape[1]
