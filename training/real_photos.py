"""Real photographs as training data: the Roboflow-100 poker-cards photos (CC BY 4.0).

`../shared/tools/real_photos_train.py` exports them as `images/` and `labels.csv`, one row a
card with its axis-aligned box of the whole card (the covered part included) and a `split`:
`train` to train on, `valid` to choose thresholds on. The set's own `test` split is never
exported, so never seen.

Our detector and classifier want each card's outline, not its box. A card is a rectangle
(in perspective, nearly one), and a rectangle's box touches it at all four corners, so the
box leaves one unknown: the card's turn. `box_quad` tries every turn whose rectangle fits the
box with a card's proportions and keeps the one whose sides lie on the photo's edges. Where
cards overlap, the one on top is the one whose sides show across the other
(`stacking_order`).
"""

from __future__ import annotations

import csv
import itertools
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ASPECTS = (0.58, 0.86)  # short / long side of a card, perspective included (flat: 0.71)
TURNS = np.deg2rad(np.arange(-89.0, 90.0, 1.0))
EDGE_SAMPLES = 48  # points a side, for the edge support


@dataclass
class PhotoCard:
    card: str  # "AS", "10H"
    box: tuple[int, int, int, int]  # x1, y1, x2, y2: the whole card
    quad: np.ndarray | None = None  # (4, 2) image px, first side short
    support: float = 0.0  # mean edge strength along the quad's sides


@dataclass
class Photo:
    file: Path
    split: str
    cards: list[PhotoCard] = field(default_factory=list)


def load(data: Path, split: str | None = None) -> list[Photo]:
    """The photos of `data/labels.csv` (of one split, or all), in file order. A missing
    file or a malformed row raises OSError, KeyError or ValueError (`photo_export` says which in
    one line)."""
    photos: dict[str, Photo] = {}
    with (data / "labels.csv").open(newline="") as rows:
        for row in csv.DictReader(rows):
            if split is not None and row.get("split") != split:
                continue
            photo = photos.setdefault(row["file"], Photo(data / row["file"],
                                                          row.get("split", "")))
            box = tuple(int(float(row[k])) for k in ("x1", "y1", "x2", "y2"))
            photo.cards.append(PhotoCard(row["rank"] + row["suit"], box))
    return list(photos.values())


def _export(value: str) -> tuple[Path, list[Photo]]:
    """The folder `value` and its photos, or an argparse error naming what is wrong."""
    import argparse

    data = Path(value)
    try:
        photos = load(data)
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{data}: no labels.csv ({error.strerror})") from None
    except (KeyError, ValueError, csv.Error) as error:
        raise argparse.ArgumentTypeError(f"{data / 'labels.csv'}: not the export's labels "
                                         f"({type(error).__name__}: {error})") from None
    if not photos:
        raise argparse.ArgumentTypeError(f"{data / 'labels.csv'}: not the export's labels "
                                         "(ValueError: no labelled card)")
    return data, photos


def photo_export(value: str) -> Path:
    """An argparse type: a folder `real_photos_train.py` exported (or `real_photos_dev`),
    its labels read whole, or a one-line error (exit 2) naming what is wrong."""
    return _export(value)[0]


def training_export(value: str) -> Path:
    """An argparse type: `photo_export` holding both a `train` and a `valid` split, as
    `real_photos_train.py` exports them (the trainings read one, report or fit on the other)."""
    import argparse

    data, photos = _export(value)
    splits = {photo.split for photo in photos}
    missing = [split for split in ("train", "valid") if split not in splits]
    if missing:
        raise argparse.ArgumentTypeError(f"{data / 'labels.csv'}: no {missing[0]!r} split "
                                         "(export it with ../shared/tools/real_photos_train.py)")
    return data


def labels_of(photo: Photo) -> list[dict]:
    """The photo's card boxes as `labelled_detections` takes them (the labels' columns)."""
    return [dict(zip(("x1", "y1", "x2", "y2"), card.box, strict=True)) for card in photo.cards]


def gradients(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sobel gradients of the lightly blurred grey image (float32)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    grey = grey.astype(np.float32)
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)


