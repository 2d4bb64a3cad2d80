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


def test_a_fix_of_one_event_keeps_the_others_its_view_was_explained_by():
    """One view shows a minion laid and the hero power used: Lesser Heal at someone unhurt,
    which the camera cannot see. Every target the phone offers for the hero power keeps the
    minion, and "without this one" takes out the hero power alone."""
    from tracker.camera.live import fix_options
    from tracker.rules.events import HeroPower

    table = start("anduin", "garrosh", turn=13)
    truth, tracker = table.game.copy(), LiveTracker(game=table.game.copy())
    truth.apply(Play(player="p1", card="4H"))
    truth.apply(HeroPower(player="p1", target="p2"))
    tracker.seen(expected_view(truth), now=True)
    power = next(i for i, e in enumerate(tracker.events) if e.type == "hero_power")
    options = fix_options(tracker.game, tracker.fixes(), power)
    said = [[(e.type, getattr(e, "card", None) or getattr(e, "target", None)) for e in o]
            for o in options]
    others = {"p1", "p2", "4H"} - {tracker.events[power].target}
    for target in others:  # the view's play stays with each
        assert [("play", "4H"), ("hero_power", target)] in said
    assert [("play", "4H")] in said and said[-1] == []  # without it; nothing happened
    tracker.fix(power, options[said.index([("play", "4H"), ("hero_power", "p2")])])
    assert readable_state(tracker.game) == readable_state(truth)
    power = next(i for i, e in enumerate(tracker.events) if e.type == "hero_power")
    options = fix_options(tracker.game, tracker.fixes(), power)
    tracker.fix(power, next(o for o in options if [e.type for e in o] == ["play"]))
    assert [e.type for e in tracker.events if e.type in ("play", "hero_power")] == ["play"]
