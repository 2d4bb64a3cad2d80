"""The synthetic table renderer, drawn with the real Debian card art (gnome-cards-data and
kdegames-card-data-kf5, see packages.txt): labels must say exactly where the pixels are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from cards import BACK, DECK
from simulator import cardart
from simulator.backs import procedural_back
from simulator.camera import Camera, fit_distance, project
from simulator.hands import Hand
from simulator.photometric import Photometric
from simulator.render import random_scene, render
from simulator.scene import SIDEWAYS, UPRIGHT, PlacedCard, Scene
from simulator.textures import Background, texture

# Two small, quick-to-draw designs, one of each id scheme (club_1 and 1_club).
GNOME, KDE = "simplistic", "kde-standard"
GREY = (128, 128, 128)


@pytest.fixture(scope="module", autouse=True)
def card_cache(tmp_path_factory: pytest.TempPathFactory):
    """Extract the two test designs into a fresh cache, not the user's."""
    old = os.environ.get("HEARTHTOP_CACHE")
    os.environ["HEARTHTOP_CACHE"] = str(tmp_path_factory.mktemp("hearthtop-cache"))
    cardart.extract([GNOME, KDE], workers=2, progress=False)
    yield cardart.cache_root()
    if old is None:
        os.environ.pop("HEARTHTOP_CACHE", None)
    else:
        os.environ["HEARTHTOP_CACHE"] = old


def one_card_scene(cards: list[PlacedCard], camera: Camera | None = None,
                   design: str = GNOME) -> Scene:
    """Cards on a plain grey table, no camera effects: pixels are the art itself."""
    cam = camera or Camera(size=(1280, 720), target=(450, 300), tilt=0, yaw=0)
    if camera is None:
        cam.distance = fit_distance(cam, (900, 600))
    grey = Background("solid", (GREY,))
    return Scene(design=design, cards=cards, table=grey, surround=grey, camera=cam,
                 photometric=Photometric())