def inscribed_quads(box: tuple[float, float, float, float]) -> np.ndarray:
    """(n, 4, 2) card-shaped rectangles whose box is `box`, one a turn that allows one."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    c, s = np.abs(np.cos(TURNS)), np.abs(np.sin(TURNS))
    det = c * c - s * s  # w = p c + q s, h = p s + q c, for sides p (along the turn) and q
    with np.errstate(divide="ignore", invalid="ignore"):  # a square box at 45°: no card
        p = (w * c - h * s) / det
        q = (h * c - w * s) / det
        aspect = np.minimum(p, q) / np.maximum(p, q)
    fits = (p > 0) & (q > 0) & (aspect >= ASPECTS[0]) & (aspect <= ASPECTS[1])
    centre = ((x1 + x2) / 2, (y1 + y2) / 2)
    quads = [cv2.boxPoints((centre, (float(pi), float(qi)), float(np.rad2deg(t))))
             for pi, qi, t in zip(p[fits], q[fits], TURNS[fits], strict=True)]
    return np.float32(quads).reshape(-1, 4, 2)


def short_side_first(quad: np.ndarray) -> np.ndarray:
    """The same quad starting at a corner where a short side begins."""
    return quad if np.linalg.norm(quad[1] - quad[0]) <= np.linalg.norm(quad[2] - quad[1]) \
        else np.roll(quad, -1, axis=0)


def edge_support(gx: np.ndarray, gy: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """For each quad, the mean gradient across its sides (inner 80 % of each), in grey
    levels a pixel: high where the sides lie on the card's edges."""
    t = np.linspace(0.1, 0.9, EDGE_SAMPLES, dtype=np.float32)[None, None, :, None]
    start, end = quads[:, :, None, :], np.roll(quads, -1, axis=1)[:, :, None, :]
    points = start + t * (end - start)  # (n, 4, samples, 2)
    direction = (end - start)[:, :, :, ::-1] * np.float32([1, -1])
    normal = direction / np.maximum(np.linalg.norm(direction, axis=-1, keepdims=True), 1e-6)
    h, w = gx.shape
    xs = np.clip(np.rint(points[..., 0]).astype(int), 0, w - 1)
    ys = np.clip(np.rint(points[..., 1]).astype(int), 0, h - 1)
    across = np.abs(gx[ys, xs] * normal[..., 0] + gy[ys, xs] * normal[..., 1])
    return across.mean(axis=(1, 2)) / 8.0  # Sobel 3×3 counts a step 8 times


def box_quad(gx: np.ndarray, gy: np.ndarray, box: tuple[int, int, int, int]
             ) -> tuple[np.ndarray, float]:
    """The card outline inside `box` whose sides lie best on the photo's edges, first side
    short, and its edge support; the box itself (support 0) where no card shape fits."""
    quads = inscribed_quads(box)
    if not len(quads):
        x1, y1, x2, y2 = box
        return short_side_first(np.float32([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])), 0.0
    support = edge_support(gx, gy, quads)
    best = int(np.argmax(support))
    return short_side_first(quads[best]), float(support[best])


Gradients = tuple[np.ndarray, np.ndarray]  # (gx, gy) of `gradients`


def outline(photo: Photo, image: np.ndarray, refiner) -> Gradients:  # refiner: CardRefiner
    """Fill in every card's quad and support (`box_quad`, then `refine_quads`); the image's
    gradients, for `stacking_order`."""
    grads = gradients(image)
    for card in photo.cards:
        card.quad, card.support = box_quad(*grads, card.box)
    refine_quads(photo, image, grads, refiner)
    return grads


def refine_quads(photo: Photo, image: np.ndarray, grads: Gradients, refiner) -> None:
    """Each card's quad moved onto the card's own corners by the shipped refiner
    (`vision.refine.CardRefiner`), where that puts its sides on stronger edges (it was
    trained on drawn cards; perspective and the label's slack are what it fixes here)."""
    if not photo.cards:
        return
    gx, gy = grads
    quads = np.float32([card.quad for card in photo.cards])
    refined = refiner.refine(image, quads)
    support = edge_support(gx, gy, refined)
    for card, quad, s in zip(photo.cards, refined, support, strict=True):
        if s > card.support:
            card.quad, card.support = short_side_first(np.float32(quad)), float(s)


