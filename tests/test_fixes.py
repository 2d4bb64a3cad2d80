"""A person's fix of any camera event: one of the view's other explanations, "it did not
happen", or the card named by hand; the log is replayed from there, and the camera's later
readings of a card named by hand follow the name."""

from __future__ import annotations

from conftest import start

from simulator.game_views import readable_state
from tracker.camera.live import LiveTracker
from tracker.camera.view import NO_HINTS, Hints, expected_view, renamed
from tracker.rules.events import Attack, EndTurn, Play


def _misread_game():
    """Jaina lays 4H, which the camera reads as 3H, every time; Garrosh lays 2D; 4H attacks
    2D, and lives on with 2 damage."""
    table = start("jaina", "garrosh", turn=7)
    truth, tracker = table.game.copy(), LiveTracker(game=table.game.copy())

    def step(event, hints=NO_HINTS):
        truth.apply(event)
        if isinstance(event, EndTurn):
            tracker.phone(event)
        else:
            tracker.seen(*renamed(expected_view(truth), hints, {"4H": "3H"}), now=True)

    step(Play(player="p1", card="4H"))
    step(EndTurn())
    step(Play(player="p2", card="2D"))
    step(EndTurn())
    step(Attack(attacker="4H", target="2D"), Hints(attackers=("4H",)))
    return truth, tracker


def test_a_misread_card_fixed_two_events_later_gives_the_right_game():
    truth, tracker = _misread_game()
    played = next(i for i, e in enumerate(tracker.events) if e.type == "play")
    assert tracker.events[played].card == "3H" and tracker.game.alerts == []
    assert readable_state(tracker.game) != readable_state(truth)
    tracker.name_card(played, "4H")
    assert tracker.events[played].card == "4H" and tracker.events[played].source == "phone"
    assert [e.attacker for e in tracker.events if e.type == "attack"] == ["4H"]
    assert readable_state(tracker.game) == readable_state(truth)
    # the camera still reads 4H as 3H: its next view is the same table, nothing new
    again = tracker.seen(*renamed(expected_view(truth), NO_HINTS, {"4H": "3H"}), now=True)
    assert again.events == [] and readable_state(tracker.game) == readable_state(truth)


def test_every_camera_event_offers_fixes_and_nothing_happened():
    _, tracker = _misread_game()
    camera = [i for i, e in enumerate(tracker.events) if e.source == "camera"]
    fixes = tracker.fixes()
    for index in camera:
        [fix] = [f for f in fixes if f.index <= index < f.index + f.length]
        assert () in fix.options and len(fix.options) >= 2
        assert list(fix.options[fix.chosen]) == [
            e.model_copy(update={"source": None, "confidence": None})
            for e in tracker.events[fix.index:fix.index + fix.length]]


def test_it_did_not_happen_takes_the_event_out():
    _, tracker = _misread_game()
    attack = next(i for i, e in enumerate(tracker.events) if e.type == "attack")
    tracker.fix(attack, [])
    assert [e.type for e in tracker.events[attack:]] == []
    assert [m.id for m in tracker.game.sides["p2"].minions] == ["2D"]


def test_a_fix_explains_the_later_views_again():
    """Garrosh's 2D is taken out as never played, yet the later view shows it in the pile:
    explained again, the later view brings it back rather than keep a stale story."""
    _, tracker = _misread_game()
    played = next(i for i, e in enumerate(tracker.events)
                  if e.type == "play" and e.player == "p2")
    tracker.fix(played, [])
    assert "2D" in [e.card for e in tracker.events[played:] if e.type == "play"]
    assert tracker.game.table.where("2D") == "discard"
