"""Live video: a card that neither moved nor changed keeps its name; anything else is named
again; a frame in which nothing changed keeps all that was found (`vision.memory`,
`Recognizer(video=True)`)."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from simulator.layout import random_scene
from simulator.render import render
from vision.classify import UNKNOWN
from vision.memory import CardMemory, PileMemory, StillFrames, thumbnails
from vision.pipeline import Recognizer


def _cards(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, 100, 72, 3), dtype=np.uint8)


QUADS = np.float32([[[x, 10], [x + 72, 10], [x + 72, 110], [x, 110]] for x in (0, 100, 200)])


def test_still_cards_are_recalled_and_changed_ones_are_not():
    memory = CardMemory()
    cards = _cards(0, 3)
    memory.remember(QUADS, thumbnails(cards), ["a", "b", "c"], [-1, -1, -1])
    again = cards.copy()
    again[2] = _cards(1, 1)[0]  # the third card was swapped for another
    moved = QUADS.copy()
    moved[1] += 20  # the second card was pushed along
    shuffled = [2, 0, 1]  # the detector found them in another order
    found = memory.recall(moved[shuffled], thumbnails(again)[shuffled])
    assert found == [-1, 0, -1]


def test_small_jitter_and_sensor_noise_are_still_the_same_card():
    memory = CardMemory()
    cards = _cards(0, 3)
    memory.remember(QUADS, thumbnails(cards), ["a", "b", "c"], [-1, -1, -1])
    noise = np.random.default_rng(2).normal(0, 3, cards.shape)
    noisy = np.clip(cards + noise, 0, 255).astype(np.uint8)
    assert memory.recall(QUADS + 1.5, thumbnails(noisy)) == [0, 1, 2]


def test_drift_is_measured_from_when_the_card_was_named():
    memory = CardMemory(corner_share=0.06)
    cards = _cards(0, 1)
    quad = QUADS[:1]
    memory.remember(quad, thumbnails(cards), ["a"], [-1])
    for step in range(1, 4):  # 1.5 px along x and y a frame: three add up past 0.06 × 72
        shifted = quad + 1.5 * step
        found = memory.recall(shifted, thumbnails(cards))
        memory.remember(shifted, thumbnails(cards), ["a"], found)
    assert found == [-1]


@pytest.fixture(scope="module")
def scene():
    return random_scene(np.random.default_rng(11), image_size=(1280, 720), hand_chance=0.0)


@pytest.fixture(scope="module")
def frame(scene) -> np.ndarray:
    return render(scene).image


def _noisy(frame: np.ndarray, seed: int) -> np.ndarray:
    """The frame again through a sensor: fresh noise."""
    noise = np.random.default_rng(seed).normal(0, 2.5, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def test_video_recognizer_names_only_what_changed(frame):
    recognizer = Recognizer(video=True)
    recognizer.still = None  # every frame looked at: the cards' memory alone
    named: list[int] = []
    decide = recognizer.classifier.decide
    recognizer.classifier.decide = lambda probabilities, *args, **kwargs: (
        named.append(len(probabilities)), decide(probabilities, *args, **kwargs))[1]
    first = recognizer.observe(frame)
    noise = np.random.default_rng(0).normal(0, 2.0, frame.shape)
    second = recognizer.observe(np.clip(frame + noise, 0, 255).astype(np.uint8))
    assert named[0] == len(first) > 5
    assert named[1] <= 0.2 * len(second)
    cold = Recognizer().observe(frame)
    assert list(first.cards) == list(cold.cards)


def test_a_frame_that_shows_nothing_new_keeps_what_was_found_and_a_changed_one_does_not(
        scene, frame):
    recognizer = Recognizer(video=True)
    first = recognizer.observe(frame, timestamp=1.0)
    assert recognizer.looked and len(first) > 5
    again = recognizer.observe(_noisy(frame, 1), timestamp=2.0)
    assert not recognizer.looked and again.timestamp == 2.0
    assert list(again.cards) == list(first.cards) and np.array_equal(again.quads, first.quads)
    again.cards[:] = UNKNOWN  # a caller filling its columns in changes nothing kept

    turned = copy.deepcopy(scene)  # a named face turned down
    card = next(c for c in turned.cards if c.face_up and c.card in set(first.cards))
    card.face_up = False
    seen = recognizer.observe(_noisy(render(turned).image, 2), timestamp=3.0)
    assert recognizer.looked
    assert card.card in set(first.cards) - set(seen.cards)
    assert list(recognizer.observe(_noisy(render(turned).image, 3)).cards) == list(seen.cards)
    assert not recognizer.looked


def test_slow_change_adds_up_until_the_frame_is_looked_at_again(frame):
    # compared with the frame last looked at, not the last frame: light that creeps up a
    # few grey levels a frame counts once it has crept by the level
    still = StillFrames(level=8)
    still.looked = still.cells(frame)
    brighter = [still.cells(cv2.add(frame, np.full_like(frame, k))) for k in (3, 6, 9)]
    assert [still.same(cells) for cells in brighter] == [True, True, False]


def test_a_pile_is_recalled_where_its_crop_was_cut_though_its_boxes_moved_or_went():
    rng = np.random.default_rng(1)
    crop = rng.integers(0, 256, (224, 224, 3), dtype=np.uint8)
    memory = PileMemory(keep_frames=3)
    memory.remember(np.array([300.0, 200.0]), 80.0, crop, "what the pile network found")
    memory.next_frame()
    # a sliver missed this frame moves the middle of the pile's boxes by 0.42 card widths
    (look,) = memory.near(np.array([300.0 + 0.42 * 80, 200.0]), 80.0)
    assert memory.recall(look, crop) and look.found == "what the pile network found"
    assert memory.near(np.array([300.0 + 0.6 * 80, 200.0]), 80.0) == []  # another pile
    assert memory.near(np.array([300.0, 200.0]), 90.0) == []  # cards of another size
    changed = crop.copy()
    changed[:120] = 0  # a hand over the pile
    assert not memory.recall(look, changed)
    for _ in range(3):  # two boxes overlap in one frame and not the next: a pile comes and goes
        memory.next_frame()
    assert memory.near(np.array([300.0, 200.0]), 80.0) == [look]
    memory.next_frame()
    assert memory.looks == []  # unused for longer than keep_frames: forgotten


def test_a_new_look_replaces_the_ones_at_the_same_pile():
    rng = np.random.default_rng(2)
    before, after, beside = (rng.integers(0, 256, (224, 224, 3), dtype=np.uint8)
                             for _ in range(3))
    memory = PileMemory()
    memory.remember(np.array([300.0, 200.0]), 80.0, before, "before")
    memory.next_frame()
    memory.remember(np.array([310.0, 200.0]), 80.0, after, "after")
    assert [look.found for look in memory.looks] == ["after"]
    memory.next_frame()
    (look,) = memory.near(np.array([310.0, 200.0]), 80.0)
    assert memory.recall(look, after)  # recalled this frame by one pile: another beside it
    memory.remember(np.array([340.0, 200.0]), 80.0, beside, "beside")  # does not drop it
    assert [look.found for look in memory.looks] == ["after", "beside"]
