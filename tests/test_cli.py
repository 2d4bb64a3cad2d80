"""The command line: replay prints the contract's state; bad input is one line, exit 2."""

import json
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from live_server import ProcessServer, free_port

from companion_api.cli import main, replay_log
from tracker.rules import Game, dump_log
from tracker.rules.bot import play_game

SAMPLE = Path(__file__).parents[1] / "tests" / "data" / "demo_game.jsonl"


def write_log(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_replay_json_prints_contract_state(capsys):
    assert main(["replay", str(SAMPLE), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert set(state) >= {"turn", "active", "deck", "discard", "deck_empty", "over", "winner",
                          "players", "alerts"}
    p1 = state["players"]["p1"]
    assert set(p1) >= {"hero", "health", "armor", "mana", "crystals", "overload", "hand",
                       "weapon", "secrets", "hero_power_used", "minions"}
    assert state["over"] and state["deck_empty"] and state["winner"] == "p1"
    assert [a for a in state["alerts"] if a["severity"] == "illegal"] == []


@pytest.mark.parametrize("line, expected", [
    ('{"type": "play", "player": "p1"', "game.jsonl:2: not valid JSON"),
    ('{"type": "dance"}', "game.jsonl:2: unknown event type"),
    ('{"type": "play", "player": "p1", "card": "1X"}', "game.jsonl:2: "),
    ('{"type": "attack", "attacker": "p1", "target": "ZZ"}', "game.jsonl:2: "),
    ('[1, 2]', "game.jsonl:2: an event must be a JSON object"),
    ("[" * 5_000 + "]" * 5_000, "game.jsonl:2: JSON nested too deeply"),
    ("[" * 100_000 + "]" * 100_000, "game.jsonl:2: a line of 200,000 characters"),
    ('{"type": "end_turn", "x": ' + "9" * 5000 + "}", "game.jsonl:2: a number too long"),
])
def test_malformed_line_is_one_line_error_naming_it(tmp_path, capsys, line, expected):
    log = write_log(tmp_path, '{"type": "new_game", "heroes": {"p1": "jaina", "p2": "rexxar"}}',
                    line)
    assert main(["replay", str(log), "--json"]) == 2
    err = capsys.readouterr().err
    assert expected in err and err.count("\n") == 1


def test_a_log_saved_with_a_byte_order_mark_is_read(tmp_path, capsys):
    """Windows Notepad saves UTF-8 with a byte-order mark."""
    log = tmp_path / "game.jsonl"
    log.write_text('{"type": "new_game", "heroes": {"p1": "jaina", "p2": "rexxar"}}\n'
                   '{"type": "end_turn"}\n', encoding="utf-8-sig")
    assert main(["replay", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turn"] == 2


def test_unknown_hero_is_one_line_error(tmp_path, capsys):
    log = write_log(tmp_path, '{"type": "new_game", "heroes": {"p1": "jaina", "p2": "arthas"}}')
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert "game.jsonl:1: unknown hero 'arthas'" in err and err.count("\n") == 1


def test_log_must_start_with_new_game(tmp_path, capsys):
    log = write_log(tmp_path, '{"type": "end_turn"}')
    assert main(["replay", str(log)]) == 2
    assert "game.jsonl:1: the log must begin with a new_game event" in capsys.readouterr().err


def test_missing_file_is_one_line_error(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert capsys.readouterr().err == (f"hearthtop-companion: error: {tmp_path}/nope.jsonl: "
                                       "no such file\n")


def test_a_game_prints_its_board_as_replay_does(capsys):
    game = replay_log(SAMPLE)
    assert main(["replay", str(SAMPLE)]) == 0
    printed = str(game)
    assert capsys.readouterr().out == printed + "\n"
    lines = printed.splitlines()
    assert lines[0].startswith(f"turn {game.turn}, deck {len(game.table.deck)}, discard ")
    assert lines[1].startswith("p1 Jaina Proudmoore: ") and lines[2].startswith("p2 Thrall: ")
    assert lines[-1] == "game over: p1 wins"


def test_the_state_keeps_the_contracts_field_names():
    state = replay_log(SAMPLE).state()
    dumped = state.model_dump(mode="json")
    assert dumped["players"]["p1"]["class"] == "mage" == state.players["p1"].hero_class
    assert "hero_class" not in dumped["players"]["p1"]
    assert type(state).model_validate(dumped) == state  # the server can answer with it


@pytest.mark.parametrize("argv", [["markers"], ["replay"], ["run", "--port", "x"],
                                  ["simulate", "x"], ["deck"], ["run", "--demo-pace", "fast"]])
def test_a_command_line_that_cannot_be_parsed_is_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit:
        main(argv)
    err = capsys.readouterr().err
    assert exit.value.code == 2 and err.count("\n") == 1
    assert err.startswith("hearthtop-companion: error: ") and "--help" in err


def _junk(folder: Path) -> dict[str, Path]:
    folder.mkdir()
    files = {"noise": folder / "noise.bin", "empty": folder / "empty.jsonl",
             "folder": folder / "nothing"}
    files["noise"].write_bytes(np.random.default_rng(0).integers(0, 256, 4000, np.uint8))
    files["empty"].write_bytes(b"")
    files["folder"].mkdir()
    for name in ("video.mp4", "photo.png", "layout.json", "deck.npz"):
        files[name] = folder / name
        files[name].write_bytes(files["noise"].read_bytes())
    return files


def test_every_command_given_junk_answers_in_one_line(tmp_path, capsys, monkeypatch):
    """What a new user might feed each command: random bytes named as the file it wants,
    an empty file, an empty folder, a path that is not there."""
    junk = _junk(tmp_path / "junk")
    data = ["--data", str(tmp_path / "data")]
    cases = [["replay", junk["noise"]], ["replay", junk["empty"]], ["replay", junk["folder"]],
             ["recognize", junk["photo.png"], "--no-deck"], ["recognize", junk["folder"]],
             ["recognize", junk["empty"], "--layout", junk["layout.json"]],
             ["track", junk["video.mp4"], "--phone", junk["empty"]],
             ["track", junk["folder"], "--phone", junk["noise"]],
             ["simulate", junk["noise"], "--out", tmp_path / "out"],
             ["simulate", junk["empty"], "--out", tmp_path / "out"],
             ["deck", "add", "mine", junk["photo.png"], *data],
             ["deck", "add", "mine", junk["folder"], *data],
             ["deck", "add", "../mine", junk["photo.png"], *data],
             ["run", "--source", junk["video.mp4"], *data],
             ["run", "--source", junk["folder"], *data],
             ["run", "--data", junk["noise"]], ["run", "--port", "70000"],
             ["replay", tmp_path / "not-there.jsonl"]]
    decks = tmp_path / "data" / "decks"
    decks.mkdir(parents=True)
    (decks / "broken.npz").write_bytes(junk["noise"].read_bytes())
    cases += [["deck", "list", *data], ["recognize", junk["photo.png"], *data]]
    # the data folder's token, damaged (a damaged `current` starts no game, with a warning:
    # tests/test_data_folder.py)
    (tmp_path / "data-token").mkdir()
    (tmp_path / "data-token" / "token").write_bytes(junk["noise"].read_bytes())
    cases.append(["run", "--data", tmp_path / "data-token", "--port", "1"])
    heroes = tmp_path / "heroes"
    heroes.mkdir()
    (heroes / "zap.toml").write_bytes(junk["noise"].read_bytes())
    for argv in [*cases, "a hero file of noise", ["replay", SAMPLE]]:
        if isinstance(argv, str):
            monkeypatch.setenv("HEARTHTOP_HEROES", str(heroes))
            continue
        assert main([str(a) for a in argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("hearthtop-companion: error: ") and err.count("\n") == 1, (
            argv, err)


def _not_pictures(folder: Path) -> list[Path]:
    """Files named as a picture that are none: text, random bytes, nothing."""
    folder.mkdir()
    text, noise, empty = folder / "text.jpg", folder / "noise.jpg", folder / "empty.png"
    text.write_text("a shopping list, not a photo\n" * 20)
    noise.write_bytes(np.random.default_rng(1).integers(0, 256, 4000, np.uint8).tobytes())
    empty.write_bytes(b"")
    return [text, noise, empty]


def test_run_refuses_a_source_file_that_is_no_picture_at_start(tmp_path):
    """A text file named .jpg opened as a one-frame video and started the server, which
    said only later, on /api/setup, that there was no picture."""
    for source in _not_pictures(tmp_path / "junk"):
        done = subprocess.run(
            [sys.executable, "-m", "companion_api.cli", "run", "--source", str(source),
             "--host", "127.0.0.1", "--port", str(free_port()), "--no-qr",
             "--data", str(tmp_path / "data")], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and done.stdout == "", (source, done.stdout)
        assert done.stderr == (f"hearthtop-companion: error: {source}: not a picture, a "
                               "video or an image folder that can be read\n")
    assert not (tmp_path / "data").exists()


def test_run_still_takes_a_real_picture_as_its_source(tmp_path):
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), np.full((240, 320, 3), 90, np.uint8))
    server = ProcessServer(tmp_path / "data", "--source", str(picture))
    live = server.start()
    try:
        assert live.get("/api/state").status_code == 200
    finally:
        server.kill()


def _simulate(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    import os

    log = write_log(tmp_path, *SAMPLE.read_text().splitlines()[:3])
    return subprocess.run(
        [sys.executable, "-m", "companion_api.cli", "simulate", str(log), "--out",
         str(tmp_path / "out"), "--size", "320x180", "--fps", "2"],
        capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def test_simulate_without_the_card_art_names_the_packages_to_install(tmp_path):
    """It ended in numpy's 'ValueError: high <= 0' (a design drawn from none)."""
    nothing = tmp_path / "share"
    nothing.mkdir()
    done = _simulate(tmp_path, HEARTHTOP_CARD_DECKS=str(nothing))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"hearthtop-companion: error: simulate: no card art in {nothing}/aisleriot/cards or "
        f"{nothing}/carddecks, where Debian's card decks go; install them and their renderer "
        "with apt-get install gnome-cards-data kdegames-card-data-kf5 librsvg2-bin\n")
    assert set((SAMPLE.parents[2] / "packages.txt").read_text().split()) >= {
        "gnome-cards-data", "kdegames-card-data-kf5", "librsvg2-bin"}
    assert not (tmp_path / "out").exists()


def test_simulate_without_the_card_renderer_names_its_package(tmp_path):
    """The card decks there, rsvg-convert not (and no card drawn yet): it was a
    FileNotFoundError's traceback at the first card."""
    cache = tmp_path / "cache"
    done = _simulate(tmp_path, PATH=str(Path(sys.executable).parent),
                     HEARTHTOP_CACHE=str(cache))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "hearthtop-companion: error: simulate: rsvg-convert, which draws the card art, is not "
        "installed; install it and the card decks with apt-get install gnome-cards-data "
        "kdegames-card-data-kf5 librsvg2-bin\n")
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> tuple[Path, Path]:
    """A photo of a bare table and a rendered table of cards."""
    from simulator.layout import random_scene
    from simulator.render import render

    folder = tmp_path_factory.mktemp("photos")
    blank, scene = folder / "blank.png", folder / "scene.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    cv2.imwrite(str(scene), render(random_scene(np.random.default_rng(1))).image)
    return blank, scene


def test_recognize_json_is_one_line_an_image_whatever_their_number(photos, capsys):
    """One photo printed a bare list (`[]`), several a JSON line each."""
    blank, scene = photos
    read = {}
    for images in ([blank], [scene], [scene, blank]):
        assert main(["recognize", *map(str, images), "--json", "--no-deck"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) == len(images)
        for path, line in zip(images, map(json.loads, lines), strict=True):
            assert set(line) == {"image", "cards"} and line["image"] == str(path)
            assert read.setdefault(path, line["cards"]) == line["cards"]
    assert read[blank] == [] and len(read[scene]) >= 3
    for card in read[scene]:
        assert set(card) >= {"card", "confidence", "quad", "zone"} and card["zone"] is None
        assert len(card["quad"]) == 4 and all(len(corner) == 2 for corner in card["quad"])


def test_recognize_in_words_says_which_image_each_block_is_about(photos, capsys):
    """One photo printed bare card lines (or `no cards found`), several JSON lines."""
    blank, scene = photos
    assert main(["recognize", str(scene), "--json", "--no-deck"]) == 0
    cards = json.loads(capsys.readouterr().out)["cards"]
    for images in ([blank], [scene], [blank, scene]):
        assert main(["recognize", *map(str, images), "--no-deck"]) == 0
        out = capsys.readouterr().out
        assert not out.lstrip().startswith(("{", "["))
        blocks: dict[str, list] = {}
        for line in out.splitlines():
            if line.startswith("  "):
                blocks[list(blocks)[-1]].append(line.split())
            else:
                image, said = line.split(": ", 1)
                blocks[image] = [said]
        assert list(blocks) == list(map(str, images))
        if blank in images:
            assert blocks[str(blank)] == ["no cards found"]
        if scene in images:
            said, *lines = blocks[str(scene)]
            assert said == f"{len(cards)} cards"
            assert [line[:2] for line in lines] == [
                [c["card"], f"{c['confidence']:.3f}"] for c in cards]


NEW_GAME = '{"type": "new_game", "heroes": {"p1": "jaina", "p2": "rexxar"}}'


@pytest.mark.parametrize("given, says", [
    ("binary", "{log}: not a text file (it is not UTF-8)"),
    ("folder", "{log}: a folder, not a log file"),
    ("truncated", "{log}:2: not valid JSON (an unterminated string at column 28)"),
    ("empty", "{log}: the log holds no events"),
    ("missing", "{log}: no such file"),
    ("array", "{log}:2: an event must be a JSON object, not an array"),
    ("number", "{log}:2: an event must be a JSON object, not a number"),
])
def test_replay_errors_are_one_sentence_naming_the_file_or_line(tmp_path, capsys, given, says):
    """They named Python's exceptions ('cannot read (UnicodeDecodeError: ...)',
    'IsADirectoryError') or ended mid-phrase ('(Unterminated string starting at)')."""
    log = tmp_path / "game.jsonl"
    if given == "binary":
        log.write_bytes(np.random.default_rng(2).integers(0, 256, 3000, np.uint8).tobytes())
    elif given == "folder":
        log.mkdir()
    elif given == "truncated":
        write_log(tmp_path, NEW_GAME, '{"type": "play", "player": "p1')
    elif given == "empty":
        log.write_bytes(b"")
    elif given == "array":
        write_log(tmp_path, NEW_GAME, "[1, 2]")
    elif given == "number":
        write_log(tmp_path, NEW_GAME, "42")
    for json_flag in ([], ["--json"]):
        assert main(["replay", str(log), *json_flag]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"hearthtop-companion: error: {says.format(log=log)}\n"
        assert "Error" not in err


def _bot_log(tmp_path: Path, heroes: tuple[str, str], until) -> tuple[Path, Game]:
    """A bot game's log, cut at the first event after which `until(state)` holds."""
    for seed in range(40):
        events, game = play_game(heroes, seed).events, Game()
        for n, event in enumerate(events, 1):
            game.apply(event)
            if until(game.state()):
                log = tmp_path / f"{'-'.join(heroes)}-{seed}.jsonl"
                dump_log(events[:n], log)
                return log, game
    raise AssertionError(f"no bot game of {heroes} came to it")


CARD_ID = r"(?<![0-9A-Za-z])(10|[2-9JQKA])[SHDC](?![0-9A-Za-z])"


def test_replay_s_summary_shows_suits_names_and_health_as_the_pages_do(tmp_path, capsys):
    """It said 'minions 9C(4/4)' and 'Rexxar: -1 health' where the pages show 9♣ and 0."""
    def dead(state) -> bool:  # a hero below 0, a card minion or weapon on the board
        sides = state.players.values()
        return min(s.health for s in sides) < 0 and any(s.minions or s.weapon for s in sides)

    log, game = _bot_log(tmp_path, ("rexxar", "garrosh"), dead)
    assert main(["replay", str(log)]) == 0
    printed = capsys.readouterr().out
    assert not re.search(CARD_ID, printed) and " -" not in printed, printed
    state = game.state()
    for player, side in state.players.items():
        line = next(x for x in printed.splitlines() if x.startswith(f"{player} "))
        assert f": {max(0, side.health)} health, " in line
        for minion in side.minions:
            suit = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[minion.card[-1]]
            assert f"{minion.card[:-1]}{suit}" in line and f"({minion.attack}/" in line
    assert main(["replay", str(log), "--json"]) == 0  # the state itself as it was
    dumped = json.loads(capsys.readouterr().out)
    assert dumped == state.model_dump(mode="json")
    assert min(p["health"] for p in dumped["players"].values()) < 0
    assert all(re.fullmatch(CARD_ID, m["id"]) for p in dumped["players"].values()
               for m in p["minions"])


def test_replay_s_summary_names_tokens_by_their_names(tmp_path, capsys):
    """A token by its name, never its id T1; a copy of a card with its suit."""
    def token(state) -> bool:
        return any(m.card is None for s in state.players.values() for m in s.minions)

    log, game = _bot_log(tmp_path, ("uther", "jaina"), token)
    assert main(["replay", str(log)]) == 0
    printed = capsys.readouterr().out
    assert not re.search(r"\bT\d+\b", printed) and not re.search(CARD_ID, printed)
    for side in game.state().players.values():
        for minion in (m for m in side.minions if m.card is None):
            assert f"{minion.name} ({minion.attack}/{minion.health})" in printed
