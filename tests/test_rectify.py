"""Rectifying a card quad: any corner order gives the same portrait card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.rectify import (
    CARD_PX,
    index_corners,
    long_side_angle,
    portrait_order,
    portrait_orders,
    rectify,
)


def _card_and_scene(angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A synthetic card (a distinct mark in its top-left corner) placed rotated on a canvas."""
    rng = np.random.default_rng(0)
    card = np.full((CARD_PX[1], CARD_PX[0], 3), 255, np.uint8)
    cv2.rectangle(card, (3, 3), (15, 25), (0, 0, 200), -1)  # the index, top left
    cv2.rectangle(card, (CARD_PX[0] - 16, CARD_PX[1] - 26), (CARD_PX[0] - 4, CARD_PX[1] - 4),
                  (0, 0, 200), -1)  # and bottom right, as printed cards do
    card[40:60, 20:50] = rng.integers(0, 255, (20, 30, 3))
    canvas = np.full((400, 400, 3), 40, np.uint8)
    h, w = CARD_PX[1] * 2, CARD_PX[0] * 2
    corners = np.float32([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    rad = np.radians(angle)
    rot = np.float32([[np.cos(rad), -np.sin(rad)], [np.sin(rad), np.cos(rad)]])
    quad = corners @ rot.T + 200
    src = np.float32([[0, 0], [CARD_PX[0] - 1, 0], [CARD_PX[0] - 1, CARD_PX[1] - 1],
                      [0, CARD_PX[1] - 1]])
    warp = cv2.getPerspectiveTransform(src, quad)
    cv2.warpPerspective(card, warp, (400, 400), canvas, borderMode=cv2.BORDER_TRANSPARENT)
    return card, canvas, quad


@pytest.mark.parametrize("angle", [0, 12, 90, 150, 180, 260])
@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_any_corner_order_rectifies_to_the_same_portrait_card(angle, shift):
    card, canvas, quad = _card_and_scene(angle)
    for order in (np.roll(quad, shift, axis=0), np.roll(quad[::-1], shift, axis=0)):
        flat = rectify(canvas, order)
        assert flat.shape[:2] == (CARD_PX[1], CARD_PX[0])
        # Up to a half turn, which a card's two indices make moot.
        error = min(np.abs(flat.astype(int) - c.astype(int)).mean()
                    for c in (card, np.rot90(card, 2)))
        assert error < 12, error


def test_index_corners_read_the_same_way():
    card, _, _ = _card_and_scene(0)
    corners = index_corners(card)
    assert corners.shape[0] == 2
    assert np.abs(corners[0].astype(int) - corners[1].astype(int)).mean() < 3


def test_portrait_order_starts_on_a_short_side_and_long_side_angle():
    _, _, quad = _card_and_scene(90)
    ordered = portrait_order(quad)
    assert np.linalg.norm(ordered[1] - ordered[0]) < np.linalg.norm(ordered[2] - ordered[1])
    assert long_side_angle(quad) == pytest.approx(90, abs=1)
    assert long_side_angle(_card_and_scene(10)[2]) == pytest.approx(10, abs=1)


def test_portrait_orders_matches_one_quad_at_a_time():
    rng = np.random.default_rng(3)
    quads = []
    for _ in range(200):  # rectangles at any angle and scale, corners in a shuffled order
        w, h = rng.uniform(10, 100), rng.uniform(10, 100)
        corners = np.float32([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
        turn = rng.uniform(0, 2 * np.pi)
        rot = np.float32([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        quads.append((corners @ rot.T + rng.uniform(0, 500, 2))[rng.permutation(4)])
    quads = np.float32(quads)
    together = portrait_orders(quads)
    for quad, ordered in zip(quads, together, strict=True):
        np.testing.assert_array_equal(portrait_order(quad), ordered)
        assert np.linalg.norm(ordered[1] - ordered[0]) <= np.linalg.norm(ordered[2] - ordered[1])
