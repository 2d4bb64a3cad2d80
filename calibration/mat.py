"""A top-down picture of the table with the marker tiles laid at its corners.

What a camera straight above a perfectly laid table would see: synthetic scenes (tests,
benchmarks, the vision renderer) warp it into a camera view. Its pixels are those of
`table_to_view(mm_per_px)`, like the views that `TableCalibration.warp` makes.
"""

from __future__ import annotations

import cv2
import numpy as np

from .homography import DEFAULT_TABLE_MM
from .markers import DEFAULT_MARKERS, MarkerSet
from .sheet import tile_image


def render_mat(table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM, mm_per_px: float = 0.5,
               background: np.ndarray | None = None,
               markers: MarkerSet = DEFAULT_MARKERS) -> np.ndarray:
    """A BGR top-down table image with the four printed tiles laid on it.

    `background` (any size, BGR) is stretched over the table; none gives a plain grey
    table. Tile edges are rounded to whole pixels: exact when the marker geometry is a
    whole number of pixels (at 0.5 mm a pixel with the default markers).
    """
    px_per_mm = 1.0 / mm_per_px
    width = round(table_size_mm[0] * px_per_mm)
    height = round(table_size_mm[1] * px_per_mm)
    if background is None:
        mat = np.full((height, width, 3), 110, np.uint8)
    else:
        mat = cv2.resize(background, (width, height), interpolation=cv2.INTER_AREA)
    for marker_id in markers.ids:
        x, y, _, _ = markers.tile_rect(marker_id, table_size_mm)
        tile = tile_image(marker_id, px_per_mm, markers)
        x0, y0 = round(x * px_per_mm), round(y * px_per_mm)
        mat[y0:y0 + tile.shape[0], x0:x0 + tile.shape[1]] = tile[:, :, None]
    return mat