def _sides_inside(gx: np.ndarray, gy: np.ndarray, quad: np.ndarray, other: np.ndarray
                  ) -> float:
    """Mean edge strength along `quad`'s sides where they cross `other` (0 if they do not)."""
    t = np.linspace(0.02, 0.98, 4 * EDGE_SAMPLES, dtype=np.float32)[:, None]
    strengths = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        points = a + t * (b - a)
        inside = [cv2.pointPolygonTest(other, (float(x), float(y)), True) > 3
                  for x, y in points]
        if not any(inside):
            continue
        normal = np.float32([b[1] - a[1], a[0] - b[0]]) / max(1e-6, float(np.hypot(*(b - a))))
        h, w = gx.shape
        xs = np.clip(np.rint(points[inside, 0]).astype(int), 0, w - 1)
        ys = np.clip(np.rint(points[inside, 1]).astype(int), 0, h - 1)
        strengths.append(np.abs(gx[ys, xs] * normal[0] + gy[ys, xs] * normal[1]))
    return float(np.concatenate(strengths).mean()) if strengths else 0.0


def stacking_order(photo: Photo, grads: Gradients) -> list[int]:
    """Card indices from the bottom of the table up, from the photo's `gradients`. Where two
    cards overlap, the sides of the one on top show across the other and the other's sides
    do not; each card is ranked by the overlaps it wins."""
    gx, gy = grads
    quads = [np.float32(card.quad) for card in photo.cards]
    wins = np.zeros(len(quads))
    for i in range(len(quads)):
        for j in range(i + 1, len(quads)):
            area, _ = cv2.intersectConvexConvex(quads[i], quads[j])
            if area <= 1.0:
                continue
            i_shows = _sides_inside(gx, gy, quads[i], quads[j])
            j_shows = _sides_inside(gx, gy, quads[j], quads[i])
            wins[i if i_shows >= j_shows else j] += 1
    return [int(k) for k in np.argsort(wins, kind="stable")]


def owner_map(shape: tuple[int, int], quads: list[np.ndarray], order: list[int]) -> np.ndarray:
    """Per pixel, the index of the card seen there (the highest covering it), -1 for none."""
    owner = np.full(shape, -1, np.int16)
    for i in order:
        cv2.fillConvexPoly(owner, np.int32(np.rint(quads[i])), int(i))
    return owner


def _box_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def box_overlap(quad: np.ndarray, box: np.ndarray) -> float:
    """IoU of a quad's axis-aligned box with a label's box (x1, y1, x2, y2)."""
    return _box_iou((*quad.min(axis=0), *quad.max(axis=0)), tuple(box))


def labelled_detections(quads: np.ndarray, shape: tuple[int, ...],
                        labels: list[dict]) -> list[int]:
    """For each labelled card of a photo of `shape`, the detection (a quad) whose box
    overlaps its box best, by IoU 0.5 or more, each taken once; -1 for none. A label boxes
    what shows of a card, so a card cut by the frame's edge is matched by its box clipped
    to the frame."""
    frame = np.float32(shape[1::-1])
    boxes = [(*np.clip(q.min(axis=0), 0, frame), *np.clip(q.max(axis=0), 0, frame))
             for q in quads]
    taken: list[int] = []
    for label in labels:
        box = tuple(float(label[k]) for k in ("x1", "y1", "x2", "y2"))
        iou, best = max(((_box_iou(box, b), i) for i, b in enumerate(boxes) if i not in taken),
                        default=(0.0, -1))
        taken.append(best if iou >= 0.5 else -1)
    return taken


# --- detector training views --------------------------------------------------------------

VIEW_SIZE = (1280, 720)  # the canvas a view is drawn on: the drawn scenes' 720p frame
VIEWS = ("whole", "close", "far")  # one of each a photo and round


def outlined(photo: Photo, refiner) -> tuple[np.ndarray, list[int]]:  # refiner: CardRefiner
    """The photo's image with every card's quad found and refined, and the stacking order."""
    image = cv2.imread(str(photo.file))
    if image is None:
        raise ValueError(f"{photo.file}: not an image")
    return image, stacking_order(photo, outline(photo, image, refiner))