def unwarp(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The image region inside `quad` pulled back to a w x h rectangle."""
    w, h = size
    dst = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR)


def over_grey(card: np.ndarray) -> np.ndarray:
    a = card[:, :, 3:4].astype(np.float32) / 255
    return (card[:, :, :3] * a + np.float32(GREY) * (1 - a)).astype(np.uint8)


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised cross-correlation of two BGR images (grey, small, borders trimmed)."""
    def prep(img: np.ndarray) -> np.ndarray:
        g = cv2.cvtColor(cv2.resize(img, (60, 84), interpolation=cv2.INTER_AREA),
                         cv2.COLOR_BGR2GRAY).astype(np.float32)[3:-3, 3:-3].ravel()
        return (g - g.mean()) / (g.std() + 1e-6)
    return float(np.mean(prep(a) * prep(b)))


def test_catalogue_finds_at_least_20_french_designs_with_all_52_faces_and_a_back():
    designs = cardart.list_designs()
    assert len(designs) >= 20
    for name in designs:
        elements = cardart.card_elements(name)
        assert all(card in elements for card in DECK), name
        assert BACK in elements, name
    assert not set(designs) & set(cardart.EXCLUDED)
    assert {cardart.get_design(d).scheme for d in designs} == {"gnome", "kde"}


def test_card_art_has_a_white_opaque_face_and_soft_rounded_corners():
    for design in (GNOME, KDE):
        card = cardart.load_card(design, "QS")
        assert card.dtype == np.uint8 and card.shape[2] == 4
        assert card.shape[0] == cardart.CARD_HEIGHT_PX
        assert 0.55 < card.shape[1] / card.shape[0] < 0.8
        a = card[:, :, 3]
        assert a[0, 0] < 60 and a[-1, -1] < 60  # rounded corner: the table shows
        inner = a[8:-8, 8:-8]
        assert inner.min() == 255  # no see-through face
        margin = card[12:30, card.shape[1] // 2 - 10 : card.shape[1] // 2 + 10, :3]
        assert margin.mean() > 225  # white paper near the top edge


def test_extraction_caches_every_card_and_skips_what_is_cached(card_cache: Path):
    for card in (*DECK, BACK):
        assert cardart.card_path(KDE, card).exists()
    assert cardart.extract([KDE], workers=2, progress=False) < 1.0  # nothing left to draw


def test_a_card_quad_is_where_its_pixels_are():
    cam = Camera(size=(1280, 720), target=(430, 320), tilt=25, yaw=12, roll=2, hfov=70)
    cam.distance = fit_distance(cam, (900, 600))
    card = PlacedCard("7H", (470, 280), rotation=33)
    result = render(one_card_scene([card], cam))
    art = cardart.load_card(GNOME, "7H")
    size = (art.shape[1], art.shape[0])
    label = result.cards[0]
    seen = unwarp(result.image, label.quad, size)
    assert correlation(seen, over_grey(art)) > 0.95
    # a quad a quarter turn off does not match: the test can tell
    assert correlation(unwarp(result.image, np.roll(label.quad, 1, axis=0), size),
                       over_grey(art)) < 0.6
    assert np.allclose(project(result.homography, label.quad_mm), label.quad, atol=1e-6)


def test_a_face_down_card_shows_the_back():
    result = render(one_card_scene([PlacedCard("7H", (450, 300), 8, face_up=False)]))
    label = result.cards[0]
    assert (label.card, label.identity, label.face_up) == (BACK, "7H", False)
    back, face = cardart.load_card(GNOME, BACK), cardart.load_card(GNOME, "7H")
    seen = unwarp(result.image, label.quad, (back.shape[1], back.shape[0]))
    assert correlation(seen, over_grey(back)) > 0.95
    assert correlation(seen, over_grey(face)) < 0.5


def test_a_deck_with_its_own_back_shows_it_face_down_and_its_faces_as_ever():
    own = procedural_back(np.random.default_rng(4))
    scene = one_card_scene([PlacedCard("7H", (300, 300), 8, face_up=False),
                            PlacedCard("7H", (600, 300), -5)])
    scene.back = own
    result = render(scene)
    down, up = result.cards
    seen = unwarp(result.image, down.quad, (own.shape[1], own.shape[0]))
    assert correlation(seen, over_grey(own)) > 0.9  # a fine pattern, softened by the warp
    assert correlation(seen, over_grey(cardart.load_card(GNOME, BACK))) < 0.5
    face = cardart.load_card(GNOME, "7H")
    assert correlation(unwarp(result.image, up.quad, (face.shape[1], face.shape[0])),
                       over_grey(face)) > 0.95


def test_own_backs_are_drawn_only_when_asked_for():
    """A share of 0 leaves the random draws, and so every earlier scene, as they were."""
    plain = random_scene(np.random.default_rng(11), designs=[GNOME])
    same = random_scene(np.random.default_rng(11), designs=[GNOME], own_backs=0.0)
    assert plain.back is None and same.back is None
    assert np.array_equal(render(plain).image, render(same).image)
    own = random_scene(np.random.default_rng(11), designs=[GNOME], own_backs=1.0)
    assert own.back is not None and own.back.shape[2] == 4


def test_a_printed_pattern_table_repeats_mirrored_with_no_seam():
    ppm, repeat_mm = 2.0, 40.0
    cloth = texture(Background("pattern", (GREY,), seed=5, feature_mm=repeat_mm), (300, 400),
                    ppm)
    again = texture(Background("pattern", (GREY,), seed=5, feature_mm=repeat_mm), (300, 400),
                    ppm)
    assert np.array_equal(cloth, again) and cloth.std() > 10  # seeded, and not plain
    step = round(repeat_mm * ppm)  # one repeat; the next is its mirror image
    assert np.array_equal(cloth[:, step - 20:step], cloth[:, step:step + 20][:, ::-1])
    assert np.array_equal(cloth[:, :2 * step], cloth[:, 2 * step:4 * step])


def test_only_scenes_whose_deck_has_its_own_back_lie_on_a_pattern():
    """A pattern of the kind the deck's back has, with no card's outline, is what teaches a
    detector that a pattern alone is not a card."""
    kinds = [random_scene(np.random.default_rng(k), designs=[GNOME], own_backs=1.0).table.kind
             for k in range(30)]
    assert 3 <= kinds.count("pattern") <= 20
    assert all(random_scene(np.random.default_rng(k), designs=[GNOME]).table.kind != "pattern"
               for k in range(30))


def test_upright_and_sideways_labels_agree_with_the_quads_aspect():
    rotations = (0, 90, 180, 268, 30, 125)
    cards = [PlacedCard(c, (120 + 130 * i, 300), r)
             for i, (c, r) in enumerate(zip(("2S", "3S", "4S", "5S", "6S", "7S"), rotations,
                                            strict=True))]
    result = render(one_card_scene(cards))
    expected = [UPRIGHT, SIDEWAYS, UPRIGHT, SIDEWAYS, UPRIGHT, SIDEWAYS]
    assert [c.orientation for c in result.cards] == expected
    for label in result.cards:  # straight-down camera: the image is a top view
        tall = np.linalg.norm(label.quad[3] - label.quad[0])  # along the card's long side
        down = abs(label.quad[3, 1] - label.quad[0, 1])  # ... projected on the image's y
        across = abs(label.quad[3, 0] - label.quad[0, 0])
        assert tall > np.linalg.norm(label.quad[1] - label.quad[0])
        assert (down > across) == (label.orientation == UPRIGHT)


def test_a_card_under_another_is_not_visible_and_half_covered_is_half():
    w = 88 * cardart.load_card(GNOME, "2S").shape[1] / cardart.CARD_HEIGHT_PX
    cards = [PlacedCard("2H", (300, 300), 0, z=0), PlacedCard("3H", (300, 300), 0, z=1),
             PlacedCard("4H", (600, 300), 0, z=0), PlacedCard("5H", (600 + w / 2, 300), 0, z=1),
             PlacedCard("6H", (450, 480), 90, face_up=False, z=0)]
    result = render(one_card_scene(cards))
    under, top, half, _, alone = (c.visible for c in result.cards)
    assert under < 0.02
    assert top > 0.97
    assert 0.4 < half < 0.6
    assert alone > 0.97


def test_a_hand_over_a_card_hides_part_of_it():
    scene = one_card_scene([PlacedCard("9C", (450, 300))])
    scene.hands = [Hand(entry=(450, 900), tip=(450, 300))]
    assert render(scene).cards[0].visible < 0.8


def test_the_same_seed_draws_the_same_table():
    a = render(random_scene(np.random.default_rng(11), designs=[GNOME]))
    b = render(random_scene(np.random.default_rng(11), designs=[GNOME]))
    c = render(random_scene(np.random.default_rng(12), designs=[GNOME]))
    assert np.array_equal(a.image, b.image)
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())
    assert not np.array_equal(a.image, c.image)


def test_random_tables_keep_the_whole_table_in_view():
    corners = np.array([[0, 0], [900, 0], [900, 600], [0, 600]], float)
    for seed in range(30):
        for size in ((1280, 720), (1920, 1080), (640, 480)):
            scene = random_scene(np.random.default_rng(seed), designs=[KDE], image_size=size)
            p = project(scene.camera.homography(), corners)
            assert np.all((p >= 0) & (p <= np.array(size) - 1)), (seed, size)


def test_random_table_labels_match_their_pixels():
    """Through glare, blur, noise and JPEG, every clearly visible face-up card's quad still
    pulls back to its own art."""
    scores = []
    for seed in range(3):
        result = render(random_scene(np.random.default_rng(seed), designs=[KDE]))
        for label in result.cards:
            if label.face_up and label.visible > 0.99:
                art = cardart.load_card(KDE, label.card)
                seen = unwarp(result.image, label.quad, (art.shape[1], art.shape[0]))
                scores.append(correlation(seen, over_grey(art)))
            mm = label.quad_mm
            upright = abs(mm[3, 1] - mm[0, 1]) >= abs(mm[3, 0] - mm[0, 0])
            assert upright == (label.orientation == UPRIGHT)
    assert len(scores) >= 5
    assert np.median(scores) > 0.85 and min(scores) > 0.5


def test_labels_json_and_the_command_line(tmp_path: Path):
    out = tmp_path / "scene.png"
    subprocess.run([sys.executable, "-m", "simulator.render", "--seed", "3", "--out", str(out),
                    "--design", GNOME], check=True, capture_output=True,
                   cwd=Path(__file__).resolve().parents[1], env=dict(os.environ))
    image = cv2.imread(str(out))
    labels = json.loads(out.with_suffix(".json").read_text())
    assert image.shape == (720, 1280, 3)
    assert labels["design"] == GNOME and labels["cards"]
    first = labels["cards"][0]
    assert {"card", "face_up", "orientation", "quad", "visible"} <= set(first)
    assert len(first["quad"]) == 4 and len(labels["homography"]) == 3
