"""Occluding hands: a forearm reaching in from outside the view, a palm and fingers,
skin-coloured with soft shading and a shadow on the table. Drawn in image space from
points given in table mm (a hand hovers a few cm up, so it is drawn a little larger)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from simulator.camera import project, px_per_mm

SKIN_TONES: tuple[tuple[int, int, int], ...] = (  # BGR
    (170, 195, 235), (150, 180, 225), (120, 160, 215), (105, 140, 190),
    (80, 115, 170), (60, 90, 140), (45, 65, 100), (35, 50, 75),
)


@dataclass
class Hand:
    """The arm comes in from the direction of `entry` (it is drawn from far beyond it, so
    it always reaches the image border) to the fingertips at `tip`; sizes in mm. A
    `sleeve` (BGR) covers the arm up to `bare_arm` mm before the wrist."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    skin: tuple[int, int, int] = SKIN_TONES[2]
    palm_width: float = 85.0
    spread: float = 0.3  # finger spread, 0 (together) .. 1
    thumb_side: int = 1  # +1 or -1: which side the thumb is on (left or right hand)
    sleeve: tuple[int, int, int] | None = None
    bare_arm: float = 120.0
    scale: float = 1.15  # closer to the camera than the table
    shadow: float = 0.35


_MAX_THICKNESS = 32767  # cv2's MAX_THICKNESS


def _reach_out(h: np.ndarray, p: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """A point far along `direction` from p (the arm's shoulder end, beyond the view) that
    is still in front of the camera, where a homography stops meaning anything."""
    depth_p = float(h[2] @ [*p, 1.0])
    for dist in (2500.0, 1800.0, 1200.0, 800.0, 500.0, 300.0):
        q = p + direction * dist
        if float(h[2] @ [*q, 1.0]) > 0.2 * depth_p:
            return q
    return p + direction * 200.0


def _clip_segment(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray
                  ) -> np.ndarray:
    """Move a towards b until it lies in the box [lo, hi] (b is assumed inside)."""
    t = 1.0
    for k in range(2):
        if a[k] < lo[k]:
            t = min(t, (b[k] - lo[k]) / max(b[k] - a[k], 1e-9))
        elif a[k] > hi[k]:
            t = min(t, (hi[k] - b[k]) / max(a[k] - b[k], 1e-9))
    return b + (a - b) * max(t, 0.0)


def _limbs(hand: Hand, h: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, float, bool]]:
    """The hand as thick segments in image px: (start, end, thickness px, is_sleeve)."""
    tip = np.asarray(hand.tip, float)
    d = tip - np.asarray(hand.entry, float)
    d /= max(float(np.linalg.norm(d)), 1e-6)
    n = np.array([-d[1], d[0]]) * hand.thumb_side
    pw = hand.palm_width * hand.scale
    finger_len = pw * 0.95
    wrist = tip - d * (finger_len + pw * 1.05)
    knuckle = tip - d * finger_len
    k = px_per_mm(h, wrist)
    start = _reach_out(h, wrist, -d)
    segs_mm: list[tuple[np.ndarray, np.ndarray, float, bool]] = [
        (start, wrist, 0.72, False),
        (wrist + (knuckle - wrist) * 0.35, knuckle, 0.95, False),  # palm
        (wrist, knuckle - (knuckle - wrist) * 0.3, 0.8, False),
    ]
    if hand.sleeve is not None:
        segs_mm.append((start, wrist - d * hand.bare_arm, 0.95, True))
    # four fingers, the middle ones longest, fanned by `spread`
    for i, (off, length) in enumerate(((-0.36, 0.78), (-0.12, 0.95), (0.12, 0.9),
                                       (0.36, 0.7))):
        base = knuckle + n * off * pw * 0.85
        ang = (i - 1.5) * 0.16 * hand.spread
        c, sn = np.cos(ang), np.sin(ang)
        dd = np.array([c * d[0] - sn * d[1], sn * d[0] + c * d[1]])
        segs_mm.append((base, base + dd * finger_len * length, 0.21, False))
    # the thumb leaves the palm's side, angled out
    tb = wrist + d * pw * 0.45 + n * pw * 0.4
    ta = 0.6 + 0.5 * hand.spread
    segs_mm.append((tb, tb + (d * np.cos(ta) + n * np.sin(ta)) * pw * 0.75, 0.26, False))
    return [(project(h, a[None])[0], project(h, b[None])[0], max(1.0, w * pw * k), sl)
            for a, b, w, sl in segs_mm]


_LIGHT_MAX = 1.5