def _background(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A plain, blotchy table: one colour with soft light and fine grain; or, a fifth of the
    time, black, as `vision.detect.prepare` pads a photo it shrinks (`PHOTO_ZOOMS`)."""
    w, h = size
    if rng.random() < 0.2:
        return np.zeros((h, w, 3), np.uint8)
    colour = rng.uniform(20, 235, 3)
    blotches = cv2.resize(rng.normal(0, rng.uniform(5, 30), (6, 10)).astype(np.float32),
                          (w, h), interpolation=cv2.INTER_CUBIC)[:, :, None]
    grain = rng.normal(0, rng.uniform(1, 6), (h, w, 1)).astype(np.float32)
    return np.clip(colour + blotches + grain, 0, 255).astype(np.uint8)


def _view_matrix(rng: np.random.Generator, kind: str, photo: Photo, shape: tuple[int, int]
                 ) -> np.ndarray:
    """A 2 × 3 affine map from the photo to a view: turned, scaled and placed by `kind`
    (the whole photo; a close-up of one card filling 45–100 % of the view's height; far off,
    a card 4–12 % of the view's width)."""
    h, w = shape
    view_w, view_h = VIEW_SIZE
    card = photo.cards[int(rng.integers(len(photo.cards)))]
    quad = np.float32(card.quad)
    long_side = float(max(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
    turn = float(rng.uniform(-180, 180)) if rng.random() < 0.5 else float(rng.normal(0, 8))
    if kind == "close":
        scale = rng.uniform(0.45, 1.0) * view_h / long_side
        centre = quad.mean(axis=0) + rng.normal(0, 0.1 * long_side, 2)
    elif kind == "far":
        scale = rng.uniform(0.04, 0.12) * view_w / (long_side * 0.71)
        centre = np.float32([w / 2, h / 2])
    else:
        scale = rng.uniform(0.8, 1.25) * min(view_w / w, view_h / h)
        centre = np.float32([w / 2, h / 2]) + rng.normal(0, 0.08, 2) * (w, h)
    matrix = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), turn, float(scale))
    shift = rng.uniform(-0.25, 0.25, 2) * (view_w, view_h) if kind == "far" else (0, 0)
    matrix[:, 2] += np.float64([view_w / 2, view_h / 2]) - centre + shift
    return matrix


def _photometric(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Light, colour and camera faults: contrast and brightness, a colour cast, sometimes a
    blur, a photo taken at 300 px and scaled up, or heavy JPEG."""
    out = image.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-40, 30)
    out = out * rng.uniform(0.85, 1.15, 3)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.6, 2.0))
    if rng.random() < 0.15:
        h, w = out.shape[:2]
        small = 300 / max(h, w)
        out = cv2.resize(cv2.resize(out, None, fx=small, fy=small, interpolation=cv2.INTER_AREA),
                         (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.2:
        quality = int(rng.integers(25, 70))
        _, code = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out = cv2.imdecode(code, cv2.IMREAD_COLOR)
    return out


def photo_view(rng: np.random.Generator, kind: str, photo: Photo, image: np.ndarray,
               order: list[int]):  # -> simulator.render.RenderResult
    """One training view of a photo, as the renderer would label a drawn scene: the image on
    a `VIEW_SIZE` canvas, every card with its quad and the share of it that shows, and the
    owner map (which card each pixel shows)."""
    from simulator.render import CardLabel, RenderResult

    matrix = _view_matrix(rng, kind, photo, image.shape[:2])
    quads = [cv2.transform(np.float32(c.quad)[None], matrix)[0] for c in photo.cards]
    owner = owner_map(image.shape[:2], [np.float32(c.quad) for c in photo.cards], order)
    owner = cv2.warpAffine(owner, matrix, VIEW_SIZE, flags=cv2.INTER_NEAREST,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=-1)
    inside = cv2.warpAffine(np.full(image.shape[:2], 255, np.uint8), matrix, VIEW_SIZE,
                            flags=cv2.INTER_NEAREST)
    canvas = _background(rng, VIEW_SIZE)
    warped = cv2.warpAffine(_photometric(rng, image), matrix, VIEW_SIZE,
                            flags=cv2.INTER_AREA if matrix[0, :2].dot(matrix[0, :2]) < 1
                            else cv2.INTER_LINEAR)
    canvas[inside > 0] = warped[inside > 0]
    cards = []
    for i, (card, quad) in enumerate(zip(photo.cards, quads, strict=True)):
        area = max(1.0, float(cv2.contourArea(quad)))
        cards.append(CardLabel(card=card.card, identity=card.card, face_up=True,
                               orientation="up", quad=quad, quad_mm=quad,
                               visible=min(1.0, float(np.count_nonzero(owner == i)) / area),
                               z=float(order.index(i)), role="other"))
    return RenderResult(image=canvas, cards=cards, decals=[], homography=np.eye(3),
                        scene=None, owner=owner)


def detector_views(data: Path, split: str, seed: int, rounds: int = 1, start: int = 0,
                   stop: int | None = None):  # -> tuple[np.ndarray, dict[str, np.ndarray]]
    """Detector inputs and targets (`training.detect_data`) of `rounds` × `VIEWS` views of
    each photo of `split`, photos `start:stop` (for workers); reproducible from the seed."""
    from vision.refine import CardRefiner

    from .detect_data import _stack, scene_targets

    refiner = CardRefiner()
    items = []
    for k, photo in enumerate(load(data, split)[start:stop], start):
        rng = np.random.default_rng([seed, k])
        image, order = outlined(photo, refiner)
        for _ in range(rounds):
            for kind in VIEWS:
                items.append(scene_targets(photo_view(rng, kind, photo, image, order)))
    return _stack(items)


def over_photos(make, data: Path, split: str, workers: int, *args) -> list:
    """`make(data, split, *args, start, stop)` over slices of the photos of `split` (four a
    worker), in `workers` processes: the parts, in photo order."""
    from concurrent.futures import ProcessPoolExecutor

    bounds = np.linspace(0, len(load(data, split)), max(1, workers) * 4 + 1).astype(int)
    with ProcessPoolExecutor(max(1, workers)) as pool:
        jobs = [pool.submit(make, data, split, *args, int(a), int(b))
                for a, b in itertools.pairwise(bounds) if b > a]  # no empty slice
        return [job.result() for job in jobs]


def make_real_detector_data(data: Path, split: str, seed: int, rounds: int = 1,
                            workers: int = 2) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """`detector_views` over all the photos of `split`, in `workers` processes."""
    parts = over_photos(detector_views, data, split, workers, seed, rounds)
    images = np.concatenate([p[0] for p in parts])
    return images, {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}


# --- classifier training samples ----------------------------------------------------------

CARD_WIDTHS = (35.0, 250.0)  # px in the frame a sample's card is drawn at, log-uniform
MIN_CORNER_SHOWN = 0.8  # of an index corner's pixels, for a covered card to be a sample


def corner_shown(owner: np.ndarray, quad: np.ndarray, index: int) -> float:
    """The larger share of the card's two index corners that shows (its own in `owner`)."""
    from vision.rectify import CARD_PX, rectify

    from .classifier_data import INDEX_CORNER

    mine = (owner == index).astype(np.uint8) * 255
    card = rectify(mine[:, :, None].repeat(3, 2), quad, CARD_PX)[:, :, 0] > 127
    w, h = round(CARD_PX[0] * INDEX_CORNER[0]), round(CARD_PX[1] * INDEX_CORNER[1])
    return float(max(card[:h, :w].mean(), card[-h:, -w:].mean()))


def card_samples(rng: np.random.Generator, photo: Photo, image: np.ndarray, order: list[int],
                 per_card: int, seen_as: list[np.ndarray | None] | None = None,
                 size: tuple[int, int] | None = None) -> tuple[list[np.ndarray], list[int]]:
    """`per_card` classifier inputs of each card of the photo whose index shows, each at a
    random width in the frame, cut along a slightly wrong outline, under other light; and
    their labels (an index in `vision.classify.CLASSES`). `seen_as`: for each card, the
    outline the recogniser found for it (what it will be read from), else None for the one
    its box gives; `size`: the cut's width × height (the classifier's input if None)."""
    from vision.classify import CLASSES
    from vision.rectify import CARD_PX, portrait_order, rectify

    owner = owner_map(image.shape[:2], [np.float32(c.quad) for c in photo.cards], order)
    seen_as = seen_as or [None] * len(photo.cards)
    images, labels = [], []
    for i, card in enumerate(photo.cards):
        if card.card not in CLASSES or corner_shown(owner, card.quad, i) < MIN_CORNER_SHOWN:
            continue
        quad = np.float32(card.quad if seen_as[i] is None else seen_as[i])
        width = float(min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
        for _ in range(per_card):
            scale = min(1.0, float(np.exp(rng.uniform(*np.log(CARD_WIDTHS)))) / width)
            small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) \
                if scale < 1 else image
            seen = quad * scale
            centre = seen.mean(axis=0)
            seen = (seen - centre) * rng.normal(1.0, 0.03) + centre
            seen += rng.normal(0, 0.02 * width * scale, seen.shape).astype(np.float32)
            images.append(rectify(_photometric(rng, small), portrait_order(seen),
                                  size or CARD_PX, ordered=True))
            labels.append(CLASSES.index(card.card))
    return images, labels


def recognized(recognizer, photo: Photo, image: np.ndarray,
               zooms: tuple[float, ...] | None = None):  # -> (Observation, list[int])
    """What the recogniser (`vision.pipeline.Recognizer`) finds in the photo, read as
    `recognize` reads one (at `zooms`, `PHOTO_ZOOMS` if None), and for each of its labelled
    cards the detection matched to it by box (`labelled_detections`), or -1."""
    from vision.detect import PHOTO_ZOOMS

    obs = recognizer.observe(image, zooms=PHOTO_ZOOMS if zooms is None else zooms)
    return obs, labelled_detections(obs.quads, image.shape, labels_of(photo))


def found_outlines(recognizer, photo: Photo, image: np.ndarray) -> list[np.ndarray | None]:
    """For each card of the photo, the outline the recogniser found for it (`recognized`),
    or None."""
    obs, found = recognized(recognizer, photo, image)
    return [None if d < 0 else np.float32(obs.quads[d]) for d in found]


def classifier_samples(data: Path, split: str, seed: int, per_card: int,
                       detector: Path | None = None, size: tuple[int, int] | None = None,
                       start: int = 0, stop: int | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """`card_samples` of the photos `start:stop` of `split`: images (N, H, W, 3) uint8 at
    `size` and labels (N,); reproducible from the seed. With `detector`, each card is cut
    along the outline that detector (and the shipped refiner) finds for it, where it finds
    one."""
    from vision.pipeline import Recognizer
    from vision.rectify import CARD_PX
    from vision.refine import CardRefiner

    refiner = CardRefiner()
    recognizer = None if detector is None else Recognizer(detector, photo_detector=detector)
    images, labels = [], []
    for k, photo in enumerate(load(data, split)[start:stop], start):
        rng = np.random.default_rng([seed, k, 1])
        image, order = outlined(photo, refiner)
        seen_as = None if recognizer is None else found_outlines(recognizer, photo, image)
        more, their = card_samples(rng, photo, image, order, per_card, seen_as, size)
        images += more
        labels += their
    width, height = size or CARD_PX
    return np.uint8(images).reshape(-1, height, width, 3), np.int64(labels)


def real_arguments(parser, detector: Path | None = None) -> None:
    """--real, --real-per-card and --real-detector (default `detector`): what a network that
    reads cards (the classifier, an index expert) learns of real photographs."""
    parser.add_argument("--real", type=training_export,
                        help="also train on the `train` photos of this "
                        "export of ../shared/tools/real_photos_train.py (training.real_photos), "
                        "and report its `valid` photos")
    parser.add_argument("--real-per-card", type=int, default=6,
                        help="samples of each real card whose index shows")
    parser.add_argument("--real-detector", type=Path, default=detector,
                        help="cut the real cards along the outlines this detector finds "
                        "(where it finds them), as they are read"
                        + (f" (default: {detector.name})" if detector else ""))


def make_real_classifier_data(data: Path, split: str, seed: int, per_card: int,
                              workers: int = 2, detector: Path | None = None,
                              size: tuple[int, int] | None = None
                              ) -> tuple[np.ndarray, np.ndarray]:
    """`classifier_samples` of every photo of `split` (cut at `size`), in `workers`
    processes."""
    parts = over_photos(classifier_samples, data, split, workers, seed, per_card, detector,
                        size)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
