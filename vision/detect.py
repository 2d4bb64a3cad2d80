"""The card detector at run time: onnxruntime on the shipped model, no torch.

A small CenterNet-style network sees the frame scaled so that its long side is 512 px (aspect
kept, padded right and bottom to a multiple of 32) and gives, every 4 input px (one *cell*), a
heatmap of card anchors and, at each anchor, the card's full centre, size, angle and face-up
probability; at every cell on a card, a vote: the offset to that card's anchor.

A card's **anchor** is the most interior point of the part of it that shows (the middle of
the ridge of the distance transform of its visible pixels), not its centre: the centres of
markers tucked under a minion, or of a fan of markers, lie within a cell or two of each other
and of the minion's, but what shows of each card is apart. The regressed **centre** is the
whole card's, hidden part included, so every quad is the full card and can be rectified.
Cells that vote for one anchor are one card (`group_by_votes`): the anchors of a fan's
markers can be a cell apart, so a heatmap's local maxima alone merge them or split one card
in two.

    python -m vision.detect FRAME.png [--model models/card_detector.onnx]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, fields
from pathlib import Path

import cv2
import numpy as np

from .geometry import box_of_quad, iou_matrix, quads_of_boxes, rotated_nms
from .memory import PileMemory
from .observation import SIDEWAYS, UPRIGHT, Columns, Observation
from .piles import CROWDED_IOU, KEEP_IOU, PileView, pile_crop, piles
from .runtime import ModelError, load_model, shipped

MODEL = shipped("card_detector.onnx")
PILE_MODEL = MODEL.with_name("pile_detector.onnx")  # the second look at piles (`vision.piles`)
# Photos of any framing (`PHOTO_ZOOMS`) are looked at by the same network trained on real
# photographs as well; table views keep the one whose thresholds the classifier was fitted
# behind (docs/vision.md, "Real photographs", second stop).
PHOTO_MODEL = MODEL.with_name("photo_detector.onnx")
LONG_SIDE = 512  # network input: the frame's long side, in px
MULTIPLE = 32  # input padded to a multiple of the deepest stride
STRIDE = 4  # input px per output cell
# Regression channels at an anchor cell: offset from the cell to the full card's centre
# (cells), log of the long and short side (cells), the long side's angle doubled (a card is
# the same turned half round), face-up probability; then, at every cell on a card, the
# offset from the cell to the card's anchor (cells).
BOX_CHANNELS = ("dx", "dy", "log_long", "log_short", "cos2", "sin2", "face_up")
VOTES = ("vote_dx", "vote_dy")
CHANNELS = BOX_CHANNELS + VOTES
SIN2, FACE_UP, VOTE_X, VOTE_Y = (CHANNELS.index(c) for c in ("sin2", "face_up", *VOTES))
VOTE_MERGE = 1.0  # cells: candidates whose votes land nearer than this are one card
MAX_CANDIDATES = 1000  # cells over the threshold, best first, that decoding looks at
# Zooms for a photo of unknown card size: as framed, then shrunk down to a quarter (a phone
# photo of a few cards, each a third of the frame, shows them at a table view's size at half;
# a close-up of one card at a quarter; docs/vision.md, "Photos of any framing").
PHOTO_ZOOMS = (1.0, 0.7, 0.5, 0.35, 0.25)
# One card found at two zooms: its boxes overlap at least this much. A card's two boxes lie a
# tenth of a card apart, and kept both they crowd each other out of clear view.
ZOOM_MERGE_IOU = 0.5
# A box pooled from a photo that has under this share of the area of a surer box holding
# PART_INSIDE of it is a part of that card (a pip, an index corner) taken for a card at a
# zoom that shows the card too large: the cards of one photo are much of a size.
PART_AREA = 0.25
PART_INSIDE = 0.7
# Zooms under half find a close-up's card, and on photos of a few cards stray boxes across
# two of them: there only a sure box counts (real `valid` photos: phantoms 0.57 a photo
# with every box, 0.18 from 0.6 up, as with no small zoom; docs/vision.md).
SMALL_ZOOM_SCORE = 0.6
# A card in clear view: its anchor (the middle of what shows) lies at its centre, and no other
# card showing a face has a box that covers half of it. Only there can a face be read without
# another face passing for it (see `vision.classify`). 0.15 of the short side holds nearly
# every card in full view and few covered ones (docs/vision.md, "Faces in clear view").
# Backs do not crowd: a minion over its face-down damage markers is the only face to read.
CLEAR_OFF_CENTRE = 0.15  # of the short side
CLEAR_OVERLAP = 0.5  # IoU with another detection that shows a face


@dataclass(frozen=True)
class Letterbox:
    """How a frame maps onto the network input: scaled by `scale`, then padded."""

    scale: tuple[float, float]  # input px per frame px, (x, y)
    size: tuple[int, int]  # the scaled frame, (w, h)
    padded: tuple[int, int]  # the network input, (w, h)

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """Frame px -> input px (pixel centres at integers in both)."""
        return (np.asarray(points, np.float64) + 0.5) * self.scale - 0.5

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, np.float64) + 0.5) / self.scale - 0.5


def letterbox(frame_size: tuple[int, int], long_side: int = LONG_SIDE,
              multiple: int = MULTIPLE) -> Letterbox:
    """The mapping for a frame of (w, h) px."""
    w, h = frame_size
    k = long_side / max(w, h)
    sw, sh = max(1, round(w * k)), max(1, round(h * k))
    pw, ph = (-(-sw // multiple) * multiple, -(-sh // multiple) * multiple)
    return Letterbox((sw / w, sh / h), (sw, sh), (pw, ph))


def shrink(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`image` resized to `size` (w, h) by area averaging, as a webcam's downscale would (no
    aliasing of the card edges): halved while it is twice the size or more, where OpenCV
    averages whole 2 × 2 blocks fast, then the rest in one step: half the time of one step
    from the frame, for an input a shade softer (docs/vision.md, "The frame shrunk by
    halvings first")."""
    while image.shape[1] >= 2 * size[0] and image.shape[0] >= 2 * size[1]:
        image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2),
                           interpolation=cv2.INTER_AREA)
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def prepare(frame: np.ndarray, long_side: int = LONG_SIDE, multiple: int = MULTIPLE,
            zoom: float = 1.0) -> tuple[np.ndarray, Letterbox]:
    """The network's input image (h, w, 3) uint8 BGR for a BGR (or grey) frame. `zoom` < 1
    shrinks the frame inside the same input (the rest black), so cards that fill a photo
    come out at the size the network knows from a table view."""
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    size = (frame.shape[1], frame.shape[0])
    box = letterbox(size, max(MULTIPLE, round(long_side * zoom)), multiple)
    padded = letterbox(size, long_side, multiple).padded if zoom < 1 else box.padded
    scaled = shrink(frame[:, :, :3], box.size)
    image = np.zeros((padded[1], padded[0], 3), np.uint8)
    image[: box.size[1], : box.size[0]] = scaled
    return image, Letterbox(box.scale, box.size, padded)


