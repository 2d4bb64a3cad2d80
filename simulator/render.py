"""The synthetic table renderer: a `Scene` seen by its camera -> a BGR image and labels.

Training data and the end-to-end game videos share it. Each card is one
`cv2.warpPerspective` of its premultiplied BGRA art into its bounding box (no per-pixel
Python), over a table plane warped once from a texture drawn in millimetres; then hands,
then the camera's photometric effects. The labels are exact because they come from the
same homography that drew the pixels.

    python -m simulator.render --seed 7 --out scene.png   # writes scene.png and scene.json
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from cards import BACK
from simulator import cardart
from simulator.camera import project, px_per_mm
from simulator.hands import draw_hand
from simulator.layout import random_scene
from simulator.photometric import apply as apply_photometric
from simulator.scene import Decal, PlacedCard, Scene, card_size_mm, orientation, rect_corners
from simulator.textures import plane

__all__ = ["CardLabel", "DecalLabel", "RenderResult", "card_size_mm", "clear_caches",
           "draw_labels", "random_scene", "render"]

# Owner ids in the visibility map besides card indices (`RenderResult.owner`).
_NOBODY, _HAND, _DECAL = -1, -2, -3


@dataclass
class CardLabel:
    """One card as the camera saw it. `card` is what can be read: the card id when face
    up, BACK when face down (`identity` keeps the physical card). `quad` is (4, 2) image
    px: the visible side's printed top-left, top-right, bottom-right, bottom-left.
    `visible` is the fraction of the card's area seen in the image: not under a later
    card, decal or hand, and inside the frame."""

    card: str
    identity: str
    face_up: bool
    orientation: str
    quad: np.ndarray
    quad_mm: np.ndarray
    visible: float
    z: float
    role: str


@dataclass
class DecalLabel:
    """A decal (hero card, marker, clutter) as drawn: quad corners as in `CardLabel`."""

    role: str
    quad: np.ndarray
    quad_mm: np.ndarray


@dataclass
class RenderResult:
    """The camera image, what is in it, and the table -> image homography."""

    image: np.ndarray  # BGR uint8
    cards: list[CardLabel]
    decals: list[DecalLabel]
    homography: np.ndarray  # table mm -> image px
    scene: Scene = field(repr=False)
    # per pixel, the index in `cards` of the card seen there, or -1 table, -2 hand, -3 decal
    # (int16): which part of each card shows, for training targets
    owner: np.ndarray | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        """The labels as JSON-ready data (what `python -m simulator.render` writes)."""

        def pts(a: np.ndarray) -> list[list[float]]:
            return [[round(float(x), 2), round(float(y), 2)] for x, y in a]

        return {
            "image_size": [int(self.image.shape[1]), int(self.image.shape[0])],
            "design": self.scene.design,
            "table_size_mm": list(self.scene.table_size),
            "homography": [[float(v) for v in row] for row in self.homography],
            "cards": [{"card": c.card, "identity": c.identity, "face_up": c.face_up,
                       "orientation": c.orientation, "quad": pts(c.quad),
                       "quad_mm": pts(c.quad_mm), "visible": round(c.visible, 4),
                       "z": c.z, "role": c.role} for c in self.cards],
            "decals": [{"role": d.role, "quad": pts(d.quad), "quad_mm": pts(d.quad_mm)}
                       for d in self.decals],
            "hands": len(self.scene.hands),
        }


@lru_cache(maxsize=512)
def _source(design: str, card: str, variant: int, level: int) -> np.ndarray:
    return _premultiplied(cardart.load_card(design, card, variant), level)


def _premultiplied(img: np.ndarray, level: int) -> np.ndarray:
    """Premultiplied BGRA art, halved `level` times: warping a 360 px card down to 60 px
    in one bilinear step would alias, a pyramid level near the target size does not."""
    a = img[:, :, 3:4].astype(np.uint16)
    pre = np.concatenate([(img[:, :, :3] * a // 255).astype(np.uint8), img[:, :, 3:4]], axis=2)
    for _ in range(level):
        pre = cv2.pyrDown(pre)
    return pre


@lru_cache(maxsize=256)
def _fill_fraction(design: str, card: str, variant: int) -> float:
    """`_card_share` of a design's card, kept: every frame asks it of every card."""
    return _card_share(cardart.load_card(design, card, variant))


