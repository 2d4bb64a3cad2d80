"""Training crops for the pile network (`vision.piles`): the detector's targets, in crops.

Each rendered table scene gives a few square crops as the run time cuts them: centred on a
pile (cards whose quads overlap, `vision.piles.piles`) with the jitter of a first pass's
boxes in where its middle is and how big a card is, and one centred on any card at all, so
that single cards and what lies around a pile are seen too. Targets are the detector's
(`training.detect_data.view_targets`) for what shows inside the crop.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simulator.layout import random_scene
from simulator.render import render
from vision.geometry import box_of_quad, iou_matrix
from vision.piles import pile_crop, piles

from .detect_data import MIN_VISIBLE, SceneTargets, _stack, scenes_in_chunks, view_targets

MAX_PILES = 3  # pile crops a scene (the most crowded), besides one on any card
CENTRE_JITTER = 0.15  # of the card's short side: a first pass's pile middle is this far off
SIZE_JITTER = 0.07  # log of the card size a first pass gives


def crops_of_scene(rng: np.random.Generator, result) -> list[SceneTargets]:
    """Crops of one rendered scene (`simulator.render.RenderResult`) and their targets."""
    shown = [i for i, c in enumerate(result.cards) if c.visible >= MIN_VISIBLE]
    if not shown:
        return []
    quads = np.float32([result.cards[i].quad for i in shown]).reshape(-1, 4, 2)
    groups = sorted(piles(iou_matrix(quads, quads)), key=len, reverse=True)[:MAX_PILES]
    groups.append(np.array([rng.integers(len(shown))]))
    out = []
    for group in groups:
        shorts = [box_of_quad(quads[k])[1][1] for k in group]
        short = float(np.median(shorts)) * float(np.exp(rng.normal(0, SIZE_JITTER)))
        corners = quads[group].reshape(-1, 2)
        centre = (corners.min(axis=0) + corners.max(axis=0)) / 2
        centre = centre + rng.normal(0, CENTRE_JITTER * short, 2)
        out.append(view_targets(result, *pile_crop(result.image, centre, short)))
    return out


def _chunk(seed: int, designs: Sequence[str], count: int, image_size: tuple[int, int],
           own_backs: float = 0.0) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(count):
        items += crops_of_scene(rng, render(random_scene(
            rng, designs=designs, image_size=image_size, own_backs=own_backs)))
    return _stack(items)


def make_pile_data(seed: int, designs: Sequence[str], scenes: int,
                   image_size: tuple[int, int] = (1280, 720), workers: int = 2,
                   progress: bool = True, own_backs: float = 0.0
                   ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Crops of `scenes` scenes rendered at `image_size` from `designs` (up to
    MAX_PILES + 1 a scene), as `training.detect_data.make_detector_data` gives scenes."""
    return scenes_in_chunks(_chunk, seed, designs, scenes, image_size, workers, progress,
                            own_backs)