def input_to_cell(points: np.ndarray) -> np.ndarray:
    """Input px -> output cells (cell centres at integers)."""
    return (np.asarray(points, np.float64) + 0.5) / STRIDE - 0.5


def cell_to_input(points: np.ndarray) -> np.ndarray:
    return (np.asarray(points, np.float64) + 0.5) * STRIDE - 0.5


def encode_angle(theta: np.ndarray | float) -> np.ndarray:
    """(cos 2θ, sin 2θ) of a long side at θ radians: θ and θ + π give the same code."""
    theta = np.asarray(theta, np.float64)
    return np.stack([np.cos(2 * theta), np.sin(2 * theta)], axis=-1)


def decode_angle(code: np.ndarray) -> np.ndarray:
    """θ in (-π/2, π/2] from (cos 2θ, sin 2θ), which need not be of unit length."""
    code = np.asarray(code, np.float64)
    return 0.5 * np.arctan2(code[..., 1], code[..., 0])


@dataclass
class Boxes(Columns):
    """Detections in network-input px."""

    centres: np.ndarray  # (N, 2)
    sizes: np.ndarray  # (N, 2) long, short
    angles: np.ndarray  # (N,) long side, radians
    scores: np.ndarray  # (N,) heatmap peak
    face_up: np.ndarray  # (N,) probability
    off_centre: np.ndarray  # (N,) anchor to centre over the short side: 0 in full view
    anchors: np.ndarray  # (N, 2) the anchors voted for: the middle of what shows of a card

    def quads(self) -> np.ndarray:
        return quads_of_boxes(self.centres, self.sizes, self.angles)


