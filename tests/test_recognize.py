"""`recognize`: the real pipeline (shipped detector, refiner and classifier) on rendered photos."""

from __future__ import annotations

import dataclasses
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_api.cli import main
from simulator.cardart import get_design, list_designs
from simulator.layout import random_scene
from simulator.render import render
from training.designs import HELD_OUT_FAMILIES
from vision import MAX_PIXELS
from vision.detect import PHOTO_ZOOMS
from vision.geometry import polygon_iou
from vision.pipeline import Recognizer

HELD_OUT = [d for d in list_designs() if get_design(d).family in HELD_OUT_FAMILIES]


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> tuple[Path, list]:
    scene = random_scene(np.random.default_rng(5), designs=[HELD_OUT[0]],
                         image_size=(1920, 1080), hand_chance=0.0)
    result = render(scene)
    path = tmp_path_factory.mktemp("photos") / "table.png"
    cv2.imwrite(str(path), result.image)
    return path, [c for c in result.cards if c.visible >= 0.5]


def test_recognize_finds_the_cards_of_a_held_out_deck(photo, capsys):
    path, cards = photo
    assert main(["recognize", str(path), "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["image"] == str(path)
    found = line["cards"]
    assert all(set(f) >= {"card", "confidence", "quad", "zone"} for f in found)
    quads = [np.float32(f["quad"]) for f in found]
    matched = [c for c in cards
               if any(polygon_iou(np.float32(c.quad), q) >= 0.5 for q in quads)]
    assert len(matched) >= 0.8 * len(cards), f"{len(matched)} of {len(cards)} found"
    for f in found:  # what is named with confidence is the card that lies there
        if f["card"] != "UNKNOWN":
            best = max(cards, key=lambda c: polygon_iou(np.float32(c.quad),
                                                        np.float32(f["quad"])))
            assert f["card"] == best.card


def test_several_images_give_one_json_line_each_and_a_bad_one_is_one_line(photo, tmp_path,
                                                                            capsys):
    path, _ = photo
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg")
    assert main(["recognize", str(path), str(bad), str(path), "--json"]) == 2
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["image"] for line in lines] == [str(path), str(path)]
    assert captured.err.count("\n") == 1 and "broken.jpg" in captured.err


@pytest.fixture(scope="module")
def close_up(tmp_path_factory) -> tuple[Path, list]:
    """A phone-style photo of a few held-out cards, each a third of the frame or more."""
    rng = np.random.default_rng(8)
    scene = random_scene(rng, designs=[HELD_OUT[1]], image_size=(756, 1008), hand_chance=0.0)
    camera = dataclasses.replace(scene.camera, distance=scene.camera.distance * 0.22,
                                 target=scene.cards[len(scene.cards) // 2].center)
    result = render(dataclasses.replace(scene, camera=camera))
    path = tmp_path_factory.mktemp("photos") / "close_up.jpg"
    cv2.imwrite(str(path), result.image)
    return path, [c for c in result.cards if c.visible >= 0.9]


def test_recognize_finds_cards_that_fill_a_photo(close_up, capsys):
    path, cards = close_up
    assert len(cards) >= 2
    assert main(["recognize", str(path), "--json"]) == 0
    quads = [np.float32(f["quad"]) for f in json.loads(capsys.readouterr().out)["cards"]]
    found = [c for c in cards if any(polygon_iou(np.float32(c.quad), q) >= 0.5 for q in quads)]
    assert len(found) >= 0.8 * len(cards), f"{len(found)} of {len(cards)} found"


@pytest.mark.parametrize("seed", [12, 14])
def test_a_card_found_at_two_zooms_is_one_card_in_clear_view(seed):
    """A photo is looked at in several zooms; a card found in two must come out once, in
    clear view and read right: its two boxes would crowd each other out of clear view, and
    neither would be named. (Whether it is named is then the classifier's confidence.)"""
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, designs=[HELD_OUT[1]], image_size=(756, 1008), hand_chance=0.0)
    camera = dataclasses.replace(scene.camera, distance=scene.camera.distance * 0.22,
                                 target=scene.cards[len(scene.cards) // 2].center)
    result = render(dataclasses.replace(scene, camera=camera))
    obs = Recognizer().observe(result.image, zooms=PHOTO_ZOOMS)
    for card in (c for c in result.cards if c.visible >= 0.9):
        on_it = [i for i, q in enumerate(obs.quads) if polygon_iou(np.float32(card.quad), q) >= 0.5]
        assert len(on_it) == 1, f"{card.card}: {len(on_it)} boxes"
        assert obs.extra["clear"][on_it[0]] and obs.extra["best"][on_it[0]] == card.card


def test_a_missing_image_is_one_line_on_the_real_stderr(tmp_path):
    """OpenCV writes its own warnings straight to the process's stderr; none may show."""
    done = subprocess.run([sys.executable, "-m", "companion_api.cli", "recognize",
                           str(tmp_path / "missing.jpg")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "missing.jpg" in done.stderr


def _png(path: Path, width: int, height: int) -> None:
    """A black PNG written row by row: a few MB on disk however many pixels it says."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    squeeze, row = zlib.compressobj(1), b"\0" * (width * 3 + 1)
    pixels = b"".join([squeeze.compress(row) for _ in range(height)] + [squeeze.flush()])
    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))


def _peak_mb(argv: list[str]) -> tuple[subprocess.CompletedProcess, float]:
    """Run the CLI in a child of a child: the peak memory is that one process's alone."""
    measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], "
               "capture_output=True, text=True); sys.stderr.write(done.stderr); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "sys.exit(done.returncode)")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m",
                           "companion_api.cli", *argv], capture_output=True, text=True,
                          timeout=120)
    return done, int(done.stdout.split()[-1]) / 1024


def test_a_900_megapixel_png_is_refused_by_its_header(tmp_path):
    """A few MB on disk, 2.7 GB decoded: refused before decoding, naming the limit."""
    bomb = tmp_path / "bomb.png"
    _png(bomb, 30_000, 30_000)
    done, peak = _peak_mb(["recognize", str(bomb)])
    assert done.returncode == 2
    assert done.stderr.startswith("hearthtop-companion: error:")
    assert done.stderr.count("\n") == 1 and "bomb.png" in done.stderr
    assert f"{MAX_PIXELS // 1_000_000} megapixels" in done.stderr
    assert peak < 1500


def test_a_photo_of_noise_shows_no_card(tmp_path, capsys):
    """The detector may outline a card in noise; a card in a photograph has pixels alike
    side by side, noise does not: no card."""
    rng = np.random.default_rng(0)
    for name, shape in (("grey.png", (480, 640)), ("colour.png", (480, 640, 3)),
                        ("big.png", (1080, 1920, 3))):
        cv2.imwrite(str(tmp_path / name), rng.integers(0, 256, shape, np.uint8))
        assert main(["recognize", str(tmp_path / name), "--json", "--no-deck"]) == 0
        assert json.loads(capsys.readouterr().out)["cards"] == [], name


def test_noise_is_told_from_a_photograph_and_an_outline_off_the_frame_is_no_error():
    from vision.pipeline import _noise

    noise = np.random.default_rng(0).integers(0, 256, (100, 100, 3), np.uint8)
    smooth = cv2.GaussianBlur(noise, (9, 9), 0)
    inside = np.float32([[10, 10], [60, 10], [60, 60], [10, 60]])
    outside = inside + 200
    assert _noise(noise, inside) and not _noise(smooth, inside)
    assert not _noise(noise, outside) and not _noise(np.zeros_like(noise), inside)
