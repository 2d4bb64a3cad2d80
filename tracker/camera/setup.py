"""Setting the camera up: is it placed so that the table can be read?

`check_setup` looks at one frame as a player setting up their webcam needs it looked at:
which of the four table markers are found (and, where three give the table, whether a
missing one is covered or out of the picture), how wide a card is in pixels in the zone
where it is smallest, how far the camera leans from straight above, whether the table is lit
well enough and whether the picture is in focus. Each problem comes with one sentence saying
what to do about it, the most pressing first. `draw_setup` draws the check on the frame: the
markers found and missing, the play area and the layout's zones where the calibration puts
them, so the player sees whether they land where the cards go.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import cv2
import numpy as np

from calibration import (
    CORNER_NAMES,
    DEFAULT_MARKERS,
    CalibrationError,
    Layout,
    MarkerSet,
    TableCalibration,
    default_layout,
    detect_markers,
    fit_markers,
    make_detector,
)
from vision.rectify import CARD_MM

# A card narrower than this in the frame is read markedly worse. The camera path is
# measured (bench.track, the demo) on 720p views of the 90 cm table, whose far cards are
# 57 px wide; the recogniser's held-out "far" cards, 55 px wide, are named half as often as
# close-ups (docs/vision.md); narrower is untested.
MIN_CARD_PX = 50
# Beyond this lean from straight above, far cards foreshorten and hide behind near ones.
MAX_TILT_DEG = 35.0
# Light, on the play area's grey levels: a median under DARK is too dark to read suits by;
# more than CLIPPED_SHARE of it white-clipped is more than the white of the cards: the
# camera is overexposed, or a light reflects into its lens.
DARK = 70
CLIPPED = 250
CLIPPED_SHARE = 0.15
# Focus: how many pixels the markers' black-to-white edges take. A sharp camera's take 2-3
# (a step between pixels is 2 px to the 3 × 3 gradient); a lens out of focus by a Gaussian
# of sigma s px takes about 2.5 s.
BLURRED_EDGE_PX = 4.5
# what the checks hold a frame to, for a page that shows them beside the figures
LIMITS = {"min_card_px": MIN_CARD_PX, "max_tilt_deg": MAX_TILT_DEG, "dark": DARK,
          "clipped_share": CLIPPED_SHARE, "blurred_edge_px": BLURRED_EDGE_PX}
LOOK_MM_PER_PX = 2.0  # the play area is judged for light on a top-down view this coarse


@dataclass(frozen=True)
class MarkerCheck:
    marker_id: int
    corner: str  # far left, far right, near right, near left (from p1's seat)
    found: bool
    # where a missing marker should be, when the others give the table: "covered" (in the
    # picture), "outside" (out of it); None when found or unknown
    missing: str | None = None
    # the black marker's corners in the frame, px: as found, or where the table puts a
    # missing one (None: missing, and too few markers to say where)
    tile_px: tuple[tuple[float, float], ...] | None = None


@dataclass(frozen=True)
class SetupCheck:
    """One frame's check (see the module's text); `problems` in the order to fix them."""

    size: tuple[int, int]  # the frame's width and height, px
    markers: tuple[MarkerCheck, ...]
    table_found: bool
    card_px: tuple[float, float] | None = None  # a card's width, smallest and largest zone
    smallest_zone: str | None = None
    tilt_deg: float | None = None
    brightness: float = 0.0  # median grey level of the play area (the frame without one)
    clipped_share: float = 0.0  # of the play area, white-clipped
    edge_px: float | None = None  # the markers' edge width: focus
    zones_outside: tuple[str, ...] = ()  # zones reaching out of the picture
    problems: tuple[str, ...] = field(default=())

    @property
    def ready(self) -> bool:
        return not self.problems

    def to_json(self) -> dict:
        return asdict(self) | {"ready": self.ready, "limits": LIMITS}


def check_setup(frame: np.ndarray, layout: Layout | None = None,
                markers: MarkerSet = DEFAULT_MARKERS,
                detector: cv2.aruco.ArucoDetector | None = None
                ) -> tuple[SetupCheck, TableCalibration | None]:
    """The check of one BGR frame, and the calibration it found (None: too few markers)."""
    layout = layout or default_layout()
    table_mm = tuple(layout.table_mm)
    height, width = frame.shape[:2]
    detections = detect_markers(frame, detector or make_detector(markers), markers)
    try:
        calibration = fit_markers(detections, table_mm, markers)
    except CalibrationError:
        calibration = None
    marker_checks = tuple(_marker(frame.shape, markers, i, detections, calibration, table_mm)
                          for i in markers.ids)
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    brightness, clipped = _light(gray, calibration)
    check = SetupCheck((width, height), marker_checks, calibration is not None,
                       brightness=brightness, clipped_share=clipped,
                       edge_px=_edge_width(gray, detections))
    if calibration is not None:
        card_px, smallest = _card_widths(calibration, layout)
        check = replace(check, card_px=card_px, smallest_zone=smallest,
                        tilt_deg=_tilt(detections, calibration, markers, (width, height)),
                        zones_outside=_outside(calibration, layout, (width, height)))
    return replace(check, problems=tuple(_problems(check))), calibration


def _marker(shape: tuple[int, ...], markers: MarkerSet, marker_id: int,
            detections: dict[int, np.ndarray], calibration: TableCalibration | None,
            table_mm: tuple[float, float]) -> MarkerCheck:
    corner = CORNER_NAMES[markers.corner_of(marker_id)]
    if marker_id in detections:
        return MarkerCheck(marker_id, corner, True, tile_px=_points(detections[marker_id]))
    if calibration is None:
        return MarkerCheck(marker_id, corner, False)
    where = calibration.to_image(markers.table_corners(marker_id, table_mm))
    inside = ((where >= 0) & (where < np.array(shape[1::-1]) - 1)).all()
    return MarkerCheck(marker_id, corner, False, "covered" if inside else "outside",
                       _points(where))


def _points(quad: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in quad)


def _card_widths(calibration: TableCalibration, layout: Layout
                 ) -> tuple[tuple[float, float], str]:
    """A card's width in pixels (its short side, laid along either table axis, the narrower
    way) at the middle of each zone: the smallest, the largest, and the smallest's zone."""
    half = CARD_MM[0] / 2
    widths = {}
    for name, outline in layout.zones.items():
        centre = outline.mean(axis=0).astype(np.float64)
        ends = centre + np.array([[-half, 0], [half, 0], [0, -half], [0, half]])
        px = calibration.to_image(ends)
        widths[name] = float(min(np.linalg.norm(px[1] - px[0]),
                                 np.linalg.norm(px[3] - px[2])))
    smallest = min(widths, key=widths.get)
    return (round(widths[smallest], 1), round(max(widths.values()), 1)), smallest


