"""The reconciler and the live tracker on what a perfect camera sees of whole bot games:
the events recovered one by one, and the final state."""

from __future__ import annotations

import difflib

from conftest import start

from tracker.bot import play_game
from tracker.events import Attack, Play
from tracker.heroes import hero_names
from tracker.intent import against_intent
from tracker.live import LiveTracker
from tracker.reconcile import Hints, explain
from tracker.view import expected_view
from vision.synth.game_views import readable_state, track_perfectly


def _track(events) -> tuple[LiveTracker, int, int]:
    """The tracker after the game; the truth's events the table shows, and how many of
    them it recovered, in order (a view explained badly may wait for the next)."""
    tracker, truth, got = track_perfectly(events)
    blocks = difflib.SequenceMatcher(a=truth, b=got, autojunk=False).get_matching_blocks()
    return tracker, len(truth), sum(b.size for b in blocks)


def test_a_minion_attack_is_read_from_its_slide_and_the_markers():
    table = start("jaina", "garrosh", turn=3)
    table.play("p1", "2H")
    table.end_turn()
    table.play("p2", "3C")
    table.end_turn()
    truth = table.game.copy()
    truth.apply(attack := Attack(attacker="2H", target="3C"))
    found = explain(table.game, expected_view(truth), Hints(attackers=("2H",)))
    assert found.events == [attack] and found.explained and not found.ambiguous


def test_a_spell_at_a_hero_is_ambiguous_and_the_likelier_target_comes_first():
    table = start("jaina", "garrosh", turn=5)
    truth = table.game.copy()
    assert table.game.ability_of("p1", "AH").name == "Fireball"
    truth.apply(Play(player="p1", card="AH", target="p2"))
    found = explain(table.game, expected_view(truth))
    assert [e.target for e in found.events] == ["p2"]
    assert [[e.target for e in option] for option in found.alternatives] == [["p1"]]
    assert against_intent(table.game, Play(player="p1", card="AH", target="p1")) == 1


def test_whole_games_seen_by_a_perfect_camera():
    names = hero_names()
    games = right_states = total = right = 0
    for number, hero in enumerate(names):
        truth = play_game((hero, names[(number + 4) % 9]), seed=number, sensible=True)
        tracker, seen, got = _track(truth.events)
        total, right, games = total + seen, right + got, games + 1
        right_states += readable_state(tracker.game) == readable_state(truth)
    # secrets are set face down (their card is a guess until revealed) and heals of the
    # unhurt leave no trace: the rest is read exactly
    assert right / total >= 0.95, (right, total)
    assert right_states >= 7, right_states
