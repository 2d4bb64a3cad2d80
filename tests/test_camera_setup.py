"""The camera setup check (`tracker.camera.setup`) on frames a simulated webcam takes of the
printed table (real OpenCV: ArUco, the camera's pose, the warps), and its endpoints on a real
server. The page itself is tried in a browser in test_pages.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from live_server import HANG_S, ThreadServer

from calibration import DEFAULT_MARKERS, render_mat, table_to_view
from simulator.camera import Camera, fit_distance
from tracker.camera import CameraFeed, Recording
from tracker.camera.setup import MIN_CARD_PX, check_setup, draw_setup

TABLE = (900.0, 600.0)
MM_PER_PX = 0.5
DEMO = Path(__file__).resolve().parents[1] / "companion_api" / "demo" / "table.mp4"


@pytest.fixture(scope="module")
def mat() -> np.ndarray:
    """The table as a camera straight above sees it: wood-brown, cards' white, the tiles."""
    rng = np.random.default_rng(3)
    wood = cv2.GaussianBlur(rng.normal(0, 1, (120, 180)).astype(np.float32), (0, 0), 2)
    tone = np.clip(120 + 40 * wood, 0, 255)
    background = cv2.resize(np.stack([tone * 0.6, tone * 0.8, tone], -1).astype(np.uint8),
                            (1800, 1200))
    for x in range(300, 1500, 200):  # a row of white cards
        cv2.rectangle(background, (x, 700), (x + 126, 876), (240, 240, 240), cv2.FILLED)
    return render_mat(TABLE, MM_PER_PX, background)


def shoot(mat: np.ndarray, camera: Camera, blur: float = 0.8) -> np.ndarray:
    to_image = camera.homography() @ np.linalg.inv(table_to_view(MM_PER_PX))
    frame = cv2.warpPerspective(mat, to_image, camera.size, borderValue=(40, 40, 40))
    return cv2.GaussianBlur(frame, (0, 0), blur) if blur else frame


def webcam(tilt: float = 10.0, size: tuple[int, int] = (1280, 720), **pose) -> Camera:
    """A webcam placed as a player would: the whole table in view, `tilt` from above."""
    camera = Camera(size=size, tilt=tilt, **pose)
    if "distance" not in pose:
        camera.distance = fit_distance(camera, TABLE)
    return camera


def marker_centre(camera: Camera, marker_id: int) -> np.ndarray:
    centre = DEFAULT_MARKERS.table_corners(marker_id, TABLE).mean(axis=0)
    point = camera.homography() @ np.array([*centre, 1.0])
    return point[:2] / point[2]


def cover(frame: np.ndarray, camera: Camera, marker_id: int) -> np.ndarray:
    """A hand-coloured blob over one marker."""
    covered = frame.copy()
    x, y = marker_centre(camera, marker_id).astype(int)
    cv2.circle(covered, (int(x), int(y)), 60, (120, 150, 200), cv2.FILLED)
    return covered


def test_a_webcam_above_the_table_is_ready(mat):
    camera = webcam(tilt=10)
    check, calibration = check_setup(shoot(mat, camera))
    assert check.ready and check.problems == ()
    assert [m.found for m in check.markers] == [True] * 4
    assert calibration is not None and check.zones_outside == ()
    assert abs(check.tilt_deg - 10) < 1.5
    assert MIN_CARD_PX < check.card_px[0] < check.card_px[1] < 100
    assert check.edge_px < 3.5 and check.clipped_share < 0.15
    answer = check.to_json()
    json.dumps(answer)  # all plain JSON, no numpy numbers
    assert answer["ready"] and answer["limits"]["min_card_px"] == MIN_CARD_PX


