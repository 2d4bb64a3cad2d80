"""Training targets of the card detector: one heatmap peak per card that shows, on the part
of it that shows, and boxes that give back the whole card."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.camera import Camera, fit_distance
from simulator.layout import random_scene
from simulator.photometric import Photometric
from simulator.render import render
from simulator.scene import PlacedCard, Scene
from simulator.textures import Background
from training.detect_data import MIN_VISIBLE, ROLES, make_detector_data, scene_targets
from training.evaluate import Scored, anchors_show, match, scene_record
from vision.detect import (
    Boxes,
    CardDetector,
    decode,
    decode_angle,
    encode_angle,
    input_to_cell,
    letterbox,
    prepare,
)
from vision.geometry import box_of_quad, polygon_iou, quads_of_boxes

DESIGN = "simplistic"  # quick to draw
GREY = (128, 128, 128)


def table(cards: list[PlacedCard], size: tuple[int, int] = (1280, 720)) -> Scene:
    """Cards on a plain table seen from straight above, no camera effects."""
    cam = Camera(size=size, target=(450, 300), tilt=0, yaw=0)
    cam.distance = fit_distance(cam, (900, 600))
    grey = Background("solid", (GREY,))
    return Scene(design=DESIGN, cards=cards, table=grey, surround=grey, camera=cam,
                 photometric=Photometric())


def peak_cells(heatmap: np.ndarray) -> set[tuple[int, int]]:
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(heatmap == 1.0), strict=True)}


def perfect_outputs(t) -> np.ndarray:
    """The box and vote channels a perfect network would give for these targets."""
    return np.concatenate([t.boxes, t.votes])


def test_targets_are_reproducible_from_the_seed():
    images, targets = make_detector_data(7, [DESIGN], 2, (640, 360), workers=1, progress=False)
    again, targets_again = make_detector_data(7, [DESIGN], 2, (640, 360), workers=1,
                                              progress=False)
    other, _ = make_detector_data(8, [DESIGN], 2, (640, 360), workers=1, progress=False)
    assert images.shape == (2, 288, 512, 3) and images.dtype == np.uint8
    assert targets["heatmap"].shape == (2, 72, 128) and targets["boxes"].shape == (2, 7, 72, 128)
    assert np.array_equal(images, again)
    assert all(np.array_equal(targets[k], targets_again[k]) for k in targets)
    assert not np.array_equal(images, other)


def test_one_peak_per_visible_card_on_its_visible_part_pointing_at_its_centre():
    result = render(random_scene(np.random.default_rng(3), designs=[DESIGN]))
    t = scene_targets(result)
    seen = [i for i, c in enumerate(result.cards) if c.visible > 0]
    wanted = [i for i in seen if result.cards[i].visible >= MIN_VISIBLE]
    assert len(wanted) >= 15
    assert len(peak_cells(t.heatmap)) == len(wanted) == int(t.mask.sum())
    box = letterbox((1280, 720))
    for k, i in enumerate(seen):
        row, col = t.anchor[k]
        if i not in wanted:
            assert row == col == -1
            continue
        # the anchor cell holds some of the pixels of this card that show
        ys, xs = np.nonzero(result.owner == i)
        cells = np.rint(input_to_cell(box.to_input(np.stack([xs, ys], axis=1))))
        assert np.any((cells[:, 0] == col) & (cells[:, 1] == row))
        centre = input_to_cell(box.to_input(result.cards[i].quad).mean(axis=0))
        assert np.allclose(t.boxes[:2, row, col] + [col, row], centre, atol=1e-3)
        assert t.boxes[6, row, col] == float(result.cards[i].face_up)


def test_a_lone_card_decodes_to_its_own_quad():
    result = render(table([PlacedCard("QH", (400, 280), 30.0, True)]))
    t = scene_targets(result)
    assert len(peak_cells(t.heatmap)) == 1
    found = decode(t.heatmap, perfect_outputs(t), 0.5)
    assert len(found) == 1 and found.face_up[0] == 1.0
    quad = letterbox((1280, 720)).to_frame(found.quads()[0])
    assert polygon_iou(quad, result.cards[0].quad) > 0.97


def test_angle_encoding_round_trips_and_a_half_turn_is_the_same_card():
    theta = np.linspace(-np.pi, np.pi, 37)
    back = decode_angle(encode_angle(theta))
    assert np.allclose(np.cos(2 * (back - theta)), 1.0)
    assert np.allclose(encode_angle(theta), encode_angle(theta + np.pi))
    assert np.allclose(decode_angle(2.5 * encode_angle(0.3)), 0.3)  # length does not matter
    centres = np.array([[100.0, 50.0]] * len(theta))
    sizes = np.array([[60.0, 43.0]] * len(theta))
    for quad, angle in zip(quads_of_boxes(centres, sizes, theta), theta, strict=True):
        c, s, a = box_of_quad(quad)
        assert np.allclose(c, [100, 50]) and np.allclose(s, [60, 43])
        assert np.isclose(np.cos(2 * (a - angle)), 1.0)
        assert np.linalg.norm(quad[1] - quad[0]) < np.linalg.norm(quad[2] - quad[1])


@pytest.mark.parametrize("angle", [0.0, 17.0, 90.0, 128.0])
def test_a_card_in_full_view_is_anchored_at_its_centre(angle):
    # the distance transform peaks all along a ridge of the long axis; any pixel of it
    # would do as its deepest, but only the middle is a point the network can learn
    result = render(table([PlacedCard("QH", (400, 280), angle, True)]))
    t = scene_targets(result)
    (row, col), = t.anchor
    centre = input_to_cell(letterbox((1280, 720)).to_input(result.cards[0].quad).mean(axis=0))
    assert np.hypot(*(centre - [col, row])) <= 0.75  # the nearest cell to it


def test_a_strip_that_shows_is_anchored_at_its_middle():
    # a marker tucked lengthwise under a minion, a strip of it out at one side
    result = render(table([PlacedCard("7D", (470, 300), 0.0, False, z=0.0, role="damage"),
                           PlacedCard("8D", (450, 300), 0.0, True, z=1.0, role="minion")]))
    t = scene_targets(result)
    marker = t.anchor[0]
    ys, xs = np.nonzero(result.owner == 0)
    middle = input_to_cell(letterbox((1280, 720)).to_input(np.array([xs.mean(), ys.mean()])))
    assert np.hypot(*(middle - marker[::-1])) <= 1.0


def test_a_fully_hidden_card_has_no_peak():
    result = render(table([PlacedCard("2C", (450, 300), 10.0, False, z=0.0),
                           PlacedCard("3C", (450, 300), 10.0, True, z=1.0),
                           PlacedCard("4C", (250, 300), 0.0, True, z=0.0)]))
    assert result.cards[0].visible < MIN_VISIBLE
    t = scene_targets(result)
    assert len(peak_cells(t.heatmap)) == 2
    assert t.boxes[6][t.mask].tolist() == [1.0, 1.0]  # both peaks are the face-up cards


def test_a_fan_of_markers_gives_one_peak_per_card_whose_edge_shows():
    fan = [PlacedCard("5S", (450, 250 + 8 * k), 90.0, False, z=float(k), role="armor")
           for k in range(5)]
    hidden = PlacedCard("6S", (450, 250), 90.0, False, z=-1.0, role="armor")
    result = render(table([hidden, *fan]))
    assert result.cards[0].visible < MIN_VISIBLE
    assert all(c.visible >= MIN_VISIBLE for c in result.cards[1:])
    t = scene_targets(result)
    assert len(peak_cells(t.heatmap)) == 5
    marked = t.anchor[t.anchor[:, 0] >= 0]
    assert len({tuple(a) for a in marked}) == 5
    armor = t.role == ROLES.index("armor")
    assert len(set(t.fan[armor & (t.anchor[:, 0] >= 0)].tolist())) == 1  # one fan of 5


def test_a_marker_tucked_under_a_minion_has_one_peak_on_its_sliver():
    result = render(table([PlacedCard("7D", (450, 300), 90.0, False, z=0.0, role="damage"),
                           PlacedCard("8D", (450, 300), 0.0, True, z=1.0, role="minion")]))
    assert MIN_VISIBLE <= result.cards[0].visible < 0.4
    t = scene_targets(result)
    assert len(peak_cells(t.heatmap)) == 2
    marker, minion = t.anchor
    assert abs(marker[1] - minion[1]) >= 3  # out at a side, not on the minion's centre
    centre = t.boxes[:2, marker[0], marker[1]] + marker[::-1]
    assert np.linalg.norm(centre - (t.boxes[:2, minion[0], minion[1]] + minion[::-1])) < 0.1


def test_every_cell_a_card_owns_votes_for_its_anchor():
    result = render(random_scene(np.random.default_rng(3), designs=[DESIGN]))
    t = scene_targets(result)
    box = letterbox((1280, 720))
    rows, cols = np.nonzero(t.vote_weight > 0)
    voted = np.stack([cols + t.votes[0, rows, cols], rows + t.votes[1, rows, cols]], axis=1)
    anchors = {tuple(a[::-1]) for a in t.anchor if a[0] >= 0}
    assert {tuple(v) for v in np.rint(voted).astype(int)} == anchors
    assert np.allclose(voted, np.rint(voted))
    for k, i in enumerate(c for c, card in enumerate(result.cards) if card.visible > 0):
        row, col = t.anchor[k]
        if row < 0:
            continue
        mine = np.all(np.rint(voted) == [col, row], axis=1)
        assert np.isclose(t.vote_weight[rows[mine], cols[mine]].sum(), 1.0)  # one card, once
        # a cell it owns has some of its pixels
        ys, xs = np.nonzero(result.owner == i)
        cells = np.rint(input_to_cell(box.to_input(np.stack([xs, ys], axis=1)))).astype(int)
        assert {tuple(c) for c in zip(cols[mine], rows[mine], strict=True)} <= {
            tuple(c) for c in cells}


def test_markers_a_cell_apart_decode_as_two_cards_and_one_card_as_one():
    fan = [PlacedCard("5S", (450, 250 + 5 * k), 90.0, False, z=float(k), role="armor")
           for k in range(4)]
    result = render(table([*fan, PlacedCard("KH", (650, 300), 20.0, True)]))
    t = scene_targets(result)
    anchors = t.anchor[t.anchor[:, 0] >= 0]
    gaps = np.abs(anchors[:, None] - anchors[None]).max(axis=2)
    assert np.any(gaps[np.triu_indices(len(anchors), 1)] <= 1)  # some anchors are neighbours
    # as a network answers: each card's peak a little lower than the one before, so that a
    # neighbour's is not a 3 × 3 maximum of the heatmap
    heat = 0.6 * t.heatmap
    for k, (row, col) in enumerate(anchors):
        heat[row, col] = 0.95 - 0.05 * k
    found = decode(heat, perfect_outputs(t), 0.3)
    assert len(found) == 5
    quads = letterbox((1280, 720)).to_frame(found.quads())
    for label in result.cards:
        assert max(polygon_iou(q, label.quad) for q in quads) > 0.9


@pytest.mark.parametrize("size", [(1280, 720), (640, 480), (1000, 700), (720, 1280)])
def test_the_frame_is_scaled_to_512_and_padded_to_32(size):
    frame = np.zeros((size[1], size[0], 3), np.uint8)
    image, box = prepare(frame)
    assert max(box.size) == 512 and image.shape[0] % 32 == 0 and image.shape[1] % 32 == 0
    assert abs(box.size[0] / box.size[1] - size[0] / size[1]) < 0.01
    points = np.array([[0.0, 0.0], [size[0] - 1, size[1] - 1], [123.4, 56.7]])
    assert np.allclose(box.to_frame(box.to_input(points)), points)


def test_empty_boxes_make_no_quads():
    empty = Boxes(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0),
                  np.zeros(0), np.zeros((0, 2)))
    assert empty.quads().shape == (0, 4, 2)


class Oracle:
    """Stands in for the onnxruntime session: answers with a scene's training targets."""

    def __init__(self, targets) -> None:
        self.targets = targets

    def run(self, _names, feeds: dict) -> list[np.ndarray]:
        assert feeds["image"].shape == (1, 3, *self.targets.image.shape[:2])
        return [self.targets.heatmap[None, None], perfect_outputs(self.targets)[None]]