def _card_share(art: np.ndarray) -> float:
    """Share of BGRA card art's bounding rectangle that is card (rounded corners are not)."""
    return float(np.mean(art[:, :, 3] > 127))


def _level_for(src_h: int, quad: np.ndarray) -> int:
    side = max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    level = 0
    while src_h / 2 ** (level + 1) >= 1.4 * side and level < 4:
        level += 1
    return level


@dataclass
class _Drawn:
    roi: tuple[int, int, int, int]  # x0, y0, x1, y1 in the image
    full_px: float  # the card's whole area in px, in frame or not


def _composite(canvas: np.ndarray, owner: np.ndarray, index: int, src: np.ndarray,
               quad: np.ndarray, shade: float, shadow: float, shadow_px: float,
               fill: float = 1.0) -> _Drawn:
    """Warp premultiplied BGRA `src` onto `quad` of the uint8 canvas, with a soft contact
    shadow; mark its pixels in `owner`. `fill` is the share of the quad that the art
    covers, for the area of a card partly out of frame."""
    img_h, img_w = canvas.shape[:2]
    hs, ws = src.shape[:2]
    sigma = max(0.6, shadow_px * 0.8)
    pad = int(np.ceil(shadow_px + 3 * sigma)) + 2
    ux0, uy0 = np.floor(quad.min(axis=0)).astype(int) - pad
    ux1, uy1 = np.ceil(quad.max(axis=0)).astype(int) + pad + 1
    x0, y0 = max(ux0, 0), max(uy0, 0)
    x1, y1 = min(ux1, img_w), min(uy1, img_h)
    clipped = (x0, y0, x1, y1) != (ux0, uy0, ux1, uy1)
    area = float(cv2.contourArea(quad.astype(np.float32))) * fill
    if x1 - x0 < 1 or y1 - y0 < 1:
        return _Drawn((0, 0, 0, 0), area)
    src_pts = np.float32([[-0.5, -0.5], [ws - 0.5, -0.5], [ws - 0.5, hs - 0.5],
                          [-0.5, hs - 0.5]])
    m = cv2.getPerspectiveTransform(src_pts, (quad - [x0, y0]).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(src, m, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a8 = np.ascontiguousarray(warped[:, :, 3])
    # what shows through: (1 - alpha), darkened by a contact shadow that peeks out on
    # the lower right (light from above-left); all in uint8, 255 = 1.0
    keep = 255 - a8
    dx, dy = round(shadow_px), round(shadow_px * 1.3)
    if shadow > 0 and dx < size[0] and dy < size[1]:
        blurred = cv2.GaussianBlur(a8, (0, 0), sigma)
        shifted = np.zeros_like(blurred)
        shifted[dy:, dx:] = blurred[: size[1] - dy, : size[0] - dx]
        keep = cv2.multiply(keep, 255 - cv2.convertScaleAbs(shifted, alpha=shadow),
                            scale=1 / 255)
    roi = cv2.multiply(canvas[y0:y1, x0:x1], cv2.merge([keep, keep, keep]), scale=1 / 255)
    art = cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR)
    if shade != 1.0:
        art = cv2.convertScaleAbs(art, alpha=shade)
    canvas[y0:y1, x0:x1] = cv2.add(roi, art)
    mine = a8 > 127
    owner[y0:y1, x0:x1][mine] = index
    full = area if clipped else float(np.count_nonzero(mine))
    return _Drawn((x0, y0, x1, y1), full)


def _decal_source(decal: Decal) -> np.ndarray:
    """Premultiplied BGRA of a decal image (BGR, BGRA or grey)."""
    img = decal.image
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 3:
        return cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)  # opaque: premultiplied already
    a = img[:, :, 3]
    pre = cv2.multiply(cv2.cvtColor(img, cv2.COLOR_BGRA2BGR), cv2.merge([a, a, a]),
                       scale=1 / 255)
    return cv2.merge([*cv2.split(pre), a])


