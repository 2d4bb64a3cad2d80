"""Live video: a card that neither moved nor changed keeps its name; anything else is named
again (`vision.memory`, `Recognizer(video=True)`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.memory import CardMemory, PileMemory, thumbnails
from vision.pipeline import Recognizer
from vision.synth.layout import random_scene
from vision.synth.render import render


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
def frame() -> np.ndarray:
    scene = random_scene(np.random.default_rng(11), image_size=(1280, 720), hand_chance=0.0)
    return render(scene).image


def test_video_recognizer_names_only_what_changed(frame):
    recognizer = Recognizer(video=True)
    named: list[int] = []
    decide = recognizer.classifier.decide
    recognizer.classifier.decide = lambda probabilities, *args: (
        named.append(len(probabilities)), decide(probabilities, *args))[1]
    first = recognizer.observe(frame)
    noise = np.random.default_rng(0).normal(0, 2.0, frame.shape)
    second = recognizer.observe(np.clip(frame + noise, 0, 255).astype(np.uint8))
    assert named[0] == len(first) > 5
    assert named[1] <= 0.2 * len(second)
    cold = Recognizer().observe(frame)
    assert list(first.cards) == list(cold.cards)


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
