"""From a card's quadrilateral in an image to a canonical portrait card, and its index corners.

Every standard deck prints its rank and suit index in two opposite corners (top-left and,
turned half round, bottom-right), so a card needs no "up": rectified to portrait, its
top-left corner shows an index whichever way it lay, and the bottom-right corner turned 180°
shows the other. The classifier reads those two corners.
"""

from __future__ import annotations

import cv2
import numpy as np

CARD_MM = (63.0, 88.0)  # a poker card, width × height
CARD_PX = (72, 100)  # the canonical rectified card, width × height
CORNER = (0.30, 0.30)  # the index corner, as a share of the card's width and height


def portrait_order(quad: np.ndarray) -> np.ndarray:
    """Reorder 4 corners (any start, either winding) so that they run clockwise on screen
    from a corner whose first edge is a short side: the card read as a portrait."""
    return portrait_orders(np.asarray(quad, np.float32).reshape(1, 4, 2))[0]


def portrait_orders(quads: np.ndarray) -> np.ndarray:
    """`portrait_order` of every quad in an (N, 4, 2) array, at once."""
    quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    rows = np.arange(len(quads))[:, None]
    centres = quads.mean(axis=1, keepdims=True)
    angles = np.arctan2(quads[..., 1] - centres[..., 1], quads[..., 0] - centres[..., 0])
    quads = quads[rows, np.argsort(angles, axis=1)]  # clockwise on screen (y points down)
    start = np.argmin(quads.sum(axis=2), axis=1)  # nearest the image's top-left
    quads = quads[rows, (start[:, None] + np.arange(4)) % 4]
    first = np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1)
    second = np.linalg.norm(quads[:, 2] - quads[:, 1], axis=1)
    shift = (first > second).astype(np.int64)  # first edge long: start one corner on
    return quads[rows, (shift[:, None] + np.arange(4)) % 4]


def rectify(image: np.ndarray, quad: np.ndarray, size: tuple[int, int] = CARD_PX,
            *, ordered: bool = False) -> np.ndarray:
    """The card inside `quad` warped to an upright `size` (width, height) image."""
    width, height = size
    source = np.asarray(quad, np.float32).reshape(4, 2) if ordered else portrait_order(quad)
    target = np.float32([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]])
    return warp_area(image, cv2.getPerspectiveTransform(source, target), size)


def warp_area(image: np.ndarray, matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`image` warped by the homography `matrix` to `size` (width, height); where the warp
    shrinks by 1.5 or more, each output pixel is the mean of the image pixels it covers.
    warpPerspective samples one point a pixel whatever its flags, so a card 200 px wide cut
    to 72 would alias (a court's robe turns to moiré): the warp is made at a whole multiple
    of `size` and shrunk by area averaging."""
    width, height = size
    frame = np.float32([[0, 0], [width, 0], [width, height], [0, height]])[None]
    seen = cv2.perspectiveTransform(frame, np.linalg.inv(matrix))[0]
    sides = np.linalg.norm(seen - np.roll(seen, -1, axis=0), axis=1)
    shrink = round(max(sides[0::2].max() / width, sides[1::2].max() / height))
    if shrink < 2:
        return cv2.warpPerspective(image, matrix, size, flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
    # output pixel i's centre lies at i * shrink + (shrink - 1) / 2 in the large warp
    scale = np.float64([[shrink, 0, (shrink - 1) / 2], [0, shrink, (shrink - 1) / 2],
                        [0, 0, 1]])
    large = cv2.warpPerspective(image, scale @ matrix, (width * shrink, height * shrink),
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(large, size, interpolation=cv2.INTER_AREA)


def index_corners(card: np.ndarray, share: tuple[float, float] = CORNER) -> np.ndarray:
    """The two index corners of a rectified card, the second turned half round so that both
    read the same way: an array of shape (2, h, w[, channels])."""
    height, width = card.shape[:2]
    h, w = round(height * share[1]), round(width * share[0])
    top_left = card[:h, :w]
    bottom_right = np.rot90(card[height - h:, width - w:], 2)
    return np.stack([top_left, bottom_right])


def long_side_angle(quad: np.ndarray) -> float:
    """The angle of the card's long side to the image's vertical, in degrees (0–90): near 0 a
    card stands upright on screen, near 90 it lies sideways."""
    ordered = portrait_order(quad)
    dx, dy = ordered[2] - ordered[1]  # a long side
    return float(np.degrees(np.arctan2(abs(dx), abs(dy))))
