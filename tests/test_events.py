"""The event log: each line validated into an event, with a one-line reason when it is not."""

from __future__ import annotations

import pytest

from cards import DECK
from tracker.rules.cards import parse_card
from tracker.rules.events import MAX_LOG_BYTES, LogError, dump_log, iter_log, parse_event, read_log

GOOD = [
    {"type": "new_game", "heroes": {"p1": "jaina", "p2": "mage"}},
    {"type": "mulligan", "player": "p2", "count": 3},
    {"type": "play", "player": "p1", "card": "10S", "target": "T3", "choice": 2},
    {"type": "play", "player": "p1", "card": "JH", "target": ["p2", "p2", "7D"]},
    {"type": "play", "player": "p2", "card": "JK", "source": "camera", "confidence": 0.97},
    {"type": "attack", "attacker": "p1", "target": "QC"},
    {"type": "hero_power", "player": "p2", "revealed": ["2H", "9S"]},
    {"type": "secret_revealed", "player": "p1", "card": "KS", "target": "5C"},
    {"type": "end_turn"},
    {"type": "concede", "player": "p2"},
    {"type": "markers", "player": "p1", "place": "damage", "count": 2, "minion": "4H"},
]


@pytest.mark.parametrize("data", GOOD, ids=lambda d: d["type"])
def test_valid_events_round_trip_through_json(data):
    event = parse_event(data)
    assert parse_event(event.to_json()) == event
    assert event.type == data["type"]


@pytest.mark.parametrize("data, reason", [
    ({"type": "play", "player": "p1", "card": "1H"}, "'1H' is not a card id"),
    ({"type": "play", "player": "p1", "card": "11H"}, "not a card id"),
    ({"type": "play", "player": "p3", "card": "5H"}, "player"),
    ({"type": "play", "player": "p1", "card": "5H", "target": "X9"}, "'X9' is not a card id"),
    ({"type": "play", "player": "p1", "card": "5H", "target": []}, "target list is empty"),
    ({"type": "play", "player": "p1", "card": "5H", "choice": 3}, "choice"),
    ({"type": "attack", "attacker": "BACK", "target": "p2"}, "'BACK' is not a card id"),
    ({"type": "mulligan", "player": "p1", "count": 7}, "count"),
    ({"type": "new_game", "heroes": {"p1": "jaina"}}, "both p1 and p2"),
    ({"type": "new_game", "heroes": {"p1": "a", "p2": "b"}, "deck": DECK[:51]},
     "each of the 52 cards once"),
    ({"type": "new_game", "heroes": {"p1": "a", "p2": "b"}, "deck": [*DECK[:51], "2S"]},
     "each of the 52 cards once"),
    ({"type": "end_turn", "colour": "red"}, "unknown field 'colour'"),
    ({"type": "end_turn", "confidence": 1.5}, "confidence"),
    ({"type": "shuffle"}, "unknown event type"),
    ({"player": "p1"}, "event has no 'type'"),
])
def test_invalid_event_has_a_one_line_reason(data, reason):
    with pytest.raises(LogError) as error:
        parse_event(data)
    assert reason in str(error.value) and "\n" not in str(error.value)


def test_read_log_skips_blank_lines_and_names_the_bad_line(tmp_path):
    path = tmp_path / "log.jsonl"
    dump_log([parse_event(d) for d in GOOD[:3]], path)
    assert len(read_log(path)) == 3
    path.write_text(path.read_text() + "\n\n{broken\n")
    with pytest.raises(LogError, match=r"log.jsonl:6: not valid JSON"):
        read_log(path)


def test_a_line_nested_too_deeply_is_a_one_line_error(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"type": ' + "[" * 5_000 + "]" * 5_000 + "}\n")  # 10 KB: a line still
    with pytest.raises(LogError, match=r"log.jsonl:1: JSON nested too deeply to be an event"):
        read_log(path)


def test_card_costs_and_stats_follow_the_rank():
    assert [parse_card(f"{r}H").cost for r in ("2", "5", "6", "7", "10", "J", "Q", "K", "A")] \
        == [2, 5, 1, 2, 5, 1, 2, 3, 4]
    assert parse_card("9D").stats == 4 and parse_card("9D").is_minion
    assert not parse_card("QS").is_minion


def test_a_log_too_large_to_be_one_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as log:
        log.truncate(MAX_LOG_BYTES + 1)  # sparse: no disk used
    with pytest.raises(LogError, match=r"huge.jsonl: 16.0 MB, more than a log may be"):
        list(iter_log(path))
