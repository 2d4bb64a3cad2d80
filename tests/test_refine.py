"""The card refiner: its cut-out geometry, and the shipped model on rendered scenes."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.cardart import get_design, list_designs
from simulator.layout import random_scene
from simulator.render import render
from training.designs import HELD_OUT_FAMILIES
from training.evaluate import corner_error, match
from vision.detect import CardDetector
from vision.geometry import iou_matrix
from vision.rectify import portrait_orders
from vision.refine import (
    CardRefiner,
    crop_warps,
    cut_out,
    inner_corners,
    offsets_of,
    quads_of_offsets,
)

HELD_OUT = [d for d in list_designs() if get_design(d).family in HELD_OUT_FAMILIES]


def test_offsets_and_quads_are_inverse_whatever_corner_the_truth_starts_at():
    rng = np.random.default_rng(0)
    truth = np.float32([[100, 50], [163, 58], [155, 146], [92, 138]])
    detected = truth + rng.normal(0, 4, truth.shape).astype(np.float32)
    warps = crop_warps(portrait_orders(detected[None]))
    for start in range(4):
        offsets = offsets_of(np.roll(truth, start, axis=0)[None], warps)
        back = quads_of_offsets(offsets, warps)[0]
        assert np.allclose(portrait_orders(back[None])[0], portrait_orders(truth[None])[0],
                           atol=1e-3)


def test_a_detected_card_lies_on_the_inner_corners_of_its_cut_out():
    image = np.zeros((300, 400, 3), np.uint8)
    quad = np.float32([[120, 60], [200, 60], [200, 172], [120, 172]])
    image[60:173, 120:201] = 255
    cut = cut_out(image, crop_warps(quad[None]))[0]
    (x0, y0), (x1, y1) = inner_corners()[0], inner_corners()[2]
    inside, outside = cut[round(y0) + 2:round(y1) - 2, round(x0) + 2:round(x1) - 2], cut[:2]
    assert inside.min() == 255 and outside.max() == 0


@pytest.fixture(scope="module")
def scene():
    result = render(random_scene(np.random.default_rng(21), designs=HELD_OUT[:3],
                                 image_size=(1920, 1080), hand_chance=0.0))
    obs = CardDetector().detect(result.image)
    cards = [c for c in result.cards if c.visible >= 0.9]
    truth = np.float32([c.quad for c in cards])
    took, _ = match(np.argsort(-obs.extra["score"]), iou_matrix(obs.quads, truth),
                    np.ones(len(cards), bool))
    found = np.nonzero(took >= 0)[0]
    return result.image, obs.quads[found], truth[took[found]]


def test_the_shipped_refiner_brings_detected_corners_nearer_the_card(scene):
    image, detected, truth = scene
    assert len(detected) >= 5
    refined = CardRefiner().refine(image, detected)
    before, after = corner_error(detected, truth), corner_error(refined, truth)
    assert np.median(after) < 0.6 * np.median(before)
    assert np.median(after) < 0.04  # card widths: a couple of px on a 130 px card


def test_the_shipped_refiner_leaves_an_exact_outline_where_it_is(scene):
    image, _, truth = scene
    assert np.median(corner_error(CardRefiner().refine(image, truth), truth)) < 0.03
