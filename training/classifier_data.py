"""Synthetic training samples for the card classifier: real card art as a webcam sees it.

Each sample is one card as the pipeline hands it to the classifier: drawn at a random size
(a card 30–250 px wide in the frame: a far 720p view to a close-up), seen in perspective
on a random table, lit unevenly (a washed-out camera, a vivid one), blurred or out of
focus, noisy, JPEG-compressed, sometimes partly covered by another card or a hand, then cut
out again along a wrong quadrilateral (the detector is never exact, in place nor in size)
and rectified to the classifier's input size. A share of the card backs are drawn at
random (`procedural_back`): a group's own deck has a back no design here has, and BACK must
still mean "no index". A share of training samples can be no card at all (`no_card`,
`training.classifier_train --no-card`): what the detector outlines where no card lies, a hero
card, a phone or a notepad, a hand, bare table, labelled NO_CARD, so that BACK need not mean
"no index" for them too.
Training cards of the courts and aces can be relettered (`reletter`,
`training.classifier_train --relettered`): decks print V, B or F for the jack, D for the queen,
R for the king and 1 for the ace, not all of which any training design does. The shipped
model was trained without.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cards import BACK
from simulator.backs import procedural_back
from simulator.cardart import load_card, variants
from simulator.hands import SKIN_TONES, Hand, draw_hand
from simulator.layout import clutter, hero_card, surface
from simulator.textures import texture
from vision.classify import CLASSES, NO_CARD
from vision.rectify import CARD_PX, portrait_order, rectify

from .data import in_chunks, kept

INPUT_PX = CARD_PX  # classifier input, width × height (a card is 63 × 88 mm)
# A sample's label is its index here: the classifier's classes, then no card (taught only
# with `training.classifier_train --no-card`: `no_card`)
LABELS = (*CLASSES, NO_CARD)
# the card widths in the frame the held-out figures are measured at
WIDTHS = {"close-up (200 px)": 200.0, "1080p (130 px)": 130.0, "720p (85 px)": 85.0,
          "far (55 px)": 55.0}
# the share of a card's width and height the classifier's corner view takes (cut inside its
# network; the index experts' corners are cut alike)
INDEX_CORNER = (0.34, 0.30)


def _background(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    base = rng.integers(0, 256, 3).astype(np.float32)
    noise = cv2.resize(rng.normal(0, rng.uniform(3, 40), (max(2, height // 8), max(2, width // 8),
                                                            3)).astype(np.float32),
                       (width, height), interpolation=cv2.INTER_CUBIC)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def _paste(canvas: np.ndarray, card: np.ndarray, quad: np.ndarray) -> None:
    """Warp a BGRA card onto the canvas inside `quad` (clockwise from its top-left)."""
    height, width = card.shape[:2]
    target = max(8, int(np.linalg.norm(quad[1] - quad[0]) * 1.5))
    if target < width:  # shrink with area averaging first: a plain warp would alias
        card = cv2.resize(card, (target, round(height * target / width)),
                          interpolation=cv2.INTER_AREA)
        height, width = card.shape[:2]
    source = np.float32([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]])
    matrix = cv2.getPerspectiveTransform(source, quad.astype(np.float32))
    size = (canvas.shape[1], canvas.shape[0])
    colour = cv2.warpPerspective(card[:, :, :3], matrix, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(card[:, :, 3], matrix, size, flags=cv2.INTER_LINEAR)
    alpha = (alpha.astype(np.float32) / 255.0)[:, :, None]
    canvas[:] = (colour * alpha + canvas * (1 - alpha)).astype(np.uint8)


# a card's width in the frame: a far 720p view to a phone's or a webcam's close-up
WIDTH_RANGE = (30.0, 250.0)
PROCEDURAL_BACKS = 0.4  # share of BACK samples with a random back instead of a design's


# Index letters decks print for the courts and the ace (French, German, Italian)
RELETTERS = {"J": ("V", "V", "B", "F"), "Q": ("D",), "K": ("R",), "A": ("1",)}
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
          cv2.FONT_HERSHEY_TRIPLEX)


def _ink(pixels: np.ndarray, paper: np.ndarray) -> np.ndarray:
    """Where BGR `pixels` are printed: a channel 70 levels or more off the paper's colour."""
    return np.abs(pixels.astype(np.int16) - paper).max(axis=-1) > 70


