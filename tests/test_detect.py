"""The card detector's run time without a trained model: peaks, NMS, orientation."""

from __future__ import annotations

import numpy as np

from vision.detect import group_by_votes, in_clear_view, orientations
from vision.geometry import iou_matrix, quads_of_boxes, rotated_nms
from vision.observation import SIDEWAYS, UPRIGHT


def test_cells_voting_for_one_anchor_are_one_card_best_first():
    # a card's anchor and two cells of it that vote for it; a marker's anchor a cell away,
    # voting for itself; a far card
    votes = np.array([[5.0, 5.0], [5.2, 4.9], [6.0, 5.0], [4.9, 5.3], [20.0, 10.0]])
    scores = np.array([0.9, 0.5, 0.6, 0.4, 0.95])
    assert group_by_votes(votes, scores).tolist() == [4, 0, 2]
    assert group_by_votes(np.zeros((0, 2)), np.zeros(0)).tolist() == []


def test_nms_merges_a_duplicate_but_keeps_stacked_markers():
    # one card twice (boxes 1 px apart), and two markers 8 mm (~10 % of the short side) apart
    centres = np.array([[100, 100], [101, 100], [300, 100], [300, 110]], float)
    quads = quads_of_boxes(centres, [[120, 86]] * 4, np.full(4, np.pi / 2))
    keep = rotated_nms(quads, np.array([0.9, 0.8, 0.7, 0.6]), 0.9)
    assert keep.tolist() == [0, 2, 3]


def test_orientation_follows_the_image_or_the_table():
    quads = quads_of_boxes([[50, 50], [50, 50]], [[88, 63], [88, 63]], [np.pi / 2, 0.0])
    assert orientations(quads) == [UPRIGHT, SIDEWAYS]
    turn = np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]], float)  # the table is a quarter turn
    assert orientations(quads, turn) == [SIDEWAYS, UPRIGHT]


def test_a_card_is_in_clear_view_only_when_centred_and_not_half_covered():
    card = np.float32([[0, 0], [63, 0], [63, 88], [0, 88]])
    quads = card + np.float32([[0, 0], [3, 2], [200, 0], [400, 0]])[:, None]
    # a stacked pair (both crowded), a card alone, a card alone whose anchor is off centre
    off_centre = np.float32([0.02, 0.03, 0.05, 0.4])
    assert list(in_clear_view(iou_matrix(quads, quads), off_centre)) == [False, False, True,
                                                                         False]
    assert in_clear_view(np.zeros((0, 0)), np.zeros(0)).shape == (0,)


def test_a_face_over_backs_is_in_clear_view_and_the_backs_are_not():
    """A minion over its damage markers: the markers show backs, which cannot pass for the
    minion's face; a second face there could, and crowds it."""
    card = np.float32([[0, 0], [63, 0], [63, 88], [0, 88]])
    quads = card + np.float32([[0, 0], [3, 2], [-2, 5]])[:, None]
    overlaps = iou_matrix(quads, quads)
    off_centre = np.float32([0.02, 0.5, 0.6])
    assert list(in_clear_view(overlaps, off_centre, np.float32([0.99, 0.02, 0.1]))) == [
        True, False, False]
    assert list(in_clear_view(overlaps, off_centre, np.float32([0.99, 0.02, 0.9]))) == [
        False, False, False]
