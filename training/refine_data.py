"""Training samples for the card refiner (`vision.refine`): the shipped detector's cuts.

Samples are the cards the shipped detector finds in rendered table scenes, cut out around its
quads, so the errors the refiner learns to undo are the detector's own; as many again are cut
out around the true outline moved at random, for the smaller errors of a second pass.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.detect import CardDetector
from vision.rectify import portrait_orders
from vision.refine import CROP_PX, crop_warps, cut_out, offsets_of

from .data import in_chunks, kept
from .evaluate import scene_cards

CHUNK = 25  # scenes a parallel job
MAX_SHIFT = 0.5  # card widths: a detection further off than this is a wrong match
JITTER = (0.01, 0.08)  # card widths: the spread of the random moves of true corners


def make_refiner_data(seed: int, count: int, designs: list[str]) -> tuple:
    """Cut-outs (n, H, W, 3) uint8 and their corner offsets (n, 8) from `count` scenes."""
    detector = CardDetector()
    cuts, offsets = [], []
    for k in range(count):
        result, quads, cards, rng = scene_cards(seed, k, designs, detector)
        if not cards:
            continue
        truth = np.float32([c.quad for c in cards])
        portrait = portrait_orders(truth)
        width = np.linalg.norm(portrait[:, 1] - portrait[:, 0], axis=1)[:, None, None]
        spread = rng.uniform(*JITTER, (len(cards), 1, 1)) * width
        moved = (truth + rng.normal(0, 1, truth.shape) * spread
                 + rng.normal(0, 0.5, (len(cards), 1, 2)) * spread)
        for start in (quads, moved.astype(np.float32)):
            warps = crop_warps(portrait_orders(start))
            target = offsets_of(truth, warps)
            keep = np.abs(target).max(axis=1) <= MAX_SHIFT
            cuts.append(cut_out(result.image, warps[keep]))
            offsets.append(target[keep])
    return (np.concatenate(cuts) if cuts else np.zeros((0, CROP_PX[1], CROP_PX[0], 3), np.uint8),
            np.concatenate(offsets) if offsets else np.zeros((0, 8), np.float32))


def make_data(seed: int, designs: list[str], scenes: int, workers: int,
              cache: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cut-outs and their corners' offsets, kept in `cache` if given (`training.data.kept`)."""
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(make_refiner_data, seed, scenes, CHUNK, {"designs": designs},
                          workers, "scenes")
        return {"cuts": np.concatenate([p[0] for p in parts]),
                "offsets": np.concatenate([p[1] for p in parts])}

    arrays = kept(cache, "refiner", [seed, sorted(designs), scenes], made)
    return arrays["cuts"], arrays["offsets"]
