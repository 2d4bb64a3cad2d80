"""Covered faces named from an index corner that shows (`vision.corners`), with the shipped
corner check and index experts on rendered tables of held-out designs."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cards import DECK
from simulator.cardart import get_design, list_designs
from simulator.layout import random_scene
from simulator.render import render
from training.corner_train import (
    CONFIDENCE_GRID,
    VISIBLE_GRID,
    corner_rows,
    fit,
    named,
    own_share,
    shows,
)
from training.designs import HELD_OUT_FAMILIES
from training.expert_data import CORNER
from vision.corners import (
    PATCH_PX,
    CornerCheck,
    corner_patches,
    fine_card,
    index_corner,
    one_corner,
)
from vision.geometry import polygon_iou
from vision.pipeline import Recognizer
from vision.runtime import ModelError

HELD_OUT = [d for d in list_designs() if get_design(d).family in HELD_OUT_FAMILIES]


def test_the_corner_is_the_one_the_experts_read():
    assert index_corner() == CORNER


def test_one_corner_puts_the_corner_turned_half_round_in_place_of_the_other():
    rng = np.random.default_rng(0)
    width, height = fine_card()
    w, h = index_corner()
    cards = rng.integers(0, 256, (2, height, width, 3), dtype=np.uint8)
    top = one_corner(cards, 0)
    assert np.array_equal(top[:, -h:, -w:], cards[:, :h, :w][:, ::-1, ::-1])
    assert np.array_equal(top[:, :h, :w], cards[:, :h, :w])
    bottom = one_corner(cards, 1)
    assert np.array_equal(bottom[:, :h, :w], cards[:, -h:, -w:][:, ::-1, ::-1])
    assert np.array_equal(bottom[:, h:-h], cards[:, h:-h])


def test_patches_show_each_corner_upright_with_the_table_beyond_it():
    """A white card on a dark table, its top-left corner marked red and its bottom-right
    blue: each patch shows its own corner in the same place, with table above and left."""
    image = np.full((400, 400, 3), 30, np.uint8)
    quad = np.float32([[100, 60], [244, 60], [244, 260], [100, 260]])
    cv2.fillConvexPoly(image, np.int32(quad), (255, 255, 255))
    image[60:80, 100:120] = (0, 0, 255)
    image[240:260, 224:244] = (255, 0, 0)
    patches = corner_patches(image, quad[None])
    assert patches.shape[:2] == (1, 2)
    for patch, colour in zip(patches[0], ((0, 0, 255), (255, 0, 0)), strict=True):
        assert (patch[:4, :4] == 30).all()  # the table beyond the corner
        middle = patch[patch.shape[0] // 2, patch.shape[1] // 2]
        assert (middle == 255).all()  # the card's face
        beside = patch[patch.shape[0] // 5 + 3, patch.shape[1] // 5 + 3]
        assert tuple(beside) == colour, tuple(beside)


def test_a_corner_names_the_card_only_when_it_shows_and_the_experts_are_sure():
    check = CornerCheck()
    odds = np.full((2, 52), 1e-4)
    odds[0, 7] = odds[1, 7] = 0.9999
    assert check.name(np.float32([1, 1]), odds) == (7, pytest.approx(0.9999))
    assert check.name(np.float32([0, 0]), odds) is None  # neither shows
    assert check.name(np.float32([1, 0]), odds * 0.5) is None  # not sure
    odds[1] = 1e-4
    odds[1, 9] = 0.9999
    assert check.name(np.float32([1, 1]), odds) is None  # two corners, two names
    assert check.name(np.float32([0, 1]), odds)[0] == 9  # the one that shows


def test_a_missing_corner_check_is_one_line(tmp_path: Path):
    with pytest.raises(ModelError, match="cannot load the corner check") as error:
        CornerCheck(tmp_path / "none.onnx")
    assert "\n" not in str(error.value)


@pytest.fixture(scope="module")
def covered_table():
    """Rendered tables of held-out designs, each read with and without the corner check."""
    with_corners, without = Recognizer(), Recognizer(corner_check=None)
    tables = []
    for seed in range(6):
        result = render(random_scene(np.random.default_rng(100 + seed), designs=HELD_OUT,
                                     image_size=(1280, 720)))
        to_table = np.linalg.inv(result.homography)
        tables.append((result, with_corners.observe(result.image, to_table),
                       without.observe(result.image, to_table)))
    return tables


def _truth(result, quad: np.ndarray):
    """The card of the scene that a found quad lies on, and its index."""
    overlaps = [polygon_iou(np.float32(c.quad), quad) if c.visible > 0 else 0.0
                for c in result.cards]
    return int(np.argmax(overlaps)), result.cards[int(np.argmax(overlaps))]


def test_covered_faces_are_named_from_a_corner_and_never_wrong(covered_table):
    named_from_corners = 0
    for result, found, without in covered_table:
        for k in np.nonzero(~found.extra["clear"])[0]:
            if found.cards[k] not in DECK:
                continue
            index, card = _truth(result, found.quads[k])
            assert found.cards[k] == card.card, (found.cards[k], card.card)
            if without.cards[k] not in DECK:  # named from a corner alone
                named_from_corners += 1
                shares = own_share(result.owner, found.quads[k], index)
                assert max(shares) >= 0.6, shares  # a corner of it shows
    assert named_from_corners >= 2


def _rows(truth: list[int], reads: list[int], sure: list[float], scene: list[int]) -> dict:
    """Corner data of covered face-up cards whose top-left corner reads `reads` at `sure`."""
    n = len(truth)
    odds = np.full((n, 2, 52), 1e-6, np.float32)
    odds[np.arange(n), 0, reads] = sure
    return {"odds": odds, "truth": np.int16(truth), "face_up": np.ones(n, bool),
            "elsewhere": np.zeros((n, 52), bool), "scene": np.int64(scene)}


def test_a_card_two_covered_cards_claim_is_named_for_neither():
    data = _rows([3, 3, 5], [3, 3, 5], [0.999, 0.6, 0.999], [0, 0, 1])
    shows = np.float32([[0.99, 0], [0.7, 0], [0.99, 0]])
    # the second card's corner is unsure, yet it claims 3: neither is named 3
    assert named(data, shows, 0.9, 0.99) == (1, 0)
    data["elsewhere"][2, 5] = True  # 5 is named elsewhere in its frame
    assert named(data, shows, 0.9, 0.99) == (0, 0)


def test_the_fit_keeps_a_step_of_margin_on_both_grids():
    # a wrong name at visibility 0.92 and confidence 0.9991: the fit must stay a step
    # above it on one grid and hold one step looser on the other
    data = _rows([1, 2, 3, 4], [1, 2, 3, 9], [0.99999, 0.9995, 0.996, 0.9991], [0, 1, 2, 3])
    shows = np.float32([[0.99, 0], [0.96, 0], [0.99, 0], [0.92, 0]])
    chosen = fit(data, shows)
    at, threshold = chosen["visible"], chosen["threshold"]
    assert named(data, shows, at, threshold)[1] == 0
    looser_at = VISIBLE_GRID[max(0, VISIBLE_GRID.index(at) - 1)]
    looser_t = CONFIDENCE_GRID[max(0, CONFIDENCE_GRID.index(threshold) - 1)]
    assert named(data, shows, looser_at, threshold)[1] == 0
    assert named(data, shows, at, looser_t)[1] == 0
    assert chosen["named"] >= 2


def test_corner_data_labels_each_covered_face_by_the_owner_map():
    data = corner_rows(3, 3, HELD_OUT[:2])
    n = len(data["truth"])
    assert n > 0
    assert data["patches"].shape == (n, 2, PATCH_PX[1], PATCH_PX[0], 3)
    assert data["odds"].shape == (n, 2, 52) and data["elsewhere"].shape == (n, 52)
    assert ((data["shares"] >= 0) & (data["shares"] <= 1)).all()
    assert (data["truth"][data["face_up"]] >= 0).all()  # a face up is a card of the deck
    target = shows(data)
    assert (target[~data["face_up"]] == 0).all()  # a back shows no index
    up = np.repeat(data["face_up"][:, None], 2, axis=1)
    assert (target[data["shares"] < 0.6] == 0).all()
    assert (target[(data["shares"] >= 0.9) & up] == 1).all()
    np.testing.assert_allclose(data["odds"].sum(axis=2), 1.0, atol=1e-3)
