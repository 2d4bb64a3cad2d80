"""Synthetic classifier samples: real card art, the classifier's input size, reproducible."""

from __future__ import annotations

import numpy as np

from simulator.backs import procedural_back
from simulator.cardart import load_card
from training.classifier_data import INPUT_PX, LABELS, batch, no_card, reletter
from vision.classify import CLASSES
from vision.rectify import rectify


def test_samples_have_the_input_size_valid_labels_and_are_reproducible():
    images, labels = batch(3, ["simplistic"], 12)
    assert images.shape == (12, INPUT_PX[1], INPUT_PX[0], 3) and images.dtype == np.uint8
    assert all(0 <= label < len(CLASSES) for label in labels)
    again, labels_again = batch(3, ["simplistic"], 12)
    assert np.array_equal(images, again) and np.array_equal(labels, labels_again)
    assert not np.array_equal(images, batch(4, ["simplistic"], 12)[0])


def test_no_card_samples_are_their_own_class_and_cost_no_draw_when_not_asked_for():
    images, labels = batch(3, ["simplistic"], 40, no_cards=0.5)
    nothing = labels == LABELS.index("NONE")
    assert 8 <= nothing.sum() <= 32 and images.shape[1:] == (INPUT_PX[1], INPUT_PX[0], 3)
    assert np.array_equal(batch(3, ["simplistic"], 12, no_cards=0.0)[0],
                          batch(3, ["simplistic"], 12)[0])
    rng = np.random.default_rng(5)
    samples = np.float32([no_card(rng, 130.0) for _ in range(12)])
    assert samples.std(axis=(1, 2, 3)).min() > 2  # a table, a hand, a hero card: not blank
    # no card shows in them: none matches a card's art as its own samples do (0.4-0.7)
    best = [max(_match(s, c) for c in CLASSES[:52:4]) for s in samples.astype(np.uint8)]
    assert max(best) < 0.35


def _match(image: np.ndarray, card: str) -> float:
    """How well a sample matches the art of `card` (correlation, best of the two turns)."""
    art = load_card("simplistic", card)[:, :, :3]
    h, w = art.shape[:2]
    flat = rectify(art, np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]),
                   INPUT_PX, ordered=True)
    b = image.astype(np.float32).ravel()
    return max(np.corrcoef(c.astype(np.float32).ravel(), b)[0, 1]
               for c in (flat, np.rot90(flat, 2)))


def test_a_large_sharp_sample_matches_its_own_card_best():
    # At 170 px wide a sample is close to its card's art (up to a half turn, lighting and a
    # small outline error), closer than to other cards: the labels name what is drawn. A
    # quarter of the samples have another card over them, which can tip one the other way.
    images, labels = batch(5, ["simplistic"], 12, width_px=170.0)
    rng = np.random.default_rng(0)
    misses = []
    for image, label in zip(images, labels, strict=True):
        own = _match(image, CLASSES[label])
        others = [_match(image, CLASSES[i]) for i in rng.choice(52, 6, replace=False)
                  if i != label]
        if own <= max(others):
            misses.append((CLASSES[label], own, max(others)))
    assert len(misses) <= 1, misses


def test_procedural_backs_are_cards_of_no_design():
    backs = [procedural_back(np.random.default_rng(seed)) for seed in range(6)]
    for back in backs:
        assert back.shape == (360, 232, 4) and back.dtype == np.uint8
        assert back[180, 116, 3] == 255 and back[0, 0, 3] == 0  # opaque, rounded corners
    faces = np.float32([b[:, :, :3] for b in backs])
    assert min(np.abs(faces[i] - faces[j]).mean() for i in range(6) for j in range(i)) > 10


def _index(card: np.ndarray) -> tuple[slice, slice]:
    h, w = card.shape[:2]
    return slice(0, int(0.27 * h)), slice(0, int(0.25 * w))


def test_reletter_redraws_the_rank_in_both_index_corners_and_nothing_else():
    jack = load_card("anglo", "JS")
    v = reletter(jack, "V", np.random.default_rng(0))
    assert v is not None and v.shape == jack.shape
    changed = np.abs(v.astype(np.int16) - jack).max(axis=2) > 40
    rows, cols = _index(jack)
    top_left = changed[rows, cols]
    bottom_right = changed[::-1, ::-1][rows, cols]
    assert top_left.sum() > 50 and bottom_right.sum() > 50
    assert changed.sum() == top_left.sum() + bottom_right.sum()  # the art is untouched
    # the same letter in both corners: the bottom-right index is the top-left one half-turned
    turned = np.ascontiguousarray(v[::-1, ::-1])
    assert np.abs(v[rows, cols].astype(np.int16) - turned[rows, cols]).mean() < 12


def test_reletter_can_erase_the_rank_and_keeps_the_suit_sign():
    queen = load_card("anglo", "QH")  # its Q fills the top 15 % of the index, the heart below
    blank = reletter(queen, "", np.random.default_rng(1))
    h, w = queen.shape[:2]

    def ink(card: np.ndarray, top: float, bottom: float) -> int:
        part = card[int(top * h):int(bottom * h), 5:int(0.16 * w)]
        return int(((part[:, :, :3].min(axis=2) < 150) & (part[:, :, 3] == 255)).sum())

    assert ink(queen, 0.03, 0.15) > 100 and ink(blank, 0.03, 0.15) == 0
    assert ink(blank, 0.16, 0.25) == ink(queen, 0.16, 0.25) > 50


def test_reletter_gives_none_where_no_rank_is_in_the_corner():
    # kde-oxygen-white prints its rank at the top right only
    assert reletter(load_card("kde-oxygen-white", "JS"), "V", np.random.default_rng(2)) is None