def _rank_glyph(card: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box (x, y, w, h) of the rank in a BGRA card's top-left index: the topmost ink
    blob of a letter's size with a suit sign under it, or None (no index found there)."""
    height, width = card.shape[:2]
    region_h, region_w = int(0.27 * height), int(0.25 * width)
    region = card[:region_h, :region_w, :3]
    inside = card[:region_h, :region_w, 3] == 255
    ink = _ink(region, np.median(region[inside], axis=0)) & inside
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    blobs = stats[1:, :4]
    letters = [(x, y, w, h) for x, y, w, h in blobs
               if 0.03 * height <= h <= 0.17 * height and 0.01 * width <= w <= 0.17 * width
               and x > 0 and y > 0 and x + w < region_w - 1 and y + h < region_h - 1]
    if not letters:
        return None
    x, y, w, h = min(letters, key=lambda box: box[1])
    for x2, y2, w2, h2 in blobs:  # parts of the same glyph beside it (a Q's tail)
        if y2 >= y - 2 and y2 + h2 <= y + 1.25 * h and x - 0.2 * w <= x2 + w2 and \
                x2 <= x + 1.2 * w:
            x, y, w, h = (min(x, x2), min(y, y2), max(x + w, x2 + w2) - min(x, x2),
                          max(y + h, y2 + h2) - min(y, y2))
    suit_under = any(y + 0.8 * h < y2 < y + 1.8 * h and h2 > 0.3 * h and
                     abs(x2 + w2 / 2 - x - w / 2) < w for x2, y2, w2, h2 in blobs)
    return (int(x), int(y), int(w), int(h)) if suit_under else None


def _reletter_corner(card: np.ndarray, letter: str, font: int, stroke: float) -> bool:
    found = _rank_glyph(card)
    if found is None:
        return False
    x, y, w, h = found
    patch = card[y:y + h, x:x + w, :3]
    border = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]])
    paper = np.median(border, axis=0)
    ink = _ink(patch, paper)
    colour = np.median(patch[ink], axis=0) if ink.any() else np.zeros(3)
    pad = max(1, h // 10)
    card[max(0, y - pad):y + h + pad, max(0, x - pad):x + w + pad, :3] = paper
    if letter:
        thickness = max(1, round(h * stroke))
        _, text_h = cv2.getTextSize(letter, font, 1.0, thickness)[0]
        scale = h / text_h
        text_w = cv2.getTextSize(letter, font, scale, thickness)[0][0]
        cv2.putText(card, letter, (round(x + w / 2 - text_w / 2), y + h), font, scale,
                    (*colour.tolist(), 255), thickness, cv2.LINE_AA)
    return True


def reletter(card: np.ndarray, letter: str, rng: np.random.Generator) -> np.ndarray | None:
    """A copy of a BGRA card with the rank in both index corners redrawn as `letter` (in one
    of OpenCV's fonts, in the rank's own ink), or erased if `letter` is ""; None where an
    index is not found (designs whose index sits elsewhere or touches the art)."""
    card = card.copy()
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    stroke = rng.uniform(0.08, 0.15)
    if not _reletter_corner(card, letter, font, stroke):
        return None
    turned = np.ascontiguousarray(card[::-1, ::-1])  # the bottom-right index, turned upright
    if not _reletter_corner(turned, letter, font, stroke):
        return None
    return np.ascontiguousarray(turned[::-1, ::-1])


def _card_quad(rng: np.random.Generator, width_px: float, centre: np.ndarray,
               aspect: float = 88 / 63) -> np.ndarray:
    """A card outline of `width_px` (and `aspect` times as tall), turned any way, with some
    perspective."""
    height_px = width_px * aspect
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * [width_px / 2,
                                                                              height_px / 2]
    angle = rng.uniform(0, 2 * np.pi)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    quad = corners @ turn.T
    quad += rng.normal(0, 0.05 * width_px, quad.shape)  # perspective and lens
    return (quad + centre).astype(np.float32)


def _width_and_side(rng: np.random.Generator, width_px: float | None) -> tuple[float, int]:
    """A sample's card width in the frame (`width_px`, or drawn log-uniformly from
    WIDTH_RANGE) and the side of the square canvas drawn around it."""
    width_px = width_px or float(np.exp(rng.uniform(*np.log(WIDTH_RANGE))))
    return width_px, int(width_px * 2.6)


def _light(rng: np.random.Generator, image: np.ndarray, span: float) -> np.ndarray:
    """Exposure, colour and glare over `image`, a cut of a scene `span` px wide."""
    height, width = image.shape[:2]
    out = image.astype(np.float32)
    out = out * rng.uniform(0.55, 1.3) + rng.uniform(-25, 25)  # exposure
    out *= rng.uniform(0.85, 1.15, 3)  # white balance
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    slope = rng.normal(0, 0.4, 2) / span
    out *= (1 + (xx - width / 2) * slope[0] + (yy - height / 2) * slope[1])[:, :, None]
    if rng.random() < 0.3:  # a washed-out or a vivid camera: contrast and saturation
        grey = out.mean(axis=2, keepdims=True)
        out = grey + (out - grey) * rng.uniform(0.5, 1.3)
        out = out.mean() + (out - out.mean()) * rng.uniform(0.6, 1.1)
    if rng.random() < 0.3:  # glare: a soft bright spot
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        radius = rng.uniform(0.1, 0.5) * span
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius ** 2))
        out += (rng.uniform(40, 160) * spot)[:, :, None]
    return np.clip(out, 0, 255).astype(np.uint8)


