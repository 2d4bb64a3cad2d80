"""Card quads and rotated boxes: the fitted box of a quad and back, overlaps, suppression.

Quads are (4, 2) corners, first edge a short side (portrait order, `vision.rectify`); a box is
a centre, (long, short) side and the long side's angle. The detector, the pile network's crops
and the scoring of both share these.
"""

from __future__ import annotations

import cv2
import numpy as np

from .rectify import portrait_orders


def box_of_quad(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(centre, (long, short), θ of the long side) of the rotated rectangle that fits a card
    quad whose first edge is a short side (a label's quad or a portrait-ordered one)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    long_vec = ((q[3] - q[0]) + (q[2] - q[1])) / 2
    short_vec = ((q[1] - q[0]) + (q[2] - q[3])) / 2
    if np.linalg.norm(short_vec) > np.linalg.norm(long_vec):  # a landscape design
        long_vec, short_vec = short_vec, long_vec
    size = np.array([np.linalg.norm(long_vec), np.linalg.norm(short_vec)])
    return q.mean(axis=0), size, float(np.arctan2(long_vec[1], long_vec[0]))


def quads_of_boxes(centres: np.ndarray, sizes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """(N, 4, 2) rectangles, clockwise on screen from a corner whose first edge is short."""
    centres = np.asarray(centres, np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, np.float64).reshape(-1, 2)
    angles = np.asarray(angles, np.float64).reshape(-1)
    along = np.stack([np.cos(angles), np.sin(angles)], axis=1) * sizes[:, :1] / 2
    across = np.stack([-np.sin(angles), np.cos(angles)], axis=1) * sizes[:, 1:] / 2
    corners = np.stack([-along - across, -along + across, along + across, along - across],
                       axis=1) + centres[:, None]
    return portrait_orders(corners)


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex polygons (a card quad, a rotated box)."""
    a, b = np.float32(a).reshape(-1, 2), np.float32(b).reshape(-1, 2)
    return _convex_iou(a, b, abs(cv2.contourArea(a)), abs(cv2.contourArea(b)))


def _convex_iou(a: np.ndarray, b: np.ndarray, area_a: float, area_b: float) -> float:
    """IoU of two convex float32 polygons whose areas are known."""
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = area_a + area_b - inter
    return float(inter / union) if union > 0 else 0.0


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of convex quads; pairs too far apart to touch are not computed."""
    out = np.zeros((len(a), len(b)), np.float64)
    if not len(a) or not len(b):
        return out
    ca, cb = a.mean(axis=1), b.mean(axis=1)
    ra = np.linalg.norm(a - ca[:, None], axis=2).max(axis=1)
    rb = np.linalg.norm(b - cb[:, None], axis=2).max(axis=1)
    near = np.linalg.norm(ca[:, None] - cb[None], axis=2) < ra[:, None] + rb[None]
    # each quad's area found once rather than once a pair
    a, b = np.float32(a), np.float32(b)
    area_a = [abs(cv2.contourArea(q)) for q in a]
    area_b = [abs(cv2.contourArea(q)) for q in b]
    for i, j in zip(*np.nonzero(near), strict=True):
        out[i, j] = _convex_iou(a[i], b[j], area_a[i], area_b[j])
    return out


def rotated_nms(quads: np.ndarray | None, scores: np.ndarray, iou: float,
                overlaps: np.ndarray | None = None) -> np.ndarray:
    """Indices kept, best first: a box goes when it overlaps a better one by `iou` or more
    (`overlaps`, their IoU matrix, if already known). The threshold is high: the boxes of
    stacked markers a few mm apart overlap a lot, yet each is a card; duplicates of one card
    (two peaks on its two visible ends) coincide."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    if iou > 1.0:  # nothing overlaps by more than all of itself: no suppression at all
        return order.astype(np.int64)
    overlaps = iou_matrix(quads, quads) if overlaps is None else overlaps
    keep: list[int] = []
    for i in order:
        if all(overlaps[i, j] < iou for j in keep):
            keep.append(int(i))
    return np.array(keep, np.int64)