def group_by_votes(votes: np.ndarray, scores: np.ndarray,
                   merge: float = VOTE_MERGE) -> np.ndarray:
    """Indices of the candidates kept, best first: a candidate goes when its vote (the anchor
    it points at, in cells) lands within `merge` of a better candidate's, for it is then a
    second cell of that card. The anchors of two cards are distinct cells, however near."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    points = np.asarray(votes, np.float64).reshape(-1, 2)[order]
    gone = np.zeros(len(order), bool)
    keep = []
    for k in range(len(order)):
        if not gone[k]:
            keep.append(k)
            gone[k:] |= np.hypot(*(points[k:] - points[k]).T) < merge
    return order[keep].astype(np.int64)


def decode(heat: np.ndarray, boxes: np.ndarray, threshold: float,
           limit: int = MAX_CANDIDATES, merge: float = VOTE_MERGE) -> Boxes:
    """The network's outputs for one image, heat (h, w) and boxes (9, h, w) as exported
    (probabilities, not logits), to boxes in input px; one per card its cells vote for
    (`group_by_votes`), no box NMS yet. A box's anchor is its vote."""
    rows, cols = np.nonzero(heat >= threshold)
    best = np.argsort(-heat[rows, cols], kind="stable")[:limit]
    rows, cols = rows[best], cols[best]
    votes = np.stack([cols + boxes[VOTE_X, rows, cols], rows + boxes[VOTE_Y, rows, cols]],
                     axis=1)
    keep = group_by_votes(votes, heat[rows, cols], merge)
    rows, cols, votes = rows[keep], cols[keep], votes[keep]
    values = boxes[:, rows, cols].astype(np.float64)  # (9, N)
    centres = cell_to_input(np.stack([cols + values[0], rows + values[1]], axis=1))
    sizes = np.exp(np.clip(values[2:4].T, -3.0, 6.0)) * STRIDE
    # the anchor is the middle of what shows, so it sits at the centre of a card in full view
    anchors = cell_to_input(votes.astype(np.float64))
    off_centre = np.hypot(*(centres - anchors).T) / sizes[:, 1]
    return Boxes(centres, sizes, decode_angle(values[4:6].T), heat[rows, cols].astype(
        np.float64), values[FACE_UP], off_centre, anchors)


def in_clear_view(overlaps: np.ndarray, off_centre: np.ndarray,
                  face_up: np.ndarray | None = None) -> np.ndarray:
    """Which detections are cards in clear view (`CLEAR_OFF_CENTRE`, `CLEAR_OVERLAP`), given
    their IoU with one another (`iou_matrix` of their quads) and the detector's probability
    that each shows its face (None: any may)."""
    overlaps = np.array(overlaps, np.float64)
    np.fill_diagonal(overlaps, 0.0)
    if face_up is not None:  # a back cannot pass for a face
        overlaps[:, np.asarray(face_up) < 0.5] = 0.0
    crowded = overlaps.max(axis=1, initial=0.0) >= CLEAR_OVERLAP
    return (np.asarray(off_centre) < CLEAR_OFF_CENTRE) & ~crowded


def parts_of_cards(quads: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Which boxes lie mostly inside a surer box of four times their area or more (see
    `PART_AREA`). The overlap of a pair comes from its IoU: I / (a + b - I) = IoU."""
    areas = np.array([abs(cv2.contourArea(np.float32(q))) for q in quads])
    iou = iou_matrix(quads, quads)
    inside = iou * (areas[:, None] + areas[None]) / (1 + iou) / np.maximum(areas[:, None], 1e-9)
    holder = ((inside >= PART_INSIDE) & (areas[:, None] < PART_AREA * areas[None])
              & (np.asarray(scores)[None] > np.asarray(scores)[:, None]))
    return holder.any(axis=1)


def orientations(quads: np.ndarray, table_from_image: np.ndarray | None = None) -> list[str]:
    """UPRIGHT where the long side runs along the image's vertical (or, given the table
    homography, along the table's y axis), SIDEWAYS otherwise."""
    q = np.float64(quads).reshape(-1, 4, 2)
    if not len(q):
        return []
    if table_from_image is not None:
        q = cv2.perspectiveTransform(q.reshape(1, -1, 2), np.float64(table_from_image))
        q = q.reshape(-1, 4, 2)
    along = ((q[:, 3] - q[:, 0]) + (q[:, 2] - q[:, 1])) / 2  # portrait order: a long side
    side = ((q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])) / 2
    # a homography can swap which side looks longer
    swap = np.linalg.norm(side, axis=1) > np.linalg.norm(along, axis=1)
    along[swap] = side[swap]
    upright = np.abs(along[:, 1]) >= np.abs(along[:, 0])
    return [UPRIGHT if u else SIDEWAYS for u in upright]


