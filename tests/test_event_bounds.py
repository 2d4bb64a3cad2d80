"""Every event the log accepts reads back (issue 42): each list and id in an event is bounded
by what the rules allow, a JSON true is no number, and an event whose stored line would be
longer than a log's line may be is refused when it is validated. The largest event the
bounds admit is far under that line, and a real server killed after acknowledging it starts
again on the same data folder."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from live_server import ProcessServer
from pydantic import ValidationError

from cards import DECK
from tracker.rules.cards import MAX_TOKEN, is_token_id
from tracker.rules.events import (
    MAX_LINE,
    MAX_NAME,
    MAX_REVEALED,
    MAX_TARGETS,
    LogError,
    _Event,
    _explain,
    parse_event,
)
from tracker.rules.heroes import all_heroes
from tracker.rules.table import MAX_MINIONS

ROOT = Path(__file__).resolve().parents[1]
LOGS = [ROOT / "tests" / "data" / "demo_game.jsonl", ROOT / "companion_api" / "demo" / "game.jsonl"]
LONGEST_TOKEN = f"T{MAX_TOKEN}"
LONGEST_FLOAT = 2.2250738585072014e-308  # the longest repr a confidence in 0 … 1 has
HUGE_TARGETS = {"type": "hero_power", "player": "p1", "target": ["p2"] * 4000}
HUGE_TOKEN = {"type": "hero_power", "player": "p1", "target": "T1" + "9" * 30000}


def refused(data: dict | str) -> str:
    """The one-line reason `data` is refused, checked to be one line of modest length."""
    with pytest.raises(LogError) as error:
        parse_event(data)
    reason = str(error.value)
    assert "\n" not in reason and len(reason) < 200, reason
    return reason


def largest_event(type: str = "play") -> dict:
    """The largest event the bounds admit: every target a longest token id, the deck
    revealed, the longest source and confidence."""
    event = {"type": type, "player": "p1", "target": [LONGEST_TOKEN] * MAX_TARGETS,
             "revealed": list(DECK), "source": "camera", "confidence": LONGEST_FLOAT}
    if type == "play":
        event |= {"card": "10S", "choice": 2}
    if type == "secret_revealed":
        event["card"] = "10S"
    return event


# --- targets ----------------------------------------------------------------------------------

def test_the_bounds_follow_the_rules():
    assert MAX_TARGETS == 2 + 2 * MAX_MINIONS == 12
    assert MAX_REVEALED == len(DECK) == 52
    assert MAX_TOKEN == 999_999


def test_a_target_list_of_every_character_on_the_table_is_accepted():
    board = ["p1", "p2", "2H", "3H", "4H", "5H", "6H", "7D", "8D", "9D", "10D", LONGEST_TOKEN]
    event = parse_event({"type": "play", "player": "p1", "card": "JH", "target": board})
    assert event.targets == board


def test_a_target_named_again_is_accepted_split_damage_names_one_a_point():
    event = parse_event({"type": "play", "player": "p1", "card": "JH",
                         "target": ["p2"] * MAX_TARGETS})
    assert event.targets == ["p2"] * MAX_TARGETS


def test_one_target_more_than_the_table_holds_is_refused():
    reason = refused({"type": "play", "player": "p1", "card": "JH",
                      "target": ["p2"] * (MAX_TARGETS + 1)})
    assert reason == ("play.target: 13 targets, more than the table holds (at most 12: two "
                      "heroes and 5 minions a side)")


def test_the_4000_target_hero_power_of_issue_42_is_refused():
    assert refused(HUGE_TARGETS) == ("hero_power.target: 4,000 targets, more than the table "
                                     "holds (at most 12: two heroes and 5 minions a side)")
    # as a line of a log it is refused before it is read (a line's limit)
    assert refused(json.dumps(HUGE_TARGETS, separators=(",", ":"))) == \
        "a line of 20,046 characters, more than an event has (at most 16,384)"


def test_every_heros_split_damage_fits_the_target_bound():
    """Arcane Missiles names one target a point: its damage and every point of spell damage
    five minions can give must fit in the list."""
    heroes = {hero.key: hero for hero in all_heroes().values()}
    per_minion = max([1] + [a.spell_damage for h in heroes.values() for _, a in h.abilities()])
    for hero in heroes.values():
        for where, ability in hero.abilities():
            split = sum(e.params["amount"] for e in ability.effects if e.word == "split_damage")
            if split:
                assert split + MAX_MINIONS * per_minion <= MAX_TARGETS, (hero.key, where)


# --- token ids --------------------------------------------------------------------------------

@pytest.mark.parametrize("token", ["T1", "T9", "T10", LONGEST_TOKEN])
def test_token_ids_up_to_six_digits_are_accepted(token):
    assert is_token_id(token)
    assert parse_event({"type": "attack", "attacker": token, "target": "p2"}).attacker == token


@pytest.mark.parametrize("token", [f"T{MAX_TOKEN + 1}", "T0", "T01"])
def test_other_token_ids_are_refused(token):
    assert not is_token_id(token)
    assert refused({"type": "attack", "attacker": token, "target": "p2"}) == \
        f"attack.attacker: {token!r} is not a token id (T1 to T999999)"


def test_the_30000_digit_token_of_issue_42_is_refused_without_repeating_it():
    assert refused(HUGE_TOKEN) == ("hero_power.target: 'T199999999999999999999999999999999999"
                                   "…' is not a token id (T1 to T999999)")
    assert "is not a token id" in refused({**HUGE_TOKEN, "target": [HUGE_TOKEN["target"]]})


def test_a_long_card_id_is_refused_without_repeating_it():
    reason = refused({"type": "play", "player": "p1", "card": "Q" * 20000})
    assert reason.startswith("play.card: 'QQQ") and "…' is not a card id" in reason
    assert "…' is not a card id" in refused({"type": "play", "player": "p1", "card": "5H",
                                             "target": ["p2", "X" * 20000]})


# --- revealed ---------------------------------------------------------------------------------

def test_the_whole_deck_revealed_is_accepted():
    event = parse_event({"type": "hero_power", "player": "p1", "revealed": list(DECK)})
    assert event.revealed == list(DECK)


def test_more_cards_revealed_than_a_deck_holds_is_refused():
    reason = refused({"type": "hero_power", "player": "p1", "revealed": [*DECK, "2S"]})
    assert reason == "hero_power.revealed: 53 cards revealed, more than a deck holds (at most 52)"


@pytest.mark.parametrize("card", ["JK", "BACK", "T1", "p2", "Z" * 5000])
def test_a_revealed_card_is_a_card_of_the_deck(card):
    assert "is not a card id" in refused({"type": "hero_power", "player": "p1",
                                          "revealed": ["2H", card]})


# --- hero names -------------------------------------------------------------------------------

def test_a_hero_name_of_forty_characters_is_accepted():
    event = parse_event({"type": "new_game", "heroes": {"p1": "j" * MAX_NAME, "p2": "thrall"}})
    assert event.heroes["p1"] == "j" * MAX_NAME


def test_every_shipped_hero_name_fits_the_bound():
    assert all(len(name) <= MAX_NAME and name.isprintable() for name in all_heroes())


def test_a_longer_hero_name_is_refused():
    assert refused({"type": "new_game", "heroes": {"p1": "jaina", "p2": " " * 20000 + "thrall"}}
                   ) == "new_game.heroes: p2's hero name is 20,006 characters long (at most 40)"


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x1c", "\n", "\x00"])
def test_a_hero_name_with_a_line_break_is_refused(char):
    """`jaina\u2028` is Jaina to the engine (it strips the name), but JSON writes U+2028 as it
    is and a log's reader splits the line there: the log would not open again."""
    reason = refused({"type": "new_game", "heroes": {"p1": "jaina" + char, "p2": "thrall"}})
    assert reason == (f"new_game.heroes: p1's hero name {'jaina' + char!r} has a control or "
                      "line-break character")


