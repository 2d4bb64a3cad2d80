"""The index experts' data: the index corners of faces, cut out at twice the classifier's size."""

from __future__ import annotations

import numpy as np

from cards import DECK, SUITS
from training.classifier_data import sample
from training.expert_data import CARD, CORNER, RANK_LETTERS, batch, corners
from vision.classify import CLASSES, EXPERTS


def test_samples_are_both_corners_of_a_face_with_its_suit_and_reproducible():
    pairs, suits = batch(5, ["simplistic"], 8)
    assert pairs.shape == (8, CORNER[1], 2 * CORNER[0], 3) and pairs.dtype == np.uint8
    assert set(suits) <= set(range(len(SUITS)))
    again, suits_again = batch(5, ["simplistic"], 8)
    assert np.array_equal(pairs, again) and np.array_equal(suits, suits_again)


def test_a_half_turned_card_gives_the_same_two_corners_swapped():
    card = np.random.default_rng(0).integers(0, 256, (1, CARD[1], CARD[0], 3), np.uint8)
    pair, turned = corners(card)[0], corners(card[:, ::-1, ::-1])[0]
    w = CORNER[0]
    assert np.array_equal(turned[:, :w], pair[:, w:])
    assert np.array_equal(turned[:, w:], pair[:, :w])
    assert np.array_equal(pair[:, :w], card[0, :CORNER[1], :w])  # the top-left, as it lies


def test_a_court_can_be_drawn_with_another_index_letter_or_none():
    # the rank expert learns V, D, R, 1 and corners with no rank: only the index changes
    def queen(letter: str) -> np.ndarray:
        rng = np.random.default_rng(2)
        return sample(rng, "anglo", CLASSES.index("QS"), 130.0, relettered=1.0,
                      input_px=CARD, letters={"Q": (letter,)}).astype(int)

    erased, dame = queen(""), queen("D")
    changed = np.abs(erased - dame).max(axis=2) > 40
    h, w = changed.shape
    assert changed[: h // 3, : w // 3].any() and changed[-h // 3:, -w // 3:].any()
    assert not changed[h // 3: -h // 3].any()  # the art between the corners is the same
    assert RANK_LETTERS["Q"][-1] == "" and "D" in RANK_LETTERS["Q"]


def test_each_expert_reads_a_face_as_the_classifier_weighs_it():
    for name, kind in EXPERTS.items():
        assert sorted({kind.of_face(face) for face in DECK}) == sorted(kind.classes), name
