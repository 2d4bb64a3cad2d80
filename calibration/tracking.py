"""Keeping the table homography right while the game runs.

Markers are re-found every `every` frames. A fit that agrees with the current calibration is
blended in (the detector's corners jitter by a fraction of a pixel, and zones should not);
a good fit that disagrees by more than `jump_mm` means the camera was bumped, and replaces
it at once. A fit from fewer markers than the one held only confirms it: with one marker
under a hand the far corner is extrapolated, several millimetres out at low resolution.
With fewer than three markers in view (hands, a sleeve) the last good calibration is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from .homography import (
    DEFAULT_TABLE_MM,
    CalibrationError,
    TableCalibration,
    fit_markers,
)
from .markers import DEFAULT_MARKERS, MarkerSet, detect_markers, make_detector

# What an update did: "found" (first calibration), "tracking" (blended in), "confirmed" (a
# fit from fewer markers agreed: the one held kept), "moved" (the camera moved: replaced at
# once), "held" (too few markers: the last one kept), "stale" (held, but the markers in
# view disagree with it), "none" (nothing yet), "skipped" (not this frame: `every`).
Status = Literal["found", "tracking", "confirmed", "moved", "held", "stale", "none", "skipped"]


@dataclass(frozen=True)
class TrackUpdate:
    calibration: TableCalibration | None
    status: Status
    markers_seen: tuple[int, ...] = ()
    # How far, in table mm, the calibration held before this frame puts the markers seen
    # now from where they lie (median over markers); None with nothing to compare.
    shift_mm: float | None = None


class CalibrationTracker:
    """Feed it frames; `calibration` is the table homography to use for the latest one."""

    def __init__(self, table_size_mm: tuple[float, float] = DEFAULT_TABLE_MM,
                 markers: MarkerSet = DEFAULT_MARKERS, *, every: int = 1,
                 alpha: float = 0.3, jump_mm: float = 5.0,
                 initial: TableCalibration | None = None) -> None:
        if every < 1 or not 0 < alpha <= 1:
            raise ValueError("every must be >= 1 and alpha in (0, 1]")
        self.table_size_mm = table_size_mm
        self.markers = markers
        self.every = every
        self.alpha = alpha
        self.jump_mm = jump_mm
        self.calibration = initial
        self.frames_since_fit = 0
        self._detector = make_detector(markers)
        self._frame = 0

    def update(self, frame: np.ndarray) -> TrackUpdate:
        self._frame += 1
        if (self._frame - 1) % self.every:
            self.frames_since_fit += 1
            return TrackUpdate(self.calibration, "skipped")
        detections = detect_markers(frame, self._detector, self.markers)
        seen = tuple(sorted(detections))
        current = self.calibration
        shift = self._shift(current, detections) if current and detections else None
        try:
            fit = fit_markers(detections, self.table_size_mm, self.markers)
        except CalibrationError:
            self.frames_since_fit += 1
            if current is None:
                return TrackUpdate(None, "none", seen)
            stale = shift is not None and shift > self.jump_mm
            return TrackUpdate(current, "stale" if stale else "held", seen, shift)
        self.frames_since_fit = 0
        if current is None or shift is None or shift > self.jump_mm:
            self.calibration = fit
            return TrackUpdate(fit, "found" if current is None else "moved", seen, shift)
        if len(fit.markers_used) < len(current.markers_used):
            return TrackUpdate(current, "confirmed", seen, shift)
        self.calibration = self._blend(current, fit)
        return TrackUpdate(self.calibration, "tracking", seen, shift)

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