def test_detect_turns_perfect_outputs_into_the_full_cards_in_frame_pixels():
    cards = [PlacedCard("7D", (300, 300), 88.0, False, z=0.0, role="damage"),
             PlacedCard("8D", (300, 300), 2.0, True, z=1.0, role="minion"),
             *[PlacedCard("5S", (600, 250 + 10 * k), 80.0, False, z=float(k), role="armor")
               for k in range(3)],
             PlacedCard("KH", (450, 450), -30.0, True, z=0.0)]
    result = render(table(cards, size=(1920, 1080)))
    detector = object.__new__(CardDetector)  # no model file: the oracle answers
    detector.session, detector.long_side, detector.multiple = Oracle(scene_targets(result)), 512, 32
    detector.threshold, detector.nms_iou = 0.5, 0.95
    detector.piles = detector.pile_memory = None
    obs = detector.detect(result.image, table_from_image=np.linalg.inv(result.homography))
    assert len(obs) == len(cards) == sum(c.visible >= MIN_VISIBLE for c in result.cards)
    for label in result.cards:
        ious = [polygon_iou(q, label.quad) for q in obs.quads]
        k = int(np.argmax(ious))
        assert ious[k] > 0.9
        assert obs.orientation[k] == label.orientation
        assert obs.extra["face_up"][k] == float(label.face_up)