@dataclass
class Found(Columns):
    """Detections in frame px: the columns `CardDetector.detect` gives."""

    quads: np.ndarray  # (N, 4, 2)
    score: np.ndarray
    face_up: np.ndarray
    off_centre: np.ndarray
    anchor: np.ndarray  # (N, 2)

    @classmethod
    def of(cls, boxes: Boxes, view: Letterbox | PileView) -> Found:
        return cls(view.to_frame(boxes.quads()).reshape(-1, 4, 2), boxes.scores,
                   boxes.face_up, boxes.off_centre, view.to_frame(boxes.anchors).reshape(-1, 2))

    @classmethod
    def concatenate(cls, parts: list[Found]) -> Found:
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))


def run_network(session, image: np.ndarray, threshold: float, nms_iou: float) -> Boxes:
    """A detector network's boxes on one input image (h, w, 3) uint8, after NMS."""
    x = np.ascontiguousarray(image.transpose(2, 0, 1)[None], dtype=np.float32)
    heat, regression = session.run(None, {"image": x})
    found = decode(heat[0, 0], regression[0], threshold)
    keep = rotated_nms(found.quads(), found.scores, nms_iou)
    return found[keep]


class CardDetector:
    """Every card in a frame, face up or down, covered or not, as full-card quads."""

    def __init__(self, model: Path = MODEL, *, threads: int = 1,
                 piles: Path | None = PILE_MODEL, video: bool = False) -> None:
        """`piles`: the network that looks again at each pile (`vision.piles`), None for
        the first pass alone; `video`: frames come from one camera in order, and a pile that
        has not changed keeps what was found in it."""
        def decoding(report: dict) -> tuple[float, float]:
            """The score threshold and NMS overlap, for outputs this code can decode."""
            if int(report["stride"]) != STRIDE or tuple(report["channels"]) != CHANNELS:
                raise ValueError("stride or channels differ from this code's")
            return float(report["score_threshold"]), float(report["nms_iou"])

        def read(report: dict) -> tuple[int, int, float, float]:
            return (int(report["input_long_side"]), int(report["pad_multiple"]),
                    *decoding(report))

        def read_piles(report: dict) -> tuple[int, float, float, float]:
            return int(report["input_px"]), float(report["card_px"]), *decoding(report)

        self.session, (self.long_side, self.multiple, self.threshold, self.nms_iou) = (
            load_model(model, "card detector", read, threads=threads,
                       missing="no such file (train one: python -m training.detect_train)"))
        self.piles = None if piles is None else load_model(
            piles, "pile detector", read_piles, threads=threads,
            missing="no such file (train one: python -m training.pile_train)")
        self.pile_memory = PileMemory() if video else None

    def boxes(self, frame: np.ndarray, zoom: float = 1.0) -> tuple[Boxes, Letterbox]:
        """The first pass's detections in network-input px, and the frame's letterbox."""
        image, box = prepare(frame, self.long_side, self.multiple, zoom)
        return run_network(self.session, image, self.threshold, self.nms_iou), box

    def look_again(self, frame: np.ndarray, found: Found) -> Found:
        """`found` with each pile's middle (`vision.piles`) detected again, nearer: where
        boxes crowd one another, and around each face-up card (markers tucked under it), a
        crop of the frame in which a card is `card_px` wide is given to the pile network,
        and its detections in the crop's core are added, each in place of the first-pass
        boxes there that it overlaps by `KEEP_IOU` (a first-pass box nothing overlaps so
        much is a card the pile network missed). A point in the cores of two crops belongs
        to the first. In video, a crop that has not changed keeps what was found in it
        (`PileMemory`)."""
        if self.piles is None:
            return found
        owned = np.zeros(len(found.score), bool)  # first-pass boxes a second look replaced
        cores: list[tuple[PileView, float]] = []
        again = []
        for group in piles(iou_matrix(found.quads, found.quads), alone=found.face_up >= 0.5):
            short = float(np.median([box_of_quad(q)[1][1] for q in found.quads[group]]))
            corners = found.quads[group].reshape(-1, 2)
            seen, view = self._look(frame, (corners.min(axis=0) + corners.max(axis=0)) / 2,
                                    short)

            def mine(points: np.ndarray, view: PileView = view, short: float = short
                     ) -> np.ndarray:
                inside = view.core(points, short)
                for earlier, earlier_short in cores:
                    inside &= ~earlier.core(points, earlier_short)
                return inside

            kept = mine(seen.anchor)
            if len(group) == 1:  # a face-up card alone: only what lies under or over it
                kept &= iou_matrix(seen.quads, found.quads[group]).max(
                    axis=1, initial=0.0) >= CROWDED_IOU
            seen = seen[np.nonzero(kept)[0]]  # a copy: memory keeps its own
            core = np.nonzero(mine(found.anchor))[0]
            # first-pass boxes in the core that a second-look box overlaps by KEEP_IOU; the
            # pile network misses some cards the first pass found, and those stay
            same = iou_matrix(found.quads[core], seen.quads) >= KEEP_IOU
            owned[core[same.any(axis=1)]] = True
            # a card both passes found is as sure as the surer one says (the score gates
            # naming: `vision.classify`)
            for j in np.nonzero(same.any(axis=0))[0]:
                seen.score[j] = max(seen.score[j], found.score[core[same[:, j]]].max())
            again.append(seen)
            cores.append((view, short))
        if self.pile_memory is not None:
            self.pile_memory.next_frame()
        return Found.concatenate([found[np.nonzero(~owned)[0]], *again])

    def _look(self, frame: np.ndarray, centre: np.ndarray, short: float
              ) -> tuple[Found, PileView]:
        """The pile network's detections in the crop around `centre` for cards of short
        side `short` (frame px), or those of an earlier frame's crop of the pile where its
        pixels have not changed since."""
        session, (size, card_px, threshold, nms_iou) = self.piles
        memory = self.pile_memory
        for look in memory.near(centre, short) if memory else ():
            image, view = pile_crop(frame, look.centre, look.short, size, card_px)
            if memory.recall(look, image):
                return look.found, view
        image, view = pile_crop(frame, centre, short, size, card_px)
        seen = Found.of(run_network(session, image, threshold, nms_iou), view)
        if memory is not None:
            memory.remember(centre, short, image, seen)
        return seen, view

    def _found_at(self, frame: np.ndarray, zoom: float) -> Found:
        found = Found.of(*self.boxes(frame, zoom))
        if zoom < 0.5:
            found = found[np.nonzero(found.score >= SMALL_ZOOM_SCORE)[0]]
        return found

    def detect(self, frame: np.ndarray, table_from_image: np.ndarray | None = None,
               timestamp: float = 0.0, zooms: tuple[float, ...] = (1.0,)) -> Observation:
        """The cards in a BGR frame: quads in the frame's px (clockwise, first edge short),
        orientation to the image or, given the image -> table mm homography, to the table;
        extra columns `score` (detector), `face_up` (probability), `off_centre` and `anchor`
        (frame px; see `Boxes`) and `clear` (`in_clear_view`). Cards are UNKNOWN until
        classified. Several `zooms` (see `prepare`) suit photos whose card size is not known:
        their detections are pooled, and a card found at two zooms kept once. At one zoom (a
        table view), each pile is then looked at again (`look_again`); photos of any framing
        are not: on the real photos the second look found more cards but left more stray
        boxes, and fewer cards were named."""
        found = Found.concatenate([self._found_at(frame, zoom) for zoom in zooms])
        if len(zooms) > 1:  # pooled: a card found at two zooms kept once, no part of a card
            found = found[rotated_nms(found.quads, found.score, ZOOM_MERGE_IOU)]
            found = found[np.nonzero(~parts_of_cards(found.quads, found.score))[0]]
        else:
            found = self.look_again(frame, found)
        quads = found.quads.astype(np.float32)
        obs = Observation.build(quads, orientation=orientations(quads, table_from_image),
                                timestamp=timestamp)
        obs.extra.update({name: getattr(found, name).astype(np.float32)
                          for name in ("score", "face_up", "off_centre", "anchor")})
        obs.extra["clear"] = in_clear_view(iou_matrix(quads, quads), found.off_centre,
                                           found.face_up)
        return obs


def main() -> None:
    parser = argparse.ArgumentParser(description="Detect the cards in one image.")
    parser.add_argument("image", type=Path)
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--out", type=Path, help="write the image with the quads drawn on")
    args = parser.parse_args()
    frame = cv2.imread(str(args.image))
    if frame is None:
        raise SystemExit(f"cannot read {args.image}")
    try:
        obs = CardDetector(args.model).detect(frame)
    except ModelError as error:
        raise SystemExit(str(error)) from None
    if args.out:
        for quad, up in zip(obs.quads, obs.extra["face_up"], strict=True):
            colour = (0, 220, 0) if up >= 0.5 else (0, 140, 255)  # face up green, down orange
            cv2.polylines(frame, [np.round(quad).astype(np.int32)], True, colour, 1,
                          cv2.LINE_AA)
        cv2.imwrite(str(args.out), frame)
    print(json.dumps([{**row, "face_up": round(float(up), 3), "score": round(float(s), 3)}
                      for row, up, s in zip(obs.to_json(), obs.extra["face_up"],
                                            obs.extra["score"], strict=True)]))


if __name__ == "__main__":
    main()
