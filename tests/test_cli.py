"""The command line: replay prints the contract's state; bad input is one line, exit 2."""

import json
from pathlib import Path

import pytest

from companion_api.cli import main, replay_log

SAMPLE = Path(__file__).parents[1] / "tracker" / "samples" / "demo_game.jsonl"


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
    ("[" * 100_000 + "]" * 100_000, "game.jsonl:2: JSON nested too deeply"),
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
    assert "cannot read" in capsys.readouterr().err


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
