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


def test_the_player_fixes_a_hero_power_target_and_keeps_the_minion_laid_with_it():
    """Lesser Heal at an unhurt hero, laid in one view with a minion: the camera cannot
    tell where it went. The player picks the target the phone offers (two taps), and the
    minion laid in the same view stays."""
    from conftest import start

    from bench.player import FIX_TAPS
    from tracker.camera.live import LiveTracker
    from tracker.camera.view import expected_view
    from tracker.rules.events import HeroPower, Play

    table = start("anduin", "garrosh", turn=13)
    truth, tracker = table.game.copy(), LiveTracker(game=table.game.copy())
    truth.apply(Play(player="p1", card="4H"))
    truth.apply(HeroPower(player="p1", target="p2"))
    tracker.seen(expected_view(truth), now=True)
    assert readable_state(tracker.game) == readable_state(truth)  # nothing to see …
    assert [e.target for e in tracker.events if e.type == "hero_power"] != ["p2"]  # … yet
    player = ScriptedPlayer(truth.events, fps=15.0)
    player.look(5 * 15, tracker, final=True)
    assert player.fixes == 1 and player.taps == FIX_TAPS
    assert [(e.type, getattr(e, "target", None)) for e in tracker.events[-2:]] == [
        ("play", None), ("hero_power", "p2")]


def test_an_option_is_taken_only_in_the_order_things_happened():
    from bench.player import _in_order, _key
    from tracker.rules.events import Attack, HeroPower

    power, attack = HeroPower(player="p2"), Attack(attacker="p2", target="9C")
    happened = [_key(power, 3), _key(attack, 3)]
    assert _in_order([power, attack], 3, happened) and _in_order([attack], 3, happened)
    assert not _in_order([attack, power], 3, happened)
    assert not _in_order([power, attack], 4, happened)  # the same, a turn later


def test_the_player_adds_what_the_camera_missed_where_it_happened():
    """4H's attack at Garrosh left nothing on the table the camera could see. Once it has
    been done 5 s, the player adds it after the play it followed (two taps, then attacker
    and target), and the game is right."""
    from test_fixes import _unseen_attack_game

    from bench.player import FIX_TAPS

    truth, tracker = _unseen_attack_game()
    attack = next(i for i, e in enumerate(truth.events) if e.type == "attack")
    done = [0] * len(truth.events)
    done[attack] = 100  # the frame the attack was done on the table
    player = ScriptedPlayer(truth.events, fps=15.0, done=done)
    player.look(100 + 4 * 15, tracker)  # done 4 s ago: the camera may still see it
    assert player.fixes == 0
    player.look(100 + 5 * 15, tracker)
    assert player.fixes == 1 and player.taps == FIX_TAPS + 2
    assert [e.type for e in tracker.events if e.type != "end_turn"][-3:] == [
        "play", "attack", "play"]
    assert readable_state(tracker.game) == readable_state(truth)
