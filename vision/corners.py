"""Covered faces named from an index corner that shows.

A face partly under another card is not named from its whole quad: the classifier sees the
card on top as well, and on the table no covered face clears its threshold. Yet a card under
a minion, a weapon under its durability markers or the cards of a fan often show one index
corner whole, and the index experts name a card from one corner alone (each corner is the
whole index: rank and suit). What they cannot tell is whether the corner they are shown is
the card's own or another card's lying over it, and read over another card they name that
card. A small CNN does: it looks at each index corner with a margin around it (the card's own
edge and whatever crosses it) and says whether the corner shows, unhidden (trained on
rendered tables, its target from the renderer's owner map: `training.corner_train`). A
covered face with a corner that shows is read from that corner alone, and named where the
experts are sure (the report's `threshold`, fitted on calibration designs so that none is
named wrong).

    python -m training.corner_train     # trains and writes models/corner_check.onnx
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from cards import DECK, RANKS, SUITS

from .classify import SHARPNESS_SCALE, CardClassifier
from .rectify import CARD_PX, portrait_orders
from .runtime import load_model, shipped

MODEL = shipped("corner_check.onnx")
# the index corner the experts read, of the card's width and height (as
# `training.classifier_data.INDEX_CORNER`, which training cannot share with the product)
INDEX = (0.34, 0.30)
# A patch spans the index corner from SPAN[0] to SPAN[1] of its width and height: the table
# beyond the card's edge shows whether the corner is whole, and a little inside whether a card
# lies over it there.
SPAN = (-0.3, 1.3)
PATCH_PX = (48, 56)  # width × height of a patch, as the CNN sees it
# the detector's face-up probability from which a covered card is read as a face
FACE_UP = 0.5
# A card that a corner likely shows (`CornerCheck.claims`): the corner shows and the experts
# read it from this probability. Two covered cards of one frame that both claim a card are
# one card's corner lying over the other's; neither is named from it, however sure.
CLAIM = 0.5
_RANK_OF = np.array([RANKS.index(card[:-1]) for card in DECK])
_SUIT_OF = np.array([SUITS.index(card[-1]) for card in DECK])


def fine_card() -> tuple[int, int]:
    """The card as the index experts read it, width × height (px): as
    `CardClassifier.fine_look` cuts it."""
    return SHARPNESS_SCALE * CARD_PX[0], SHARPNESS_SCALE * CARD_PX[1]


def index_corner() -> tuple[int, int]:
    """An index corner in a card cut out at `fine_card`, width × height (px)."""
    width, height = fine_card()
    return round(width * INDEX[0]), round(height * INDEX[1])


def corner_patches(image: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Both index corners of each card quadrilateral of `image` with their margin, the
    bottom-right one turned half round as the top-left is: (N, 2, H, W, 3) uint8."""
    width, height = fine_card()
    corner_w, corner_h = index_corner()
    card = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    step_x = corner_w * (SPAN[1] - SPAN[0]) / PATCH_PX[0]
    step_y = corner_h * (SPAN[1] - SPAN[0]) / PATCH_PX[1]
    # patch px -> fine card px, for the top-left corner and for the bottom-right one
    top_left = np.float64([[step_x, 0, SPAN[0] * corner_w], [0, step_y, SPAN[0] * corner_h],
                           [0, 0, 1]])
    turned = np.float64([[-1, 0, width], [0, -1, height], [0, 0, 1]]) @ top_left
    out = np.empty((len(quads), 2, PATCH_PX[1], PATCH_PX[0], 3), np.uint8)
    for i, quad in enumerate(portrait_orders(np.float32(quads).reshape(-1, 4, 2))):
        to_image = cv2.getPerspectiveTransform(card, quad).astype(np.float64)
        for k, to_card in enumerate((top_left, turned)):
            out[i, k] = cv2.warpPerspective(
                image, to_image @ to_card, PATCH_PX,
                flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return out


def one_corner(cards: np.ndarray, which: int) -> np.ndarray:
    """Cards cut out at `fine_card` (N, H, W, 3) with the other index corner replaced by
    corner `which` (0 top-left, 1 bottom-right) turned half round: the experts, which read
    both corners, then read that one alone."""
    w, h = index_corner()
    out = cards.copy()
    if which == 0:
        out[:, -h:, -w:] = cards[:, :h, :w][:, ::-1, ::-1]
    else:
        out[:, :h, :w] = cards[:, -h:, -w:][:, ::-1, ::-1]
    return out


def deck_odds(readings: dict[str, np.ndarray]) -> np.ndarray:
    """The experts' probability of each card of the deck (N, 52): its rank's times its
    suit's."""
    return readings["rank"][:, _RANK_OF] * readings["suit"][:, _SUIT_OF]


def corner_odds(classifier: CardClassifier, image: np.ndarray, quads: np.ndarray,
                look: np.ndarray | None = None, photo: bool = False) -> np.ndarray:
    """The index experts' `deck_odds` for each corner alone (`one_corner`) of each card
    quadrilateral of `image`, (N, 2, 52), at the corners `look` (N, 2) says (all if None),
    0 at the others; all read in one batch. `photo`: by the classifier's `photo_experts`."""
    look = np.ones((len(quads), 2), bool) if look is None else look
    odds = np.zeros((len(quads), 2, len(DECK)), np.float32)
    rows, which = np.nonzero(look)
    if len(rows):
        cards = classifier.rectify_quads(image, np.float32(quads)[rows], fine_card())
        alone = np.empty_like(cards)
        for corner in (0, 1):
            alone[which == corner] = one_corner(cards[which == corner], corner)
        odds[rows, which] = deck_odds(classifier.expert_readings(alone, photo=photo))
    return odds


class CornerCheck:
    """Whether each index corner of a card shows, unhidden (`corner_patches`), and the
    thresholds that name a covered face from such a corner."""

    def __init__(self, model: Path = MODEL, threads: int = 1) -> None:
        self.session, (self.visible, self.threshold) = load_model(
            model, "corner check", lambda r: (float(r["visible"]), float(r["threshold"])),
            threads=threads)

    def shows(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """The probability that each corner of each card shows, (N, 2)."""
        if not len(quads):
            return np.zeros((0, 2), np.float32)
        patches = corner_patches(image, quads).reshape(-1, PATCH_PX[1], PATCH_PX[0], 3)
        x = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), dtype=np.float32)
        return self.session.run(None, {"patches": x})[0].reshape(-1, 2)

    def name(self, shows: np.ndarray, odds: np.ndarray) -> tuple[int, float] | None:
        """A covered face's card (an index in DECK) and confidence from its corners, or None:
        `shows` (2,) from `shows`, `odds` (2, 52) the experts' `deck_odds` for each corner
        alone. A corner that shows names the card where the experts are sure; two that show
        and disagree name nothing."""
        named = {}
        for k in range(2):
            best = int(np.argmax(odds[k]))
            if shows[k] >= self.visible and odds[k, best] >= self.threshold:
                named[best] = max(named.get(best, 0.0), float(odds[k, best]))
        return next(iter(named.items())) if len(named) == 1 else None

    @staticmethod
    def claims(shows: np.ndarray, odds: np.ndarray) -> set[int]:
        """The cards (indices in DECK) a covered card's corners likely show (CLAIM), sure
        or not: `shows` and `odds` as for `name`."""
        return {int(np.argmax(odds[k])) for k in range(2)
                if shows[k] >= CLAIM and odds[k].max() >= CLAIM}
