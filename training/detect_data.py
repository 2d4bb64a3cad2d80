"""Training targets for the card detector, from rendered table scenes.

Every card whose label says `visible` ≥ 3 % is a target, so markers tucked under a minion
and fans of face-down markers each count. The network input is the frame as
`vision.detect.prepare` makes it (long side 512 px); the outputs come every 4 input px (a
cell). Per target card:

- **anchor**: the cell of the most interior visible pixel of the card (the middle of the
  ridge where the distance transform of the pixels the renderer says are that card's peaks:
  `ridge_middle`), not the card's centre:
  the centres of a minion and of the markers under it, or of a fan, are a cell or two apart,
  what shows of each is not. A cell already taken by another card is skipped for the card's
  next best pixel, so every card gets its own cell.
- **heatmap**: a Gaussian at the anchor (CenterNet), its radius from how thick the visible
  part is: a whole card gets radius 2, a thin sliver a single cell.
- **boxes** at the anchor cell (channels `vision.detect.BOX_CHANNELS`): the offset from the cell
  to the full card's centre (hidden part included: that is what lets rectification work),
  the log of its long and short side, the long side's angle as (cos 2θ, sin 2θ), face up.
- **votes** at every cell a target's visible part owns (most of its pixels there, or its
  anchor): the offset from the cell to that card's anchor. Neighbouring peaks are one card
  when they vote for one anchor and two when each votes for itself: the heatmap alone cannot
  tell a card's second peak from the marker a cell away (`vision.detect.decode`). Each cell
  weighs 1 / the card's owned cells, so a sliver counts as much as a whole card.

Everything is in cells (input px / 4) and reproducible from the seed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from simulator.layout import random_scene
from simulator.render import RenderResult, render
from simulator.scene import Scene
from vision.detect import (
    BOX_CHANNELS,
    LONG_SIDE,
    MULTIPLE,
    STRIDE,
    encode_angle,
    input_to_cell,
    prepare,
)
from vision.geometry import box_of_quad

from .data import in_chunks

# pixels this close to the deepest of a card's visible part count as its ridge
RIDGE_PX, RIDGE_SHARE = 1.5, 0.1
OWN_SHARE = 0.25  # of a cell's pixels, for a card to own the cell (votes)
MIN_VISIBLE = 0.03  # a card showing less than this is not a target (nor a false positive)
MARKER_ROLES = ("armor", "damage", "durability", "buff", "token")
ROLES = ("minion", "weapon", "spell_buff", "secret", "deck", "discard", "held", "in_hand",
         *MARKER_ROLES, "other")
MAX_CARDS = 160  # per scene, for the padded label arrays
CHUNK = 40  # scenes a parallel job


class View(Protocol):
    """How a frame maps onto a network input (`vision.detect.Letterbox`, a crop's
    `vision.piles.PileView`)."""

    scale: tuple[float, float]  # input px per frame px
    padded: tuple[int, int]  # the network input, (w, h)

    def to_input(self, points: np.ndarray) -> np.ndarray: ...

    def to_frame(self, points: np.ndarray) -> np.ndarray: ...


@dataclass
class SceneTargets:
    """One scene's network input and targets, and its cards in input px for evaluation.
    The card arrays hold every card with any part in view; `anchor` is (row, col) of its
    heatmap peak, (-1, -1) for a card too hidden to be a target."""

    image: np.ndarray  # (H, W, 3) uint8
    heatmap: np.ndarray  # (h, w) float32
    boxes: np.ndarray  # (7, h, w) float32, meaningful where mask
    mask: np.ndarray  # (h, w) bool: anchor cells
    votes: np.ndarray  # (2, h, w) float32: cell to its owner's anchor, where vote_weight > 0
    vote_weight: np.ndarray  # (h, w) float32: 1 / owned cells of the cell's card, else 0
    quads: np.ndarray  # (n, 4, 2) float32, input px, first edge short
    visible: np.ndarray  # (n,) float32
    face_up: np.ndarray  # (n,) bool
    role: np.ndarray  # (n,) int8 index in ROLES
    fan: np.ndarray  # (n,) int16: marker group (same role, overlapping), -1 if none
    anchor: np.ndarray  # (n, 2) int32


def _gaussian(heatmap: np.ndarray, row: int, col: int, radius: int) -> None:
    """CenterNet's peak: exp(-d²/2σ²), σ = (2r + 1) / 6, kept with max where peaks meet."""
    sigma = (2 * radius + 1) / 6
    h, w = heatmap.shape
    y0, y1 = max(0, row - radius), min(h, row + radius + 1)
    x0, x1 = max(0, col - radius), min(w, col + radius + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    g = np.exp(-((yy - row) ** 2 + (xx - col) ** 2) / (2 * sigma * sigma))
    np.maximum(heatmap[y0:y1, x0:x1], g, out=heatmap[y0:y1, x0:x1])


def ridge_middle(depth: np.ndarray, points: np.ndarray, free: np.ndarray) -> int:
    """Index of the anchor among a card's visible pixels: the middle of the deepest ones.

    The distance transform of a rectangle peaks on a ridge, not a point: a card in full view
    is deepest all along a segment of its long axis (its length the difference of the sides,
    0.4 of the short side), a sliver all along its length. Any one pixel of it is as deep as
    the next, so the deepest pixel is an arbitrary pick the network cannot learn to place;
    it learns a smear instead, with low peaks and two maxima on one card. The pixel nearest
    the mean of the ridge is a definite point: a full card's centre, a strip's middle.
    `points` are the pixels (frame px); `free` marks those whose cell no other card has
    taken."""
    deepest = float(depth[free].max())
    ridge = free & (depth >= deepest - max(RIDGE_PX, RIDGE_SHARE * deepest))
    middle = points[ridge].mean(axis=0)
    gap = np.where(ridge, np.hypot(*(points - middle).T), np.inf)
    return int(np.argmin(gap))


def _votes(owner: np.ndarray, anchors: dict[int, tuple[int, int]]
           ) -> tuple[np.ndarray, np.ndarray]:
    """(2, h, w) offsets from each owned cell to its card's anchor, in cells, and the cells'
    weights (1 / the card's owned cells; 0 where no target owns the cell)."""
    votes = np.zeros((2, *owner.shape), np.float32)
    weight = np.zeros(owner.shape, np.float32)
    rows, cols = np.mgrid[:owner.shape[0], :owner.shape[1]]
    for i, (row, col) in anchors.items():
        mine = owner == i
        votes[0][mine] = col - cols[mine]
        votes[1][mine] = row - rows[mine]
        weight[mine] = 1.0 / mine.sum()
    return votes, weight


def card_extent(result: RenderResult, i: int) -> tuple[np.ndarray, np.ndarray]:
    """The frame pixels card `i`'s quad covers: its top-left (x, y) and one past its
    bottom-right, within the frame."""
    frame_h, frame_w = result.owner.shape
    quad = result.cards[i].quad
    return (np.maximum(np.floor(quad.min(axis=0)).astype(int), 0),
            np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, [frame_w, frame_h]))


