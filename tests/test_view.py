"""The table the rules expect to see: each face-up card where the conventions put it, and
the face-down markers counted where they lie."""

from __future__ import annotations

from conftest import start

from tracker.camera.view import expected_view
from tracker.rules.bot import play_game
from tracker.rules.engine import Game
from tracker.rules.heroes import hero_names


def test_an_empty_game_shows_a_full_deck_and_nothing_else():
    view = expected_view(Game())
    assert view.deck == 52 and view.discard == () and view.face_up() == {}
    assert all(not side.minions and side.armor == 0 for side in view.sides.values())


def test_minions_markers_weapons_and_armor_are_where_the_conventions_put_them():
    table = start("garrosh", "valeera", turn=3)
    table.play("p1", "6H")
    table.end_turn()
    table.power("p2")  # Dagger Mastery: a 1/2 dagger of two face-down cards, no face-up card
    table.attack("p2", "6H")  # 6H (1/1) dies; the dagger loses one durability
    table.end_turn()
    table.power("p1")  # Armor Up!
    view = expected_view(table.game)
    p1, p2 = view.sides["p1"], view.sides["p2"]
    assert p1.minions == () and view.discard_top == "6H"
    assert p1.armor == 2 and p2.weapon is None and p2.durability == 1
    assert view.face_up() == {"6H": "discard"}


def test_every_card_of_a_game_is_accounted_for_at_each_step():
    """What the view shows face down, face up, in the deck and in the discard, with the
    hands and the set-aside cards, is always the 53 cards (the joker included)."""
    for number, hero in enumerate(hero_names()[:9]):
        game = play_game((hero, hero_names()[(number + 3) % 9]), seed=number)
        replay = Game()
        for event in game.events:
            replay.apply(event)
            view = expected_view(replay)
            on_table = sum(
                len(s.minions) - sum(1 for m in s.minions if m.card is None)
                + sum(m.stack + m.damage + m.buffs + len(m.spells) for m in s.minions)
                + (s.weapon is not None) + s.durability + s.armor + s.secrets
                for s in view.sides.values())
            hands = sum(len(side.hand) for side in replay.table.sides.values())
            total = on_table + view.deck + len(view.discard) + hands + len(
                replay.table.set_aside)
            assert total == 53, (hero, len(replay.events))