def _shade_lut(colour: tuple[int, int, int]) -> np.ndarray:
    """colour x light for light in [0, _LIGHT_MAX], as a cv2.LUT table."""
    ramp = np.linspace(0, _LIGHT_MAX, 256, dtype=np.float32)[:, None]
    lut = np.clip(np.asarray(colour, np.float32) * ramp, 0, 255).astype(np.uint8)
    return lut.reshape(256, 1, 3)


def draw_hand(canvas: np.ndarray, hand: Hand, h: np.ndarray, defocus: float = 1.2
              ) -> tuple[tuple[int, int], np.ndarray]:
    """Draw the hand and its shadow on a uint8 BGR canvas in place. Returns the top-left
    (x, y) of the region it covers and its coverage there (float32 0..1), for the
    visibility bookkeeping."""
    limbs = _limbs(hand, h)
    k = px_per_mm(h, np.asarray(hand.tip, float))
    pts = np.array([p for a, b, _, _ in limbs for p in (a, b)])
    pts = np.clip(pts, -4.0 * max(canvas.shape), 4.0 * max(canvas.shape))
    pad = int(max(t for *_, t, _ in limbs) / 2 + 20 * k) + 4
    img_h, img_w = canvas.shape[:2]
    x0 = int(np.clip(np.floor(pts[:, 0].min()) - pad, 0, img_w))
    x1 = int(np.clip(np.ceil(pts[:, 0].max()) + pad, 0, img_w))
    y0 = int(np.clip(np.floor(pts[:, 1].min()) - pad, 0, img_h))
    y1 = int(np.clip(np.ceil(pts[:, 1].max()) + pad, 0, img_h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return (0, 0), np.zeros((0, 0), np.float32)
    skin = np.zeros((y1 - y0, x1 - x0), np.uint8)
    sleeve = np.zeros_like(skin)
    off = np.array([x0, y0], float)
    box_lo = np.array([-img_w, -img_h], float) * 2
    box_hi = np.array([img_w, img_h], float) * 3
    for a, b, t, is_sleeve in limbs:
        # the shoulder end can be far outside: shorten it along the arm, keeping its line
        a = _clip_segment(a, b, box_lo, box_hi)
        pa = tuple(np.round(a - off).astype(int))
        pb = tuple(np.round(b - off).astype(int))
        # OpenCV draws 1..MAX_THICKNESS px; a camera close to the hand asks for more
        width = int(np.clip(round(t), 1, _MAX_THICKNESS))
        cv2.line(sleeve if is_sleeve else skin, pa, pb, 255, width, cv2.LINE_AA)
    sl = (slice(y0, y1), slice(x0, x1))
    size = (x1 - x0, y1 - y0)
    cover = np.maximum(skin, sleeve)
    # shadow and shading vary slowly: work them out at quarter size, in uint8 after
    q = 4
    small = cv2.resize(cover, ((x1 - x0 + q - 1) // q, (y1 - y0 + q - 1) // q),
                       interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    shift = np.float32([[1, 0, 6 * k / q], [0, 1, 9 * k / q]])  # away from the light
    shadow = cv2.GaussianBlur(cv2.warpAffine(small, shift, small.shape[::-1]), (0, 0),
                              max(0.5, 6 * k / q))
    dim = cv2.resize(((1 - hand.shadow * shadow) * 255).astype(np.uint8), size)
    roi = cv2.multiply(canvas[sl], cv2.merge([dim, dim, dim]), scale=1 / 255)
    # rounded look: brighter along the middle of each limb, darker at its outline
    palm_px = hand.palm_width * hand.scale * k
    shade = cv2.GaussianBlur(small, (0, 0), max(0.5, palm_px * 0.12 / q))
    shade *= 1.0 / max(float(shade.max()), 1e-3)
    light = cv2.resize(((0.7 + 0.45 * shade) / _LIGHT_MAX * 255).astype(np.uint8), size)
    light3 = cv2.merge([light, light, light])
    colour = cv2.LUT(light3, _shade_lut(hand.skin))
    sigma = max(0.5, defocus)
    if hand.sleeve is not None:
        cloth = cv2.LUT(light3, _shade_lut(hand.sleeve))
        sa = cv2.GaussianBlur(sleeve, (0, 0), sigma).astype(np.float32) * (1 / 255)
        colour = cv2.blendLinear(colour, cloth, 1 - sa, sa)
    cover_f = cv2.GaussianBlur(cover, (0, 0), sigma).astype(np.float32) * (1 / 255)
    canvas[sl] = cv2.blendLinear(roi, colour, 1 - cover_f, cover_f)
    return (x0, y0), cover_f
