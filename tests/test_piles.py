"""The second look at piles: crops of the frame at a card's own size, their targets, and
their detections put in place of the first pass's."""

from __future__ import annotations

import numpy as np
from test_detect_data import Oracle, peak_cells, perfect_outputs, table

import vision.detect
from simulator.layout import random_scene
from simulator.render import render
from simulator.scene import PlacedCard
from training.designs import split_designs
from training.detect_data import MIN_VISIBLE, scene_targets, view_targets
from training.evaluate import match_found
from vision.detect import CardDetector
from vision.geometry import box_of_quad, iou_matrix, polygon_iou
from vision.memory import PileMemory
from vision.piles import CARD_PX, CORE_MARGIN, INPUT_PX, pile_crop, piles


def fan_of(count: int, centre: tuple[float, float], step: float) -> list[PlacedCard]:
    """Face-down armor markers, sideways, `step` mm apart down the table."""
    return [PlacedCard("5S", (centre[0], centre[1] + step * k), 90.0, False, z=float(k),
                       role="armor") for k in range(count)]


def test_a_crop_shows_a_card_at_the_networks_size_around_the_point_asked():
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[300:400, 500:560] = 255  # a white "card" 60 px wide
    image, view = pile_crop(frame, np.array([529.5, 349.5]), 60.0)
    assert image.shape == (INPUT_PX, INPUT_PX, 3)
    assert np.isclose(view.scale[0], CARD_PX / 60.0, rtol=0.01)
    rows, cols = np.nonzero(image[:, :, 0] > 127)
    assert abs(cols.max() - cols.min() + 1 - CARD_PX) <= 2  # the card is CARD_PX wide
    assert np.allclose([cols.mean(), rows.mean()], view.to_input([529.5, 349.5]), atol=1.0)
    points = np.array([[500.0, 300.0], [10.0, 700.0]])
    assert np.allclose(view.to_frame(view.to_input(points)), points)


def test_a_crop_beyond_the_frame_edge_is_black_there():
    frame = np.full((100, 100, 3), 200, np.uint8)
    image, view = pile_crop(frame, np.array([0.0, 50.0]), 40.0)
    edge, row = (int(v) for v in view.to_input([[-0.5, 50.0]])[0])  # the frame's left edge
    assert image[row, :edge - 1].max() == 0 and image[row, edge + 2:].min() > 0


def test_the_core_leaves_out_a_band_at_the_crops_edges():
    _, view = pile_crop(np.zeros((720, 1280, 3), np.uint8), np.array([640.0, 360.0]), 84.0)
    margin = CORE_MARGIN * 84.0  # frame px: the crop is at the frame's own scale here
    inside = view.core(np.array([[640.0, 360.0], [640 - 112 + margin + 1, 360.0],
                                 [640 - 112 + margin - 1, 360.0], [640.0, 360 + 111.0]]), 84.0)
    assert inside.tolist() == [True, True, False, False]


def test_piles_are_boxes_that_overlap_through_one_another():
    overlaps = np.eye(6)
    for i, j, iou in ((0, 2, 0.3), (2, 4, 0.15), (1, 5, 0.05)):
        overlaps[i, j] = overlaps[j, i] = iou
    assert [g.tolist() for g in piles(overlaps)] == [[0, 2, 4]]  # 1 and 5 barely touch
    assert piles(np.eye(1)) == [] and piles(np.zeros((0, 0))) == []


def test_a_card_marked_alone_is_a_pile_by_itself():
    overlaps = np.eye(4)
    overlaps[0, 1] = overlaps[1, 0] = 0.4
    alone = np.array([True, False, False, True])  # 0 is in a pile anyway, 2 is not marked
    assert [g.tolist() for g in piles(overlaps, alone=alone)] == [[0, 1], [3]]


