"""Every alert code of tracker.rules.alerts.CODES, raised by a short log; what an alert says; and
what an illegal event still does to the table."""

from __future__ import annotations

import re

import pytest
from conftest import start

from cards import DECK
from tracker.rules.alerts import CODES, ILLEGAL, WARNING
from tracker.rules.engine import Game
from tracker.rules.events import parse_event

END = {"type": "end_turn"}


def log(p1: str, p2: str, turn: int, *events: dict, deck: list[str] | None = None) -> list[dict]:
    """new_game, then end_turn up to the start of `turn`, then `events`."""
    head: dict = {"type": "new_game", "heroes": {"p1": p1, "p2": p2}}
    if deck is not None:
        head["deck"] = deck
    return [head, *[END] * (turn - 1), *events]


def play(player: str, card: str, **fields) -> dict:
    return {"type": "play", "player": player, "card": card, **fields}


def attack(attacker: str, target: str) -> dict:
    return {"type": "attack", "attacker": attacker, "target": target}


def power(player: str, **fields) -> dict:
    return {"type": "hero_power", "player": player, **fields}


def reveal(player: str, card: str, **fields) -> dict:
    return {"type": "secret_revealed", "player": player, "card": card, **fields}


def mulligan(player: str, count: int) -> dict:
    return {"type": "mulligan", "player": player, "count": count}


def markers(player: str, place: str, count: int, **fields) -> dict:
    return {"type": "markers", "player": player, "place": place, "count": count, **fields}


FIVE = [play("p1", c) for c in ("6H", "6D", "6C", "6S", "7H")]  # 6 mana at turn 11
TOTEMS = [e for suit in "HDCS" for e in (power("p1", revealed=[f"2{suit}"]), END, END)]

# (case id, code, log whose last event raises the code, words its message must contain)
CASES = [
    ("not_enough_mana", "not_enough_mana",
     log("jaina", "garrosh", 1, play("p1", "7H")), ("p1", "7H")),
    ("not_enough_mana-power", "not_enough_mana",
     log("jaina", "garrosh", 1, power("p1", target="p2")), ("p1", "Fireblast")),
    ("board_full", "board_full",
     log("jaina", "garrosh", 11, *FIVE, END, END, play("p1", "7D")), ("p1", "7D")),
    ("board_full-power", "board_full",
     log("uther", "garrosh", 11, *FIVE, END, END, power("p1")), ("p1", "Reinforce")),
    ("out_of_turn", "out_of_turn",
     log("jaina", "garrosh", 1, play("p2", "6H")), ("p2", "6H")),
    ("out_of_turn-attack", "out_of_turn",
     log("jaina", "garrosh", 2, play("p2", "6H"), END, attack("6H", "p1")), ("6H",)),
    ("card_in_play", "card_in_play",
     log("jaina", "garrosh", 3, play("p1", "6H"), play("p1", "6H")), ("6H",)),
    ("card_in_play-secret", "card_in_play",
     log("garrosh", "jaina", 6, play("p2", "KD"), END, play("p1", "KD")), ("KD",)),
    ("card_in_discard", "card_in_discard",
     log("jaina", "garrosh", 3, play("p1", "JS", target=["p2"] * 3),
         play("p1", "JS", target=["p2"] * 3)), ("JS",)),
    ("card_accounted_for", "card_accounted_for",
     log("jaina", "rexxar", 1, *[play("p1", "Q", target="p2")] * 4,
         play("p1", "QH", target="p2")), ("p1", "QH")),
    ("card_not_in_hand", "card_not_in_hand",
     log("jaina", "garrosh", 1, play("p1", "6S"), deck=list(DECK)), ("p1", "6S")),
    ("hero_power_used", "hero_power_used",
     log("jaina", "garrosh", 7, power("p1", target="p2"), power("p1", target="p2")),
     ("p1", "Fireblast")),
    ("attacker_exhausted", "attacker_exhausted",
     log("jaina", "garrosh", 1, play("p1", "6H"), attack("6H", "p2")), ("6H",)),
    ("attacker_frozen", "attacker_frozen",
     log("jaina", "garrosh", 4, play("p2", "QS"), END, play("p1", "QD", target="p2"), END,
         attack("p2", "p1")), ("p2",)),
    ("already_attacked", "already_attacked",
     log("garrosh", "jaina", 1, play("p1", "6S"), attack("6S", "p2"), attack("6S", "p2")),
     ("6S",)),
    ("no_attack", "no_attack",
     log("thrall", "garrosh", 3, power("p1", revealed=["2H"]), END, END, attack("2H", "p2")),
     ("2H",)),
    ("no_weapon", "no_weapon",
     log("jaina", "garrosh", 1, attack("p1", "p2")), ("p1",)),
    ("taunt", "taunt",
     log("garrosh", "jaina", 2, play("p2", "6H"), END, play("p1", "6S"), attack("6S", "p2")),
     ("6S", "6H")),
    ("target_stealthed", "target_stealthed",
     log("jaina", "garrosh", 2, play("p2", "6C"), END, power("p1", target="6C")), ("6C",)),
    ("target_stealthed-attack", "target_stealthed",
     log("garrosh", "jaina", 2, play("p2", "6C"), END, play("p1", "6S"), attack("6S", "6C")),
     ("6C",)),
    ("invalid_target", "invalid_target",
     log("garrosh", "jaina", 1, play("p1", "6S"), attack("6S", "p1")), ("6S",)),
    ("invalid_target-spell", "invalid_target",
     log("valeera", "jaina", 8, play("p2", "6H"), END, play("p1", "AS", target="p2")),
     ("AS", "p2")),
    ("missing_target", "missing_target",
     log("jaina", "garrosh", 7, play("p1", "AS")), ("AS",)),
    ("target_not_found", "target_not_found",
     log("jaina", "garrosh", 1, attack("9H", "p2")), ("9H",)),
    ("target_not_found-spell", "target_not_found",
     log("jaina", "garrosh", 7, play("p1", "AS", target="9H")), ("9H",)),
    ("missing_choice", "missing_choice",
     log("malfurion", "garrosh", 1, play("p1", "6S")), ("6S",)),
    ("no_combo", "no_combo",
     log("valeera", "garrosh", 1, play("p1", "6S", target="p2")), ("6S",)),
    ("totems_complete", "totems_complete",
     log("thrall", "garrosh", 3, *TOTEMS, power("p1", revealed=["3H"])), ("p1",)),
    ("not_a_secret", "not_a_secret",
     log("jaina", "garrosh", 2, reveal("p1", "QH")), ("QH",)),
    ("not_a_secret-never-set", "not_a_secret",
     log("jaina", "garrosh", 2, reveal("p1", "KH")), ("p1", "KH")),
    ("secret_on_own_turn", "secret_on_own_turn",
     log("jaina", "garrosh", 5, play("p1", "KH"), reveal("p1", "KH")), ("p1",)),
    ("mulligan_closed", "mulligan_closed",
     log("jaina", "garrosh", 1, mulligan("p1", 1), mulligan("p1", 1)), ("p1",)),
    ("mulligan_closed-after-play", "mulligan_closed",
     log("jaina", "garrosh", 2, mulligan("p2", 1)), ("p2",)),
    ("mulligan_too_many", "mulligan_too_many",
     log("jaina", "garrosh", 1, mulligan("p1", 5)), ("p1",)),
    ("game_over", "game_over",
     log("jaina", "garrosh", 3, {"type": "concede", "player": "p1"}, play("p2", "6H")),
     ("p2", "6H")),
    ("armor_over_cap", "armor_over_cap",
     log("garrosh", "jaina", 3, markers("p1", "armor", 6)), ("p1",)),
    ("marker_mismatch", "marker_mismatch",
     log("garrosh", "jaina", 3, power("p1"), markers("p1", "armor", 1)), ("p1",)),
    ("marker_mismatch-minion", "marker_mismatch",
     log("jaina", "garrosh", 4, play("p2", "7H"), END, power("p1", target="7H"),
         markers("p2", "damage", 0, minion="7H")), ("7H",)),
]