def test_a_long_unknown_player_key_is_not_repeated_whole():
    reason = refused({"type": "new_game", "heroes": {"p1": "jaina", "p3" * 5000: "thrall"}})
    assert "p3p3" in reason and len(reason) < 120


def test_a_long_unknown_field_is_not_repeated_whole():
    reason = refused({"type": "end_turn", "x" * 5000: 1})
    assert reason == f"unknown field {'x' * 37 + '…'!r}"


# --- numbers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("data, where", [
    ({"type": "mulligan", "player": "p1", "count": True}, "mulligan.count"),
    ({"type": "mulligan", "player": "p1", "count": False}, "mulligan.count"),
    ({"type": "markers", "player": "p1", "place": "armor", "count": True}, "markers.count"),
    ({"type": "markers", "player": "p1", "place": "armor", "count": False}, "markers.count"),
    ({"type": "play", "player": "p1", "card": "JH", "choice": True}, "play.choice"),
    ({"type": "play", "player": "p1", "card": "JH", "choice": False}, "play.choice"),
    ({"type": "end_turn", "confidence": True}, "end_turn.confidence"),
    ({"type": "end_turn", "confidence": False}, "end_turn.confidence"),
], ids=lambda v: v if isinstance(v, str) else json.dumps(v)[:60])
def test_a_json_bool_is_not_a_number(data, where):
    value = next(v for v in data.values() if isinstance(v, bool))
    assert refused(data) == f"{where}: {str(value).lower()} is not a number"
    assert refused(json.dumps(data)) == f"{where}: {str(value).lower()} is not a number"


def test_counts_and_choices_are_json_integers():
    assert parse_event('{"type": "mulligan", "player": "p1", "count": 0}').count == 0
    assert parse_event('{"type": "mulligan", "player": "p1", "count": 5}').count == 5
    assert parse_event('{"type": "markers", "player": "p1", "place": "armor", "count": 53}'
                       ).count == 53
    assert parse_event('{"type": "play", "player": "p1", "card": "JH", "choice": 1}').choice == 1
    assert "count" in refused('{"type": "mulligan", "player": "p1", "count": "3"}')
    assert "count" in refused('{"type": "mulligan", "player": "p1", "count": 1.5}')


