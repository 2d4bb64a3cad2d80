"""The frames of a game video: the table drawn once while nothing on it moves, then each
frame's moving cards and hands over it, seen by a webcam whose light drifts slowly and
whose pose is bumped once.

Built from the scene renderer's own parts (`simulator.render`: the table plane warped
once and kept, each card one perspective warp of its cached art); what a frame adds is
cheap: the cards in flight (a card held above the table casts a wider, softer shadow), the
hands, and the camera's light, blur and noise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from calibration import DEFAULT_MARKERS
from calibration.sheet import tile_image
from cards import JOKER
from simulator import cardart
from simulator.camera import Camera, fit_distance, project, px_per_mm
from simulator.game_table import Piece
from simulator.hands import Hand, draw_hand
from simulator.photometric import Photometric
from simulator.photometric import apply as apply_photometric
from simulator.render import (
    _art,
    _composite,
    _decal_source,
    _level_for,
    _plane_view,
    _premultiplied,
)
from simulator.scene import Decal, PlacedCard, Scene, rect_corners

NOISE_BANK, NOISE_PAD = 6, 32  # noise fields kept, and how far a frame's crop may shift


@dataclass
class LightPlan:
    """The room's light over a game: a base webcam look, and slow drifts (a cloud, a lamp
    moved, auto-exposure hunting)."""

    base: Photometric
    swing: float = 0.05  # exposure swing, a fraction
    period_s: float = 90.0
    phase: float = 0.0
    warmth_swing: float = 0.03  # white balance drift
    lamp_drift: tuple[float, float] = (0.0, 0.0)  # image px a minute

    def at(self, t: float, noise_seed: int) -> Photometric:
        wave = np.sin(2 * np.pi * t / self.period_s + self.phase)
        slow = np.sin(2 * np.pi * t / (2.7 * self.period_s) + 2 * self.phase)
        b, g, r = self.base.white_balance
        warm = self.warmth_swing * slow
        lamp = self.base.lamp
        if lamp is not None:
            lamp = (lamp[0] + self.lamp_drift[0] * t / 60, lamp[1] + self.lamp_drift[1] * t / 60,
                    lamp[2], lamp[3])
        return replace(self.base, exposure=self.base.exposure * (1 + self.swing * wave),
                       white_balance=(b * (1 - warm), g, r * (1 + warm)), lamp=lamp,
                       noise_seed=noise_seed)


def light_plan(rng: np.random.Generator, size: tuple[int, int]) -> LightPlan:
    """A webcam's look in an ordinary room: moderate, so that a person could read the cards."""
    w, h = size
    k = w / 1280
    temp = rng.uniform(-1, 1)
    base = Photometric(
        exposure=float(rng.uniform(0.88, 1.2)),
        gradient=float(rng.uniform(0, 0.35)), gradient_angle=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0.05, 0.35)),
        white_balance=(1 - 0.1 * temp, 1 + float(rng.normal(0, 0.02)), 1 + 0.1 * temp),
        blur_sigma=float(rng.uniform(0.3, 0.9) * k),
        gamma=float(rng.uniform(0.9, 1.12)), saturation=float(rng.uniform(0.85, 1.15)),
        noise=float(rng.uniform(1.5, 4.5)),
        sharpen=float(rng.uniform(0.2, 0.6)) if rng.random() < 0.5 else 0.0)
    if rng.random() < 0.5:
        base.lamp = (float(rng.uniform(0, w)), float(rng.uniform(0, h)),
                     float(rng.uniform(0.3, 0.6) * w), float(rng.uniform(0.1, 0.3)))
    return LightPlan(base, swing=float(rng.uniform(0.03, 0.08)),
                     period_s=float(rng.uniform(40, 150)), phase=float(rng.uniform(0, 2 * np.pi)),
                     warmth_swing=float(rng.uniform(0.0, 0.04)),
                     lamp_drift=(float(rng.normal(0, 20 * k)), float(rng.normal(0, 20 * k))))


def webcam(rng: np.random.Generator, size: tuple[int, int],
           table_size: tuple[float, float]) -> Camera:
    """A webcam on a stand or a lamp arm, looking down at the table, slightly off vertical,
    from either player's end."""
    w, h = table_size
    target = (w / 2 + float(rng.normal(0, 8)), h / 2 + float(rng.normal(0, 8)))
    cam = Camera(size=size, target=target, tilt=float(rng.uniform(3, 12)),
                 yaw=float(rng.choice([0.0, 180.0]) + rng.normal(0, 2.5)),
                 roll=float(rng.normal(0, 1.2)), hfov=float(rng.uniform(60, 76)))
    cam.distance = fit_distance(cam, table_size, margin=float(rng.uniform(0.025, 0.06)))
    cam.distance *= float(rng.uniform(1.0, 1.04))
    return cam


