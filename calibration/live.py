"""Keeping the table homography right while the game runs.

Markers are re-found every `every` frames. A fit that agrees with the current calibration is
blended in (the detector's corners jitter by a fraction of a pixel, and zones should not);
a good fit that disagrees by more than `jump_mm` means the camera was bumped, and replaces
it at once. A fit from fewer markers than the one held only confirms it: with one marker
under a hand the far corner is extrapolated, several millimetres out at low resolution.
With fewer than three markers in view (hands, a sleeve) the last good calibration is kept.

Finding the markers is most of the cost of a frame here, and the markers seldom move: after a
look that left the calibration where it will stay, the markers' tiles are watched (shrunk to
cells of `WATCH_CELL_PX`, which average the sensor's noise away), and while no cell changes
by `still_level` grey levels the markers are not looked for again. A shift of half a pixel
at a marker's edge changes a cell by more than that, and so does a hand reaching over it.
Where some tiles changed (a hand) and others did not, the camera has not moved: only the
changed tiles are looked at again, the others keep the corners found in them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import cv2
import numpy as np

from .homography import (
    DEFAULT_TABLE_MM,
    CalibrationError,
    TableCalibration,
    fit_markers,
)
from .markers import DEFAULT_MARKERS, MarkerSet, detect_markers, make_detector

# What an update did: "found" (first calibration), "blended" (blended in), "confirmed" (a
# fit from fewer markers agreed: the one held kept), "moved" (the camera moved: replaced at
# once), "held" (too few markers: the last one kept), "stale" (held, but the markers in
# view disagree with it), "none" (nothing yet), "skipped" (not this frame: `every`), "still"
# (the markers' tiles look as they did at the last look, whose calibration stands).
Status = Literal["found", "blended", "confirmed", "moved", "held", "stale", "none", "skipped",
                 "still"]
WATCH_CELL_PX = 8  # frame px a side of the cells a watched tile is shrunk to
WATCH_GROW = 0.25  # of a tile's side: the margin watched around it (ArUco reads its border)
SETTLED_PX = 0.5  # a blend this near the fit it moves towards moves no further


@dataclass(frozen=True)
class CalibrationUpdate:
    calibration: TableCalibration | None
    status: Status
    markers_seen: tuple[int, ...] = ()
    # How far, in table mm, the calibration held before this frame puts the markers seen
    # now from where they lie (median over markers); None with nothing to compare.
    shift_mm: float | None = None


class LiveCalibration:
    """Feed it frames; `calibration` is the table homography to use for the latest one."""

    def __init__(self, table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                 markers: MarkerSet = DEFAULT_MARKERS, *, every: int = 1,
                 alpha: float = 0.3, jump_mm: float = 5.0,
                 initial: TableCalibration | None = None,
                 still_level: float | None = 10.0) -> None:
        """`still_level`: grey levels a watched tile's cell must change by for the markers to
        be looked for again (None: looked for every frame)."""
        if every < 1 or not 0 < alpha <= 1:
            raise ValueError("every must be >= 1 and alpha in (0, 1]")
        self.table_size_mm = table_size_mm
        self.markers = markers
        self.every = every
        self.alpha = alpha
        self.jump_mm = jump_mm
        self.still_level = still_level
        self.calibration = initial
        self.frames_since_fit = 0
        self._detector = make_detector(markers)
        self._frame = 0
        self._watch: TileWatch | None = None

    def update(self, frame: np.ndarray) -> CalibrationUpdate:
        self._frame += 1
        if (self._frame - 1) % self.every:
            self.frames_since_fit += 1
            return CalibrationUpdate(self.calibration, "skipped")
        watch, self._watch = self._watch, None
        changed = None if watch is None else watch.changed(frame)
        if changed is not None and not changed.any():
            self._watch = watch
            return replace(watch.update, status="still")
        if changed is None or changed.all():  # first look, or the camera may have moved
            detections = detect_markers(frame, self._detector, self.markers)
        else:
            detections = watch.detections_with(self._detect_in(frame, watch, changed), changed)
        update, settled = self._take(detections)
        if settled and self.still_level is not None and update.calibration is not None:
            self._watch = TileWatch.of(frame, update, detections, self.markers,
                                       self.still_level)
        return update

    def _detect_in(self, frame: np.ndarray, watch: TileWatch,
                   changed: np.ndarray) -> dict[int, np.ndarray]:
        """Our markers found in the changed tiles' boxes, in frame px."""
        found: dict[int, np.ndarray] = {}
        for (x0, y0, x1, y1), is_changed in zip(watch.boxes, changed, strict=True):
            if is_changed:
                seen = detect_markers(frame[y0:y1, x0:x1], self._detector, self.markers)
                found |= {i: quad + np.float64([x0, y0]) for i, quad in seen.items()}
        return found

    def _take(self, detections: dict[int, np.ndarray]) -> tuple[CalibrationUpdate, bool]:
        """Update from the markers found; also whether finding them again in the same pixels
        would leave the calibration where it is (a blend still on its way would not)."""
        seen = tuple(sorted(detections))
        current = self.calibration
        shift = self._shift(current, detections) if current and detections else None
        try:
            fit = fit_markers(detections, self.table_size_mm, self.markers)
        except CalibrationError:
            self.frames_since_fit += 1
            if current is None:
                return CalibrationUpdate(None, "none", seen), False
            if shift is not None and shift > self.jump_mm:
                return CalibrationUpdate(current, "stale", seen, shift), False
            return CalibrationUpdate(current, "held", seen, shift), True
        self.frames_since_fit = 0
        if current is None or shift is None or shift > self.jump_mm:
            self.calibration = fit
            status = "found" if current is None else "moved"
            return CalibrationUpdate(fit, status, seen, shift), True
        if len(fit.markers_used) < len(current.markers_used):
            return CalibrationUpdate(current, "confirmed", seen, shift), True
        self.calibration = self._blend(current, fit)
        settled = np.abs(self.calibration.image_corners() - fit.image_corners()).max()
        return CalibrationUpdate(self.calibration, "blended", seen, shift), settled <= SETTLED_PX

    def _blend(self, current: TableCalibration, fit: TableCalibration) -> TableCalibration:
        # Blend where the two put the play area's corners: a homography's own entries do not
        # average into anything meaningful, four image points do.
        corners = (1 - self.alpha) * current.image_corners() + self.alpha * fit.image_corners()
        blended = TableCalibration.from_corners(corners, self.table_size_mm)
        return replace(blended, source=fit.source,
                       reprojection_error_mm=fit.reprojection_error_mm,
                       markers_used=fit.markers_used)

    def _shift(self, calibration: TableCalibration, detections: dict[int, np.ndarray]) -> float:
        # Marker centres: the same whatever quarter turn a tile was laid at.
        distances = [
            np.linalg.norm(calibration.to_table(quad).mean(axis=0)
                           - self.markers.table_corners(marker_id, self.table_size_mm)
                           .mean(axis=0))
            for marker_id, quad in detections.items()]
        return float(np.median(distances))