def run(events: list[dict]) -> tuple[Game, list[list]]:
    game = Game()
    raised = [game.apply(parse_event(e)) for e in events]
    return game, raised


def test_the_table_covers_exactly_the_codes():
    assert {code for _, code, _, _ in CASES} == set(CODES)
    assert all(severity in (ILLEGAL, WARNING) for severity, _ in CODES.values())


@pytest.mark.parametrize(("code", "events", "names"),
                         [pytest.param(c, e, n, id=i) for i, c, e, n in CASES])
def test_alert_is_raised_by_the_last_event(code, events, names):
    game, raised = run(events)
    index = len(events) - 1
    assert all(code not in [a.code for a in alerts] for alerts in raised[:-1]), raised
    found = [a for a in raised[-1] if a.code == code]
    assert len(found) == 1, raised[-1]
    alert = found[0]
    assert alert.event == index
    assert alert.severity == CODES[code][0]
    message = alert.message
    assert re.fullmatch(r"\S.*\S", message) and len(message.split()) >= 4, message
    assert "None" not in message and "{" not in message, message
    for name in names:
        assert re.search(rf"(?<![\w']){re.escape(name)}\b", message), (name, message)
    assert alert.model_dump() in game.state().model_dump()["alerts"]
    assert {"code": code, "severity": CODES[code][0], "event": index,
            "message": message} in game.state().model_dump()["alerts"]


@pytest.mark.parametrize(("code", "events"),
                         [pytest.param(c, e, id=i) for i, c, e, _ in CASES])
def test_check_predicts_the_alerts_without_changing_the_game(code, events):
    game, _ = run(events[:-1])
    before = game.state()
    predicted = game.check(parse_event(events[-1]))
    assert game.state() == before
    assert code in [a.code for a in predicted]
    assert not game.is_legal(parse_event(events[-1])) or CODES[code][0] == WARNING
    assert game.apply(parse_event(events[-1])) == predicted


