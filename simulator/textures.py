"""Table surfaces drawn in table millimetres: solid colours, gradients, wood, fabric, printed
patterns, photos.

Everything is value noise (a small random grid resized with cubic interpolation) and a few
vectorised numpy expressions at a modest resolution (< 1 px/mm): the texture is then
warped into the camera view, which is where a webcam's softness comes from anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from simulator.backs import procedural_back

BGR = tuple[int, int, int]

KINDS = ("solid", "gradient", "wood", "fabric", "pattern", "photo")


@dataclass
class Background:
    """A surface. `colors` are BGR: solid and fabric use the first, gradient blends the
    first two, wood goes from the first (light) to the second (dark); a printed pattern
    draws its own inks from `seed`. `feature_mm` scales the pattern (wood ring spacing,
    fabric mottling, a printed pattern's repeat); `planks_along_y` turns wood boards by 90
    degrees; `photo` is an image path for kind "photo"."""

    kind: str = "wood"
    colors: tuple[BGR, ...] = ((120, 165, 205), (45, 80, 125))
    seed: int = 0
    feature_mm: float = 8.0
    angle: float = 0.0  # gradient direction, degrees
    planks_along_y: bool = False
    contrast: float = 1.0
    photo: str | None = None


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[float, float]
           ) -> np.ndarray:
    """Smooth noise in [0, 1] with about `cells` (rows, cols) features across the image."""
    h, w = shape
    gy = max(2, int(np.ceil(cells[0])) + 3)
    gx = max(2, int(np.ceil(cells[1])) + 3)
    grid = rng.random((gy, gx), dtype=np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def _fbm(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[float, float],
         octaves: int = 3) -> np.ndarray:
    """A few octaves of noise, zero mean, about unit range. Summed at a resolution just
    fine enough for its finest octave (~6 px a feature), then resized once."""
    h, w = shape
    f_max = 2.0 ** (octaves - 1)
    hs = int(min(h, max(8, 6 * (cells[0] * f_max + 3))))
    ws = int(min(w, max(8, 6 * (cells[1] * f_max + 3))))
    out = np.zeros((hs, ws), np.float32)
    amp, total = 1.0, 0.0
    for i in range(octaves):
        f = 2.0**i
        out += amp * (_noise(rng, (hs, ws), (cells[0] * f, cells[1] * f)) - 0.5)
        total += amp
        amp *= 0.5
    out *= 2.0 / total
    if (hs, ws) != (h, w):
        out = cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR)
    return out


_T_MAX = 1.5  # colour ramps are looked up for t in [0, _T_MAX]


def _lerp(a: BGR, b: BGR, t: np.ndarray) -> np.ndarray:
    """uint8 BGR image a + (b - a) * t, through a 256-entry colour table: one cv2.LUT
    instead of three float passes over the image."""
    ramp = np.linspace(0, _T_MAX, 256, dtype=np.float32)[:, None]
    a_ = np.asarray(a, np.float32)
    b_ = np.asarray(b, np.float32)
    lut = np.clip(a_ + (b_ - a_) * ramp, 0, 255).astype(np.uint8).reshape(256, 1, 3)
    t = np.maximum(t, 0).astype(np.float32, copy=False)
    idx = cv2.convertScaleAbs(t, alpha=255 / _T_MAX)  # saturates at 255
    return cv2.LUT(cv2.merge([idx, idx, idx]), lut)


def _scaled(colour: BGR, gain: np.ndarray) -> np.ndarray:
    """uint8 BGR image colour * gain (gain ~1)."""
    return _lerp((0, 0, 0), colour, gain)


def _wood(bg: Background, rng: np.random.Generator, shape: tuple[int, int], ppm: float,
          origin: tuple[float, float]) -> np.ndarray:
    """Boards along x: growth rings (sharp dark latewood lines) bent by two scales of
    noise, long fibre streaks, per-board tone, and seams between boards."""
    h, w = shape
    light, dark = bg.colors[0], bg.colors[1] if len(bg.colors) > 1 else bg.colors[0]
    y = (np.arange(h, dtype=np.float32) / ppm + origin[1])[:, None]
    mm_h, mm_w = h / ppm, w / ppm
    plank_w = float(rng.uniform(90, 240))
    off = float(rng.uniform(0, plank_w))
    plank = np.floor((y - off) / plank_w)
    idx = (plank - plank.min()).astype(int)
    n_planks = int(idx.max()) + 1
    phase = rng.uniform(0, 500, n_planks).astype(np.float32)
    tone = rng.normal(0, 0.07, n_planks).astype(np.float32)
    ring = max(1.5, bg.feature_mm)
    bend = (_fbm(rng, shape, (mm_h / 90, mm_w / 700), 3) * rng.uniform(10, 45)
            + _fbm(rng, shape, (mm_h / 25, mm_w / 160), 2) * rng.uniform(1, 5))
    r = (y + phase[idx] + bend) / ring
    r += 0.25 * np.sin(r * 0.37)  # uneven ring spacing
    late = (r - np.floor(r)) ** float(rng.uniform(3, 7))  # sharp dark latewood edge
    across = max(1.0, mm_h * ppm / 2.5)  # fibres about 2.5 px apart, whatever ppm
    fibre = _fbm(rng, shape, (across, mm_w / 140), 2)
    broad = _fbm(rng, shape, (mm_h / 150, mm_w / 400), 2)
    t = 0.2 + 0.55 * late + 0.22 * fibre + 0.15 * broad + tone[idx]
    t = 0.45 + (t - 0.45) * bg.contrast
    seam = ((y - off) % plank_w) < max(0.8, 1.0 / ppm)
    t = np.where(seam, t + 0.45, t)
    return _lerp(light, dark, t)


def _fabric(bg: Background, rng: np.random.Generator, shape: tuple[int, int],
            ppm: float) -> np.ndarray:
    h, w = shape
    mm_h, mm_w = h / ppm, w / ppm
    f = max(10.0, bg.feature_mm * 6)
    mottle = _fbm(rng, shape, (mm_h / f, mm_w / f), 3) * 0.10
    fibre = (rng.random(shape, dtype=np.float32) - 0.5) * 0.10
    return _scaled(bg.colors[0], 1.0 + (mottle + fibre) * bg.contrast)


def _pattern(rng: np.random.Generator, shape: tuple[int, int], ppm: float,
             repeat_mm: float) -> np.ndarray:
    """A printed cloth or mat: the inside of a card back of no design (`simulator.backs`), one
    repeat `repeat_mm` wide, mirrored from repeat to repeat so that no seam draws an edge."""
    h, w = shape
    art = procedural_back(rng)[:, :, :3]
    ah, aw = art.shape[:2]
    tile = art[ah // 6 : ah - ah // 6, aw // 6 : aw - aw // 6]  # clear of any border
    scale = repeat_mm * ppm / tile.shape[1]
    tile = cv2.resize(tile, (max(2, round(tile.shape[1] * scale)),
                             max(2, round(tile.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    grow = ((0, max(0, h - tile.shape[0])), (0, max(0, w - tile.shape[1])), (0, 0))
    return np.ascontiguousarray(np.pad(tile, grow, mode="symmetric")[:h, :w])


def _gradient(bg: Background, rng: np.random.Generator, shape: tuple[int, int],
              ppm: float) -> np.ndarray:
    h, w = shape
    a = np.deg2rad(bg.angle)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    s = xs * np.cos(a) + ys * np.sin(a)
    t = (s - s.min()) / max(1e-6, float(np.ptp(s)))
    second = bg.colors[1] if len(bg.colors) > 1 else bg.colors[0]
    return _lerp(bg.colors[0], second, t + 0.05 * _fbm(rng, shape, (h / ppm / 200,
                                                                      w / ppm / 200), 2))


def _photo(bg: Background, shape: tuple[int, int]) -> np.ndarray:
    img = cv2.imread(str(bg.photo), cv2.IMREAD_COLOR) if bg.photo else None
    if img is None:
        raise FileNotFoundError(f"background photo {bg.photo!r} not readable")
    h, w = shape
    s = max(w / img.shape[1], h / img.shape[0])  # cover, then crop the middle
    img = cv2.resize(img, (max(w, round(img.shape[1] * s)), max(h, round(img.shape[0] * s))),
                     interpolation=cv2.INTER_AREA)
    y0, x0 = (img.shape[0] - h) // 2, (img.shape[1] - w) // 2
    return np.ascontiguousarray(img[y0 : y0 + h, x0 : x0 + w])


def texture(bg: Background, shape: tuple[int, int], ppm: float,
            origin: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The surface as uint8 BGR of `shape` pixels at `ppm` px/mm whose top-left
    pixel is table point `origin` (mm)."""
    rng = np.random.default_rng(bg.seed)
    if bg.kind == "wood":
        if bg.planks_along_y:
            out = _wood(bg, rng, (shape[1], shape[0]), ppm, (origin[1], origin[0]))
            return np.ascontiguousarray(out.transpose(1, 0, 2))
        return _wood(bg, rng, shape, ppm, origin)
    if bg.kind == "fabric":
        return _fabric(bg, rng, shape, ppm)
    if bg.kind == "gradient":
        return _gradient(bg, rng, shape, ppm)
    if bg.kind == "pattern":
        return _pattern(rng, shape, ppm, bg.feature_mm)
    if bg.kind == "photo":
        return _photo(bg, shape)
    if bg.kind == "solid":
        h, w = shape
        return _scaled(bg.colors[0], 1 + 0.025 * _fbm(rng, shape, (h / ppm / 250,
                                                                     w / ppm / 250), 2))
    raise ValueError(f"unknown background kind {bg.kind!r}")


def plane(table: Background, surround: Background, table_size: tuple[float, float],
          extent: tuple[float, float, float, float], ppm: float) -> np.ndarray:
    """The table plane over `extent` (x0, y0, x1, y1 mm) as uint8 BGR: the table surface
    inside [0, W] x [0, H], the surround outside (at half resolution: it is background),
    with a soft contact shadow along the table's edge (a mat or a table top has some
    thickness)."""
    x0, y0, x1, y1 = extent
    w = max(2, round((x1 - x0) * ppm))
    h = max(2, round((y1 - y0) * ppm))
    if surround == table:  # a bare table top that goes on past the play area
        return texture(surround, (h, w), ppm, (x0, y0))
    small = texture(surround, (max(2, h // 2), max(2, w // 2)), ppm / 2, (x0, y0))
    out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    tw, th = table_size
    c0, r0 = round((0 - x0) * ppm), round((0 - y0) * ppm)
    c1, r1 = round((tw - x0) * ppm), round((th - y0) * ppm)
    # the edge shadow varies slowly: blur a quarter-size mask
    q = 4
    mask = np.zeros((max(2, h // q), max(2, w // q)), np.float32)
    cv2.rectangle(mask, (c0 // q, r0 // q), ((c1 - 1) // q, (r1 - 1) // q), 1.0, cv2.FILLED)
    shadow = cv2.GaussianBlur(mask, (0, 0), max(1.0, 4.0 * ppm / q))
    gain = np.clip((1.0 - 0.45 * shadow) * 128, 0, 255).astype(np.uint8)
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(out, cv2.merge([gain, gain, gain]), scale=1 / 128)
    a, b = max(r0, 0), min(r1, h)
    c, d = max(c0, 0), min(c1, w)
    if a < b and c < d:
        surface = texture(table, (r1 - r0, c1 - c0), ppm, (0.0, 0.0))
        out[a:b, c:d] = surface[a - r0 : b - r0, c - c0 : d - c0]
    return out
