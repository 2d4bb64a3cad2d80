"""Gul'dan (warlock), every hero card effect, worked out by hand from heroes.md §4 and §5.9.

Deck arithmetic: `start(turn=N)` leaves 43 - N cards in the draw deck, and each `end_turn`
draws one more. Armor, buff and damage markers leave the top of the deck and come back to its
bottom; a destroyed minion's card goes to the discard pile.
"""

from conftest import start


def test_life_tap_deals_two_to_own_hero_then_draws():
    t = start("guldan", "garrosh", turn=3)  # 43 - 3 = 40
    hand = t.side("p1")["hand"]
    assert t.power("p1") == []
    assert t.side("p1")["health"] == 18
    assert t.side("p1")["hand"] == hand + 1
    assert t.deck == 39
    assert t.ledger_total() == 53


def test_life_tap_damage_goes_to_armor_first():
    t = start("guldan", "garrosh", turn=3)  # 40
    # Set-up: Gul'dan has no armor card of his own, so one armor marker is laid by hand, as
    # the table would show it: the top card of the deck (39).
    t.game.sides["p1"].armor.append(t.game.table.take_marker())
    assert t.power("p1") == []  # 1 armor absorbs (card back: 40), 1 health; draw (39)
    assert (t.side("p1")["armor"], t.side("p1")["health"]) == (0, 19)
    assert t.deck == 39
    assert t.ledger_total() == 53


def test_life_tap_on_an_empty_deck_ends_the_game_after_the_turn():
    t = start("guldan", "garrosh", turn=43)  # 43 - 43 = 0: T43's draw took the last card
    assert (t.deck, t.state["deck_empty"]) == (0, False)
    hand = t.side("p1")["hand"]
    assert t.power("p1") == []  # 2 damage; the draw finds no card
    assert t.side("p1")["health"] == 18
    assert t.side("p1")["hand"] == hand
    assert t.state["deck_empty"] is True
    assert t.state["over"] is False  # the turn goes on
    t.end_turn()  # cleanup: the game ends on health, 18 against 20
    assert t.state["over"] is True
    assert t.state["winner"] == "p2"
    assert t.ledger_total() == 53


def test_spade_fel_pact_deals_two_to_own_hero_and_gives_plus_two_plus_two():
    t = start("guldan", "garrosh", turn=3)  # 40
    assert t.play("p1", "7S") == []
    assert t.side("p1")["health"] == 18
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (4, 4)
    assert t.deck == 38  # two upright markers
    assert t.ledger_total() == 53


def test_mortal_coil_that_kills_draws_a_card():
    t = start("guldan", "garrosh", turn=10)  # 33
    assert t.play("p2", "6H") == []  # 1/1
    t.end_turn()  # T11: 32
    hand, discard = t.side("p1")["hand"], t.state["discard"]
    assert t.play("p1", "JC", target="6H") == []
    assert t.minion("6H") is None
    assert t.side("p1")["hand"] == hand  # JC out, one drawn
    assert t.deck == 31  # the draw
    assert t.state["discard"] == discard + 2  # JC and 6H
    assert t.ledger_total() == 53


def test_mortal_coil_that_does_not_kill_draws_nothing():
    t = start("guldan", "garrosh", turn=10)  # 33
    assert t.play("p2", "7H") == []  # 2/2
    t.end_turn()  # T11: 32
    hand = t.side("p1")["hand"]
    assert t.play("p1", "JC", target="7H") == []
    assert t.minion("7H")["health"] == 1
    assert t.side("p1")["hand"] == hand - 1  # no draw
    assert t.deck == 31  # one damage marker
    assert t.ledger_total() == 53


def test_demonfire_on_a_friendly_demon_gives_plus_two_plus_two_instead():
    t = start("guldan", "garrosh", turn=3)  # 40
    assert t.play("p1", "7S") == []  # Fel Pact: 4/4 (38)
    t.end_turn(2)  # T5: 36
    assert t.play("p1", "QS", target="7S") == []
    m = t.minion("7S")
    assert (m["attack"], m["health"], m["damage"]) == (6, 6, 0)
    assert t.deck == 34  # two more upright markers
    assert t.ledger_total() == 53


def test_demonfire_on_an_enemy_demon_deals_two_damage():
    t = start("guldan", "guldan", turn=10)  # 33
    assert t.play("p2", "7S") == []  # p2's Fel Pact: 4/4 (31)
    t.end_turn()  # T11: 30
    assert t.play("p1", "QS", target="7S") == []  # 2 markers: 28
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (4, 2)
    assert t.deck == 28
    assert t.ledger_total() == 53


