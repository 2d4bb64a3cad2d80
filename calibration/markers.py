"""The four table markers: which ArUco ids, how big, where they lie on the table, and finding them.

The table frame, in millimetres: the origin is one corner of the play area, x runs along the
long side (0 to about 900), y along the short side (0 to about 600). p2 sits on the y = 0
side, p1 (the first player) on the far y side, so a top-down view with y pointing down
reads as p1 sees the table from their seat. Corners are numbered clockwise in that view:

    corner 0 (0, 0)  far left from p1's seat        corner 1 (W, 0)  far right
    corner 3 (0, H)  near left                      corner 2 (W, H)  near right

Marker id `ids[i]` lies at corner i: the printed tile (the black marker plus a white
margin) is cut out and laid with its outer corner on the play area's corner and its
edges along the play area's edges, so the black square sits `margin_mm` in from both
edges. A marker's corners, as the detector reports them (clockwise from the top left of
the printed marker), are expected with the marker's top edge towards p2; a tile laid at
another quarter turn is still read correctly (see `homography.orient_markers`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CORNER_NAMES = ("far left", "far right", "near right", "near left")


@dataclass(frozen=True)
class MarkerSet:
    """A printed set of four markers, one for each corner of the play area."""

    # A small dictionary: few codes, far apart, so fewer false markers in card art.
    dictionary: str = "DICT_4X4_50"
    ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    # 4x4 bits plus a one-bit black border is 6 cells: 72 mm gives 12 mm cells, 8 px wide
    # even in a 640 px wide view of a 90 cm table.
    marker_mm: float = 72.0
    # One cell of white quiet zone around the black square, part of the cut-out tile.
    margin_mm: float = 12.0

    @property
    def tile_mm(self) -> float:
        return self.marker_mm + 2 * self.margin_mm

    def corner_of(self, marker_id: int) -> int:
        return self.ids.index(marker_id)

    def table_corners(self, marker_id: int, table_size_mm: tuple[float, float]) -> np.ndarray:
        """The marker's four corners in table mm (4×2, the detector's corner order)."""
        width, height = table_size_mm
        near = self.margin_mm
        far_x = width - self.margin_mm - self.marker_mm
        far_y = height - self.margin_mm - self.marker_mm
        x0, y0 = [(near, near), (far_x, near), (far_x, far_y), (near, far_y)][
            self.corner_of(marker_id)]
        s = self.marker_mm
        return np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]], np.float64)

    def tile_rect(self, marker_id: int, table_size_mm: tuple[float, float]
                  ) -> tuple[float, float, float, float]:
        """The cut-out tile as (x, y, width, height) in table mm: the space it takes."""
        x0, y0 = self.table_corners(marker_id, table_size_mm)[0] - self.margin_mm
        return float(x0), float(y0), self.tile_mm, self.tile_mm

    def aruco_dictionary(self) -> cv2.aruco.Dictionary:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    def image(self, marker_id: int, side_px: int) -> np.ndarray:
        """The black-and-white marker (its black border included), side_px square, uint8."""
        return cv2.aruco.generateImageMarker(self.aruco_dictionary(), marker_id, side_px)


DEFAULT_MARKERS = MarkerSet()


def make_detector(markers: MarkerSet = DEFAULT_MARKERS) -> cv2.aruco.ArucoDetector:
    """An ArUco detector tuned for a few large markers on a busy table."""
    params = cv2.aruco.DetectorParameters()
    # Sub-pixel corners: they are all the homography has, and they cost little.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # Card faces are full of small dark squares; fewer corrected bits, fewer false markers.
    params.errorCorrectionRate = 0.3
    # Two threshold windows (3 and 13 px) instead of three: our markers are 40 px and more
    # across in the detection image, and in blurred, noisy, unevenly lit synthetic scenes
    # the third window found nothing the two missed and cost 40% more time.
    params.adaptiveThreshWinSizeMax = 13
    return cv2.aruco.ArucoDetector(markers.aruco_dictionary(), params)


# Detection runs on a copy at most this many pixels on its long side (corners are then
# refined at full resolution): markers stay 50 px and more across there, and the cost of
# a frame stops growing with the camera's resolution.
DETECT_MAX_SIDE = 1280
_SUBPIX_STOP = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01)


def detect_markers(frame: np.ndarray, detector: cv2.aruco.ArucoDetector,
                   markers: MarkerSet = DEFAULT_MARKERS) -> dict[int, np.ndarray]:
    """Our markers seen in a frame: id -> its 4×2 image corners (float64, pixels).

    An id seen twice (a second printed sheet, a false detection) is dropped: which one is
    at the corner cannot be told from one frame.
    """
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = min(1.0, DETECT_MAX_SIDE / max(gray.shape))
    # Linear, not area, resampling: 5 times cheaper at 1080p, and the corners found on the
    # copy are only starting points for the full-resolution refinement.
    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                 interpolation=cv2.INTER_LINEAR)
    corners, ids, _ = detector.detectMarkers(small)
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    for quad, marker_id in zip(corners, [] if ids is None else ids.ravel(), strict=True):
        key = int(marker_id)
        if key not in markers.ids:
            continue
        if key in found:
            twice.add(key)
        found[key] = quad.reshape(4, 2) if scale == 1.0 else _refine(gray, quad, scale)
    return {key: quad.astype(np.float64) for key, quad in found.items() if key not in twice}


def _refine(gray: np.ndarray, quad: np.ndarray, scale: float) -> np.ndarray:
    """Corners found on the scaled copy, refined on the full-resolution image."""
    full = (quad.reshape(4, 2) + 0.5) / scale - 0.5  # pixel centres are whole numbers
    cell = np.linalg.norm(full[0] - full[2]) / np.sqrt(2) / 6
    window = int(np.clip(round(0.3 * cell), 2, 12))  # ArUco's own relative window
    refined = cv2.cornerSubPix(gray, full.astype(np.float32).reshape(-1, 1, 2),
                               (window, window), (-1, -1), _SUBPIX_STOP)
    return refined.reshape(4, 2)