@pytest.mark.parametrize("tilt", [0, 25, 45])
def test_the_tilt_is_read_from_the_markers(mat, tilt):
    """The camera's pose from the markers' corners, its focal length unknown: within 1.5°
    of the tilt the simulated camera was placed at, for a wide lens and a narrower one."""
    for hfov in (60, 78):
        check, _ = check_setup(shoot(mat, webcam(tilt=tilt, hfov=hfov)))
        assert abs(check.tilt_deg - tilt) < 1.5, (hfov, check.tilt_deg)
    leans = [p for p in check.problems if "leans" in p]
    assert bool(leans) == (tilt > 35)
    if leans:
        assert leans == [f"The camera leans {check.tilt_deg:.0f}° from straight above: raise "
                         "it over the table's middle (up to 35° reads well)."]


def test_a_covered_marker_is_named_and_drawn_where_it_should_be(mat):
    camera = webcam(tilt=10)
    frame = cover(shoot(mat, camera), camera, 2)
    check, calibration = check_setup(frame)
    assert calibration is not None  # three markers still give the table
    assert [m.found for m in check.markers] == [True, True, False, True]
    assert check.markers[2].missing == "covered"
    assert check.problems == ("Marker 2 (near right corner) is covered: uncover it, or lay it "
                              "flat with its grey corner on the play area's corner.",)
    drawn = draw_setup(frame, check, calibration)
    # red where marker 2 should be, green round the others
    red, green = np.array([60, 60, 230]), np.array([80, 200, 80])
    for marker_id, colour in ((2, red), (0, green)):
        quad = np.array(check.markers[marker_id].tile_px)
        edge = ((quad[0] + quad[1]) / 2).round().astype(int)
        patch = drawn[edge[1] - 3:edge[1] + 4, edge[0] - 3:edge[0] + 4].reshape(-1, 3)
        assert (np.abs(patch.astype(int) - colour).sum(axis=1) < 60).any(), marker_id


def test_a_marker_out_of_the_picture_says_move_the_camera_back(mat):
    camera = webcam(tilt=10)
    camera.roll = 6  # turned a little: the near left corner falls out
    check, calibration = check_setup(shoot(mat, camera))
    assert calibration is not None
    assert check.markers[3].found is False and check.markers[3].missing == "outside"
    assert check.problems[0] == ("Marker 3 (near left corner) is out of the picture: move the "
                                 "camera back or up until the whole table shows.")
    assert check.zones_outside == ("p1.secrets",)
    assert any(p.startswith("Part of the table is out of the picture") for p in check.problems)


def test_too_few_markers_and_none_at_all(mat):
    camera = webcam(tilt=10)
    frame = cover(cover(shoot(mat, camera), camera, 0), camera, 3)
    check, calibration = check_setup(frame)
    assert calibration is None and not check.table_found
    assert check.problems == (
        "Marker 0 (far left corner) is not seen: check that it is laid, uncovered and in the "
        "picture.",
        "Marker 3 (near left corner) is not seen: check that it is laid, uncovered and in the "
        "picture.",
        "Three markers at least are needed to find the table.")
    blank, _ = check_setup(np.full((720, 1280, 3), 128, np.uint8))
    assert blank.problems == ("No table marker is in the picture: lay the four printed markers "
                              "(hearthtop-companion print-markers) on the play area's corners "
                              "and point the camera at the table.",)
    assert blank.card_px is None and blank.tilt_deg is None and blank.edge_px is None


def test_a_camera_too_far_says_how_wide_the_cards_are_and_what_is_needed(mat):
    check, _ = check_setup(shoot(mat, webcam(tilt=20, size=(640, 360))))
    assert check.card_px[0] < MIN_CARD_PX
    assert check.problems == (
        f"Move the camera closer or use a higher resolution: cards in {check.smallest_zone} "
        f"are {check.card_px[0]:.0f} px wide, {MIN_CARD_PX} are needed.",)


def test_light_and_focus(mat):
    frame = shoot(mat, webcam(tilt=10))
    dark, _ = check_setup((frame * 0.3).astype(np.uint8))
    assert dark.problems == ("The table is too dark: turn on a light above it.",)
    washed, _ = check_setup(cv2.convertScaleAbs(frame, alpha=3.0))
    assert len(washed.problems) == 1 and "washed out white" in washed.problems[0]
    blurred, _ = check_setup(shoot(mat, webcam(tilt=10), blur=2.5))
    # first: a marker may be lost to the blur too, and focusing finds it again
    assert blurred.problems[0] == ("The picture is out of focus: focus the camera on the "
                                   "table (or clean its lens).")
    assert blurred.edge_px > 4.5 > 3.5 > check_setup(frame)[0].edge_px