def test_demonfire_on_a_friendly_non_demon_deals_two_damage():
    t = start("guldan", "garrosh", turn=3)  # 40
    assert t.play("p1", "7H") == []  # 2/2, not a Demon
    t.end_turn(2)  # T5: 38
    assert t.play("p1", "QS", target="7H") == []
    assert t.minion("7H") is None
    assert t.deck == 38
    assert t.ledger_total() == 53


def test_shadow_bolt_deals_four_to_a_minion():
    t = start("guldan", "garrosh", turn=10)  # 33
    assert t.play("p2", "10H") == []  # 5/5
    t.end_turn()  # T11: 32
    assert t.play("p1", "KS", target="10H") == []  # 4 markers: 28
    assert t.minion("10H")["health"] == 1
    assert t.deck == 28
    assert t.ledger_total() == 53


def test_shadow_bolt_is_boosted_by_spell_damage():
    t = start("guldan", "garrosh", turn=10)  # 33
    assert t.play("p2", "10H") == []
    t.end_turn()  # T11: 32
    assert t.play("p1", "6D") == []
    assert t.play("p1", "KS", target="10H") == []  # 4 + 1 kills the 5/5
    assert t.minion("10H") is None
    assert t.deck == 32


def test_shadow_bolt_on_a_hero_is_an_invalid_target():
    t = start("guldan", "garrosh", turn=5)
    assert "invalid_target" in t.play("p1", "KS", target="p2")


def test_hellfire_hits_all_characters_both_heroes_included():
    t = start("guldan", "garrosh", turn=9)  # 34
    assert t.play("p1", "7D") == []  # 2/2, Spell Damage +1
    assert t.play("p1", "8H") == []  # 3/3
    t.end_turn()  # T10: 33
    assert t.play("p2", "10H") == []  # 5/5
    t.end_turn()  # T11: 32
    discard = t.state["discard"]
    assert t.play("p1", "AH") == []  # 3 + 1 = 4 to every character
    assert (t.side("p1")["health"], t.side("p2")["health"]) == (16, 16)
    assert t.minion_ids("p1") == []  # 7D and 8H die
    assert t.minion("10H")["health"] == 1  # 4 markers: 28
    assert t.deck == 28
    assert t.state["discard"] == discard + 3  # AH, 7D, 8H
    assert t.state["over"] is False
    assert t.ledger_total() == 53


def test_hellfire_that_drops_both_heroes_to_zero_or_less_is_a_draw():
    t = start("guldan", "garrosh", turn=9)  # 34
    assert t.play("p1", "10S") == []  # Fel Pact: p1 18, 10S 7/7 (32)
    t.end_turn()  # T10: 31
    assert t.play("p2", "9S") == []  # Garrosh ♠: 4/4 Charge
    assert t.play("p2", "6S") == []  # 1/1 Charge
    assert t.attack("9S", "p1") == []  # p1 14
    assert t.attack("6S", "p1") == []  # p1 13
    t.end_turn()  # T11: 30
    assert t.attack("10S", "p2") == []  # p2 13
    assert t.play("p1", "8S") == []  # Fel Pact: p1 11, 8S 5/5 (28)
    assert t.power("p1") == []  # Life Tap: p1 9, draw (27)
    t.end_turn()  # T12: 26
    assert t.attack("9S", "p1") == []  # p1 5
    assert t.attack("6S", "p1") == []  # p1 4
    t.end_turn()  # T13: 25
    assert t.attack("10S", "p2") == []  # p2 6
    assert t.attack("8S", "p2") == []  # p2 1
    assert t.power("p1") == []  # Life Tap: p1 2, draw (24)
    assert (t.side("p1")["health"], t.side("p2")["health"]) == (2, 1)
    assert t.deck == 24
    assert t.play("p1", "AD") == []  # Hellfire: 3 to every character at once
    assert (t.side("p1")["health"], t.side("p2")["health"]) == (-1, -2)
    assert t.state["over"] is True
    assert t.state["winner"] == "draw"
    # 10S (7/7), 8S (5/5) and 9S (4/4) survive with 3 markers each: 24 - 9 = 15; 6S dies
    assert t.minion("6S") is None
    assert [t.minion(m)["health"] for m in ("10S", "8S", "9S")] == [4, 2, 1]
    assert t.deck == 15
    assert t.ledger_total() == 53
