"""Every reader of a file the companion is given, fuzzed: raw bytes, and near-valid files (a
real one with a value swapped, a key dropped or added, a line cut, bytes flipped). Each
reader either reads the file or refuses it with its own one-line error: never another
exception. The API's bodies are fuzzed from its schema in `test_api_schema.py`.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.layout import DEFAULT_LAYOUT, LayoutError, parse_layout
from companion_api.store import DataFolder, StoreError
from tracker.camera.recording import TrackError, read_phone
from tracker.rules.events import LogError, iter_log, parse_event
from tracker.rules.heroes import HeroError, load_hero_file
from vision.deck import Deck, DeckError
from vision.image import ImageError, read_image

HEROES = Path(__file__).resolve().parents[1] / "tracker" / "rules" / "heroes"
SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "demo_game.jsonl"
EVENTS = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
EVENT_TYPES = {"new_game", "mulligan", "play", "attack", "hero_power", "secret_revealed",
               "end_turn", "concede", "markers"}
FUZZ = settings(max_examples=200, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)


@st.composite
def mutated(draw, value):
    """`value` (JSON) with one thing changed somewhere: a value swapped, a key dropped or
    added, an item removed."""
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        action = draw(st.sampled_from(["swap", "drop", "add", "deeper"]))
        changed = dict(value)
        if action == "drop":
            del changed[key]
        elif action == "add":
            changed[draw(st.text(max_size=8))] = draw(json_values)
        elif action == "deeper":
            changed[key] = draw(mutated(value[key]))
        else:
            changed[key] = draw(json_values)
        return changed
    if isinstance(value, list) and value and draw(st.booleans()):
        index = draw(st.integers(0, len(value) - 1))
        changed = list(value)
        if draw(st.booleans()):
            del changed[index]
        else:
            changed[index] = draw(mutated(value[index]))
        return changed
    return draw(json_values)


@contextlib.contextmanager
def _file(data: bytes, suffix: str) -> Iterator[Path]:
    """A file holding `data`, removed afterwards."""
    file = tempfile.NamedTemporaryFile(suffix=suffix, delete=False)  # noqa: SIM115
    with file:
        file.write(data)
    try:
        yield Path(file.name)
    finally:
        Path(file.name).unlink()


@contextlib.contextmanager
def _or_one_line(refusal: type[Exception], naming: str = "") -> Iterator[None]:
    """What runs inside either succeeds or raises `refusal`, in one line (naming `naming`)."""
    try:
        yield
    except refusal as error:
        assert "\n" not in str(error) and naming in str(error)


# --- event logs -----------------------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=400))
def test_a_log_of_raw_bytes_is_read_or_refused_by_line(data):
    with _file(data, ".jsonl") as path, _or_one_line(LogError):
        for _, event in iter_log(path):
            assert event.type in EVENT_TYPES


@FUZZ
@given(st.sampled_from(EVENTS).flatmap(mutated))
def test_a_near_valid_event_is_an_event_or_one_line(line):
    with _or_one_line(LogError):
        assert parse_event(json.dumps(line)).type in EVENT_TYPES


# --- hero files -----------------------------------------------------------------------------
HERO_TEXTS = [path.read_text() for path in sorted(HEROES.glob("*.toml"))]


@st.composite
def near_valid_hero(draw):
    """A shipped hero file with a few lines dropped, doubled, cut short or spliced."""
    lines = draw(st.sampled_from(HERO_TEXTS)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "double", "cut", "splice"]))
        if action == "drop":
            del lines[index]
        elif action == "double":
            lines.insert(index, lines[index])
        elif action == "cut":
            lines[index] = lines[index][:draw(st.integers(0, len(lines[index])))]
        else:
            lines[index] += draw(st.text(max_size=10))
    return "\n".join(lines)


@FUZZ
@given(st.binary(max_size=400) | near_valid_hero().map(str.encode))
def test_a_hero_file_is_a_hero_or_one_line(data):
    with _file(data, ".toml") as path, _or_one_line(HeroError):
        load_hero_file(path)


# --- layouts --------------------------------------------------------------------------------
LAYOUT = json.loads(DEFAULT_LAYOUT.read_text())


@FUZZ
@given(st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace"))
       | mutated(LAYOUT).map(json.dumps))
def test_a_layout_is_a_layout_or_one_line(text):
    with _or_one_line(LayoutError):
        parse_layout(text)


# --- phone files and stored games -------------------------------------------------------
PHONE = [{"frame": 0, "event": EVENTS[0]}, {"frame": 40, "event": {"type": "end_turn"}}]


def _json_lines(value) -> bytes:
    lines = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(line) for line in lines).encode()


@FUZZ
@given(st.binary(max_size=300) | mutated(PHONE).map(_json_lines))
def test_a_phone_file_is_read_or_one_line(data):
    with _file(data, ".jsonl") as path, _or_one_line(TrackError):
        read_phone(path)


@FUZZ
@given(st.binary(max_size=300))
def test_a_stored_game_is_read_or_one_line(tmp_path, data):
    folder = DataFolder(tmp_path / "data")
    folder.log_path("g").write_bytes(data)
    with _or_one_line(StoreError):
        folder.read("g")


# --- images and registered decks ----------------------------------------------------------
def _encoded(suffix: str) -> bytes:
    rng = np.random.default_rng(0)
    picture = cv2.GaussianBlur(rng.integers(0, 256, (48, 64, 3), np.uint8), (5, 5), 0)
    return cv2.imencode(suffix, picture)[1].tobytes()


IMAGES = [_encoded(s) for s in (".png", ".jpg", ".bmp", ".webp", ".tiff")]


@st.composite
def damaged_image(draw):
    """A real image file cut short or with bytes overwritten."""
    data = bytearray(draw(st.sampled_from(IMAGES)))
    if draw(st.booleans()):
        return bytes(data[:draw(st.integers(0, len(data)))])
    for _ in range(draw(st.integers(1, 8))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


@FUZZ
@given(st.binary(max_size=300) | damaged_image())
def test_an_image_is_a_picture_or_one_line(data):
    with _file(data, ".img") as path, _or_one_line(ImageError, naming=str(path)):
        image = read_image(path)
        assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8


@pytest.fixture(scope="module")
def deck_file(tmp_path_factory) -> bytes:
    from vision.deck import from_cuts

    cuts = np.random.default_rng(1).integers(0, 256, (3, 100, 72, 3), np.uint8)
    path = tmp_path_factory.mktemp("deck") / "d.npz"
    from_cuts("d", cuts, ["AS", "KH", "BACK"]).save(path)
    return path.read_bytes()


@FUZZ
@given(data=st.data())
def test_a_deck_file_is_a_deck_or_one_line(deck_file, data):
    raw = data.draw(st.binary(max_size=300) | st.integers(0, len(deck_file)).map(
        lambda n: deck_file[:n]))
    with _file(raw, ".npz") as path, _or_one_line(DeckError):
        assert isinstance(Deck.load(path), Deck)