def test_a_crops_targets_are_the_cards_that_show_inside_it():
    far = PlacedCard("KH", (800, 300), 0.0, True)
    result = render(table([*fan_of(5, (300, 250), 6.0), far]))
    short = box_of_quad(result.cards[0].quad)[1][1]
    centre = np.mean([c.quad.mean(axis=0) for c in result.cards[:5]], axis=0)
    image, view = pile_crop(result.image, centre, short)
    t = view_targets(result, image, view)
    assert t.heatmap.shape == (INPUT_PX // 4, INPUT_PX // 4)
    assert len(peak_cells(t.heatmap)) == 5  # the fan; the far card is out of the crop
    assert t.visible[5] == 0.0 and t.anchor[5].tolist() == [-1, -1]
    assert np.allclose(t.visible[:5], [c.visible for c in result.cards[:5]])
    # each peak lies on what shows of its own card
    for k in range(5):
        row, col = t.anchor[k]
        x, y = np.rint(view.to_frame(4 * np.array([col, row]) + 1.5)).astype(int)
        assert result.owner[y, x] == k


def test_a_card_the_crop_cuts_is_a_target_by_its_part_inside():
    card = PlacedCard("KH", (450, 300), 0.0, True)
    result = render(table([card]))
    quad = result.cards[0].quad
    short = box_of_quad(quad)[1][1]
    # the crop's left edge through the card's middle: half of it shows in the crop
    centre = quad.mean(axis=0) + np.array([INPUT_PX / 2 / CARD_PX * short, 0.0])
    t = view_targets(result, *pile_crop(result.image, centre, short))
    assert 0.4 < t.visible[0] / result.cards[0].visible < 0.6
    assert len(peak_cells(t.heatmap)) == 1


class CropOracle:
    """Stands in for the pile network: answers with the targets of the crop just cut."""

    def __init__(self, result, monkeypatch) -> None:
        self.result, self.views = result, []

        def crop(*args, **kwargs):
            image, view = pile_crop(*args, **kwargs)
            self.views.append(view)
            return image, view

        monkeypatch.setattr(vision.detect, "pile_crop", crop)

    def run(self, _names, feeds: dict) -> list[np.ndarray]:
        image = feeds["image"][0].transpose(1, 2, 0).astype(np.uint8)
        t = view_targets(self.result, image, self.views[-1])
        return [t.heatmap[None, None], perfect_outputs(t)[None]]


def test_the_second_look_replaces_a_piles_boxes_with_its_own(monkeypatch):
    cards = [*fan_of(4, (300, 250), 5.0),
             PlacedCard("7D", (600, 300), 88.0, False, z=0.0, role="damage"),
             PlacedCard("8D", (600, 300), 2.0, True, z=1.0, role="minion"),
             PlacedCard("KH", (450, 480), -30.0, True),
             PlacedCard("9S", (800, 480), 60.0, False, role="token")]
    result = render(table(cards))
    assert all(c.visible >= MIN_VISIBLE for c in result.cards)
    detector = object.__new__(CardDetector)  # no model files: oracles answer
    detector.session, detector.long_side, detector.multiple = Oracle(scene_targets(result)), 512, 32
    detector.threshold, detector.nms_iou = 0.5, 0.95
    oracle = CropOracle(result, monkeypatch)
    detector.piles, detector.pile_memory = (oracle, (INPUT_PX, CARD_PX, 0.5, 0.95)), None
    obs = detector.detect(result.image)
    # the fan, the minion with its marker, and the lone king (markers may hide under a face);
    # not the lone back
    assert len(oracle.views) == 3
    assert len(obs) == len(cards)  # each card once: none lost, none twice
    for label in result.cards:
        assert max(polygon_iou(q, label.quad) for q in obs.quads) > 0.9


def test_a_face_up_card_alone_is_looked_at_for_what_lies_under_it(monkeypatch):
    king = PlacedCard("KH", (450, 300), 0.0, True, z=1.0, role="minion")
    buff = PlacedCard("4C", (450, 285), 0.0, False, z=0.0, role="buff")  # a strip shows
    beside = PlacedCard("2C", (560, 300), 0.0, False, role="token")
    result = render(table([king, buff, beside]))
    assert all(c.visible >= MIN_VISIBLE for c in result.cards)
    detector = object.__new__(CardDetector)
    # the first pass sees the king alone: the strip is part of it, the card beside missed
    alone = render(table([king]))
    detector.session, detector.long_side, detector.multiple = Oracle(scene_targets(alone)), 512, 32
    detector.threshold, detector.nms_iou = 0.5, 0.95
    oracle = CropOracle(result, monkeypatch)
    # a crop twice as wide as the network's: the card beside lies in its core
    detector.piles, detector.pile_memory = (oracle, (INPUT_PX, CARD_PX / 2, 0.5, 0.95)), None
    obs = detector.detect(result.image)
    assert len(oracle.views) == 1
    assert oracle.views[0].core(result.cards[2].quad.mean(axis=0, keepdims=True),
                                box_of_quad(result.cards[0].quad)[1][1])[0]
    # the marker under the king is added; what does not touch the king is not the look's
    assert len(obs) == 2
    for label in result.cards[:2]:
        assert max(polygon_iou(q, label.quad) for q in obs.quads) > 0.9


class Counting:
    """A session that counts its runs."""

    def __init__(self, session) -> None:
        self.session, self.runs = session, 0

    def run(self, names, feeds: dict) -> list[np.ndarray]:
        self.runs += 1
        return self.session.run(names, feeds)


def test_in_video_a_pile_that_has_not_changed_is_not_looked_at_again(monkeypatch):
    cards = [*fan_of(4, (300, 250), 5.0), PlacedCard("KH", (600, 300), 10.0, False)]
    result = render(table(cards))
    detector = object.__new__(CardDetector)
    detector.session, detector.long_side, detector.multiple = Oracle(scene_targets(result)), 512, 32
    detector.threshold, detector.nms_iou = 0.5, 0.95
    pile_net = Counting(CropOracle(result, monkeypatch))
    detector.piles, detector.pile_memory = (pile_net, (INPUT_PX, CARD_PX, 0.5, 0.95)), PileMemory()
    rng = np.random.default_rng(0)
    first = detector.detect(result.image)
    for _ in range(3):  # the same table, fresh sensor noise
        noisy = np.clip(result.image + rng.normal(0, 2, result.image.shape), 0, 255)
        again = detector.detect(noisy.astype(np.uint8))
        assert np.array_equal(again.quads, first.quads)
    assert pile_net.runs == 1
    changed = result.image.copy()
    (x0, y0), (x1, y1) = result.cards[0].quad.min(axis=0), result.cards[0].quad.max(axis=0)
    changed[int(y0):int(y1), int(x0):int(x1)] = 40  # a hand over the fan
    detector.detect(changed)
    assert pile_net.runs == 2
    empty = render(table([]))  # the cards taken away: no pile; the look is kept a while
    detector.session = Oracle(scene_targets(empty))
    for _ in range(detector.pile_memory.keep_frames - 1):
        detector.detect(empty.image)
    assert pile_net.runs == 2 and len(detector.pile_memory.looks) == 1
    detector.detect(empty.image)  # the last frame it could be recalled in
    assert detector.pile_memory.looks == []  # and then forgotten


def test_the_shipped_pile_network_finds_more_of_the_cards_of_held_out_tables():
    _, _, held_out = split_designs()
    first, both = CardDetector(piles=None), CardDetector()
    found = {first: [0, 0], both: [0, 0]}  # cards found, boxes that found none
    for seed in range(8):
        result = render(random_scene(np.random.default_rng(seed), designs=held_out))
        index = [i for i, c in enumerate(result.cards) if c.visible > 0]
        quads = np.float32([result.cards[i].quad for i in index]).reshape(-1, 4, 2)
        for detector, tally in found.items():
            obs = detector.detect(result.image)
            took = match_found(obs, result, index, iou_matrix(obs.quads, quads))
            tally[0] += int((took >= 0).sum())
            tally[1] += int((took < 0).sum())
    (alone, stray_alone), (again, stray_again) = found[first], found[both]
    assert again >= alone * 1.1  # 188 against 165 of the 223 cards that show
    assert stray_again <= stray_alone + 5