@dataclass(frozen=True)
class TileWatch:
    """The markers' tiles as a look saw them: where they lie in the frame (px boxes, the
    tile and a margin, by the calibration of that look), their grey cells and the corners
    found in each."""

    update: CalibrationUpdate
    shape: tuple[int, ...]
    ids: tuple[int, ...]  # the marker each box is of
    boxes: tuple[tuple[int, int, int, int], ...]
    cells: tuple[np.ndarray, ...]
    detections: dict[int, np.ndarray]
    level: float

    @classmethod
    def of(cls, frame: np.ndarray, update: CalibrationUpdate, detections: dict[int, np.ndarray],
           markers: MarkerSet, level: float) -> TileWatch:
        calibration = update.calibration
        ids, boxes = [], []
        grow = WATCH_GROW * markers.tile_mm
        for marker_id in markers.ids:
            x, y, w, h = markers.tile_rect(marker_id, calibration.table_size_mm)
            corners = calibration.to_image(np.array(
                [[x - grow, y - grow], [x + w + grow, y - grow], [x + w + grow, y + h + grow],
                 [x - grow, y + h + grow]]))
            x0, y0 = np.maximum(np.floor(corners.min(axis=0)), 0).astype(int)
            x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
            x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
            if x1 - x0 >= WATCH_CELL_PX and y1 - y0 >= WATCH_CELL_PX:
                ids.append(marker_id)
                boxes.append((int(x0), int(y0), int(x1), int(y1)))
        return cls(update, frame.shape, tuple(ids), tuple(boxes),
                   tuple(_cells(frame, box) for box in boxes), dict(detections), level)

    def changed(self, frame: np.ndarray) -> np.ndarray:
        """For each watched tile, whether some cell of it changed by the level; all of
        them for a frame of another size."""
        if frame.shape != self.shape:
            return np.ones(len(self.boxes), bool)
        return np.array([cv2.absdiff(_cells(frame, box), cells).max() >= self.level
                         for box, cells in zip(self.boxes, self.cells, strict=True)], bool)

    def detections_with(self, found: dict[int, np.ndarray],
                        changed: np.ndarray) -> dict[int, np.ndarray]:
        """The corners of the unchanged tiles as this look found them, with those `found`
        again in the changed ones (an id found in both is dropped, as `detect_markers` drops
        one seen twice)."""
        kept = {i: self.detections[i] for i, is_changed in zip(self.ids, changed, strict=True)
                if not is_changed and i in self.detections}
        return {i: quad for i, quad in (kept | found).items() if not (i in kept and i in found)}


def _cells(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The box of the frame shrunk to grey cells of about WATCH_CELL_PX."""
    x0, y0, x1, y1 = box
    patch = frame[y0:y1, x0:x1]
    size = ((x1 - x0) // WATCH_CELL_PX, (y1 - y0) // WATCH_CELL_PX)
    small = cv2.resize(patch, size, interpolation=cv2.INTER_AREA)
    return small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