def _tilt(detections: dict[int, np.ndarray], calibration: TableCalibration,
          markers: MarkerSet, size: tuple[int, int]) -> float | None:
    """How far the camera's axis leans from the table's normal, in degrees: the camera's
    pose from the markers' corners, its focal length fitted too (a webcam does not say its
    own), the image centre taken for the principal point."""
    used = [i for i in calibration.markers_used if i in detections]
    table_mm = calibration.table_size_mm
    world = np.concatenate([markers.table_corners(i, table_mm) for i in used])
    world = np.hstack([world, np.zeros((len(world), 1))]).astype(np.float32)
    image = np.concatenate([detections[i] for i in used]).astype(np.float32)
    width, height = size
    guess = np.array([[width, 0, (width - 1) / 2], [0, width, (height - 1) / 2], [0, 0, 1]])
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT
             | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1
             | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
    try:
        _, _, _, rvecs, _ = cv2.calibrateCamera([world], [image], size, guess, None,
                                                flags=flags)
    except cv2.error:
        return None
    rotation, _ = cv2.Rodrigues(rvecs[0])
    return round(float(np.degrees(np.arccos(min(1.0, abs(rotation[2, 2]))))), 1)


def _light(gray: np.ndarray, calibration: TableCalibration | None) -> tuple[float, float]:
    """The play area's median grey level and the share of it clipped white (the whole frame
    where the table is not found)."""
    area = gray if calibration is None else calibration.warp(gray, LOOK_MM_PER_PX)
    return float(np.median(area)), round(float((area >= CLIPPED).mean()), 4)


def _edge_width(gray: np.ndarray, detections: dict[int, np.ndarray]) -> float | None:
    """The markers' edge width in pixels (their black-white contrast over the steepest
    gradients across them), the median over the markers found; None with none found."""
    widths = []
    for quad in detections.values():
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
        patch = gray[max(y0, 0):y1, max(x0, 0):x1].astype(np.float32)
        if min(patch.shape) < 8:
            continue
        contrast = np.percentile(patch, 98) - np.percentile(patch, 2)
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8
        steepest = np.percentile(np.hypot(gx, gy), 99)
        if contrast > 40 and steepest > 0:
            widths.append(contrast / steepest)
    return round(float(np.median(widths)), 2) if widths else None


