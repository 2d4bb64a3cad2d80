"""A pinhole webcam above the table: pose -> the table-mm -> image-px homography.

World frame: the table frame of `simulator.scene` (x right, y towards p1, mm) with z pointing
down into the table, so that a camera looking straight down with yaw 0 has the camera
axes of OpenCV (x right, y down, z forward) and sees the table as a top view: p2's side
at the top of the image, p1's at the bottom. Image coordinates are OpenCV's: pixel
centres at integers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Camera:
    """`target` (table mm) is seen at the image centre from `distance` mm away. `tilt` is
    the angle (deg) between the optical axis and the vertical: the camera leans back
    towards the near side of its own view. `yaw` (deg) turns the whole view about the
    vertical: 0 = camera at p1's side (p2 at the top of the image), 180 = at p2's side,
    90 = at the table's left end. `roll` turns the image about the optical axis. `hfov` is
    the horizontal field of view (deg); webcams have 60-80."""

    size: tuple[int, int] = (1280, 720)  # width, height in px
    target: tuple[float, float] = (450.0, 300.0)
    distance: float = 1100.0
    tilt: float = 15.0
    yaw: float = 0.0
    roll: float = 0.0
    hfov: float = 70.0

    @property
    def focal_px(self) -> float:
        return (self.size[0] / 2) / np.tan(np.deg2rad(self.hfov) / 2)

    @property
    def height_mm(self) -> float:
        """Height of the camera above the table."""
        return self.distance * np.cos(np.deg2rad(self.tilt))

    def intrinsics(self) -> np.ndarray:
        f = self.focal_px
        w, h = self.size
        return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])

    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Rotation R (world -> camera) and camera centre C (world, mm; z < 0 is above)."""
        tilt, yaw, roll = np.deg2rad([self.tilt, self.yaw, self.roll])
        # "down in the image" on the table for this yaw, and the camera's ground offset
        down = np.array([-np.sin(yaw), np.cos(yaw), 0.0])
        target = np.array([*self.target, 0.0])
        centre = target + self.distance * (np.sin(tilt) * down + np.array([0, 0, -np.cos(tilt)]))
        z = (target - centre) / np.linalg.norm(target - centre)
        y = down - (down @ z) * z
        y /= np.linalg.norm(y)
        x = np.cross(y, z)
        c, s = np.cos(roll), np.sin(roll)
        x, y = c * x + s * y, -s * x + c * y
        return np.stack([x, y, z]), centre

    def homography(self) -> np.ndarray:
        """3x3 H with image_px ~ H @ (x_mm, y_mm, 1) for points on the table (z = 0)."""
        rot, centre = self.pose()
        t = -rot @ centre
        h = self.intrinsics() @ np.column_stack([rot[:, 0], rot[:, 1], t])
        return h / h[2, 2]


def project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to (N, 2) points."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ h.T
    return q[:, :2] / q[:, 2:3]


def px_per_mm(h: np.ndarray, point: np.ndarray | tuple[float, float]) -> float:
    """Image pixels per table millimetre around a table point (the homography's local
    scale: square root of its Jacobian's determinant)."""
    p = np.asarray(point, dtype=float)
    q = project(h, np.stack([p, p + np.array([10.0, 0.0]), p + np.array([0.0, 10.0])]))
    (ax, ay), (bx, by) = q[1] - q[0], q[2] - q[0]
    return float(np.sqrt(abs(ax * by - ay * bx)) / 10.0)


def fit_distance(camera: Camera, table_size: tuple[float, float], margin: float = 0.03) -> float:
    """The smallest distance at which the whole table is in view with `margin` (fraction
    of the image size) to spare; the view shrinks about the target as distance grows."""
    w, h = table_size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=float)
    iw, ih = camera.size
    lo_x, hi_x = margin * iw, (1 - margin) * iw - 1
    lo_y, hi_y = margin * ih, (1 - margin) * ih - 1

    def fits(d: float) -> bool:
        cam = Camera(camera.size, camera.target, d, camera.tilt, camera.yaw, camera.roll,
                     camera.hfov)
        rot, centre = cam.pose()
        depth = (np.column_stack([corners, np.zeros(4)]) - centre) @ rot[2]
        if np.any(depth <= 1.0):  # a corner behind the camera never fits
            return False
        p = project(cam.homography(), corners)
        return bool(np.all((p[:, 0] >= lo_x) & (p[:, 0] <= hi_x) & (p[:, 1] >= lo_y)
                           & (p[:, 1] <= hi_y)))

    lo, hi = 50.0, 200.0
    while not fits(hi):
        hi *= 2
        if hi > 1e6:
            raise ValueError("the table cannot be brought into view from this pose")
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return hi
