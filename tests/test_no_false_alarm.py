"""A rule break the camera reads is flagged only when it saw just that; one it may have
misread (the view is not as the play leaves it, or a legal story comes near) is asked on
the phone, as an `unsure` alert, and a person's answer settles it."""

from __future__ import annotations

from dataclasses import replace

from conftest import start

from tracker.camera.live import NOTHING, UNSURE, LiveTracker
from tracker.camera.view import expected_view
from tracker.rules.engine import Game
from tracker.rules.events import Play, parse_event


def _mana_overspent():
    """Turn 1: Jaina has one crystal; 5H (5 mana) is laid on her side of the table."""
    table = start("jaina", "garrosh", turn=1)
    truth = table.game.copy()
    truth.apply(Play(player="p1", card="5H"))
    return table.game, expected_view(truth)


def _with_armor(view, player: str, armor: int):
    return replace(view, sides={**view.sides, player: replace(view.sides[player], armor=armor)})


def _severities(game: Game) -> list[tuple[str, str]]:
    return [(a.code, a.severity) for a in game.alerts]


def test_a_rule_break_the_camera_saw_plainly_is_flagged():
    game, view = _mana_overspent()
    tracker = LiveTracker(game=game)
    tracker.seen(view, now=True)
    assert _severities(tracker.game) == [("not_enough_mana", "illegal")]
    assert tracker.questions() == []


def test_a_rule_break_the_view_does_not_bear_out_is_asked_not_flagged():
    game, view = _mana_overspent()
    tracker = LiveTracker(game=game)
    tracker.seen(_with_armor(view, "p2", 3), now=True)  # three armor markers no one laid
    assert tracker.events[-1].card == "5H" and tracker.events[-1].unsure
    assert _severities(tracker.game) == [("not_enough_mana", "unsure")]
    [question] = tracker.questions()
    assert question.prompt == UNSURE
    labels = [o.label for o in question.options]
    assert "5H" in labels[0] and "against the rules" in labels[0]
    assert labels[-1] == NOTHING and question.options[-1].events == []


def test_the_players_answer_settles_an_unsure_rule_break():
    game, view = _mana_overspent()
    confirmed = LiveTracker(game=game.copy())
    confirmed.seen(_with_armor(view, "p2", 3), now=True)
    confirmed.answer(confirmed.choices[-1], 0)  # it happened: now it is flagged
    assert _severities(confirmed.game) == [("not_enough_mana", "illegal")]
    assert not confirmed.events[-1].unsure and not confirmed.open_choices()

    denied = LiveTracker(game=game.copy())
    denied.seen(_with_armor(view, "p2", 3), now=True)
    denied.answer(denied.choices[-1], denied.choices[-1].options.index([]))  # a misread
    assert denied.game.alerts == [] and denied.events[-1].type == "new_game"


def test_an_unsure_event_replays_as_unsure_and_reads_back_from_its_line():
    game, _ = _mana_overspent()
    line = Play(player="p1", card="5H", source="camera", unsure=True).to_json()
    assert '"unsure":true' in line
    game.apply(parse_event(line))
    again = Game.replay(game.events)
    assert _severities(again) == [("not_enough_mana", "unsure")]
    assert not again.is_legal(Play(player="p1", card="6H", unsure=True))