def test_a_zoomed_out_frame_keeps_the_input_size_and_maps_back():
    frame = np.full((504, 378, 3), 200, np.uint8)  # a phone photo, portrait
    full, full_box = prepare(frame)
    half, half_box = prepare(frame, zoom=0.5)
    assert half.shape == full.shape  # the same input, the frame in its top-left half
    assert max(half_box.size) == 256 and half[300:, 200:].max() == 0
    points = np.array([[0.0, 0.0], [377.0, 503.0], [100.5, 250.25]])
    assert np.allclose(half_box.to_frame(half_box.to_input(points)), points)
    assert np.allclose(half_box.to_input(points), (full_box.to_input(points) + 0.5) / 2 - 0.5,
                       atol=0.6)


def test_matching_takes_each_card_once_best_detection_first():
    # detections 0 and 1 both sit on card 0; detection 2 on a card too hidden to count;
    # detection 3 on nothing
    overlaps = np.array([[0.7, 0.0, 0.0], [0.9, 0.2, 0.0], [0.0, 0.0, 0.8], [0.1, 0.0, 0.0]])
    target = np.array([True, True, False])
    took, false = match(np.array([1, 0, 2, 3]), overlaps, target)
    assert took.tolist() == [-1, 0, -1, -1] and false == 2  # 0 is a duplicate, 3 is stray


