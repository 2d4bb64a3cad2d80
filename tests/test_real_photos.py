"""How `training.real_photos` turns a real photo's labelled box into the card's outline and a
photo into detector targets, on drawn cards whose outline is known (real OpenCV)."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

from training.real_photos import (
    Photo,
    PhotoCard,
    box_quad,
    gradients,
    inscribed_quads,
    load,
    owner_map,
    photo_view,
    stacking_order,
    training_export,
)
from vision.geometry import polygon_iou

# --- from a labelled box to the card's outline, on drawn cards --------------------------

def drawn_card(turn: float, size=(400, 300), card=(90, 126)) -> tuple[np.ndarray, np.ndarray]:
    """A white card turned by `turn` degrees on a dark, grainy table: the image and its
    quad."""
    rng = np.random.default_rng(int(turn) % 360)
    image = np.clip(rng.normal(60, 8, (*size[::-1], 3)), 0, 255).astype(np.uint8)
    quad = cv2.boxPoints(((size[0] / 2, size[1] / 2), card, turn))
    cv2.fillConvexPoly(image, np.int32(np.rint(quad)), (235, 235, 235))
    return image, np.float32(quad)


def aabb(quad: np.ndarray) -> tuple[int, int, int, int]:
    x1, y1 = np.floor(quad.min(axis=0)).astype(int)
    x2, y2 = np.ceil(quad.max(axis=0)).astype(int)
    return int(x1), int(y1), int(x2), int(y2)


def test_every_inscribed_quad_has_the_box_it_was_made_for():
    box = (40, 30, 250, 260)
    quads = inscribed_quads(box)
    assert len(quads) > 10
    assert np.allclose(quads.min(axis=1), (40, 30), atol=0.5)
    assert np.allclose(quads.max(axis=1), (250, 260), atol=0.5)
    sides = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    aspect = sides[:, :2].min(axis=1) / sides[:, :2].max(axis=1)
    assert ((aspect >= 0.58) & (aspect <= 0.86)).all()
    assert len(inscribed_quads((0, 0, 100, 400))) == 0  # no card is that thin


@pytest.mark.parametrize("turn", [0.0, 12.0, -25.0, 38.0, 70.0, -80.0])
def test_the_outline_found_in_a_cards_box_is_the_card(turn):
    image, quad = drawn_card(turn)
    gx, gy = gradients(image)
    found, support = box_quad(gx, gy, aabb(quad))
    assert polygon_iou(found, quad) > 0.9
    assert support > 20
    assert np.linalg.norm(found[1] - found[0]) < np.linalg.norm(found[2] - found[1])


def test_of_two_overlapping_cards_the_one_whose_sides_show_is_on_top():
    image, low = drawn_card(20.0)
    high = low + np.float32([45, 30])
    cv2.fillConvexPoly(image, np.int32(np.rint(high)), (200, 200, 200))
    cv2.polylines(image, [np.int32(np.rint(high))], True, (30, 30, 30), 2)
    photo = Photo(Path("drawn.png"), "train", [
        PhotoCard("2S", aabb(high), high), PhotoCard("3S", aabb(low), low)])
    assert stacking_order(photo, gradients(image)) == [1, 0]  # the 3S lies under the 2S
    owner = owner_map(image.shape[:2], [high, low], [1, 0])
    centre = np.int32(high.mean(axis=0))
    assert owner[centre[1], centre[0]] == 0


def test_a_photo_view_labels_what_shows_of_each_card():
    image, low = drawn_card(20.0, size=(960, 720), card=(180, 252))
    high = low + np.float32([90, 60])
    cv2.fillConvexPoly(image, np.int32(np.rint(high)), (200, 200, 200))
    photo = Photo(Path("drawn.png"), "train", [
        PhotoCard("2S", aabb(high), high), PhotoCard("3S", aabb(low), low)])
    for kind in ("whole", "close", "far"):
        result = photo_view(np.random.default_rng(3), kind, photo, image, [1, 0])
        assert result.image.shape == (720, 1280, 3)
        shown = {c.card: c.visible for c in result.cards}
        for i, card in enumerate(result.cards):
            inside = result.owner == i
            if shown[card.card] > 0:  # where a card shows, it lies inside its own quad
                ys, xs = np.nonzero(inside)
                k = len(xs) // 2
                assert cv2.pointPolygonTest(card.quad, (float(xs[k]), float(ys[k])),
                                            True) > -2
        if kind == "whole" and shown["2S"] > 0.9:
            assert 0.3 < shown["3S"] < 0.95  # the lower card partly covered


@pytest.mark.parametrize("labels, message", [
    (None, "no labels.csv"),
    (b"", "not the export's labels"),
    (b"file,rank\nx.jpg,A\n", "not the export's labels (KeyError: 'x1')"),
    (bytes(range(256)) * 8, "not the export's labels (UnicodeDecodeError"),
    (b"file,rank,suit,x1,y1,x2,y2\na.jpg,A,S,1,2,x,4\n", "not the export's labels (ValueError"),
    (b"file,rank,suit,x1,y1,x2,y2,split\na.jpg,A,S,1,2,3,4,valid\n", "no 'train' split"),
])
def test_a_folder_that_is_no_export_is_one_line_naming_why(tmp_path, labels, message):
    if labels is not None:
        (tmp_path / "labels.csv").write_bytes(labels)
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        training_export(str(tmp_path))
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_an_export_with_both_splits_is_taken(tmp_path):
    (tmp_path / "labels.csv").write_text("file,rank,suit,x1,y1,x2,y2,split\n"
                                         "a.jpg,A,S,1,2,30,40,train\nb.jpg,2,H,5,6,70,80,valid\n")
    assert training_export(str(tmp_path)) == tmp_path
    assert [p.cards[0].card for p in load(tmp_path, "valid")] == ["2H"]
