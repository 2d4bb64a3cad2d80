"""The table homography: image pixels to table millimetres, from markers or clicked corners."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from .markers import CORNER_NAMES, DEFAULT_MARKERS, MarkerSet, detect_markers, make_detector

DEFAULT_TABLE_MM = (900.0, 600.0)
# Markers needed for a fit: each gives 4 corners, but the corners of one marker sit within a
# few centimetres of each other, so it is the spread of markers over the table that pins the
# far side down. Three of four leaves one free to be covered by a hand.
MIN_MARKERS = 3


class CalibrationError(ValueError):
    """The table cannot be found: too few markers, a poor fit, or unusable corners."""


@dataclass(frozen=True, eq=False)  # eq would compare numpy arrays: meaningless, and raises
class TableCalibration:
    """A homography from image pixels to table mm, with how it was found and how well.

    `reprojection_error_mm` is the RMS distance, in table mm, between where the homography
    puts the marker corners it used and where they lie (0 for clicked corners: four points
    fit any homography exactly, so there is nothing to check them against).
    """

    image_to_table: np.ndarray
    table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM
    source: str = "markers"
    reprojection_error_mm: float = 0.0
    markers_used: tuple[int, ...] = ()

    @cached_property
    def table_to_image(self) -> np.ndarray:
        return np.linalg.inv(self.image_to_table)

    def to_table(self, points_px: np.ndarray) -> np.ndarray:
        """Image points (N×2 or one 2-vector) to table mm, same shape."""
        return _apply(self.image_to_table, points_px)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Table mm (N×2 or one 2-vector) to image pixels, same shape."""
        return _apply(self.table_to_image, points_mm)

    def image_corners(self) -> np.ndarray:
        """The play area's corners 0..3 in the image (4×2 pixels)."""
        return self.to_image(table_corners(self.table_size_mm))

    def view_matrix(self, mm_per_px: float = 1.0, margin_mm: float = 0.0) -> np.ndarray:
        """Image pixels to the top-down view's pixels (see `warp`)."""
        return table_to_view(mm_per_px, margin_mm) @ self.image_to_table

    def view_size(self, mm_per_px: float = 1.0, margin_mm: float = 0.0) -> tuple[int, int]:
        width, height = self.table_size_mm
        return (math.ceil((width + 2 * margin_mm) / mm_per_px),
                math.ceil((height + 2 * margin_mm) / mm_per_px))

    def warp(self, frame: np.ndarray, mm_per_px: float = 1.0, margin_mm: float = 0.0,
             interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        """The top-down view of the table (see `table_to_view`), p2's side at the top."""
        return cv2.warpPerspective(frame, self.view_matrix(mm_per_px, margin_mm),
                                   self.view_size(mm_per_px, margin_mm), flags=interpolation)

    @classmethod
    def from_corners(cls, points_px: np.ndarray | list,
                     table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM) -> TableCalibration:
        """From the play area's four corners clicked in an image, in corner order 0..3
        (far left, far right, near right, near left as seen from p1's seat)."""
        image = np.asarray(points_px, np.float64)
        if image.shape != (4, 2) or not np.isfinite(image).all():
            raise CalibrationError(f"need four (x, y) corners, got an array of shape "
                                   f"{image.shape}")
        # Clockwise on screen, like the corner numbering: a camera looking down cannot see
        # the table mirrored, so another order is a mistake, not a view.
        if _signed_area(image) <= 0 or not cv2.isContourConvex(image.astype(np.float32)):
            raise CalibrationError("the corners must go round the play area clockwise as "
                                   f"seen in the image: {', '.join(CORNER_NAMES)}")
        if _signed_area(image) < 100.0:
            raise CalibrationError("the corners enclose almost no area")
        homography = cv2.getPerspectiveTransform(image.astype(np.float32),
                                                 table_corners(table_size_mm).astype(np.float32))
        return cls(homography, _size(table_size_mm), source="corners")

    @classmethod
    def from_markers(cls, frame: np.ndarray,
                     table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                     markers: MarkerSet = DEFAULT_MARKERS,
                     detector: cv2.aruco.ArucoDetector | None = None) -> TableCalibration:
        """Find the markers in a BGR (or grey) frame and fit; CalibrationError if it can't."""
        detections = detect_markers(frame, detector or make_detector(markers), markers)
        return fit_markers(detections, table_size_mm, markers)


def fit_markers(detections: dict[int, np.ndarray],
                table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                markers: MarkerSet = DEFAULT_MARKERS, *, ransac_px: float = 3.0,
                max_error_px: float = 1.5) -> TableCalibration:
    """Fit the homography over all detected marker corners, RANSAC dropping a bad marker.

    A marker counts only if all four of its corners agree with the fit; at least three
    must, and the RMS error of those must stay under max_error_px. Both limits are in image
    pixels, where the detector's noise is, whatever the camera's resolution.
    """
    if len(detections) < MIN_MARKERS:
        raise CalibrationError(f"saw {len(detections)} of the 4 table markers "
                               f"{sorted(detections)}; need {MIN_MARKERS}")
    oriented = orient_markers(detections, table_size_mm, markers)
    ids = sorted(oriented)
    image = np.concatenate([oriented[i] for i in ids])
    table = np.concatenate([markers.table_corners(i, table_size_mm) for i in ids])
    table_to_image, mask = cv2.findHomography(table, image, cv2.RANSAC, ransac_px)
    if table_to_image is None:
        raise CalibrationError(f"no homography fits the markers {sorted(detections)}")
    inlier = mask.ravel().astype(bool).reshape(len(ids), 4).all(axis=1)
    used = tuple(i for i, ok in zip(ids, inlier, strict=True) if ok)
    if len(used) < MIN_MARKERS:
        raise CalibrationError(f"only markers {list(used)} agree on where the table is "
                               f"(is each tile at its own corner?); need {MIN_MARKERS}")
    keep = np.repeat(inlier, 4)
    error_px = _rms(_apply(table_to_image, table[keep]) - image[keep])
    if error_px > max_error_px:
        raise CalibrationError(f"the markers fit the table only to {error_px:.1f} px")
    image_to_table = np.linalg.inv(table_to_image)
    error_mm = _rms(_apply(image_to_table, image[keep]) - table[keep])
    calibration = TableCalibration(image_to_table / image_to_table[2, 2], _size(table_size_mm),
                                   "markers", error_mm, used)
    corners = calibration.image_corners()
    if not np.isfinite(corners).all() or _signed_area(corners) <= 0:
        raise CalibrationError("the markers give a folded or mirrored table")
    return calibration


def orient_markers(detections: dict[int, np.ndarray], table_size_mm: tuple[float, float],
                   markers: MarkerSet = DEFAULT_MARKERS) -> dict[int, np.ndarray]:
    """Reorder each marker's image corners to match its table corners, whatever quarter
    turn its tile was laid at: the marker centres (blind to the turn) give a rough map of
    the table, and each marker takes the corner order closest to that map's prediction."""
    ids = sorted(detections)
    image_centres = np.array([detections[i].mean(axis=0) for i in ids], np.float32)
    table_quads = [markers.table_corners(i, table_size_mm) for i in ids]
    table_centres = np.array([quad.mean(axis=0) for quad in table_quads], np.float32)
    if len(ids) >= 4:
        rough, _ = cv2.findHomography(table_centres, image_centres, 0)
    else:
        rough = np.vstack([cv2.getAffineTransform(table_centres[:3], image_centres[:3]),
                           [0, 0, 1]])
    if rough is None:
        return detections
    oriented = {}
    for marker_id, quad in zip(ids, table_quads, strict=True):
        expected = _apply(rough, quad)
        found = detections[marker_id]
        turns = [np.roll(found, -k, axis=0) for k in range(4)]
        oriented[marker_id] = min(turns, key=lambda t: float(((t - expected) ** 2).sum()))
    return oriented


def table_to_view(mm_per_px: float = 1.0, margin_mm: float = 0.0) -> np.ndarray:
    """Table mm to the pixels of a top-down view: pixel (i, j) covers table mm
    [i, i + 1) × [j, j + 1) times mm_per_px, less margin_mm. OpenCV puts pixel centres at
    whole numbers, hence the half pixel."""
    scale = 1.0 / mm_per_px
    shift = margin_mm * scale - 0.5
    return np.array([[scale, 0, shift], [0, scale, shift], [0, 0, 1]], np.float64)


def table_corners(table_size_mm: tuple[float, float]) -> np.ndarray:
    """The play area's corners 0..3 in table mm (4×2)."""
    width, height = table_size_mm
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)


def _apply(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    points = np.asarray(points, np.float64)
    flat = points.reshape(-1, 2)
    mapped = flat @ homography[:, :2].T + homography[:, 2]
    return (mapped[:, :2] / mapped[:, 2:]).reshape(points.shape)


def _rms(residual: np.ndarray) -> float:
    return float(np.sqrt((residual ** 2).sum(axis=1).mean()))


def _signed_area(quad: np.ndarray) -> float:
    """Shoelace area; positive when the points go clockwise on screen (y down)."""
    x, y = quad[:, 0], quad[:, 1]
    return float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum() / 2)


def _size(table_size_mm: tuple[float, float]) -> tuple[float, float]:
    return float(table_size_mm[0]), float(table_size_mm[1])
