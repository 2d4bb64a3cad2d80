"""The game simulator (`hearthtop-companion simulate`): an event log rendered as the video a
webcam above the table records, with the phone's inputs and the truth beside it."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import TableCalibration, default_layout
from companion_api.cli import main
from simulator import game_video
from simulator.game_events import Players
from simulator.game_motion import Identities
from simulator.game_table import Geometry
from tracker.camera.view import expected_view
from tracker.rules.bot import play_game
from tracker.rules.engine import Game
from tracker.rules.events import parse_event
from training.designs import held_out_designs

SAMPLE_LOG = Path(__file__).resolve().parents[1] / "tests" / "data" / "demo_game.jsonl"
LOG_LINES = SAMPLE_LOG.read_text().splitlines()


def simulate(tmp: Path, lines: list[str], *extra: str) -> tuple[int, str, str, Path]:
    log, out = tmp / "game.jsonl", tmp / "out"
    tmp.mkdir(parents=True, exist_ok=True)
    log.write_text("\n".join(lines) + "\n")
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["simulate", str(log), "--out", str(out), "--size", "640x360", "--fps", "5",
                     *extra])
    return code, stdout.getvalue(), stderr.getvalue(), out


@pytest.fixture(scope="module")
def video(tmp_path_factory) -> Path:
    """The demo game's first 24 events (minions, spells, an attack, totems), rendered."""
    code, stdout, _, out = simulate(tmp_path_factory.mktemp("video"), LOG_LINES[:24],
                                    "--seed", "1")
    assert code == 0 and len(stdout.strip().splitlines()) == 1 and "wrote" in stdout
    return out


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_simulate_writes_frames_phone_truth_and_meta(video):
    meta = json.loads((video / "meta.json").read_text())
    frames = sorted((video / "frames").glob("*.jpg"))
    assert len(frames) == meta["written"] > 100
    assert meta["size"] == [640, 360] and meta["fps"] == 5 and meta["seed"] == 1
    assert meta["design"] in held_out_designs() and meta["events"] == 24
    assert meta["layout"]["table_mm"] == [900.0, 600.0] and meta["cards_snapped"] == 0
    assert 0 < meta["bump_frame"] < meta["frames"]
    dropped = meta["dropped_frames"]
    numbers = {int(p.stem) for p in frames}
    assert numbers == set(range(meta["frames"])) - set(dropped["skipped"])
    assert cv2.imread(str(frames[0])).shape == (360, 640, 3)


def test_the_phone_gives_only_new_game_end_turn_and_concede_in_order(video):
    phone = rows(video / "phone.jsonl")
    assert phone[0]["event"]["type"] == "new_game"
    assert {r["event"]["type"] for r in phone} <= {"new_game", "end_turn", "concede"}
    assert "deck" not in phone[0]["event"]  # the phone does not know the deck's order
    assert phone[0]["event"]["heroes"] == {"p1": "jaina", "p2": "thrall"}
    frames = [r["frame"] for r in phone]
    assert frames == sorted(set(frames))
    ends = sum(json.loads(line)["type"] == "end_turn" for line in LOG_LINES[:24])
    assert len(phone) == 1 + ends


def test_the_truth_holds_every_event_in_order_at_non_decreasing_frames(video):
    truth = rows(video / "truth.jsonl")
    assert [parse_event(r["event"]) for r in truth] == [parse_event(x) for x in LOG_LINES[:24]]
    frames = [r["frame"] for r in truth]
    assert frames == sorted(frames)
    meta = json.loads((video / "meta.json").read_text())
    assert all(done <= first <= last < meta["frames"]
               for done, (first, last) in zip(frames, meta["settled"], strict=True))


def still_frames(video: Path) -> list[tuple[Path, object]]:
    """Each event's last still frame (no hand over the table) with the rules' view then."""
    meta = json.loads((video / "meta.json").read_text())
    game, found = Game(), []
    for row, (_, last) in zip(rows(video / "truth.jsonl"), meta["settled"], strict=True):
        game.apply(parse_event(row["event"]))
        path = video / "frames" / f"{last:06d}.jpg"
        if path.exists():
            found.append((path, expected_view(game)))
    return found


def test_a_still_frame_calibrates_from_the_four_table_markers(video):
    path, _ = still_frames(video)[-1]
    calibration = TableCalibration.from_markers(cv2.imread(str(path)), (900.0, 600.0))
    assert len(calibration.markers_used) >= 3 and calibration.reprojection_error_mm < 3.0


def test_the_recogniser_finds_the_minions_the_rules_put_there_and_names_none_wrong(video):
    from vision.pipeline import Recognizer

    layout, recognizer = default_layout(), Recognizer()
    frames = [(p, v) for p, v in still_frames(video)
              if sum(bool(m.card) for s in v.sides.values() for m in s.minions) >= 2][-2:]
    assert frames
    wanted = found = 0
    for path, view in frames:
        frame = cv2.imread(str(path))
        calibration = TableCalibration.from_markers(frame, layout.table_mm)
        obs = recognizer.observe(frame, calibration.image_to_table)
        zones = [layout.zone_at(c) for c in calibration.to_table(obs.quads.mean(axis=1))]
        named = dict(zip(map(str, obs.cards), zones, strict=True))
        on_table = set(view.face_up()) | {c for c in view.discard if c}
        assert {c for c in named if c not in ("BACK", "UNKNOWN")} <= on_table
        for player, side in view.sides.items():
            for minion in (m for m in side.minions if m.card):
                wanted += 1
                found += named.get(minion.card) == f"{player}.minions"
    assert found >= 0.75 * wanted