def _degrade(rng: np.random.Generator, image: np.ndarray, width_px: float) -> np.ndarray:
    sigma = rng.uniform(0, 1.3)
    if rng.random() < 0.2:  # out of focus: a disc, wider on a near (large) card
        radius = rng.uniform(0.8, 1.0 + width_px / 80)
        size = 2 * int(np.ceil(radius)) + 1
        disc = np.zeros((size, size), np.float32)
        cv2.circle(disc, (size // 2, size // 2), round(radius), 1.0, -1, cv2.LINE_AA)
        image = cv2.filter2D(image, -1, disc / disc.sum())
    elif sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    if rng.random() < 0.15:  # motion blur: a hand moving the card, a shaky camera
        length = int(rng.integers(3, 7))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1 / length
        turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                       rng.uniform(0, 180), 1)
        image = cv2.filter2D(image, -1, cv2.warpAffine(kernel, turn, (length, length)))
    noisy = image.astype(np.float32) + rng.normal(0, rng.uniform(0, 9), image.shape)
    image = np.clip(noisy, 0, 255).astype(np.uint8)
    quality = int(rng.integers(35, 96))
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else image


def _occlude(rng: np.random.Generator, canvas: np.ndarray, quad: np.ndarray,
             design: str) -> None:
    """Another card across part of this one, or a skin-coloured blob (a hand)."""
    centre = quad.mean(axis=0)
    edge = quad[int(rng.integers(4))]
    spot = centre + (edge - centre) * rng.uniform(0.6, 1.6)
    width = np.linalg.norm(quad[1] - quad[0])
    if rng.random() < 0.6:
        other = CLASSES[int(rng.integers(len(CLASSES)))]
        if variants(design, other):
            _paste(canvas, load_card(design, other), _card_quad(rng, width, spot))
            return
    axes = (int(width * rng.uniform(0.3, 0.8)), int(width * rng.uniform(0.2, 0.5)))
    skin = rng.uniform([60, 90, 140], [150, 180, 240])
    cv2.ellipse(canvas, tuple(int(v) for v in spot), axes, rng.uniform(0, 180), 0, 360,
                skin.tolist(), -1)


def sample(rng: np.random.Generator, design: str, label: int,
           width_px: float | None = None, relettered: float = 0.0,
           input_px: tuple[int, int] = INPUT_PX,
           letters: dict[str, tuple[str, ...]] = RELETTERS) -> np.ndarray:
    """One classifier input (`input_px`, BGR uint8) of card class `label` in `design`;
    `relettered`: the share of courts and aces drawn with another index letter, one of
    `letters` for their rank ("" erases it)."""
    card_id = CLASSES[label]
    if card_id == BACK and rng.random() < PROCEDURAL_BACKS:
        card = procedural_back(rng)
    else:
        card = load_card(design, card_id, int(rng.integers(variants(design, card_id))))
    others = letters.get(card_id[:-1], ())
    if relettered and others and rng.random() < relettered:  # no draw at 0: same data
        other = reletter(card, others[int(rng.integers(len(others)))], rng)
        card = card if other is None else other
    width_px, side = _width_and_side(rng, width_px)
    canvas = _background(rng, (side, side))
    quad = _card_quad(rng, width_px, np.array([side / 2, side / 2], np.float32))
    _paste(canvas, card, quad)
    if rng.random() < 0.25:
        _occlude(rng, canvas, quad, design)
    return _as_seen(rng, canvas, quad, width_px, input_px)


def _as_seen(rng: np.random.Generator, canvas: np.ndarray, quad: np.ndarray,
             width_px: float, input_px: tuple[int, int] = INPUT_PX) -> np.ndarray:
    """The classifier's input as the pipeline cuts `quad` out of `canvas` through a camera."""
    # the detector's error: each corner off a little, the whole box a little large or small
    centre = quad.mean(axis=0)
    seen = (quad - centre) * rng.normal(1.0, 0.04) + centre
    seen += rng.normal(0, 0.03 * width_px, quad.shape)
    # light and degrade only what the outline takes in, and a margin for the blurs
    side = canvas.shape[0]
    low = np.clip(np.floor(seen.min(axis=0)) - 8, 0, side).astype(int)
    high = np.clip(np.ceil(seen.max(axis=0)) + 8, 0, side).astype(int)
    cut = _degrade(rng, _light(rng, canvas[low[1]:high[1], low[0]:high[0]], side), width_px)
    return rectify(cut, portrait_order(seen - low), input_px, ordered=True)


def no_card(rng: np.random.Generator, width_px: float | None = None,
            input_px: tuple[int, int] = INPUT_PX) -> np.ndarray:
    """One classifier input where no card lies, as the detector outlines it there: a hero
    card, a phone, a notepad or a coin, a hand reaching in, or bare table, on a table drawn
    as the scenes draw theirs. No card shows in it, not even a corner: a corner may be all
    that shows of a card the detector found, and that is a card."""
    width_px, side = _width_and_side(rng, width_px)
    ppm = width_px / 63  # px per table mm: a card is about 63 mm wide
    canvas = texture(surface(rng, ())[0], (side, side), ppm)
    centre = np.array([side / 2, side / 2], np.float32)
    quad = _card_quad(rng, width_px, centre)
    kind = rng.random()
    if kind < 0.35:  # a hero card lies in every hero area, card-sized
        art = hero_card(rng)
        _paste(canvas, np.dstack([art, np.full(art.shape[:2], 255, np.uint8)]), quad)
    elif kind < 0.55:
        art, (w_mm, h_mm), _ = clutter(rng)
        spot = centre + rng.normal(0, 0.2 * width_px, 2)
        _paste(canvas, art, _card_quad(rng, w_mm * ppm, spot, aspect=h_mm / w_mm))
    elif kind < 0.85:  # a hand: fingertips near the outline, the arm from anywhere
        tip = (centre + rng.normal(0, 0.3 * width_px, 2)) / ppm
        angle = rng.uniform(0, 2 * np.pi)
        entry = tip + 600 * np.array([np.cos(angle), np.sin(angle)])
        skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        sleeve = tuple(int(c) for c in rng.integers(0, 256, 3)) if rng.random() < 0.5 else None
        draw_hand(canvas, Hand(tuple(entry), tuple(tip), skin, float(rng.uniform(75, 95)),
                               float(rng.uniform(0, 1)), int(rng.choice([-1, 1])), sleeve,
                               float(rng.uniform(40, 220))), np.diag([ppm, ppm, 1.0]))
    return _as_seen(rng, canvas, quad, width_px, input_px)


def batch(seed: int, designs: list[str], count: int, width_px: float | None = None,
          relettered: float = 0.0, no_cards: float = 0.0,
          input_px: tuple[int, int] = INPUT_PX) -> tuple[np.ndarray, np.ndarray]:
    """`count` samples over `designs` and all classes each has: (images NHWC at `input_px`,
    labels, an index in LABELS); `relettered` for training data (see `sample`), and
    `no_cards`, the share of samples where no card lies (`no_card`)."""
    rng = np.random.default_rng(seed)
    images = np.empty((count, input_px[1], input_px[0], 3), np.uint8)
    labels = np.empty(count, np.int64)
    for i in range(count):
        design = designs[int(rng.integers(len(designs)))]
        if no_cards and rng.random() < no_cards:  # no draw at 0: the same data as before
            images[i] = no_card(rng, width_px, input_px)
            labels[i] = LABELS.index(NO_CARD)
            continue
        while True:
            label = int(rng.integers(len(CLASSES)))
            if variants(design, CLASSES[label]):
                break
        images[i] = sample(rng, design, label, width_px, relettered, input_px)
        labels[i] = label
    return images, labels


def make_data(seed: int, designs: list[str], count: int, workers: int,
              width_px: float | None = None, relettered: float = 0.0, no_cards: float = 0.0,
              cache: Path | None = None, input_px: tuple[int, int] = INPUT_PX,
              ) -> tuple[np.ndarray, np.ndarray]:
    """Samples made in parallel chunks of 500, each from its own seed: reproducible.
    `relettered` for training data only: tests see each design's own index; `no_cards`,
    the share where no card lies (`no_card`); `input_px`, the size cut out. Kept in
    `cache`, if given (`training.data.kept`)."""
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(batch, seed, count, 500, {"designs": designs, "width_px": width_px,
                                                   "relettered": relettered,
                                                   "no_cards": no_cards, "input_px": input_px},
                          workers, "data")
        return {"images": np.concatenate([p[0] for p in parts]),
                "labels": np.concatenate([p[1] for p in parts])}

    key = [seed, sorted(designs), count, width_px, relettered, list(input_px)]
    key += [no_cards] if no_cards else []  # earlier runs' data keeps its key
    arrays = kept(cache, "cards", key, made)
    return arrays["images"], arrays["labels"]