def _plane_view(scene: Scene, h: np.ndarray) -> np.ndarray:
    """The table plane (surface and surround) as the camera sees it. The frames of a game
    video share it, so the last few are kept."""
    key = repr((scene.table, scene.surround, scene.table_size, scene.camera))
    cached = _PLANES.get(key)
    if cached is None:
        cached = _draw_plane(scene, h)
        _PLANES[key] = cached
        while len(_PLANES) > 2:
            _PLANES.pop(next(iter(_PLANES)))
    return cached.copy()


_PLANES: dict[str, np.ndarray] = {}


def _draw_plane(scene: Scene, h: np.ndarray) -> np.ndarray:
    iw, ih = scene.camera.size
    tw, th = scene.table_size
    corners = np.array([[0, 0], [iw - 1, 0], [iw - 1, ih - 1], [0, ih - 1]], float)
    seen = project(np.linalg.inv(h), corners)
    reach = 2.0 * max(tw, th)  # far walls of a tilted view need no more texture than this
    x0 = max(min(seen[:, 0].min(), 0.0) - 20, -reach)
    y0 = max(min(seen[:, 1].min(), 0.0) - 20, -reach)
    x1 = min(max(seen[:, 0].max(), tw) + 20, tw + reach)
    y1 = min(max(seen[:, 1].max(), th) + 20, th + reach)
    # a bit coarser than the view: cheap to draw, and webcams are soft anyway
    ppm = float(np.clip(0.6 * px_per_mm(h, (tw / 2, th / 2)), 0.25, 1.0))
    budget = 0.7 * iw * ih
    if (x1 - x0) * (y1 - y0) * ppm**2 > budget:
        ppm = float(np.sqrt(budget / ((x1 - x0) * (y1 - y0))))
    tex = plane(scene.table, scene.surround, scene.table_size, (x0, y0, x1, y1), ppm)
    # texture px (pixel centres at integers) -> table mm -> image px
    to_mm = np.array([[1 / ppm, 0, x0 + 0.5 / ppm], [0, 1 / ppm, y0 + 0.5 / ppm], [0, 0, 1]])
    return cv2.warpPerspective(tex, h @ to_mm, (iw, ih), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def clear_caches(cards: bool = True, plane: bool = True) -> None:
    """Forget the in-memory card art (decoded and premultiplied) and the warped table
    planes; the PNG cache on disk stays. For benchmarks and memory-tight workers."""
    if cards:
        cardart.forget_loaded()
        _source.cache_clear()
        _fill_fraction.cache_clear()
    if plane:
        _PLANES.clear()


def _art(scene: Scene, card: PlacedCard, quad: np.ndarray) -> tuple[np.ndarray, float]:
    """The design's art for a card drawn at `quad`, at the pyramid level that suits it, and
    the share of its rectangle that is card."""
    key = (card.card, 0) if card.face_up else (BACK, scene.back_variant)
    if key[0] not in cardart.card_elements(scene.design):
        raise KeyError(f"design {scene.design!r} has no {key[0]}")
    variant = key[1] % cardart.variants(scene.design, key[0])
    full = cardart.load_card(scene.design, key[0], variant)
    return (_source(scene.design, key[0], variant, _level_for(full.shape[0], quad)),
            _fill_fraction(scene.design, key[0], variant))


def render(scene: Scene) -> RenderResult:
    """Draw the scene; a pure function of it (same scene, same pixels)."""
    h = scene.camera.homography()
    iw, ih = scene.camera.size
    canvas = _plane_view(scene, h)
    owner = np.full((ih, iw), _NOBODY, np.int16)
    card_w, card_h = card_size_mm(scene.design)
    # contact shadows scale with the view: ~0.8 mm of offset
    tw, th = scene.table_size
    shadow_px = max(0.8, 0.8 * px_per_mm(h, (tw / 2, th / 2)))

    items: list[tuple[float, int, PlacedCard | Decal]] = [
        (c.z, i, c) for i, c in enumerate(scene.cards)]
    items += [(d.z, len(scene.cards) + i, d) for i, d in enumerate(scene.decals)]
    items.sort(key=lambda t: (t[0], t[1]))

    drawn: dict[int, _Drawn] = {}
    quads: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    decal_labels: list[DecalLabel] = []
    own_back: dict[int, np.ndarray] = {}  # pyramid levels of the scene's own back, if any
    own_fill = 0.0 if scene.back is None else _card_share(scene.back)
    for _, i, item in items:
        if isinstance(item, PlacedCard):
            corners_mm = rect_corners(item.center, (card_w, card_h), item.rotation)
            quad = project(h, corners_mm)
            if not item.face_up and scene.back is not None:
                level = _level_for(scene.back.shape[0], quad)
                if level not in own_back:
                    own_back[level] = _premultiplied(scene.back, level)
                src, fill = own_back[level], own_fill
            else:
                src, fill = _art(scene, item, quad)
            drawn[i] = _composite(canvas, owner, i, src, quad, item.shade, 0.3, shadow_px,
                                  fill)
            quads[i] = (quad, corners_mm)
        else:
            corners_mm = rect_corners(item.center, item.size, item.rotation)
            quad = project(h, corners_mm)
            _composite(canvas, owner, _DECAL, _decal_source(item), quad, 1.0, 0.12,
                       shadow_px)
            decal_labels.append(DecalLabel(item.role, quad, corners_mm))

    for hand in scene.hands:
        (x0, y0), cover = draw_hand(canvas, hand, h)
        if cover.size:
            owner[y0 : y0 + cover.shape[0], x0 : x0 + cover.shape[1]][cover > 0.5] = _HAND

    labels = []
    for i, c in enumerate(scene.cards):
        x0, y0, x1, y1 = drawn[i].roi
        seen = np.count_nonzero(owner[y0:y1, x0:x1] == i) if x1 > x0 else 0
        visible = float(min(1.0, seen / drawn[i].full_px)) if drawn[i].full_px > 0 else 0.0
        quad, corners_mm = quads[i]
        labels.append(CardLabel(
            card=c.card if c.face_up else BACK, identity=c.card, face_up=c.face_up,
            orientation=orientation(c.rotation), quad=quad, quad_mm=corners_mm,
            visible=visible, z=c.z, role=c.role))

    image = apply_photometric(canvas, scene.photometric)
    return RenderResult(image, labels, decal_labels, h, scene, owner)


def draw_labels(result: RenderResult) -> np.ndarray:
    """The image with each card's quad, top edge and label drawn on (for looking at)."""
    img = result.image.copy()
    for c in result.cards:
        q = np.round(c.quad).astype(np.int32)
        colour = (0, 220, 0) if c.visible > 0.5 else (0, 140, 255)
        cv2.polylines(img, [q], True, colour, 1, cv2.LINE_AA)
        cv2.line(img, tuple(q[0]), tuple(q[1]), (255, 0, 255), 2, cv2.LINE_AA)
        text = f"{c.card}{'' if c.orientation == 'upright' else '~'} {c.visible:.2f}"
        cv2.putText(img, text, tuple(q[0] + [2, 12]), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                    (255, 255, 255), 1, cv2.LINE_AA)
    return img


def main() -> None:
    parser = argparse.ArgumentParser(description="Render one random Hearthtop table.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("scene.png"))
    parser.add_argument("--size", default="1280x720", help="image size, WxH")
    parser.add_argument("--design", action="append", help="design(s) to draw from")
    parser.add_argument("--annotate", action="store_true",
                        help="also write <out>_labels.png with the quads drawn on")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    scene = random_scene(np.random.default_rng(args.seed), designs=args.design,
                         image_size=(w, h))
    result = render(scene)
    cv2.imwrite(str(args.out), result.image)
    labels = args.out.with_suffix(".json")
    labels.write_text(json.dumps(result.to_json(), indent=1))
    if args.annotate:
        cv2.imwrite(str(args.out.with_name(args.out.stem + "_labels.png")), draw_labels(result))
    print(f"{args.out} ({scene.design}, {len(scene.cards)} cards) and {labels}")


if __name__ == "__main__":
    main()