@pytest.mark.parametrize("junk", [np.zeros((5, 5, 3), np.uint8), np.zeros((720, 1280), np.uint8),
                                  np.full((1, 2000, 3), 255, np.uint8)])
def test_odd_frames_get_a_check_not_an_error(junk):
    check, calibration = check_setup(junk)
    assert calibration is None and not check.ready
    assert draw_setup(junk, check, calibration).shape[:2] == junk.shape[:2]


# --- the endpoints -------------------------------------------------------------------------

def test_without_a_camera_the_setup_endpoints_say_how_to_start_one(tmp_path):
    with ThreadServer(tmp_path / "data") as live:
        for path in ("/api/setup", "/api/setup/picture.jpg"):
            answer = live.get(path)
            assert answer.status_code == 404
            assert answer.json()["detail"] == ("no camera is connected: start the server with "
                                               "`run --source 0` (the webcam)")
        sheet = live.get("/api/setup/markers.pdf")
        assert sheet.status_code == 200 and sheet.content.startswith(b"%PDF")
        assert sheet.headers["content-type"] == "application/pdf"
        page = live.get("/setup")
        assert page.status_code == 200 and "Camera setup" in page.text


def demo_frames(folder: Path, count: int, fps: float = 5.0) -> Path:
    """The first `count` frames of the demo recording, as a folder of frames."""
    folder.mkdir()
    capture = cv2.VideoCapture(str(DEMO))
    for index in range(count):
        ok, frame = capture.read()
        assert ok
        cv2.imwrite(str(folder / f"{index:04d}.jpg"), frame)
    capture.release()
    (folder / "meta.json").write_text(json.dumps({"fps": fps}))
    return folder


def test_the_setup_of_a_recording_through_the_server(tmp_path):
    recording = Recording.at(demo_frames(tmp_path / "frames", 10))

    def camera(subscriber):
        return CameraFeed(recording, subscriber, speed=None)
    with ThreadServer(tmp_path / "data", camera=camera) as live:
        feed = live.app.state.table.feed
        deadline = time.monotonic() + HANG_S
        while not feed.ended:  # played to its end
            assert time.monotonic() < deadline, feed.status
            time.sleep(0.05)
        check = live.get("/api/setup").json()
        assert [m["found"] for m in check["markers"]] == [True] * 4
        assert check["picture"] and check["camera"] == "lost" and not check["ready"]
        assert check["problems"] == ["The recording has ended: this is its last picture."]
        assert check["tilt_deg"] < 10 and check["card_px"][0] > MIN_CARD_PX
        picture = live.get("/api/setup/picture.jpg")
        assert picture.headers["content-type"] == "image/jpeg"
        image = cv2.imdecode(np.frombuffer(picture.content, np.uint8), cv2.IMREAD_COLOR)
        assert image.shape == (720, 1280, 3)


def test_a_camera_whose_first_picture_is_being_read_is_starting_not_lost_or_ended(tmp_path):
    """The models load at the first look: meanwhile the feed is not "ok" yet, but a picture
    is there. The setup page says it is starting, not that the camera is lost or that the
    recording has ended (which only a recording played to its end is)."""
    from types import SimpleNamespace

    from companion_api.routers.setup import _condition

    recording = Recording.at(demo_frames(tmp_path / "frames", 1))
    feed = SimpleNamespace(status="lost", picture=np.zeros((4, 4, 3), np.uint8), frame=0,
                           ended=False, source=recording)
    assert _condition(feed).startswith("Reading the camera's first picture")
    feed.frame = 1  # looked at, and still nothing: lost
    assert _condition(feed).startswith("No picture from the camera")
    feed.ended = True
    assert _condition(feed) == "The recording has ended: this is its last picture."