def bumped(rng: np.random.Generator, cam: Camera, table_size: tuple[float, float],
           scale: float = 1.0) -> Camera:
    """The same camera knocked: a few millimetres and a degree or so (times `scale`), then
    still; less if the table would leave the view."""
    for k in (scale, 0.6 * scale, 0.3 * scale, 0.0):
        moved = replace(cam, target=(cam.target[0] + k * float(rng.normal(0, 7)),
                                     cam.target[1] + k * float(rng.normal(0, 7))),
                        tilt=max(0.0, cam.tilt + k * float(rng.normal(0, 0.9))),
                        yaw=cam.yaw + k * float(rng.normal(0, 0.9)),
                        roll=cam.roll + k * float(rng.normal(0, 0.7)),
                        distance=cam.distance * (1 + k * float(rng.normal(0, 0.01))))
        if _table_in_view(moved, table_size):
            return moved
    return cam


def _table_in_view(cam: Camera, table_size: tuple[float, float], margin: float = 0.01) -> bool:
    w, h = table_size
    corners = project(cam.homography(), np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    iw, ih = cam.size
    return bool(np.all((corners[:, 0] >= margin * iw) & (corners[:, 0] <= (1 - margin) * iw)
                       & (corners[:, 1] >= margin * ih) & (corners[:, 1] <= (1 - margin) * ih)))


def marker_tiles(table_size: tuple[float, float]) -> list[Decal]:
    """The four printed ArUco tiles, laid at the table's corners as calibration expects."""
    tiles = []
    for marker_id in DEFAULT_MARKERS.ids:
        x, y, side, _ = DEFAULT_MARKERS.tile_rect(marker_id, table_size)
        image = cv2.cvtColor(tile_image(marker_id, 4.0), cv2.COLOR_GRAY2BGR)
        tiles.append(Decal(image, (x + side / 2, y + side / 2), (side, side), 0.0, z=-0.9,
                           role="marker"))
    return tiles


@lru_cache(maxsize=8)
def _joker_art(design: str) -> np.ndarray:
    """A joker for a design whose SVG has none (real decks have two): the design's card
    shape and paper, JOKER down two corners and a jester's star in the middle (BGRA)."""
    ref = cardart.load_card(design, "2S")
    h, w = ref.shape[:2]
    edge = ref[int(0.45 * h):int(0.55 * h), int(0.03 * w):int(0.08 * w), :3].reshape(-1, 3)
    face = np.empty((h, w, 3), np.uint8)
    face[:] = np.median(edge, axis=0).astype(np.uint8)
    ink = np.zeros((h, w), np.uint8)
    scale = h / 360
    for i, letter in enumerate("JOKER"):
        cv2.putText(ink, letter, (int(10 * scale), int((38 + 30 * i) * scale)),
                    cv2.FONT_HERSHEY_DUPLEX, 0.8 * scale, 255, max(1, int(2 * scale)),
                    cv2.LINE_AA)
    ink = np.maximum(ink, cv2.rotate(ink, cv2.ROTATE_180))
    red = np.array([40, 40, 190], np.float32)
    alpha = ink[..., None].astype(np.float32) / 255
    face = (face * (1 - alpha) + red * alpha).astype(np.uint8)
    angles = np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1]
    radii = np.where(np.arange(10) % 2, 0.13, 0.3) * w
    star = np.stack([np.cos(angles) * radii + w / 2, np.sin(angles) * radii + h / 2], axis=1)
    cv2.fillPoly(face, [star.astype(np.int32)], (30, 30, 30), cv2.LINE_AA)
    cv2.circle(face, (w // 2, h // 2), int(0.07 * w), (40, 40, 190), -1, cv2.LINE_AA)
    return np.dstack([face, ref[:, :, 3]])


@lru_cache(maxsize=16)
def _joker_source(design: str, level: int) -> np.ndarray:
    return _premultiplied(_joker_art(design), level)


class FrameRenderer:
    """Draws the frames of one game: `draw(n, still, moving, hands)`."""

    def __init__(self, design: str, scene: Scene, bumped_camera: Camera, light: LightPlan,
                 fps: float, seed: int, decals: dict[str, np.ndarray]) -> None:
        self.design = design
        self.scene = scene  # table, surround, camera, back variant; its cards are not used
        self.poses: list[tuple[int, Camera]] = [(0, scene.camera)]  # (from frame, pose)
        self.knocked = bumped_camera  # the pose after the game's one bump
        self.light = light
        self.fps = fps
        self.seed = seed
        self.decals = decals  # hero cards by piece card ("hero:p1")
        self.bump_frame: int | None = None
        self.card_size = (self._card_w(), 88.0)
        self.has_joker = JOKER in cardart.card_elements(design)
        self._still_key: tuple | None = None
        self._still: np.ndarray | None = None
        self._owner = np.zeros((scene.camera.size[1], scene.camera.size[0]), np.int16)
        self._bank: list[np.ndarray] = []

    def _card_w(self) -> float:
        img = cardart.load_card(self.design, "2S")
        return 88.0 * img.shape[1] / img.shape[0]

    def bump(self, n: int, camera: Camera | None = None) -> None:
        """The camera knocked at frame n into `camera` (by default the game's bump)."""
        if camera is None:
            self.bump_frame, camera = n, self.knocked
        self.poses = sorted([*self.poses, (n, camera)], key=lambda pose: pose[0])

    def camera(self, n: int) -> Camera:
        return [cam for start, cam in self.poses if start <= n][-1]

    def draw(self, n: int, still: list[Piece], moving: list[Piece], hands: list[Hand],
             gain: float = 1.0) -> np.ndarray:
        """Frame n: the still cards (kept while they do not change), the moving ones lifted
        over them, the hands, then the camera (`gain`: a light switched)."""
        cam = self.camera(n)
        scene = replace(self.scene, camera=cam)
        h = cam.homography()
        shadow_px = max(0.8, 0.8 * px_per_mm(h, (450.0, 300.0)))
        key = (id(cam), tuple(sorted(
            (p.card, p.face_up, round(p.x, 2), round(p.y, 2), round(p.rot, 2), p.z)
            for p in still)))
        if key != self._still_key:
            canvas = _plane_view(scene, h)
            for decal in self.scene.decals:
                quad = project(h, rect_corners(decal.center, decal.size, decal.rotation))
                _composite(canvas, self._owner, 0, _decal_source(decal), quad, 1.0, 0.12,
                           shadow_px)
            for piece in sorted(still, key=lambda p: p.z):
                self._card(canvas, scene, h, piece, shadow_px, lifted=False)
            self._still_key, self._still = key, canvas
        canvas = self._still.copy()
        for piece in sorted(moving, key=lambda p: p.z):
            self._card(canvas, scene, h, piece, shadow_px, lifted=True)
        for hand in hands:
            draw_hand(canvas, hand, h)
        look = self.light.at(n / self.fps, 0)
        look = replace(look, exposure=look.exposure * gain)
        since = n - max(start for start, _ in self.poses if start <= n)
        if since < 2 and n > 0:  # a knocked camera shakes for a frame or two
            k = cam.size[0] / 1280
            look = replace(look, motion=(float(9 - 4 * since) * k, float((self.seed * 37) % 180)))
        # the sensor's noise and the firmware's sharpening are added here, from a bank of
        # noise fields drawn once: drawing fresh noise was half of a frame's cost
        out = apply_photometric(canvas, replace(look, noise=0.0, sharpen=0.0))
        out = cv2.add(out, self.noise(n), dtype=cv2.CV_8U)
        if look.sharpen > 0:
            g = cv2.getGaussianKernel(3, 0.8)
            kernel = -look.sharpen * (g @ g.T)
            kernel[1, 1] += 1 + look.sharpen
            out = cv2.filter2D(out, -1, kernel.astype(np.float32))
        return out

    def noise(self, n: int) -> np.ndarray:
        """Frame n's sensor noise (int16): a field of the bank, cropped at an offset of its
        own. Blotchy like a webcam's (drawn at half resolution, as `photometric` does)."""
        w, h = self.scene.camera.size
        if not self._bank:
            rng = np.random.default_rng([self.seed, 11])
            sigma = self.light.base.noise * 1.6
            for _ in range(NOISE_BANK):
                half = rng.normal(0.0, sigma, ((h + NOISE_PAD) // 2 + 1, (w + NOISE_PAD) // 2 + 1,
                                               3)).astype(np.float32)
                full = cv2.resize(half, (w + NOISE_PAD, h + NOISE_PAD),
                                  interpolation=cv2.INTER_LINEAR)
                self._bank.append(np.round(full).astype(np.int16))
        pick = np.random.default_rng([self.seed, 13, n]).integers(0, NOISE_PAD, 3)
        field = self._bank[int(pick[0]) % NOISE_BANK]
        return field[pick[1]:pick[1] + h, pick[2]:pick[2] + w]

    def _card(self, canvas: np.ndarray, scene: Scene, h: np.ndarray, piece: Piece,
              shadow_px: float, lifted: bool) -> None:
        quad = project(h, rect_corners((piece.x, piece.y), self.card_size, piece.rot))
        if piece.card in self.decals:
            src = _decal_source(Decal(self.decals[piece.card], (piece.x, piece.y),
                                      self.card_size))
            fill = 1.0
        elif piece.face_up and piece.card == JOKER and not self.has_joker:
            src = _joker_source(self.design, _level_for(_joker_art(self.design).shape[0], quad))
            fill = float(np.mean(_joker_art(self.design)[:, :, 3] > 127))
        else:
            placed = PlacedCard(piece.card, (piece.x, piece.y), piece.rot, piece.face_up,
                                piece.z)
            src, fill = _art(scene, placed, quad)
        if lifted:  # held a centimetre or two above the table: the shadow falls wider
            _composite(canvas, self._owner, 0, src, quad, 1.0, 0.28, shadow_px * 5.0, fill)
        else:
            _composite(canvas, self._owner, 0, src, quad, 1.0, 0.3, shadow_px, fill)
