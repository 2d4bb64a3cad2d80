"""What a cheap webcam does to a scene: uneven light, white balance, glare, blur, noise,
over-exposure and JPEG. Every step works in uint8 or on small images, so a 720p frame
costs a few milliseconds."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass
class Glare:
    """A specular highlight: an ellipse (image px) that washes the image towards white."""

    center: tuple[float, float]
    axes: tuple[float, float]
    angle: float = 0.0
    strength: float = 0.6


@dataclass
class Photometric:
    """Camera and light effects, applied in this order: lighting (exposure x gradient x
    vignette x lamp), white balance, glare, blur (gaussian then motion), gamma and
    saturation, sensor noise, sharpening, JPEG."""

    exposure: float = 1.0
    gradient: float = 0.0  # gain change corner to corner along gradient_angle, e.g. 0.3
    gradient_angle: float = 0.0
    vignette: float = 0.0  # gain lost at the image corners, e.g. 0.3
    lamp: tuple[float, float, float, float] | None = None  # x, y (image px), radius, gain
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R gains
    glare: list[Glare] = field(default_factory=list)
    blur_sigma: float = 0.0
    motion: tuple[float, float] = (0.0, 0.0)  # length (px), angle (deg)
    gamma: float = 1.0
    saturation: float = 1.0
    noise: float = 0.0  # sensor noise sigma in 8-bit levels
    noise_seed: int = 0
    sharpen: float = 0.0  # unsharp-mask amount, webcams oversharpen
    jpeg_quality: int | None = None


def _gain_field(p: Photometric, size: tuple[int, int]) -> np.ndarray:
    """Per-pixel BGR gain x 128 as uint8, drawn at 1/8 resolution (light and white balance
    vary slowly) and resized: one cheap saturating cv2.multiply then applies it."""
    w, h = size
    sw, sh = max(2, w // 8), max(2, h // 8)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xs = xs / (sw - 1) * 2 - 1  # -1 .. 1
    ys = ys / (sh - 1) * 2 - 1
    g = np.full((sh, sw), p.exposure, np.float32)
    if p.gradient:
        a = np.deg2rad(p.gradient_angle)
        g *= 1 + 0.5 * p.gradient * (xs * np.cos(a) + ys * np.sin(a)) / np.sqrt(2)
    if p.vignette:
        g *= 1 - p.vignette * np.clip((xs**2 + ys**2) / 2, 0, 1) ** 1.5
    if p.lamp is not None:
        lx, ly, radius, gain = p.lamp
        d2 = ((xs + 1) / 2 * w - lx) ** 2 + ((ys + 1) / 2 * h - ly) ** 2
        g *= 1 + gain * np.exp(-d2 / (2 * radius**2))
    g3 = np.clip(g[..., None] * np.asarray(p.white_balance, np.float32) * 128, 0, 255)
    return cv2.resize(g3.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def _apply_glare(img: np.ndarray, glare: Glare) -> None:
    h, w = img.shape[:2]
    ax, ay = max(1.0, glare.axes[0]), max(1.0, glare.axes[1])
    r = int(np.ceil(max(ax, ay) * 2.2))
    cx, cy = glare.center
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    a = np.deg2rad(glare.angle)
    u = ((xs - cx) * np.cos(a) + (ys - cy) * np.sin(a)) / ax
    v = (-(xs - cx) * np.sin(a) + (ys - cy) * np.cos(a)) / ay
    m = (glare.strength * np.exp(-(u * u + v * v) * 1.5))[..., None]
    roi = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.clip(roi + (255 - roi) * m, 0, 255).astype(np.uint8)


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    n = max(3, int(np.ceil(length)) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = np.deg2rad(angle)
    dx, dy = np.cos(a) * (length - 1) / 2, np.sin(a) * (length - 1) / 2
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1,
             cv2.LINE_AA)
    return k / k.sum()


def apply(img: np.ndarray, p: Photometric) -> np.ndarray:
    """The camera's view of a uint8 BGR scene radiance image."""
    h, w = img.shape[:2]
    # gain 1.0 is stored as 128; the multiply saturates at 255 like a sensor does
    out = cv2.multiply(img, _gain_field(p, (w, h)), scale=1 / 128)
    for g in p.glare:
        _apply_glare(out, g)
    if p.blur_sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), p.blur_sigma)
    if p.motion[0] > 1.5:
        out = cv2.filter2D(out, -1, _motion_kernel(*p.motion))
    if p.gamma != 1.0:
        lut = np.clip(255 * (np.arange(256) / 255.0) ** (1 / p.gamma), 0, 255)
        out = cv2.LUT(out, lut.astype(np.uint8))
    if abs(p.saturation - 1.0) > 0.03:  # mix each pixel with its grey, one 3x3 transform
        luma = np.array([0.114, 0.587, 0.299], np.float32)
        m = p.saturation * np.eye(3, dtype=np.float32) + (1 - p.saturation) * luma
        out = cv2.transform(out, m)
    if p.noise > 0:
        # demosaicing and denoising leave blotchy noise: draw it at half resolution
        cv2.setRNGSeed(int(p.noise_seed))
        n = np.empty((max(1, h // 2), max(1, w // 2), 3), np.int16)
        cv2.randn(n, 0, p.noise * 1.6)  # upsampling averages some of it away
        n = cv2.resize(n, (w, h), interpolation=cv2.INTER_LINEAR)
        out = cv2.add(out, n, dtype=cv2.CV_8U)
    if p.sharpen > 0:  # a 3x3 unsharp mask, as webcam firmware does
        g = cv2.getGaussianKernel(3, 0.8)
        k = -p.sharpen * (g @ g.T)
        k[1, 1] += 1 + p.sharpen
        out = cv2.filter2D(out, -1, k.astype(np.float32))
    if p.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(p.jpeg_quality)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
