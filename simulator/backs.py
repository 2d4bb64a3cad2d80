"""Card backs of no design, drawn at random.

A group's own deck has a back that none of the designs here has; training on these too
keeps the classifier's BACK and the detector's cards from meaning "one of the backs seen".
"""

from __future__ import annotations

import cv2
import numpy as np


def procedural_back(rng: np.random.Generator, size: tuple[int, int] = (232, 360)) -> np.ndarray:
    """A card back of no design (BGRA, `size` w × h): a white or coloured border around a
    random repeating pattern of lines, checks, dots or lattices in one or two inks."""
    width, height = size
    paper = rng.uniform(200, 255, 3) if rng.random() < 0.7 else rng.uniform(0, 255, 3)
    ink, ink2 = rng.uniform(0, 220, 3), rng.uniform(0, 255, 3)
    card = np.empty((height, width, 3), np.uint8)
    card[:] = paper
    border = int(rng.uniform(0.0, 0.09) * width)
    inner = card[border:height - border, border:width - border]
    inner[:] = ink2 if rng.random() < 0.5 else paper
    step = int(rng.integers(6, 30))
    h, w = inner.shape[:2]
    thick = int(rng.integers(1, max(2, step // 3)))
    kind = int(rng.integers(4))
    for k in range(-max(h, w), 2 * max(h, w), step):
        if kind == 0:  # diagonal lattice
            cv2.line(inner, (k, 0), (k + h, h), ink.tolist(), thick)
            cv2.line(inner, (k, h), (k + h, 0), ink.tolist(), thick)
        elif kind == 1:  # stripes
            cv2.line(inner, (k, 0), (k + int(rng.integers(0, h)), h), ink.tolist(), thick)
        elif kind == 2 and k >= 0:  # dots
            for y in range(step // 2, h, step):
                cv2.circle(inner, (k, y), thick + 1, ink.tolist(), -1)
        elif k >= 0:  # checks
            for y in range(0, h, step):
                if (k // step + y // step) % 2:
                    inner[y:y + step, k:k + step] = ink
    if rng.random() < 0.5:  # a central emblem, as many backs have
        centre = (w // 2, h // 2)
        cv2.ellipse(inner, centre, (w // 4, h // 6), 0, 0, 360, paper.tolist(), -1)
        cv2.ellipse(inner, centre, (w // 5, h // 8), 0, 0, 360, ink.tolist(), thick)
    alpha = np.zeros((height, width), np.uint8)
    radius = max(2, width // 16)
    cv2.rectangle(alpha, (radius, 0), (width - radius - 1, height - 1), 255, -1)
    cv2.rectangle(alpha, (0, radius), (width - 1, height - radius - 1), 255, -1)
    for x, y in ((radius, radius), (width - radius - 1, radius),
                 (radius, height - radius - 1), (width - radius - 1, height - radius - 1)):
        cv2.circle(alpha, (x, y), radius, 255, -1, cv2.LINE_AA)
    return np.dstack([card, alpha])