def _outside(calibration: TableCalibration, layout: Layout,
             size: tuple[int, int]) -> tuple[str, ...]:
    """The zones some corner of which falls out of the picture."""
    width, height = size
    out = []
    for name, outline in layout.zones.items():
        px = calibration.to_image(outline.astype(np.float64))
        if (px < 0).any() or (px[:, 0] > width - 1).any() or (px[:, 1] > height - 1).any():
            out.append(name)
    return tuple(out)


def _problems(check: SetupCheck) -> list[str]:
    """One sentence a problem, saying what to do; the most pressing first."""
    missing = [m for m in check.markers if not m.found]
    problems = []
    if len(missing) == len(check.markers):
        problems.append("No table marker is in the picture: lay the four printed markers "
                        "(hearthtop-companion print-markers) on the play area's corners and "
                        "point the camera at the table.")
    else:
        for marker in missing:
            name = f"Marker {marker.marker_id} ({marker.corner} corner)"
            if marker.missing == "outside":
                problems.append(f"{name} is out of the picture: move the camera back or up "
                                "until the whole table shows.")
            elif marker.missing == "covered":
                problems.append(f"{name} is covered: uncover it, or lay it flat with its "
                                "grey corner on the play area's corner.")
            else:
                problems.append(f"{name} is not seen: check that it is laid, uncovered and "
                                "in the picture.")
        if missing and not check.table_found:
            problems.append("Three markers at least are needed to find the table.")
    if check.zones_outside:
        problems.append(f"Part of the table is out of the picture "
                        f"({', '.join(check.zones_outside)}): move the camera back or up.")
    if check.card_px is not None and check.card_px[0] < MIN_CARD_PX:
        problems.append(f"Move the camera closer or use a higher resolution: cards in "
                        f"{check.smallest_zone} are {check.card_px[0]:.0f} px wide, "
                        f"{MIN_CARD_PX} are needed.")
    if check.tilt_deg is not None and check.tilt_deg > MAX_TILT_DEG:
        problems.append(f"The camera leans {check.tilt_deg:.0f}° from straight above: raise "
                        f"it over the table's middle (up to {MAX_TILT_DEG:.0f}° reads well).")
    if check.brightness < DARK:
        problems.append("The table is too dark: turn on a light above it.")
    if check.clipped_share > CLIPPED_SHARE:
        problems.append(f"{100 * check.clipped_share:.0f} % of the table is washed out white: "
                        "lower the camera's exposure, or move the light so it does not "
                        "reflect into the lens.")
    if check.edge_px is not None and check.edge_px > BLURRED_EDGE_PX:
        # first: a blurred picture also loses markers and cards, and focusing mends those
        problems.insert(0, "The picture is out of focus: focus the camera on the table (or "
                           "clean its lens).")
    return problems


GREEN, RED, AMBER, WHITE = (80, 200, 80), (60, 60, 230), (40, 170, 255), (235, 235, 235)


def draw_setup(frame: np.ndarray, check: SetupCheck, calibration: TableCalibration | None,
               layout: Layout | None = None) -> np.ndarray:
    """The frame with the check drawn on it: each marker green where it was found, red where
    the table puts a missing one; the play area and the layout's zones, named."""
    layout = layout or default_layout()
    canvas = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    thick = max(1, round(max(canvas.shape[:2]) / 640))
    if calibration is not None:
        for name, outline in layout.zones.items():
            px = calibration.to_image(outline.astype(np.float64))
            _polygon(canvas, px, WHITE, thick)
            _label(canvas, name.replace(".", " "), px, WHITE, thick)
        _polygon(canvas, calibration.image_corners(), AMBER, thick)
    for marker in check.markers:
        if marker.tile_px is not None:
            px = np.array(marker.tile_px)
            colour = GREEN if marker.found else RED
            _polygon(canvas, px, colour, 2 * thick)
            _label(canvas, str(marker.marker_id), px, colour, 2 * thick)
    return canvas


def _polygon(canvas: np.ndarray, px: np.ndarray, colour: tuple[int, int, int],
             thick: int) -> None:
    points = np.round(px).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(canvas, [points], True, colour, thick, cv2.LINE_AA)


def _label(canvas: np.ndarray, text: str, outline: np.ndarray, colour: tuple[int, int, int],
           thick: int) -> None:
    """`text` in the middle of an outline (px), shrunk to fit its width."""
    width = float(np.ptp(outline[:, 0]))
    scale = 0.45 * thick
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    scale *= min(1.0, 0.9 * width / max(w, 1))
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = outline.mean(axis=0) - np.array([w / 2, -h / 2])
    for ink, weight in (((20, 20, 20), thick + 2), (colour, thick)):  # outlined: any table
        cv2.putText(canvas, text, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, ink,
                    weight, cv2.LINE_AA)
