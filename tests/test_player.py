"""The benchmark's scripted player uses only what the phone offers, and only what the
players know, to make the score right."""

from __future__ import annotations

from test_fixes import _misread_game

from bench.player import NAME_TAPS, ScriptedPlayer
from simulator.game_views import readable_state


def test_the_player_names_a_misread_card_and_the_game_ends_right():
    truth, tracker = _misread_game()
    player = ScriptedPlayer(truth.events, fps=15.0)
    player.look(0, tracker)  # just on the phone: not yet fixed
    assert player.taps == 0
    player.look(5 * 15, tracker)  # on the phone for 5 s
    assert player.fixes == 1 and player.taps == NAME_TAPS
    assert readable_state(tracker.game) == readable_state(truth)
    player.look(10 * 15, tracker, final=True)  # nothing more to fix
    assert player.fixes == 1 and player.lingered == 0


def test_the_player_leaves_a_right_game_alone():
    truth, tracker = _misread_game()
    tracker.name_card(next(i for i, e in enumerate(tracker.events) if e.type == "play"), "4H")
    player = ScriptedPlayer(truth.events, fps=15.0)
    player.look(0, tracker, final=True)
    assert player.taps == 0 and readable_state(tracker.game) == readable_state(truth)
