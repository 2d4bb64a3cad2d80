"""Every reader of a file the companion is given, fuzzed: raw bytes, and near-valid files (a
real one with a value swapped, a key dropped or added, a line cut, bytes flipped). Each
reader either reads the file or refuses it with its own one-line error: never another
exception. The API's bodies are fuzzed from its schema in `test_api_schema.py`.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.layout import DEFAULT_LAYOUT, LayoutError, parse_layout
from companion_api.store import DataFolder, StoreError
from companion_api.track import TrackError, read_phone
from tracker.events import LogError, iter_log, parse_event
from tracker.heroes import HeroError, load_hero_file
from vision.deck import Deck, DeckError
from vision.image import ImageError, read_image

HEROES = Path(__file__).resolve().parents[1] / "tracker" / "heroes"
SAMPLE = Path(__file__).resolve().parents[1] / "tracker" / "samples" / "demo_game.jsonl"
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


def _write(data: bytes, suffix: str) -> Path:
    file = tempfile.NamedTemporaryFile(suffix=suffix, delete=False)  # noqa: SIM115
    with file:
        file.write(data)
    return Path(file.name)


# --- event logs -----------------------------------------------------------------------------
@FUZZ
@given(st.binary(max_size=400))
def test_a_log_of_raw_bytes_is_read_or_refused_by_line(data):
    path = _write(data, ".jsonl")
    try:
        for _, event in iter_log(path):
            assert event.type in EVENT_TYPES
    except LogError as error:
        assert "\n" not in str(error)
    finally:
        path.unlink()


@FUZZ
@given(st.sampled_from(EVENTS).flatmap(mutated))
def test_a_near_valid_event_is_an_event_or_one_line(line):
    try:
        assert parse_event(json.dumps(line)).type in EVENT_TYPES
    except LogError as error:
        assert "\n" not in str(error)


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
    path = _write(data, ".toml")
    try:
        load_hero_file(path)
    except HeroError as error:
        assert "\n" not in str(error)
    finally:
        path.unlink()


# --- layouts --------------------------------------------------------------------------------
LAYOUT = json.loads(DEFAULT_LAYOUT.read_text())


@FUZZ
@given(st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace"))
       | mutated(LAYOUT).map(json.dumps))
def test_a_layout_is_a_layout_or_one_line(text):
    try:
        parse_layout(text)
    except LayoutError as error:
        assert "\n" not in str(error)


# --- phone files and stored games -------------------------------------------------------
PHONE = [{"frame": 0, "event": EVENTS[0]}, {"frame": 40, "event": {"type": "end_turn"}}]


def _json_lines(value) -> bytes:
    lines = value if isinstance(value, list) else [value]
    return "\n".join(json.dumps(line) for line in lines).encode()


@FUZZ
@given(st.binary(max_size=300) | mutated(PHONE).map(_json_lines))
def test_a_phone_file_is_read_or_one_line(data):
    path = _write(data, ".jsonl")
    try:
        read_phone(path)
    except TrackError as error:
        assert "\n" not in str(error)
    finally:
        path.unlink()


@FUZZ
@given(st.binary(max_size=300))
def test_a_stored_game_is_read_or_one_line(tmp_path, data):
    folder = DataFolder(tmp_path / "data")
    folder.log_path("g").write_bytes(data)
    try:
        folder.read("g")
    except StoreError as error:
        assert "\n" not in str(error)


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
    path = _write(data, ".img")
    try:
        image = read_image(path)
        assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    except ImageError as error:
        assert "\n" not in str(error) and str(path) in str(error)
    finally:
        path.unlink()


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
    path = _write(raw, ".npz")
    try:
        assert isinstance(Deck.load(path), Deck)
    except DeckError as error:
        assert "\n" not in str(error)
    finally:
        path.unlink()
