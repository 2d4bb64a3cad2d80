"""Live video: a card that neither moved nor changed keeps its name; anything else is named
again (`vision.memory`, `Recognizer(video=True)`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.layout import random_scene
from vision.memory import CardMemory, thumbnails
from vision.pipeline import Recognizer
from vision.render import render


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
    predict = recognizer.classifier.predict
    recognizer.classifier.predict = lambda cards, *args: (named.append(len(cards)),
                                                          predict(cards, *args))[1]
    first = recognizer.observe(frame)
    noise = np.random.default_rng(0).normal(0, 2.0, frame.shape)
    second = recognizer.observe(np.clip(frame + noise, 0, 255).astype(np.uint8))
    assert named[0] == len(first) > 5
    assert named[1] <= 0.2 * len(second)
    cold = Recognizer().observe(frame)
    assert list(first.cards) == list(cold.cards)
