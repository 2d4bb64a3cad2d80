"""Table calibration: where the table is in the camera image, and where its zones are.

The camera image maps to table millimetres by a homography found from four printed ArUco
markers at the play area's corners (`TableCalibration.from_markers`, kept up to date while
playing by `LiveCalibration`) or from four clicked corners (`from_corners`). The zone
layout is a JSON file in the same millimetres (`load_layout`). numpy and OpenCV only: this
package knows nothing of cards or rules.
"""

from .homography import (
    DEFAULT_TABLE_MM,
    CalibrationError,
    TableCalibration,
    fit_markers,
    table_corners,
    table_to_view,
)
from .layout import Layout, LayoutError, default_layout, load_layout, parse_layout
from .live import CalibrationUpdate, LiveCalibration
from .markers import CORNER_NAMES, DEFAULT_MARKERS, MarkerSet, detect_markers, make_detector
from .mat import render_mat
from .sheet import SheetError, encode_sheet, print_markers, render_sheet

__all__ = [
    "CORNER_NAMES",
    "DEFAULT_MARKERS",
    "DEFAULT_TABLE_MM",
    "CalibrationError",
    "CalibrationUpdate",
    "Layout",
    "LayoutError",
    "LiveCalibration",
    "MarkerSet",
    "SheetError",
    "TableCalibration",
    "default_layout",
    "detect_markers",
    "encode_sheet",
    "fit_markers",
    "load_layout",
    "make_detector",
    "parse_layout",
    "print_markers",
    "render_mat",
    "render_sheet",
    "table_corners",
    "table_to_view",
]