def test_each_hero_card_is_found_upright_or_turned_as_its_power_was_used(video):
    from tracker.camera.reader import _hero_card

    layout, right, seen = default_layout(), 0, 0
    for path, view in still_frames(video):
        if view.sides["p1"].power_used is None:
            continue  # before the new game
        frame = cv2.imread(str(path))
        calibration = TableCalibration.from_markers(frame, layout.table_mm)
        for player in ("p1", "p2"):
            zone = f"{player}.hero"
            card = _hero_card(frame, calibration, zone, layout.zones[zone])
            seen += 1
            right += card is not None and card.sideways == view.sides[player].power_used
    assert seen >= 20 and right >= 0.95 * seen, (right, seen)


def test_motion_is_where_a_hand_moves_and_not_in_the_camera_noise(video):
    from tracker.camera.live import LiveTracker
    from tracker.camera.reader import TableReader

    path, _ = still_frames(video)[-1]
    frame = cv2.imread(str(path))
    calibration = TableCalibration.from_markers(frame, (900.0, 600.0))
    reader = TableReader(LiveTracker())

    def moving(image: np.ndarray) -> frozenset[str]:
        return reader.moving_zones(reader.motion.update(image), calibration, image.shape)

    rng = np.random.default_rng(0)
    noisy = np.clip(frame + rng.normal(0, 4, frame.shape), 0, 255).astype(np.uint8)
    assert moving(frame) == frozenset() and moving(noisy) == frozenset()
    hand = noisy.copy()
    x, y = calibration.to_image(np.array([[450.0, 420.0]]))[0].round().astype(int)  # p1's row
    cv2.ellipse(hand, (x, y), (20, 12), 0, 0, 360, (120, 160, 220), -1)  # a palm, 50 mm across
    assert moving(hand) == frozenset({"p1.minions"})
    assert moving(hand) == frozenset()  # it stopped


