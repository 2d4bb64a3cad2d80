"""Card outlines made exact: a second look at each card the detector found, at full resolution.

The detector sees the frame shrunk to 512 px, where a card is about 9 cells wide, and its
corners are off by a tenth of a card's width: enough to cut an index corner in half. The
refiner cuts each detected card out of the full frame with a margin around it (the quad
grown by `MARGIN`, warped to `CROP_PX`) and a small CNN regresses where the card's four
corners really are, as offsets from the detected ones in card widths. The corners are
mapped back to the frame through the same warp.

    python -m training.refine_train        # trains and writes models/card_refiner.onnx
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .rectify import portrait_orders
from .runtime import load_model, shipped

MODEL = shipped("card_refiner.onnx")
CROP_PX = (64, 88)  # width, height of the cut-out, the card portrait inside it
MARGIN = 1.3  # the cut-out spans this many times the detected card, about its centre


def inner_corners() -> np.ndarray:
    """Where a detected card's corners lie in its cut-out (4, 2), portrait, clockwise."""
    width, height = CROP_PX
    x0, y0 = width * (1 - 1 / MARGIN) / 2, height * (1 - 1 / MARGIN) / 2
    return np.float32([[x0, y0], [width - x0, y0], [width - x0, height - y0],
                       [x0, height - y0]])


def card_width_px() -> float:
    """The detected card's width in its cut-out: the unit of the corner offsets."""
    return CROP_PX[0] / MARGIN


def crop_warps(quads: np.ndarray) -> np.ndarray:
    """(N, 3, 3) homographies from the frame to each portrait-ordered quad's cut-out."""
    inner = inner_corners()
    return np.stack([cv2.getPerspectiveTransform(np.float32(q), inner) for q in quads]) \
        if len(quads) else np.zeros((0, 3, 3))


def cut_out(image: np.ndarray, warps: np.ndarray) -> np.ndarray:
    """Each card's cut-out, (N, H, W, 3) uint8: what the refiner looks at."""
    out = np.empty((len(warps), CROP_PX[1], CROP_PX[0], 3), np.uint8)
    for i, warp in enumerate(warps):
        out[i] = cv2.warpPerspective(image, warp, CROP_PX, flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


def offsets_of(true_quads: np.ndarray, warps: np.ndarray) -> np.ndarray:
    """Training targets: where the true corners lie in each cut-out, as offsets from the
    detected corners in card widths, (N, 8); the true corners taken in the cyclic order
    nearest the detected ones (a card is the same turned half round)."""
    inner = inner_corners()
    out = np.empty((len(warps), 8), np.float32)
    for i, (quad, warp) in enumerate(zip(portrait_orders(true_quads), warps, strict=True)):
        seen = cv2.perspectiveTransform(np.float64(quad)[None], warp)[0]
        shifts = [np.roll(seen, -k, axis=0) for k in range(4)]
        best = min(shifts, key=lambda s: float(np.linalg.norm(s - inner, axis=1).sum()))
        out[i] = ((best - inner) / card_width_px()).reshape(8)
    return out


def quads_of_offsets(offsets: np.ndarray, warps: np.ndarray) -> np.ndarray:
    """The inverse of `offsets_of`: corners in the frame, (N, 4, 2) float32."""
    inner = inner_corners()
    out = np.empty((len(warps), 4, 2), np.float32)
    for i, (offset, warp) in enumerate(zip(offsets, warps, strict=True)):
        corners = inner + np.float64(offset).reshape(4, 2) * card_width_px()
        out[i] = cv2.perspectiveTransform(corners[None], np.linalg.inv(warp))[0]
    return out


class CardRefiner:
    """Exact card outlines from the detector's rough ones."""

    def __init__(self, model: Path = MODEL, *, threads: int = 1) -> None:
        def read(report: dict) -> tuple[int, float]:
            if tuple(report["crop_px"]) != CROP_PX or float(report["margin"]) != MARGIN:
                raise ValueError("cut-out size or margin differ from this code's")
            return int(report["passes"]), float(report["max_shift"])

        self.session, (self.passes, self.max_shift) = load_model(
            model, "card refiner", read, threads=threads,
            missing="no such file (train one: python -m training.refine_train)")

    def offsets(self, cuts: np.ndarray) -> np.ndarray:
        """The network on cut-outs (N, H, W, 3 uint8): corner offsets (N, 8), card widths."""
        if not len(cuts):
            return np.zeros((0, 8), np.float32)
        x = np.ascontiguousarray(cuts.transpose(0, 3, 1, 2), dtype=np.float32)
        return self.session.run(None, {"cuts": x})[0]

    def refine(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """Better corners for card quads (N, 4, 2) in `image`, portrait-ordered. A corner
        that would move more than `max_shift` card widths stays where the detector put it:
        the network was not trained on errors that large."""
        quads = portrait_orders(quads)
        for _ in range(self.passes):
            warps = crop_warps(quads)
            offsets = self.offsets(cut_out(image, warps))
            far = np.abs(offsets).reshape(-1, 4, 2).max(axis=2) > self.max_shift
            offsets.reshape(-1, 4, 2)[far] = 0.0
            quads = portrait_orders(quads_of_offsets(offsets, warps))
        return quads
