"""A registered deck (`vision.deck`, `deck add`): the real pipeline on rendered decks of
held-out designs, registered from one rendered layout and read on table scenes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cards import BACK, DECK, JOKER
from companion_api.cli import main
from companion_api.decks import DeckStore
from simulator.layout import deck_scene, random_scene
from simulator.render import render
from vision.classify import CLASSES, UNKNOWN
from vision.deck import Deck, DeckCheck, DeckError, from_cuts
from vision.pipeline import Recognizer
from vision.register import reading_order, register

DESIGN = "simplistic"  # a held-out family's design (training/designs.py)
OTHER = "kde-penguins"  # another held-out family's


@pytest.fixture(scope="module")
def recognizer() -> Recognizer:
    return Recognizer()


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> tuple[Path, list[str]]:
    """A rendered registration photo of the whole deck, and its cards in reading order."""
    scene, cards = deck_scene(np.random.default_rng(3), DESIGN)
    path = tmp_path_factory.mktemp("deck") / "layout.png"
    cv2.imwrite(str(path), render(scene).image)
    return path, cards


@pytest.fixture(scope="module")
def deck(recognizer, layout) -> Deck:
    path, cards = layout
    return register(recognizer, DESIGN, [(str(path), cv2.imread(str(path)))], cards).deck


def faces_in_view(design: str, seed: int) -> tuple[np.ndarray, list]:
    """A table scene of `design` at 720p and its face-up cards in full view."""
    scene = random_scene(np.random.default_rng(seed), designs=[design], hand_chance=0.0)
    scene.back_variant = 0  # one physical deck: the back deck_scene lays
    result = render(scene)
    return result, [c for c in result.cards if c.face_up and c.visible >= 0.95]


def named(obs, card) -> str:
    """What the recogniser named the card whose quad its detection matches best."""
    centre = np.asarray(card.quad).mean(axis=0)
    d = np.linalg.norm(obs.quads.mean(axis=1) - centre, axis=1)
    return obs.cards[int(d.argmin())] if len(d) and d.min() < 20 else "(not found)"


def test_a_deck_registered_from_one_layout_holds_every_card_and_its_back(deck):
    assert set(deck.cards) == set(DECK) | {JOKER}
    assert len(deck.faces) == 2 * 53  # each card, either way up
    assert len(deck.backs) == 2 * 2
    assert np.allclose(np.linalg.norm(deck.faces, axis=1), 1, atol=1e-3)


def test_the_registered_deck_names_more_cards_and_none_wrong(deck, recognizer):
    with_deck = Recognizer(deck=deck)
    right = {"general": 0, "deck": 0}
    total = 0
    for seed in range(11, 17):
        result, cards = faces_in_view(DESIGN, seed)
        homography = np.linalg.inv(result.homography)
        general = recognizer.observe(result.image, homography)
        ours = with_deck.observe(result.image, homography)
        for card in cards:
            total += 1
            for name, obs in (("general", general), ("deck", ours)):
                got = named(obs, card)
                assert got in (card.card, UNKNOWN, "(not found)"), (name, card.card, got)
                right[name] += got == card.card
    assert with_deck.deck_in_use
    assert total >= 15
    assert right["deck"] > right["general"]
    assert right["deck"] >= 0.85 * total


def test_without_cards_the_assignment_names_the_deck_each_card_once(recognizer, layout):
    path, cards = layout
    registration = register(recognizer, "guessed", [(str(path), cv2.imread(str(path)))])
    read = [r.card for r in registration.readings]
    faces = [c for c in read if c != BACK]
    assert len(faces) == len(set(faces))  # each card once
    right = sum(r == c for r, c in zip(read, cards, strict=True))
    assert right >= len(cards) - 2
    # what it read wrong, it asks the user to check
    assert all(r.unsure for r, c in zip(registration.readings, cards, strict=True)
               if r.card != c)


def test_another_deck_on_the_table_falls_back_to_the_general_recogniser(deck, recognizer):
    """The deck registered is one design's; the table shows another's: the courts unlike
    the deck's say so, the general recogniser reads, and nothing is named wrong."""
    reader = Recognizer(deck=deck)
    for seed in (21, 22, 23):
        table, in_view = faces_in_view(OTHER, seed)
        homography = np.linalg.inv(table.homography)
        ours = reader.observe(table.image, homography)
        general = recognizer.observe(table.image, homography)
        assert not reader.deck_in_use
        assert list(ours.cards) == list(general.cards)
        for card in in_view:
            assert named(ours, card) in (card.card, UNKNOWN, "(not found)")


def test_a_card_the_deck_does_not_hold_turns_it_off_at_once(recognizer):
    """A pinochle-like deck (9 to A) registered: one 2 named by the general recogniser
    says another deck is on the table, whatever the courts said before."""
    scene, _ = deck_scene(np.random.default_rng(4), OTHER)
    result = render(scene)
    kept = [c for c in result.cards if c.card == BACK or c.card[:-1] in ("9", "10", "J", "Q",
                                                                          "K", "A")]
    cuts = recognizer.classifier.rectify_quads(result.image, np.float32([c.quad for c in kept]))
    pinochle = from_cuts("pinochle", cuts, [c.card for c in kept])
    assert len(pinochle.cards) == 24 and "2H" not in pinochle.cards
    likeness = np.ones((3, len(CLASSES)))
    votes = pinochle.agrees(["KH", "9S", "2H"], likeness, CLASSES)
    assert votes == [True, None]  # a number card of the deck says nothing
    check = DeckCheck()
    check.update(votes[:1] * 5)
    assert check.on
    check.update(votes[1:])
    assert not check.on