def marker_fans(result: RenderResult, targets: list[int]) -> dict[int, int]:
    """Marker cards grouped by role and overlap on the table: card index -> group id."""
    markers = [i for i in targets if result.cards[i].role in MARKER_ROLES]
    parent = {i: i for i in markers}

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for a, i in enumerate(markers):
        for j in markers[a + 1:]:
            ci, cj = result.cards[i], result.cards[j]
            if ci.role != cj.role:
                continue
            inter, _ = cv2.intersectConvexConvex(np.float32(ci.quad_mm), np.float32(cj.quad_mm))
            if inter > 1.0:  # mm²
                parent[root(j)] = root(i)
    roots = sorted({root(i) for i in markers})
    return {i: roots.index(root(i)) for i in markers}


def scene_targets(result: RenderResult, long_side: int = LONG_SIDE) -> SceneTargets:
    """Network input and targets for one rendered scene (needs `result.owner`)."""
    return view_targets(result, *prepare(result.image, long_side, MULTIPLE))


def view_targets(result: RenderResult, image: np.ndarray, box: View) -> SceneTargets:
    """Targets for `image`, a view of a rendered scene's frame that `box` maps (the whole
    frame letterboxed, or a crop of it: `vision.piles`). Only what shows inside the view
    counts; a card cut by the view's edge is a target by its part inside."""
    if result.owner is None:
        raise ValueError("the render result has no owner map")
    frame_h, frame_w = result.image.shape[:2]
    out_h, out_w = box.padded[1] // STRIDE, box.padded[0] // STRIDE
    heatmap = np.zeros((out_h, out_w), np.float32)
    boxes = np.zeros((len(BOX_CHANNELS), out_h, out_w), np.float32)
    taken = np.zeros((out_h, out_w), bool)
    cell_per_px = float(np.mean(box.scale)) / STRIDE
    owner = np.full((out_h, out_w), -1, np.int64)
    owner_count = np.zeros((out_h, out_w), np.int64)

    seen = [i for i, c in enumerate(result.cards) if c.visible > 0]
    targets = [i for i in seen if result.cards[i].visible >= MIN_VISIBLE]
    # (thickness, index, cells, distances, frame px) of each target's visible pixels
    candidates = []
    # the frame px the view shows: the whole frame for a letterbox, the crop for a crop
    first = np.maximum(np.ceil(box.to_frame(np.full(2, -0.5))).astype(int), 0)
    end = np.minimum(np.ceil(box.to_frame(np.float64(box.padded) - 0.5)).astype(int),
                     [frame_w, frame_h])
    visible = {i: result.cards[i].visible for i in seen}  # the share that shows in the view
    for i in targets:
        lo, hi = card_extent(result, i)
        (x0, y0), (x1, y1) = np.maximum(lo, first), np.minimum(hi, end)
        mine = (result.owner[y0:max(y0, y1), x0:max(x0, x1)] == i).astype(np.uint8)
        ys, xs = np.nonzero(mine)
        if np.any(lo < first) or np.any(hi > end):  # a crop cuts the card
            everywhere = np.count_nonzero(result.owner[lo[1]:hi[1], lo[0]:hi[0]] == i)
            visible[i] *= len(ys) / max(1, everywhere)
        if visible[i] < MIN_VISIBLE or not len(ys):
            continue
        # padded with background: the view's edge bounds what shows too
        dist = cv2.distanceTransform(np.pad(mine, 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
        d = dist[ys, xs]
        pixels = np.stack([xs + x0, ys + y0], 1)
        cells = np.rint(input_to_cell(box.to_input(pixels))).astype(int)
        cells = np.clip(cells, 0, [out_w - 1, out_h - 1])
        candidates.append((float(d.max()), i, cells, d, pixels))
        # the card owns a cell where its pixels are the most of any card's and a quarter
        flat, counts = np.unique(cells[:, 1] * out_w + cells[:, 0], return_counts=True)
        more = counts > owner_count.flat[flat]
        owner_count.flat[flat[more]] = counts[more]
        owner.flat[flat[more]] = i

    anchors = {}
    # the most visible cards choose first; ties by index, so the result is deterministic
    for _, i, cells, d, pixels in sorted(candidates, key=lambda t: (-t[0], t[1])):
        free = ~taken[cells[:, 1], cells[:, 0]]
        pick = ridge_middle(d, pixels, free if free.any() else np.ones_like(free))
        col, row = (int(v) for v in cells[pick])
        taken[row, col] = True
        anchors[i] = (row, col)
        centre, size, theta = box_of_quad(box.to_input(result.cards[i].quad))
        cx, cy = input_to_cell(centre)
        boxes[:, row, col] = (cx - col, cy - row, *np.log(size / STRIDE), *encode_angle(theta),
                              float(result.cards[i].face_up))
        _gaussian(heatmap, row, col, int(0.6 * d[pick] * cell_per_px))
    for row, col in anchors.values():
        heatmap[row, col] = 1.0  # exactly 1 at each anchor, whatever the neighbours drew
    owner[owner_count < OWN_SHARE / (cell_per_px * cell_per_px)] = -1
    for i, (row, col) in anchors.items():
        owner[row, col] = i
    votes, vote_weight = _votes(owner, anchors)

    fans = marker_fans(result, list(anchors))
    cards = [result.cards[i] for i in seen]
    return SceneTargets(
        image=image, heatmap=heatmap, boxes=boxes, mask=taken, votes=votes,
        vote_weight=vote_weight,
        quads=np.float32([box.to_input(c.quad) for c in cards]).reshape(-1, 4, 2),
        visible=np.float32([visible[i] for i in seen]),
        face_up=np.array([c.face_up for c in cards], bool),
        role=np.int8([ROLES.index(c.role) if c.role in ROLES else len(ROLES) - 1
                      for c in cards]),
        fan=np.int16([fans.get(i, -1) for i in seen]),
        anchor=np.int32([anchors.get(i, (-1, -1)) for i in seen]).reshape(-1, 2))


def _stack(items: list[SceneTargets]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Images (N, H, W, 3) and targets: dense maps in float16 (half the memory; the peak is
    exactly 1.0), card labels padded to MAX_CARDS (visible 0 and role -1 in the padding)."""
    n = len(items)
    labels = {"quads": np.zeros((n, MAX_CARDS, 4, 2), np.float32),
              "visible": np.zeros((n, MAX_CARDS), np.float32),
              "face_up": np.zeros((n, MAX_CARDS), bool),
              "role": np.full((n, MAX_CARDS), -1, np.int8),
              "fan": np.full((n, MAX_CARDS), -1, np.int16),
              "cards": np.zeros(n, np.int16)}
    for k, t in enumerate(items):
        m = min(len(t.visible), MAX_CARDS)
        labels["cards"][k] = m
        for name in ("quads", "visible", "face_up", "role", "fan"):
            labels[name][k, :m] = getattr(t, name)[:m]
    targets = {"heatmap": np.stack([t.heatmap for t in items]).astype(np.float16),
               "boxes": np.stack([t.boxes for t in items]).astype(np.float16),
               "mask": np.stack([t.mask for t in items]),
               "votes": np.stack([t.votes for t in items]).astype(np.float16),
               "vote_weight": np.stack([t.vote_weight for t in items]).astype(np.float16),
               **labels}
    return np.stack([t.image for t in items]), targets


CLOSE_UP_SHARE = 0.35  # scenes seen from nearer: a photo of a few cards, not the table


def close_up(rng: np.random.Generator, scene: Scene) -> Scene:
    """The same table from 0.18–0.6 of the distance, aimed at one of its cards: cards then
    fill a fifth to a third of the frame, as in a phone photo of a few cards."""
    if not scene.cards:
        return scene
    aim = scene.cards[int(rng.integers(len(scene.cards)))].center
    nearer = float(np.exp(rng.uniform(np.log(0.18), np.log(0.6))))
    camera = dataclasses.replace(scene.camera, target=tuple(float(v) for v in aim),
                                 distance=scene.camera.distance * nearer)
    return dataclasses.replace(scene, camera=camera)


def _chunk(seed: int, designs: Sequence[str], count: int, image_size: tuple[int, int],
           own_backs: float = 0.0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(count):
        scene = random_scene(rng, designs=designs, image_size=image_size, own_backs=own_backs)
        if rng.random() < CLOSE_UP_SHARE:
            scene = close_up(rng, scene)
        items.append(scene_targets(render(scene)))
    return _stack(items)


def make_detector_data(seed: int, designs: Sequence[str], count: int,
                       image_size: tuple[int, int] = (1280, 720), workers: int = 2,
                       progress: bool = True, own_backs: float = 0.0
                       ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """`count` scenes rendered at `image_size` from `designs`: images uint8 (N, H, W, 3) at
    the network's input size and their targets (see `_stack`). Made in chunks of CHUNK
    scenes, each from its own seed: the same seed gives the same data, any worker count.
    `own_backs`: the share of scenes whose deck has a back of no design (`simulator.backs`)."""
    return scenes_in_chunks(_chunk, seed, designs, count, image_size, workers, progress,
                            own_backs)


def scenes_in_chunks(make: Callable[..., tuple[np.ndarray, dict[str, np.ndarray]]],
                     seed: int, designs: Sequence[str], count: int,
                     image_size: tuple[int, int], workers: int, progress: bool,
                     own_backs: float = 0.0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """`make(seed, designs, count, image_size, own_backs)` (images and targets of `count`
    scenes) over chunks of CHUNK scenes, each from its own seed, joined."""
    parts = in_chunks(make, seed, count, CHUNK,
                      {"designs": list(designs), "image_size": tuple(image_size),
                       "own_backs": own_backs}, workers, "scenes", progress)
    images = np.concatenate([p[0] for p in parts])
    return images, {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}
