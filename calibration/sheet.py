"""The printable marker sheet: four cut-out tiles on one A4 page, as PNG or PDF, at 300 dpi.

Each tile is the black marker in a white margin, with a grey triangle on the corner that
goes on the play area's corner and its id written small in the margin (so a cut-out tile
still says where it goes). A 100 mm scale bar checks that the printer kept the scale.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

from .markers import CORNER_NAMES, DEFAULT_MARKERS, MarkerSet
from .pdf import jpeg_page_pdf

A4_MM = (210.0, 297.0)
DPI = 300
FONT = cv2.FONT_HERSHEY_SIMPLEX
# Marks in the tile's margin stay this light and this far from the marker so that the
# detector's thresholding never joins them to the marker's black border.
MARK_GREY = 170
TRIANGLE_MM = 7.0


class SheetError(ValueError):
    """The sheet cannot be written there (unknown format, unwritable path); one line."""


def _px(mm: float, px_per_mm: float) -> int:
    return round(mm * px_per_mm)


def _text(image: np.ndarray, text: str, x_px: int, baseline_px: int, height_px: float,
          grey: int = 0, align: str = "left") -> None:
    # Hershey capitals are about 22 px tall at scale 1.
    scale = height_px / 22
    thickness = max(1, round(scale * 1.6))
    if align == "right":
        (width, _), _ = cv2.getTextSize(text, FONT, scale, thickness)
        x_px -= width
    cv2.putText(image, text, (x_px, baseline_px), FONT, scale, grey, thickness, cv2.LINE_AA)


def tile_image(marker_id: int, px_per_mm: float, markers: MarkerSet = DEFAULT_MARKERS
               ) -> np.ndarray:
    """One cut-out tile, upright (its top edge goes towards p2), grey uint8."""
    side = _px(markers.tile_mm, px_per_mm)
    tile = np.full((side, side), 255, np.uint8)
    start, size = _px(markers.margin_mm, px_per_mm), _px(markers.marker_mm, px_per_mm)
    tile[start:start + size, start:start + size] = markers.image(marker_id, size)
    corner = markers.corner_of(marker_id)
    right, bottom = corner in (1, 2), corner in (2, 3)
    cx, cy = (side - 1 if right else 0), (side - 1 if bottom else 0)
    leg = _px(TRIANGLE_MM, px_per_mm)
    dx, dy = (-leg if right else leg), (-leg if bottom else leg)
    cv2.fillConvexPoly(tile, np.array([[cx, cy], [cx + dx, cy], [cx, cy + dy]], np.int32),
                       MARK_GREY)
    # The id beside the triangle, in the margin band along the same edge.
    x = side - _px(TRIANGLE_MM + 3, px_per_mm) if right else _px(TRIANGLE_MM + 3, px_per_mm)
    baseline = side - _px(2.5, px_per_mm) if bottom else _px(6.0, px_per_mm)
    _text(tile, f"{marker_id}: {CORNER_NAMES[corner]}", x, baseline, 3.5 * px_per_mm,
          MARK_GREY, "right" if right else "left")
    return tile


def render_sheet(markers: MarkerSet = DEFAULT_MARKERS, dpi: int = DPI) -> np.ndarray:
    """The A4 sheet as a grey uint8 image at `dpi` (portrait, 2480 × 3508 at 300 dpi)."""
    ppm = dpi / 25.4
    page = np.full((_px(A4_MM[1], ppm), _px(A4_MM[0], ppm)), 255, np.uint8)
    _text(page, "Hearthtop Companion table markers", _px(12, ppm), _px(15, ppm), _px(5, ppm))
    lines = (f"ArUco {markers.dictionary}, {markers.marker_mm:g} mm markers. Print at "
             "100% (actual size, no fit to page),",
             "cut along the dashed lines and lay each tile with its grey corner on that corner",
             "of the play area (as seen from p1's seat), edges along the play area's edges.")
    for number, line in enumerate(lines):
        _text(page, line, _px(12, ppm), _px(21 + 4.5 * number, ppm), _px(2.8, ppm))
    tile_mm = markers.tile_mm
    left = (A4_MM[0] - 2 * tile_mm) / 2
    for marker_id in markers.ids:
        # Each tile where its corner is, the sheet a small map of the table.
        row, column = [(0, 0), (0, 1), (1, 1), (1, 0)][markers.corner_of(marker_id)]
        x_mm, y_mm = left + column * tile_mm, 38 + row * (tile_mm + 16)
        x, y = _px(x_mm, ppm), _px(y_mm, ppm)
        tile = tile_image(marker_id, ppm, markers)
        page[y:y + tile.shape[0], x:x + tile.shape[1]] = tile
        _dashed_square(page, x, y, tile.shape[0], dash=_px(3, ppm))
        corner = CORNER_NAMES[markers.corner_of(marker_id)]
        _text(page, f"id {marker_id}: {corner} corner", x + _px(2, ppm),
              _px(y_mm + tile_mm + 6, ppm), _px(3.5, ppm))
    _scale_bar(page, _px(left, ppm), _px(38 + 2 * (tile_mm + 16) + 6, ppm), ppm)
    return page


def _dashed_square(page: np.ndarray, x: int, y: int, side: int, dash: int) -> None:
    edges = (((x, y), (1, 0)), ((x, y + side), (1, 0)), ((x, y), (0, 1)),
             ((x + side, y), (0, 1)))
    for (x0, y0), (dx, dy) in edges:
        for start in range(0, side, 2 * dash):
            end = min(start + dash, side)
            cv2.line(page, (x0 + dx * start, y0 + dy * start), (x0 + dx * end, y0 + dy * end),
                     120, 2)


def _scale_bar(page: np.ndarray, x: int, y: int, ppm: float) -> None:
    length = _px(100, ppm)
    cv2.rectangle(page, (x, y), (x + length, y + _px(2, ppm)), 0, cv2.FILLED)
    for mm in range(0, 101, 10):
        tick = x + _px(mm, ppm)
        cv2.line(page, (tick, y), (tick, y - _px(4 if mm % 50 == 0 else 2, ppm)), 0, 3)
    _text(page, "100 mm: measure it; if it is not 100 mm, print again at 100% scale",
          x, y + _px(8, ppm), _px(3, ppm))


def encode_sheet(sheet: np.ndarray, suffix: str, dpi: int = DPI) -> bytes:
    """The sheet as PNG (with its dpi recorded) or PDF (one A4 page) bytes."""
    if suffix == ".png":
        _, data = cv2.imencode(".png", sheet)
        return _with_dpi(data.tobytes(), dpi)
    _, data = cv2.imencode(".jpg", sheet, [cv2.IMWRITE_JPEG_QUALITY, 95])
    height, width = sheet.shape[:2]
    return jpeg_page_pdf(data.tobytes(), width, height, A4_MM, gray=sheet.ndim == 2)


def print_markers(out_path: str | Path, markers: MarkerSet = DEFAULT_MARKERS) -> Path:
    """Write the marker sheet to out_path; the extension (.png or .pdf) picks the format.

    SheetError, one line naming the path, for another extension or a path not writable.
    """
    path = Path(out_path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise SheetError(f"{path}: the file name must end in .pdf or .png")
    data = encode_sheet(render_sheet(markers), suffix)
    try:
        path.write_bytes(data)
    except OSError as error:
        raise SheetError(f"{path}: cannot write ({error.strerror or error})") from None
    return path


def _with_dpi(png: bytes, dpi: int) -> bytes:
    # A pHYs chunk after IHDR, so that image viewers print the PNG at its real size.
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return png[:ihdr_end] + chunk + png[ihdr_end:]