def test_the_deck_check_waits_for_a_card_like_the_deck_and_turns_off_when_they_disagree():
    check = DeckCheck()
    assert not check.on and check.share is None
    check.update([])  # number cards: no vote
    assert not check.on
    check.update([True])
    assert check.on
    check.update([True] * 8 + [False] * 3)
    assert check.on
    check.update([False] * 2)
    assert not check.on


def test_reading_order_is_rows_top_to_bottom_then_left_to_right():
    def card(x, y):
        return [[x, y], [x + 60, y], [x + 60, y + 90], [x, y + 90]]
    quads = np.float32([card(200, 12), card(0, 0), card(100, 130), card(0, 120), card(100, -5)])
    assert reading_order(quads).tolist() == [1, 4, 0, 3, 2]


def test_a_deck_file_saves_and_loads_and_a_damaged_one_is_one_line(deck, tmp_path):
    path = tmp_path / "d.npz"
    deck.save(path)
    again = Deck.load(path)
    assert again.cards == deck.cards and again.labels == deck.labels
    assert np.allclose(again.faces, deck.faces, atol=1e-3)
    path.write_bytes(b"not a deck")
    with pytest.raises(DeckError, match="not a registered deck"):
        Deck.load(path)


def test_registration_errors_are_one_line(recognizer, layout):
    path, cards = layout
    image = cv2.imread(str(path))
    blank = np.full((720, 1280, 3), 90, np.uint8)
    with pytest.raises(DeckError, match="no cards found"):
        register(recognizer, "x", [("blank.png", blank)])
    with pytest.raises(DeckError, match="--cards names 54 cards, the photos show 55"):
        register(recognizer, "x", [("layout", image)], cards[:-1])
    with pytest.raises(DeckError, match="7H is named twice"):
        register(recognizer, "x", [("layout", image)], ["7H", *cards[:-2], "7H"])
    with pytest.raises(DeckError, match="'ZZ' is not a card id"):
        register(recognizer, "x", [("layout", image)], ["ZZ", *cards[1:]])


def test_the_deck_command_registers_lists_reads_and_removes(layout, tmp_path, capsys):
    path, cards = layout
    data = str(tmp_path / "data")
    assert main(["deck", "add", "home", str(path), "--cards", ",".join(cards),
                 "--data", data]) == 0
    assert "registered deck home: 53 cards and its back" in capsys.readouterr().out
    assert main(["deck", "list", "--data", data]) == 0
    assert "home" in capsys.readouterr().out
    scene, _ = faces_in_view(DESIGN, 31)
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), scene.image)
    assert main(["recognize", str(photo), "--json", "--data", data]) == 0
    out = capsys.readouterr()
    assert "read with deck home" in out.err
    assert any(c["card"] in CLASSES for c in json.loads(out.out)["cards"])
    assert main(["deck", "remove", "home", "--data", data]) == 0
    assert DeckStore(Path(data)).names() == []


@pytest.mark.parametrize("argv, message", [
    (["deck", "add", "../up", "x.png"], "a deck's name is 1 to 40"),
    (["deck", "add", "ok", "missing.png"], "missing.png: no such file or folder"),
    (["deck", "remove", "nothing"], "no deck named 'nothing'"),
    (["recognize", "x.png", "--deck", "nothing"], "no deck named 'nothing'"),
])
def test_deck_mistakes_are_one_line_and_exit_2(argv, message, tmp_path, capsys):
    assert main([*argv, "--data", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hearthtop-companion: error:") and message in err
    assert err.count("\n") == 1


def test_a_photo_with_no_cards_and_a_wrong_cards_list_are_one_line(layout, tmp_path,
                                                                    capsys):
    path, _ = layout
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 90, np.uint8))
    assert main(["deck", "add", "d", str(blank), "--data", str(tmp_path)]) == 2
    assert "no cards found" in capsys.readouterr().err
    assert main(["deck", "add", "d", str(path), "--cards", "7H,7H", "--data",
                 str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--cards names 2 cards, the photos show 55" in err and err.count("\n") == 1
    picture = err.split("numbered in ")[1].strip()
    assert cv2.imread(picture).shape == cv2.imread(str(path)).shape


def test_the_deck_names_a_covered_face_only_as_like_its_template(deck):
    from vision.deck import BACK_THRESHOLD, FACE_THRESHOLD

    assert deck.threshold("7H", True, 0.1, 0.9995) == FACE_THRESHOLD
    assert deck.threshold("7H", False, 0.9, 1.01) == FACE_THRESHOLD
    assert deck.threshold("7H", False, 0.3, 1.01) == np.inf  # what shows may be another card
    assert deck.threshold(BACK, True, 0.9, 0.9995) == BACK_THRESHOLD
    assert deck.threshold(BACK, True, 0.2, 0.9995) == 0.9995
    assert deck.threshold(BACK, True, float("nan"), 0.9995) == 0.9995  # no back registered


def test_an_empty_or_broken_file_is_one_line(tmp_path, capsys):
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    broken = tmp_path / "decks" / "old.npz"
    broken.parent.mkdir()
    broken.write_bytes(b"junk")
    for argv, says in ((["deck", "add", "d", str(empty)], "empty.jpg: an empty file"),
                       (["recognize", str(empty), "--no-deck"], "empty.jpg: an empty file"),
                       (["deck", "list"], "old.npz: not a registered deck"),
                       (["recognize", str(empty)], "old.npz: not a registered deck")):
        assert main([*argv, "--data", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1 and "Traceback" not in err