def test_alerts_keep_their_event_index():
    events = log("jaina", "garrosh", 1, mulligan("p1", 5), play("p1", "7D"), END,
                 attack("p2", "p1"), play("p2", "6H"))
    game, _ = run(events)
    assert [(a["code"], a["event"]) for a in game.state().model_dump()["alerts"]] == [
        ("mulligan_too_many", 1), ("not_enough_mana", 2), ("no_weapon", 4)]


# --- an illegal event still applies ---------------------------------------------------------
def test_minion_without_enough_mana_is_still_on_the_table():
    t = start("jaina", "garrosh", turn=1)
    assert t.play("p1", "10H") == ["not_enough_mana"]
    minion = t.minion("10H")
    assert (minion["attack"], minion["health"], minion["taunt"]) == (5, 5, True)
    assert t.side("p1")["mana"] == 0 and t.side("p1")["hand"] == 4
    assert t.ledger_total() == 53


def test_out_of_turn_play_is_still_on_the_table():
    t = start("jaina", "garrosh", turn=1)
    assert t.play("p2", "6H") == ["out_of_turn"]
    assert t.minion_ids("p2") == ["6H"]
    assert t.side("p2")["hand"] == 5
    assert t.side("p1")["mana"] == 1


def test_attack_past_taunt_still_deals_damage():
    t = start("garrosh", "jaina", turn=2)
    t.play("p2", "6H")
    t.end_turn()
    t.play("p1", "6S")
    assert t.attack("6S", "p2") == ["taunt"]
    assert t.side("p2")["health"] == 19


def test_sixth_minion_is_still_on_the_table():
    t = start("jaina", "garrosh", turn=11)
    for card in ("6H", "6D", "6C", "6S", "7H"):
        t.play("p1", card)
    t.end_turn(2)
    assert t.play("p1", "7D") == ["board_full"]
    assert len(t.side("p1")["minions"]) == 6


def test_card_already_in_play_is_not_played_twice():
    t = start("jaina", "garrosh", turn=3)
    t.play("p1", "6H")
    before = t.state
    assert t.play("p1", "6H") == ["card_in_play"]
    after = t.state
    assert t.minion_ids("p1") == ["6H"]
    assert after["players"]["p1"]["hand"] == before["players"]["p1"]["hand"]
    assert after["players"]["p1"]["mana"] == before["players"]["p1"]["mana"]
    assert t.ledger_total() == 53
    assert len(t.game.events) == 5  # recorded all the same


def test_secret_in_play_is_not_played_again():
    t = start("garrosh", "jaina", turn=6)
    t.play("p2", "KD")
    t.end_turn()
    assert t.play("p1", "KD") == ["card_in_play"]
    assert t.side("p2")["secrets"] == 1
    assert t.side("p1")["weapon"] is None
    assert t.ledger_total() == 53


def test_card_from_the_discard_is_played_again():
    t = start("jaina", "garrosh", turn=3)
    t.play("p1", "JS", target=["p2"] * 3)
    assert t.play("p1", "JS", target=["p2"] * 3) == ["card_in_discard"]
    assert t.side("p2")["health"] == 14
    assert t.state["discard"] == 1
    assert t.ledger_total() == 53


# --- a legal event raises no alert -----------------------------------------------------------
LEGAL = [
    ("mulligan", log("jaina", "garrosh", 1, mulligan("p1", 4), mulligan("p2", 5))),
    ("minion", log("jaina", "garrosh", 3, play("p1", "7H"))),
    ("coin then minion", log("jaina", "garrosh", 2, play("p2", "JK"), play("p2", "7H"))),
    ("hero power", log("jaina", "garrosh", 3, power("p1", target="p2"))),
    ("targeted spell", log("jaina", "garrosh", 3, play("p1", "QS", target="p2"))),
    ("charge attack", log("garrosh", "jaina", 1, play("p1", "6S"), attack("6S", "p2"))),
    ("minion attack", log("jaina", "garrosh", 1, play("p1", "6H"), END, END,
                          attack("6H", "p2"))),
    ("taunt attacked", log("garrosh", "jaina", 2, play("p2", "6H"), END, play("p1", "7S"),
                           attack("7S", "6H"))),
    ("weapon", log("garrosh", "jaina", 3, play("p1", "QS"), attack("p1", "p2"))),
    ("secret", log("jaina", "garrosh", 5, play("p1", "KH"), END, reveal("p1", "KH"))),
    ("markers", log("garrosh", "jaina", 3, power("p1"), markers("p1", "armor", 2),
                    markers("p1", "weapon", 0))),
    ("damage markers", log("jaina", "garrosh", 4, play("p2", "7H"), END,
                           power("p1", target="7H"), markers("p2", "damage", 1, minion="7H"))),
    ("end turn", log("jaina", "garrosh", 1, END)),
    ("concede", log("jaina", "garrosh", 1, {"type": "concede", "player": "p1"})),
]


@pytest.mark.parametrize("events", [pytest.param(e, id=i) for i, e in LEGAL])
def test_legal_events_raise_no_alert(events):
    game, raised = run(events)
    assert raised == [[] for _ in events]
    assert game.state().model_dump()["alerts"] == []
