"""Training samples for the index experts: the two index corners of faces, cut out at twice
the classifier's resolution, as the classifier's samples draw them (`training.classifier_data`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cards import DECK
from simulator.cardart import variants
from vision.classify import EXPERTS, SHARPNESS_SCALE

from .classifier_data import INDEX_CORNER, INPUT_PX, RELETTERS, sample
from .data import in_chunks, kept

SCALE = SHARPNESS_SCALE  # the card is cut out at this many times the classifier's input
CARD = (SCALE * INPUT_PX[0], SCALE * INPUT_PX[1])  # width × height
# an index corner, as the classifier's own corner view takes it
CORNER = (round(CARD[0] * INDEX_CORNER[0]), round(CARD[1] * INDEX_CORNER[1]))
# the rank expert's other index letters: a deck's own, or none at all (guyenne's courts)
RANK_LETTERS = {rank: (*letters, "") for rank, letters in RELETTERS.items()}


def corners(cards: np.ndarray) -> np.ndarray:
    """The two index corners of cards (N, H, W, 3 at CARD) side by side, (N, h, 2w, 3): the
    top-left, and the bottom-right turned half round (upright, as the top-left)."""
    w, h = CORNER
    top_left = cards[:, :h, :w]
    bottom_right = cards[:, -h:, -w:][:, ::-1, ::-1]
    return np.ascontiguousarray(np.concatenate([top_left, bottom_right], axis=2))


def batch(seed: int, designs: list[str], count: int, width_px: float | None = None,
          reads: str = "suit", relettered: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """`count` faces over `designs`, as their corners (`corners`), and what they are (an index
    in EXPERTS[reads].classes); `relettered`: the share of courts and aces whose index is
    redrawn with another letter or erased (RANK_LETTERS)."""
    kind = EXPERTS[reads]
    rng = np.random.default_rng(seed)
    cards = np.empty((count, CARD[1], CARD[0], 3), np.uint8)
    labels = np.empty(count, np.int64)
    for i in range(count):
        design = designs[int(rng.integers(len(designs)))]
        while True:
            label = int(rng.integers(len(DECK)))
            if variants(design, DECK[label]):
                break
        cards[i] = sample(rng, design, label, width_px, relettered, CARD, RANK_LETTERS)
        labels[i] = kind.classes.index(kind.of_face(DECK[label]))
    return corners(cards), labels


def make_data(seed: int, designs: list[str], count: int, workers: int,
              width_px: float | None = None, cache: Path | None = None, reads: str = "suit",
              relettered: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Corners and labels made in parallel chunks of 500 (`batch`), each from its own seed,
    kept in `cache` if given (`training.data.kept`)."""
    def made() -> dict[str, np.ndarray]:
        parts = in_chunks(batch, seed, count, 500, {"designs": designs, "width_px": width_px,
                                                    "reads": reads, "relettered": relettered},
                          workers, "data")
        return {"images": np.concatenate([p[0] for p in parts]),
                "labels": np.concatenate([p[1] for p in parts])}

    key = [seed, sorted(designs), count, width_px, list(CARD)]
    if reads != "suit" or relettered:  # the suit expert's earlier caches still match
        key += [reads, relettered]
    arrays = kept(cache, f"{reads}s", key, made)
    return arrays["images"], arrays["labels"]
