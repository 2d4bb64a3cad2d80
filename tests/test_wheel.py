"""The installed product is the wheel `pip install .` builds: the product's packages with
what they read at run time (the models and their reports, the hero files, the pages, the
demo recording, the zone layout), and none of the simulator, the training code, the
benchmarks or the tests. Installed on its own, it finds its models where it is installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = {"cards", "tracker", "vision", "calibration", "models", "companion_api"}
NEEDED = ["models/card_detector.onnx", "models/card_detector.json",
          "models/photo_detector.onnx", "models/photo_detector.json",
          "models/card_classifier.onnx", "models/pile_detector.onnx",
          "models/card_refiner.onnx", "models/rank_expert.onnx", "models/suit_expert.onnx",
          "models/photo_rank_expert.onnx", "models/photo_suit_expert.onnx",
          "models/corner_check.onnx", "models/corner_check.json",
          "models/README.md", "tracker/rules/heroes/jaina.toml",
          "companion_api/pages/phone.html", "companion_api/pages/static/phone.js",
          "companion_api/demo/table.mp4", "companion_api/demo/phone.jsonl",
          "calibration/default_layout.json"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    [built] = out.glob("hearthtop_companion-*.whl")
    return built


def test_the_wheel_ships_the_product_and_what_it_reads_and_nothing_else(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(
        ".dist-info")}
    assert tops == PRODUCT
    assert [n for n in NEEDED if n not in names] == []
    assert [n for n in names if n.endswith(".pt") or "__pycache__" in n] == []
    meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    points = zipfile.ZipFile(wheel).read(meta).decode()
    assert "hearthtop-companion = companion_api.cli:main" in points


def test_installed_alone_it_reads_a_photo_with_its_own_models(wheel, tmp_path):
    """The wheel unpacked in a folder of its own, first on the path, run from elsewhere:
    every module and model comes from there, none from the checkout."""
    from simulator.layout import random_scene
    from simulator.render import render

    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True, timeout=300)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), render(random_scene(np.random.default_rng(3))).image)
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run(
        [sys.executable, "-c", "import companion_api, vision.runtime as r; "
         "print(companion_api.__file__); print(r.shipped('card_detector.onnx'))"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(p).is_relative_to(target) for p in where), where
    read = subprocess.run([sys.executable, "-m", "companion_api.cli", "recognize",
                           str(photo), "--json", "--no-deck", "--data", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    cards = json.loads(read.stdout)["cards"]
    assert sum(c["card"] not in ("UNKNOWN", "BACK") for c in cards) >= 5