def test_the_same_seed_gives_the_same_frames(tmp_path):
    first = simulate(tmp_path / "a", LOG_LINES[:6], "--seed", "4")[3]
    second = simulate(tmp_path / "b", LOG_LINES[:6], "--seed", "4")[3]
    names = sorted(p.name for p in (first / "frames").glob("*.jpg"))
    assert names == sorted(p.name for p in (second / "frames").glob("*.jpg"))
    for name in (names[0], names[len(names) // 2], names[-1]):
        assert (first / "frames" / name).read_bytes() == (second / "frames" / name).read_bytes()
    assert (first / "truth.jsonl").read_text() == (second / "truth.jsonl").read_text()


@pytest.mark.parametrize("bad, said", [
    ('{"type": "play", "player": "p1"', "game.jsonl:2: not valid JSON"),
    ('{"type": "attack", "attacker": "p1"}', "game.jsonl:2: "),
    ('{"type": "end_turn"}\n{"type": "play", "player": "p3", "card": "2H"}', "game.jsonl:3: "),
])
def test_a_malformed_log_is_one_line_naming_the_line(tmp_path, bad, said):
    code, stdout, stderr, _ = simulate(tmp_path, [LOG_LINES[0], bad])
    assert code == 2 and stdout == ""
    assert stderr.startswith("hearthtop-companion: error: ") and said in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_an_out_folder_that_cannot_be_written_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(LOG_LINES[:3]) + "\n")
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = main(["simulate", str(log), "--out", str(tmp_path / "file" / "out")])
    assert code == 2
    assert stderr.getvalue().startswith("hearthtop-companion: error: --out ")
    assert len(stderr.getvalue().strip().splitlines()) == 1


@pytest.mark.parametrize("option", [["--size", "640"], ["--fps", "0"], ["--design", "nope"]])
def test_options_out_of_range_are_one_line(tmp_path, option):
    code, _, stderr, _ = simulate(tmp_path, LOG_LINES[:3], *option)
    assert code == 2 and stderr.count("\n") == 1 and option[0] in stderr


def test_the_held_out_designs_are_the_models_test_designs():
    assert game_video.held_out_designs() == held_out_designs()


@pytest.mark.parametrize("heroes, seed", [(("thrall", "garrosh"), 3), (("jaina", "valeera"), 5),
                                          (("uther", "rexxar"), 8), (("guldan", "malfurion"), 2)])
def test_hands_bring_every_card_where_the_rules_say(heroes, seed):
    """Played without pixels: after each event of a whole bot game the cards the hands
    moved (markers from the deck's top and back to its bottom, the dead to the discard in
    the rules' order, draws) are the rules' view exactly; nothing had to be put right."""
    stage_without_pixels(play_game(heroes, seed).events, seed)


def stage_without_pixels(events: list, seed: int) -> None:
    """The hands play every event with no frame drawn; after each, nothing they left had
    to be put right to be the rules' view (no snaps)."""
    geo = Geometry(default_layout(), (63.0, 88.0), seed)
    rng = np.random.default_rng(seed)
    stage = Players(geo, rng, 5.0, lambda *frame: None, Identities(events, rng))
    game = Game()
    for index, event in enumerate(events):
        before = game.copy()
        game.apply(event)
        view = expected_view(game)
        if index == 0:
            stage.pieces = {k: p for k, p in geo.arrange(view).items() if k.startswith("hero")}
        stage.event(event, before, game, view)
        assert stage.snaps == 0, (index, event)


def test_a_sixth_minion_is_squeezed_into_its_row_where_the_camera_looks():
    """Five places a row; an illegal sixth minion is still laid (docs/rulings.md 22): the
    row closes up so that all six lie in the minions zone, as a player makes room (issue 44:
    laid past the row's end, the camera never saw it)."""
    geo = Geometry(default_layout(), (63.0, 88.0), 1)
    game = Game.replay([parse_event(line) for line in (
        '{"type": "new_game", "heroes": {"p1": "garrosh", "p2": "jaina"}}',
        *['{"type": "end_turn"}'] * 10)])
    cards = ("6H", "6D", "6C", "7H", "7D", "7C")
    for card in cards[:5]:
        game.apply(parse_event({"type": "play", "player": "p1", "card": card}))
    five = geo.arrange(expected_view(game))
    game.apply(parse_event({"type": "play", "player": "p1", "card": cards[5]}))
    six = geo.arrange(expected_view(game))
    assert [a.code for a in game.alerts][-1:] == ["board_full"]
    x0, y0, x1, y1 = geo.boxes["p1.minions"]
    xs = [six[f"c:{card}"].x for card in cards]
    assert all(x0 + 63.0 / 2 < x < x1 - 63.0 / 2 for x in xs)
    assert all(y0 < six[f"c:{card}"].y < y1 for card in cards)
    assert min(np.diff(xs)) > 63.0  # side by side, none on another
    # five minions lie in their five places as ever: a legal game is drawn as before
    places = [geo.at("p1", "minions", (k + 0.5) / 5)[0] for k in range(5)]
    assert [five[f"c:{card}"].x for card in cards[:5]] == pytest.approx(places, abs=8.0)


def test_camera_faults_are_injected_and_listed(tmp_path):
    code, _, _, out = simulate(tmp_path, LOG_LINES[:6], "--faults",
                               "dropout@2+1,black@4+0.4,resize@6+1,light@8+1")
    assert code == 0
    faults = {f["kind"]: f for f in rows(out / "faults.jsonl")}
    assert set(faults) == {"dropout", "black", "resize", "light"}
    names = {int(p.stem): p for p in (out / "frames").glob("*.jpg")}
    dropout, black, resize = faults["dropout"], faults["black"], faults["resize"]
    assert (dropout["first_frame"], dropout["last_frame"]) == (10, 14)
    assert not set(range(10, 15)) & set(names)
    assert cv2.imread(str(names[black["first_frame"]])).mean() < 20
    small = cv2.imread(str(names[resize["first_frame"]])).shape
    assert small[1] < 640 and small[1] / small[0] == pytest.approx(640 / 360, abs=0.02)


@pytest.mark.parametrize("spec", ["random:x", "smoke@3+1", "black@-1+2", "black@soon"])
def test_a_faults_spec_that_cannot_be_used_is_one_line(tmp_path, spec):
    code, _, stderr, _ = simulate(tmp_path, LOG_LINES[:3], "--faults", spec)
    assert code == 2 and stderr.count("\n") == 1 and "--faults" in stderr


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_illegal_plays_are_drawn_as_the_rules_apply_them(seed):
    """A log that breaks rules (cards not in hand, mana short, wrong targets) is drawn too:
    the table the hands leave is the rules' view after each event, deck known or not."""
    import random

    from cards import DECK
    from tracker.rules.engine import EngineError
    from tracker.rules.events import Attack, EndTurn, NewGame, Play
    from tracker.rules.legality import candidate_moves

    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    events = [NewGame(heroes={"p1": "garrosh", "p2": "jaina"}, deck=deck if seed % 2 else None)]
    game = Game.replay(events)
    illegal = 0
    while not game.over and len(events) < 80:
        moves = candidate_moves(game, rng)
        wrong = [m for m in moves if not game.is_legal(m)]
        right = [m for m in moves if game.is_legal(m)] or [EndTurn()]
        pick = rng.random()
        move = (EndTurn() if pick < 0.15 else rng.choice(wrong) if pick < 0.3 and wrong
                else Play(player=rng.choice(["p1", "p2"]), card=rng.choice(DECK))
                if pick < 0.4 else Attack(attacker="p1", target="p1") if pick < 0.42
                else rng.choice(right))
        try:
            illegal += not game.is_legal(move)
            game.apply(move)
            events.append(move)
        except EngineError:
            continue
    assert illegal >= 5
    stage_without_pixels(events, seed)
