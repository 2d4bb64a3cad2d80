"""The suit expert's data: the index corners of faces, cut out at twice the classifier's size."""

from __future__ import annotations

import numpy as np

from models.suit_train import CARD, CORNER, batch, corners
from vision.cardart import SUITS


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
