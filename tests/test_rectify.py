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
    warp_area,
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


def _stripes(period: int, size: int = 720) -> np.ndarray:
    """Black and white vertical stripes, `period` px a pair: detail finer than a pixel of a
    card shrunk several times (a court's robe, a back's pattern)."""
    image = np.zeros((size, size, 3), np.uint8)
    image[:, (np.arange(size) % period) < period // 2] = 255
    return image


def _turned_and_shrunk(shrink: float, size: tuple[int, int]) -> np.ndarray:
    """A homography from a 720 px image to `size`: turned 7°, the image's middle in the
    output's middle, `shrink` image pixels to an output pixel."""
    matrix = np.vstack([cv2.getRotationMatrix2D((360, 360), 7, 1 / shrink), [0, 0, 1]])
    matrix[:2, 2] += np.float64(size) / 2 - 360
    return matrix


@pytest.mark.parametrize("shrink", [4.0, 4.5, 6.0])
def test_a_warp_that_shrinks_averages_fine_detail_to_grey(shrink):
    # warpPerspective alone samples one point a pixel: stripes 2 px a pair shrunk 4 times or
    # more come out as stripes again (moiré); averaged, they are an even grey
    image = _stripes(2)
    size = (int(720 / shrink * 0.6), int(720 / shrink * 0.6))
    matrix = _turned_and_shrunk(shrink, size)
    area = warp_area(image, matrix, size).astype(np.float32)
    point = cv2.warpPerspective(image, matrix, size).astype(np.float32)
    assert abs(area.mean() - 127.5) < 8 and area.std() < 12
    assert point.std() > 3 * area.std()


def test_a_warp_that_hardly_shrinks_is_the_plain_warp():
    image = _stripes(16)
    matrix = _turned_and_shrunk(1.3, (300, 300))
    np.testing.assert_array_equal(
        warp_area(image, matrix, (300, 300)),
        cv2.warpPerspective(image, matrix, (300, 300), borderMode=cv2.BORDER_REPLICATE))


def test_an_averaged_warp_keeps_the_card_in_place():
    # the large warp and its shrink put each output pixel where the plain warp puts it
    card, canvas, quad = _card_and_scene(12)
    big = cv2.resize(canvas, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    error = min(np.abs(rectify(big, quad * 4).astype(int) - c.astype(int)).mean()
                for c in (card, np.rot90(card, 2)))
    assert error < 12, error