def test_matching_gives_a_box_the_card_its_anchor_lies_on():
    # a marker tucked under a minion: both boxes overlap both cards, and IoU alone would give
    # the minion's box (anchor on the minion, pixel (5, 5)) to the marker
    owner = np.full((20, 30), -1, np.int16)
    owner[:, :20] = 3  # the minion, card 3 of the scene, shows here
    owner[:, 20:] = 1  # a sliver of the marker, card 1
    anchors = np.array([[25.0, 10.0], [5.0, 5.0]])  # the marker's box is the surer one
    shows = anchors_show(anchors, owner, [1, 3])
    assert shows.tolist() == [[True, False], [False, True]]
    overlaps = np.array([[0.8, 0.9], [0.9, 0.8]])  # boxes × (marker, minion)
    target = np.array([True, True])
    assert match(np.array([0, 1]), overlaps, target)[0].tolist() == [1, 0]
    assert match(np.array([0, 1]), overlaps, target, shows)[0].tolist() == [0, 1]


def test_fans_are_counted_exactly_or_not_by_their_role():
    # cards: a damage fan of two (0, 1), one armor marker (2); boxes: one on each damage
    # marker, two on the armor marker (a second box counts it twice)
    cards = np.float32([[[0, 0], [10, 0], [10, 6], [0, 6]], [[0, 3], [10, 3], [10, 9], [0, 9]],
                        [[50, 0], [56, 0], [56, 10], [50, 10]]])
    quads = np.concatenate([cards, cards[2:] + 0.2])
    record = scene_record(np.float32([0.9, 0.8, 0.7, 0.6]), quads, cards,
                          np.float32([1.0, 0.5, 1.0]),
                          np.int8([ROLES.index("damage"), ROLES.index("damage"),
                                   ROLES.index("armor")]), np.int16([0, 0, 1]))
    metrics = Scored([record]).metrics(0.5, 2.0)
    assert metrics["marker_fans_by_role"] == {"armor": [1, 0.0], "damage": [1, 1.0]}
    assert metrics["marker_fans_by_size"] == {1: [1, 0.0], 2: [1, 1.0]}
