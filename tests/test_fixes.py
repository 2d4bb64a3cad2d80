"""A person's fix of any camera event: one of the view's other explanations, "it did not
happen", or the card named by hand; or an event the camera missed, added where it happened.
The log is replayed from there, and the camera's later readings of a card named by hand
follow the name."""

from __future__ import annotations

import pytest
from conftest import start

from simulator.game_views import readable_state
from tracker.camera.live import LiveTracker
from tracker.camera.view import NO_HINTS, Hints, expected_view, renamed
from tracker.rules.engine import EngineError
from tracker.rules.events import Attack, EndTurn, HeroPower, Play


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


def _unseen_attack_game():
    """Jaina lays 4H; a turn later she lays 5H, then 4H attacks Garrosh (a hero's health is
    on no card, and no slide was seen: the camera cannot tell); Garrosh lays 2D."""
    table = start("jaina", "garrosh", turn=7)
    truth, tracker = table.game.copy(), LiveTracker(game=table.game.copy())
    for event in (Play(player="p1", card="4H"), EndTurn(), EndTurn(),
                  Play(player="p1", card="5H"), Attack(attacker="4H", target="p2"), EndTurn(),
                  Play(player="p2", card="2D")):
        truth.apply(event)
        if isinstance(event, EndTurn):
            tracker.phone(event)
        else:
            tracker.seen(expected_view(truth), now=True)
    return truth, tracker


def test_what_the_camera_missed_is_added_where_it_happened():
    truth, tracker = _unseen_attack_game()
    assert "attack" not in [e.type for e in tracker.events]
    laid = next(i for i, e in enumerate(tracker.events) if e.type == "play" and e.card == "5H")
    tracker.missed(Attack(attacker="4H", target="p2"), laid)
    kinds = [(e.type, e.source) for e in tracker.events[laid:]]
    assert kinds == [("play", "camera"), ("attack", "phone"), ("end_turn", "phone"),
                     ("play", "camera")]
    assert readable_state(tracker.game) == readable_state(truth)
    assert tracker.game.alerts == []
    # the camera's next view of the same table brings nothing more
    assert tracker.seen(expected_view(truth), now=True).events == []


def test_what_the_camera_missed_just_now_is_added_last_and_not_read_again():
    table = start("jaina", "garrosh", turn=7)
    truth, tracker = table.game.copy(), LiveTracker(game=table.game.copy())
    play = Play(player="p1", card="4H")
    truth.apply(play)
    tracker.missed(play)  # the phone is quicker than the camera
    assert tracker.events[-1].card == "4H" and tracker.events[-1].source == "phone"
    assert tracker.seen(expected_view(truth), now=True).events == []
    assert [e.card for e in tracker.events if e.type == "play"] == ["4H"]


def test_a_missed_event_the_game_cannot_take_changes_nothing():
    """Totemic Call turns cards over from a pile whose order no camera game knows: added
    without them, it cannot be applied, and the log stays as it was."""
    table = start("thrall", "garrosh", turn=7)
    tracker = LiveTracker(game=table.game.copy())
    tracker.game.apply(Play(player="p1", card="4H"))
    before = list(tracker.events)
    with pytest.raises(EngineError, match="revealed"):
        tracker.missed(HeroPower(player="p1"), len(before) - 2)
    assert tracker.events == before


def test_a_secret_set_is_told_face_down_in_the_cameras_words():
    """Questions and fix options are in the public state: a secret set is "sets a secret"
    there, as on every page, never its card."""
    from tracker.camera import in_words

    t = start("rexxar", "garrosh", turn=9)  # 5 mana
    words = in_words(t.game, [Play(player="p1", card="QD"), Play(player="p1", card="3H")])
    assert words == "p1 sets a secret; p1 plays 3H"


def test_vaporize_said_after_the_camera_saw_the_attack_goes_before_it():
    """Jaina's K♠ (Vaporize) lies face down; the camera sees Rexxar's 4♣ slide forward at
    Jaina, and the phone then says the secret went off: it goes before the attack, which
    never hits, and the camera's next view (4♣ on the pile) is the game as it is."""
    from tracker.rules.events import SecretRevealed

    table = start("jaina", "rexxar", turn=5)
    truth, tracker = table.game.copy(), LiveTracker(game=table.game.copy())
    for event in (Play(player="p1", card="KS"), EndTurn(), Play(player="p2", card="4C"),
                  EndTurn(), EndTurn()):
        truth.apply(event)
        if isinstance(event, EndTurn):
            tracker.phone(event)
        else:
            tracker.seen(expected_view(truth), now=True)
    attacked = truth.copy()
    attacked.apply(Attack(attacker="4C", target="p1"))
    tracker.seen(expected_view(attacked), Hints(attackers=("4C",)), now=True)
    assert tracker.events[-1].type == "attack" and tracker.game.sides["p1"].health == 16
    vaporize = SecretRevealed(player="p1", card="KS", target="4C")
    tracker.missed(vaporize)
    truth.apply(vaporize)
    assert [e.type for e in tracker.events[-2:]] == ["end_turn", "secret_revealed"]
    assert readable_state(tracker.game) == readable_state(truth)
    assert tracker.seen(expected_view(truth), now=True).events == []
    assert readable_state(tracker.game) == readable_state(truth)
