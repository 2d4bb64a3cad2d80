"""Table calibration on real OpenCV detection: the printed tiles on a synthetic table, seen
through known camera homographies with blur and noise, must give the table back in mm."""

from __future__ import annotations

import json
import re
import struct

import cv2
import numpy as np
import pytest

from calibration import (
    DEFAULT_MARKERS,
    CalibrationError,
    LayoutError,
    LiveCalibration,
    MarkerSet,
    SheetError,
    TableCalibration,
    default_layout,
    detect_markers,
    load_layout,
    make_detector,
    print_markers,
    render_mat,
    table_to_view,
)
from calibration.layout import DEFAULT_LAYOUT
from companion_api.cli import main

TABLE = (900.0, 600.0)
MM_PER_PX = 0.5
SHEET_PX_PER_MM = 300 / 25.4
# Table points spread over the whole play area, where the error of a homography shows.
GRID = np.stack(np.meshgrid(np.linspace(0, 900, 10), np.linspace(0, 600, 7)), -1).reshape(-1, 2)


def table_texture(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A wood-like table: long grain, fine noise, a light gradient, and a few card-like
    white rectangles with dark blots (the detector must not take them for markers)."""
    grain = cv2.resize(rng.normal(0, 1, (height // 40, width // 8)).astype(np.float32),
                       (width, height))
    fine = cv2.GaussianBlur(rng.normal(0, 1, (height, width)).astype(np.float32), (0, 0), 2)
    tone = 100 + 25 * grain + 10 * fine + np.linspace(-20, 20, width, dtype=np.float32)
    image = np.clip(np.stack([tone * 0.6, tone * 0.8, tone * 1.1], -1), 0, 255).astype(np.uint8)
    for _ in range(8):
        x, y = int(rng.integers(250, width - 250)), int(rng.integers(250, height - 250))
        cv2.rectangle(image, (x, y), (x + 126, y + 176), (235, 235, 235), cv2.FILLED)
        for _ in range(5):
            bx, by = x + int(rng.integers(10, 100)), y + int(rng.integers(10, 150))
            cv2.rectangle(image, (bx, by), (bx + 16, by + 16), (20, 20, 20), cv2.FILLED)
    return image


@pytest.fixture(scope="module")
def mat() -> np.ndarray:
    rng = np.random.default_rng(7)
    return render_mat(TABLE, MM_PER_PX, table_texture(rng, 1200, 1800))


def camera(size: tuple[int, int], quad: list[tuple[float, float]]) -> np.ndarray:
    """Table mm -> image pixels for a camera that sees the play area's corners 0..3 at
    `quad` (fractions of the image size): a tilted camera makes a trapezoid."""
    image = np.float32(quad) * np.float32(size)
    table = np.float32([[0, 0], [TABLE[0], 0], [TABLE[0], TABLE[1]], [0, TABLE[1]]])
    return cv2.getPerspectiveTransform(table, image).astype(np.float64)


TILTED = [(0.14, 0.06), (0.84, 0.08), (0.94, 0.94), (0.06, 0.95)]
BUMPED = [(0.19, 0.10), (0.88, 0.15), (0.95, 0.99), (0.09, 0.96)]


def shoot(mat: np.ndarray, table_to_image: np.ndarray, size: tuple[int, int],
          seed: int = 0) -> np.ndarray:
    """The camera's frame: perspective, a lens's blur, sensor noise."""
    to_image = table_to_image @ np.linalg.inv(table_to_view(MM_PER_PX))
    frame = cv2.warpPerspective(mat, to_image, size, borderValue=(40, 40, 40))
    frame = cv2.GaussianBlur(frame, (0, 0), 1.0).astype(np.float32)
    frame += np.random.default_rng(seed).normal(0, 4, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8)


def cover(frame: np.ndarray, table_to_image: np.ndarray, marker_id: int) -> np.ndarray:
    """Paint a hand-coloured blob over one marker."""
    quad = DEFAULT_MARKERS.table_corners(marker_id, TABLE)
    centre = cv2.perspectiveTransform(quad.mean(axis=0)[None, None], table_to_image)[0, 0]
    corner = cv2.perspectiveTransform(quad[:1][None], table_to_image)[0, 0]
    radius = int(np.linalg.norm(corner - centre) * 1.2)
    covered = frame.copy()
    cv2.circle(covered, (int(centre[0]), int(centre[1])), radius, (120, 150, 200), cv2.FILLED)
    return covered


def table_error_mm(calibration: TableCalibration, table_to_image: np.ndarray) -> float:
    """The worst distance over the play area between the true and the recovered table."""
    seen = cv2.perspectiveTransform(GRID[None], table_to_image)[0]
    return float(np.linalg.norm(calibration.to_table(seen) - GRID, axis=1).max())


# --- markers and the homography ---------------------------------------------------------

@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_markers_give_the_table_to_a_millimetre(mat, size):
    truth = camera(size, TILTED)
    calibration = TableCalibration.from_markers(shoot(mat, truth, size), TABLE)
    assert calibration.markers_used == (0, 1, 2, 3)
    assert calibration.reprojection_error_mm < 1.0
    assert table_error_mm(calibration, truth) < 1.0


@pytest.mark.parametrize("hidden", DEFAULT_MARKERS.ids)
def test_one_marker_under_a_hand_still_gives_the_table(mat, hidden):
    size = (1280, 720)
    truth = camera(size, TILTED)
    frame = cover(shoot(mat, truth, size), truth, hidden)
    calibration = TableCalibration.from_markers(frame, TABLE)
    assert hidden not in calibration.markers_used and len(calibration.markers_used) == 3
    assert table_error_mm(calibration, truth) < 2.0


def test_two_markers_hidden_is_a_one_line_error(mat):
    size = (1280, 720)
    truth = camera(size, TILTED)
    frame = cover(cover(shoot(mat, truth, size), truth, 0), truth, 2)
    with pytest.raises(CalibrationError, match=r"saw 2 of the 4 table markers \[1, 3\]") as err:
        TableCalibration.from_markers(frame, TABLE)
    assert "\n" not in str(err.value)


def test_a_tile_laid_at_a_quarter_turn_is_read_right(mat):
    turned = mat.copy()
    x, y, side, _ = (round(v / MM_PER_PX) for v in DEFAULT_MARKERS.tile_rect(2, TABLE))
    turned[y:y + side, x:x + side] = np.rot90(turned[y:y + side, x:x + side])
    size = (1280, 720)
    truth = camera(size, TILTED)
    calibration = TableCalibration.from_markers(shoot(turned, truth, size), TABLE)
    assert calibration.markers_used == (0, 1, 2, 3)
    assert table_error_mm(calibration, truth) < 1.0


def test_tiles_swapped_between_corners_are_an_error():
    swapped = MarkerSet(ids=(0, 1, 3, 2))  # the near tiles laid at each other's corner
    mat = render_mat(TABLE, MM_PER_PX, markers=swapped)
    size = (1280, 720)
    frame = shoot(mat, camera(size, TILTED), size)
    with pytest.raises(CalibrationError, match="is each tile at its own corner"):
        TableCalibration.from_markers(frame, TABLE)


def test_points_map_both_ways_and_the_view_is_in_millimetres(mat):
    size = (1280, 720)
    truth = camera(size, TILTED)
    calibration = TableCalibration.from_markers(shoot(mat, truth, size), TABLE)
    pixels = np.array([[300.5, 200.25], [1000.0, 650.0]])
    assert np.allclose(calibration.to_image(calibration.to_table(pixels)), pixels)
    assert calibration.to_table(pixels[0]).shape == (2,)
    # In the top-down view at 0.5 mm a pixel the markers are where the table frame says.
    view = calibration.warp(shoot(mat, truth, size), mm_per_px=0.5)
    assert view.shape[:2] == (1200, 1800)
    for marker_id, quad in detect_markers(view, make_detector()).items():
        expected = DEFAULT_MARKERS.table_corners(marker_id, TABLE) / 0.5 - 0.5
        assert np.abs(quad - expected).max() < 2.0  # pixels of 0.5 mm


def test_four_clicked_corners_give_the_table():
    size = (1280, 720)
    truth = camera(size, TILTED)
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [TABLE[0], 0], TABLE, [0, TABLE[1]]]]), truth)[0]
    clicked = corners + np.random.default_rng(3).uniform(-1, 1, corners.shape)  # a click is ±1 px
    calibration = TableCalibration.from_corners(clicked, TABLE)
    assert calibration.source == "corners"
    assert table_error_mm(calibration, truth) < 2.0
    assert np.allclose(calibration.image_corners(), clicked)


@pytest.mark.parametrize("points, message", [
    ([[0, 0], [100, 0], [100, 100]], "need four"),
    ([[0, 0], [0, 100], [100, 100], [100, 0]], "clockwise"),
    ([[0, 0], [100, 100], [100, 0], [0, 100]], "clockwise"),
    ([[0, 0], [5, 0], [5, 5], [0, 5]], "almost no area"),
])
def test_bad_clicked_corners_are_one_line_errors(points, message):
    with pytest.raises(CalibrationError, match=message) as err:
        TableCalibration.from_corners(points, TABLE)
    assert "\n" not in str(err.value)


# --- the calibration kept live -----------------------------------------------------------

def test_live_calibration_holds_through_hands_and_follows_a_bumped_camera(mat):
    size = (1280, 720)
    before, after = camera(size, TILTED), camera(size, BUMPED)
    live = LiveCalibration(TABLE, still_level=None)  # looks every frame
    frames = [shoot(mat, before, size, seed) for seed in range(3)]
    assert [live.update(f).status for f in frames] == ["found", "blended", "blended"]
    assert table_error_mm(live.calibration, before) < 1.0

    # A hand over one marker: the three others confirm the calibration held.
    update = live.update(cover(frames[0], before, 1))
    assert update.status == "confirmed" and update.markers_seen == (0, 2, 3)
    # Hands over three: the last good one is kept.
    hidden = cover(cover(cover(frames[1], before, 0), before, 1), before, 3)
    update = live.update(hidden)
    assert update.status == "held" and update.markers_seen == (2,)
    assert table_error_mm(update.calibration, before) < 1.0

    # The camera is bumped while a hand hides two markers: the two in view disagree.
    bumped = shoot(mat, after, size, 10)
    update = live.update(cover(cover(bumped, after, 0), after, 1))
    assert update.status == "stale" and update.shift_mm > 20
    # Markers back in view: the new fit replaces the old one at once, not by blending.
    update = live.update(bumped)
    assert update.status == "moved"
    assert table_error_mm(live.calibration, after) < 1.0
    for seed in range(11, 13):
        assert live.update(shoot(mat, after, size, seed)).status == "blended"
    assert table_error_mm(live.calibration, after) < 1.0


def test_live_calibration_smooths_jitter(mat):
    size = (960, 540)
    truth = camera(size, TILTED)
    live = LiveCalibration(TABLE, alpha=0.3, still_level=None)
    raw, followed = [], []
    for seed in range(10):
        frame = shoot(mat, truth, size, 100 + seed)
        raw.append(TableCalibration.from_markers(frame, TABLE).image_corners())
        followed.append(live.update(frame).calibration.image_corners())
    spread = np.std(raw[2:], axis=0).mean()
    assert np.std(followed[2:], axis=0).mean() < 0.8 * spread


def test_live_calibration_looks_every_nth_frame(mat):
    size = (960, 540)
    frame = shoot(mat, camera(size, TILTED), size)
    live = LiveCalibration(TABLE, every=3, still_level=None)
    statuses = [live.update(frame).status for _ in range(4)]
    assert statuses == ["found", "skipped", "skipped", "blended"]


def test_live_calibration_looks_again_only_where_a_tile_changed(mat):
    """Between plays nothing moves: fresh sensor noise over the tiles keeps the calibration
    without looking for the markers; a hand over a tile is looked at, and so is a camera
    nudged by a pixel, followed until the blend settles."""
    size = (1280, 720)
    before = camera(size, TILTED)
    live = LiveCalibration(TABLE)
    found = live.update(shoot(mat, before, size, 0))
    assert found.status == "found"
    for seed in (1, 2):
        update = live.update(shoot(mat, before, size, seed))
        assert update.status == "still" and update.calibration is found.calibration
    update = live.update(cover(shoot(mat, before, size, 3), before, 2))
    assert update.status == "confirmed" and update.markers_seen == (0, 1, 3)

    nudged = np.array([[1, 0, 1.0], [0, 1, 0], [0, 0, 1]]) @ before  # one px to the right
    statuses = [live.update(shoot(mat, nudged, size, seed)).status for seed in range(4, 12)]
    assert statuses[0] == "blended" and statuses[-1] == "still"
    assert table_error_mm(live.calibration, nudged) < 1.0


def test_live_calibration_without_markers_keeps_clicked_corners():
    start = TableCalibration.from_corners([[100, 50], [1180, 60], [1250, 700], [40, 690]],
                                          TABLE)
    live = LiveCalibration(TABLE, initial=start)
    update = live.update(np.full((720, 1280, 3), 90, np.uint8))
    assert update.status == "held" and update.calibration is start


# --- the printed sheet -------------------------------------------------------------------

def check_sheet(image: np.ndarray) -> None:
    """An A4 page at 300 dpi with the four markers at 72 mm, readable."""
    assert image.shape[:2] == (3508, 2480)
    found = detect_markers(image, make_detector())
    assert sorted(found) == [0, 1, 2, 3]
    for quad in found.values():
        sides = np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1) / SHEET_PX_PER_MM
        assert np.allclose(sides, DEFAULT_MARKERS.marker_mm, atol=0.3)


def test_png_sheet_is_a4_at_300_dpi_with_readable_markers(tmp_path):
    path = print_markers(tmp_path / "markers.png")
    data = path.read_bytes()
    check_sheet(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE))
    # The pHYs chunk: 11811 pixels a metre is 300 dpi, so viewers print it at real size.
    at = data.index(b"pHYs")
    assert struct.unpack(">IIB", data[at + 4:at + 13]) == (11811, 11811, 1)


def test_pdf_sheet_is_one_a4_page_with_the_markers(tmp_path):
    data = print_markers(tmp_path / "markers.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.276 841.890]" in data  # A4 in points
    # Every offset in the cross-reference table points at its object.
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    entries = re.findall(rb"(\d{10}) 00000 n", data[xref:])
    for number, offset in enumerate(entries, start=1):
        assert data[int(offset):].startswith(b"%d 0 obj" % number)
    start = data.index(b"stream\n", data.index(b"/DCTDecode")) + len(b"stream\n")
    length = int(re.search(rb"/DCTDecode /Length (\d+)", data).group(1))
    check_sheet(cv2.imdecode(np.frombuffer(data[start:start + length], np.uint8),
                             cv2.IMREAD_GRAYSCALE))


def test_print_markers_command(tmp_path, capsys):
    assert main(["print-markers", str(tmp_path / "m.pdf")]) == 0
    assert (tmp_path / "m.pdf").stat().st_size > 10_000
    assert "m.pdf" in capsys.readouterr().out


@pytest.mark.parametrize("name, message", [
    ("markers.jpg", "markers.jpg: the file name must end in .pdf or .png"),
    ("missing/markers.png", "markers.png: cannot write"),
])
def test_print_markers_bad_path_is_one_line_error(tmp_path, capsys, name, message):
    assert main(["print-markers", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    with pytest.raises(SheetError):
        print_markers(tmp_path / name)


# --- the zone layout ----------------------------------------------------------------------

def test_default_layout_zones_lie_inside_the_table_apart_and_clear_of_the_tiles():
    layout = default_layout()
    assert layout.table_mm == TABLE
    zones = layout.zones
    assert len(zones) == 16 and {"p1.minions", "p2.totems", "deck", "discard"} <= set(zones)
    tiles = [np.float32([[x, y], [x + s, y], [x + s, y + s], [x, y + s]])
             for x, y, s, _ in (DEFAULT_MARKERS.tile_rect(i, TABLE) for i in DEFAULT_MARKERS.ids)]
    names = list(zones)
    for i, name in enumerate(names):
        outline = zones[name]
        assert outline.min() >= 0 and (outline.max(axis=0) <= TABLE).all(), name
        for other in names[i + 1:]:
            assert cv2.intersectConvexConvex(outline, zones[other])[0] <= 1.0, (name, other)
        for tile in tiles:
            assert cv2.intersectConvexConvex(outline, tile)[0] == 0, name


def test_default_layout_gives_each_player_the_same_side():
    zones = default_layout().zones
    for zone in ("minions", "attack", "hero", "weapon", "armor", "secrets", "totems"):
        turned = np.array(TABLE, np.float32) - zones[f"p1.{zone}"]
        assert np.allclose(np.sort(turned, axis=0), np.sort(zones[f"p2.{zone}"], axis=0))


ZONES_AT = [
    ((450, 540), "p1.hero"), ((450, 60), "p2.hero"), ((330, 540), "p1.weapon"),
    ((450, 420), "p1.minions"), ((450, 320), "p1.attack"), ((450, 280), "p2.attack"),
    ((60, 300), "deck"), ((840, 300), "discard"), ((40, 40), None), ((450, 599.9), None),
]


@pytest.mark.parametrize("point, zone", ZONES_AT)
def test_zone_at(point, zone):
    assert default_layout().zone_at(point) == zone


def test_a_frames_cards_find_their_zones_at_once():
    layout = default_layout()
    zones = layout.zones
    middles = [outline.mean(axis=0) for outline in zones.values()]
    corners = [corner for outline in zones.values() for corner in outline]  # on an edge
    points = np.array([p for p, _ in ZONES_AT] + middles + corners, np.float64)
    found = layout.zones_at(points)
    assert found[:len(ZONES_AT) + len(zones)] == [z for _, z in ZONES_AT] + list(zones)
    for corner, zone in zip(corners, found[-len(corners):], strict=True):
        assert cv2.pointPolygonTest(zones[zone], tuple(map(float, corner)), False) >= 0
    assert layout.zones_at(np.zeros((0, 2))) == []


def test_layout_file_round_trip(tmp_path):
    path = tmp_path / "layout.json"
    path.write_text(DEFAULT_LAYOUT.read_text())
    assert load_layout(path) == default_layout()


def edited_layout(**changes) -> str:
    data = json.loads(DEFAULT_LAYOUT.read_text())
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        node = data
        for key in parents:
            node = node[key]
        if value is None:
            del node[last]
        else:
            node[last] = value
    return json.dumps(data, indent=2)


BAD_LAYOUTS = {
    "not json": ('{"table_mm": [900, 600],', "not valid JSON (Expecting"),
    "not an object": ("[1, 2]", "a layout must be a JSON object"),
    "zone missing": (edited_layout(p1__weapon=None), "p1.weapon: missing"),
    "unknown zone": (edited_layout(p2__shield={"rect": [0, 0, 1, 1]}),
                     "p2.shield: unknown field"),
    "negative width": (edited_layout(shared__deck={"rect": [10, 235, -110, 130]}),
                       "shared.deck.rect.2: Input should be greater than 0"),
    "two shapes": (edited_layout(shared__deck={"rect": [1, 1, 1, 1],
                                               "polygon": [[0, 0], [1, 0], [0, 1]]}),
                   "shared.deck: a zone is either a rect"),
    "crossed polygon": (edited_layout(shared__deck={"polygon": [[0, 0], [50, 0], [0, 50],
                                                                [50, 50]]}),
                        "shared.deck: a zone polygon must be convex"),
    "overlap": (edited_layout(p1__hero={"rect": [380, 475, 110, 120]}),
                "zones p1.hero and p1.weapon overlap (1800 mm²)"),
    "off the table": (edited_layout(table_mm=[800, 600]),
                      "zone discard reaches outside the 800 × 600 mm table"),
}


@pytest.mark.parametrize("text, message", BAD_LAYOUTS.values(), ids=BAD_LAYOUTS.keys())
def test_bad_layout_is_a_one_line_error_naming_the_file(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_layout_file_is_a_one_line_error(tmp_path):
    with pytest.raises(LayoutError, match=r"nope\.json: cannot read \(FileNotFoundError"):
        load_layout(tmp_path / "nope.json")