@pytest.mark.parametrize("text, value", [("0", 0.0), ("1", 1.0), ("0.97", 0.97), ("1.0", 1.0),
                                         ("1e-3", 0.001)])
def test_a_confidence_may_be_a_json_integer(text, value):
    line = '{"type": "end_turn", "confidence": ' + text + "}"
    assert parse_event(line).confidence == value
    assert parse_event(json.loads(line)).confidence == value


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.parent.name + "/" + p.name)
def test_the_logs_already_written_still_read(path):
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    assert lines and all(parse_event(line).to_json() for line in lines)


def test_the_recorded_engine_games_still_read():
    with gzip.open(ROOT / "tests" / "data" / "engine_record.jsonl.gz", "rt") as file:
        records = [json.loads(line) for line in file if line.strip()]
    events = [event for record in records for event in record.get("events", [])]
    assert len(events) > 100
    for event in events:
        parse_event(event)


# --- the line ---------------------------------------------------------------------------------

@pytest.mark.parametrize("type", ["play", "hero_power", "secret_revealed"])
def test_the_largest_event_the_rules_allow_fits_a_line_and_round_trips(type):
    event = parse_event(largest_event(type))
    line = event.to_json()
    assert len(line) < MAX_LINE // 16  # about 500 characters
    assert parse_event(line) == event
    assert len(line.splitlines()) == 1


def test_the_largest_new_game_fits_a_line_and_round_trips():
    event = parse_event({"type": "new_game", "heroes": {"p1": "ü" * MAX_NAME, "p2": "ß" * MAX_NAME},
                         "deck": list(DECK), "source": "replay", "confidence": LONGEST_FLOAT})
    assert len(event.to_json()) < 1000
    assert parse_event(event.to_json()) == event


class _Note(_Event):
    """An event with a free text, as a field added later might be: the base's check holds."""

    note: str


def test_an_event_longer_than_a_log_line_is_refused_at_validation():
    with pytest.raises(ValidationError) as error:
        _Note(note="x" * MAX_LINE)
    assert _explain(error.value) == ("the event is longer than a log line may be (16,384 "
                                     "characters)")


def test_the_line_keeps_room_for_a_source_and_confidence_set_after_validation():
    """The server sets `source` on a posted event after validating it, the camera
    `confidence` and `unsure`: the line must still fit once they are written."""
    empty = len(_Note(note="").to_json())
    spare = len(',"source":"camera"') + len(',"confidence":') + 24 + len(',"unsure":true')
    fits = _Note(note="x" * (MAX_LINE - empty - spare))
    stored = fits.model_copy(update={"source": "camera", "confidence": LONGEST_FLOAT,
                                     "unsure": True})
    assert len(stored.to_json()) <= MAX_LINE
    with pytest.raises(ValidationError):
        _Note(note="x" * (MAX_LINE - empty - spare + 1))
    sourced = _Note(note="x" * (MAX_LINE - empty - spare + 1), source="camera",
                    confidence=LONGEST_FLOAT, unsure=True)
    assert len(sourced.to_json()) <= MAX_LINE


# --- a real server ----------------------------------------------------------------------------

def _replay(log: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion_api.cli", "replay", str(log), "--json"],
                          capture_output=True, text=True, timeout=120)


def test_a_server_killed_after_the_largest_event_starts_again_and_replays(tmp_path):
    data = tmp_path / "data"
    server = ProcessServer(data)
    live = server.start()
    try:
        live.post("/api/new-game", {"heroes": {"p1": "jaina", "p2": "garrosh"}}
                  ).raise_for_status()
        live.event("mulligan", player="p1", count=0)
        live.event("mulligan", player="p2", count=1)
        largest = largest_event("hero_power")
        del largest["source"]  # the server sets it (phone), after validating the event
        answer = live.post("/api/events", largest)
        assert answer.status_code == 200, answer.text
        largest["source"] = "camera"  # a source given is kept
        assert live.post("/api/events", largest).status_code == 200
        state = live.get("/api/state").json()
        game, events = state["game"], state["events"]
        log = data / "games" / f"{game}.jsonl"
        on_disk = log.read_text()
        assert max(len(line) for line in on_disk.splitlines()) > 450

        for bad, start in [(HUGE_TARGETS, "hero_power.target: 4,000 targets"),
                           (HUGE_TOKEN, "hero_power.target: 'T1999")]:
            answer = live.post("/api/events", bad)
            assert answer.status_code == 422
            detail = answer.json()["detail"]
            assert detail.startswith(start) and "\n" not in detail and len(detail) < 200
        assert log.read_text() == on_disk
        assert live.get("/api/state").json()["events"] == events
    finally:
        server.kill()

    live = server.start()
    try:
        state = live.get("/api/state").json()
        assert state["game"] == game and state["events"] == events
    finally:
        server.kill()
    assert log.read_text() == on_disk
    done = _replay(log)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["players"]["p1"]["hero"] == "jaina"
