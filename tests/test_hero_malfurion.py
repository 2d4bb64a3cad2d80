"""Malfurion Stormrage (druid), every hero card effect, worked out by hand from heroes.md §4 and
§5.8.

Deck arithmetic: `start(turn=N)` leaves 43 - N cards in the draw deck, and each `end_turn`
draws one more. Armor, buff and damage markers leave the top of the deck and come back to its
bottom; "this turn" Attack is not marked.
"""

from conftest import start


def test_shapeshift_gives_one_attack_this_turn_and_one_armor():
    t = start("malfurion", "garrosh", turn=3)  # 43 - 3 = 40
    assert t.power("p1") == []
    p1 = t.side("p1")
    assert (p1["attack"], p1["armor"], p1["weapon"]) == (1, 1, None)
    assert t.deck == 39  # one armor card
    assert t.attack("p1", "p2") == []  # no weapon: no durability to lose
    assert t.side("p2")["health"] == 19
    assert t.deck == 39
    t.end_turn()  # T4: 38
    assert (t.side("p1")["attack"], t.side("p1")["armor"]) == (0, 1)
    assert t.ledger_total() == 53


def test_shapeshift_hero_attacking_a_minion_takes_its_attack_armor_first():
    t = start("malfurion", "garrosh", turn=2)  # 41; Garrosh has 1 crystal and The Coin
    assert t.play("p2", "JK") == []
    assert t.play("p2", "7H") == []  # 2/2 Taunt
    t.end_turn()  # T3: 40
    assert t.power("p1") == []  # 1 armor (39)
    assert t.attack("p1", "7H") == []  # 7H takes 1 (38); the hero takes 2: 1 armor (card back:
    #                                    39), then 1 health
    assert t.minion("7H")["health"] == 1
    assert (t.side("p1")["armor"], t.side("p1")["health"]) == (0, 19)
    assert t.deck == 39
    assert t.ledger_total() == 53


def test_spade_choose_one_bear_form_gives_a_plus_one_plus_one_marker():
    t = start("malfurion", "garrosh", turn=3)  # 40
    assert t.play("p1", "7S", choice=1) == []
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (3, 3)
    assert t.side("p1")["armor"] == 0
    assert t.deck == 39  # one upright marker
    assert t.ledger_total() == 53


def test_spade_choose_one_barkskin_gives_two_armor():
    t = start("malfurion", "garrosh", turn=3)  # 40
    assert t.play("p1", "7S", choice=2) == []
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (2, 2)
    assert t.side("p1")["armor"] == 2
    assert t.deck == 38  # two armor cards
    assert t.ledger_total() == 53


def test_spade_choose_one_without_a_choice_is_flagged():
    t = start("malfurion", "garrosh", turn=3)
    assert "missing_choice" in t.play("p1", "7S")


def test_armor_stops_at_five():
    t = start("malfurion", "garrosh", turn=11)  # 32, 6 mana
    assert t.play("p1", "JC") == []  # Claw: 2 armor (30)
    assert t.play("p1", "7S", choice=2) == []  # 4 armor (28)
    assert t.power("p1") == []  # 5 armor, not 6: one card (27)
    assert t.side("p1")["armor"] == 5
    assert t.deck == 27
    assert t.ledger_total() == 53


def test_claw_gives_two_attack_this_turn_and_two_armor():
    t = start("malfurion", "garrosh", turn=1)  # 42, 1 mana
    discard = t.state["discard"]
    assert t.play("p1", "JC") == []
    assert (t.side("p1")["attack"], t.side("p1")["armor"]) == (2, 2)
    assert t.deck == 40  # two armor cards
    assert t.state["discard"] == discard + 1  # the spell itself
    assert t.attack("p1", "p2") == []
    assert t.side("p2")["health"] == 18
    t.end_turn()  # T2: 39
    assert (t.side("p1")["attack"], t.side("p1")["armor"]) == (0, 2)
    assert t.ledger_total() == 53


def _enemy_ten():
    """Garrosh (p2) plays 10H (5/5 Taunt) on turn 10 (33); Malfurion's turn 11 (32)."""
    t = start("malfurion", "garrosh", turn=10)
    assert t.play("p2", "10H") == []
    t.end_turn()
    return t


def test_wrath_choice_one_deals_three_to_a_minion():
    t = _enemy_ten()
    hand = t.side("p1")["hand"]
    assert t.play("p1", "QC", target="10H", choice=1) == []  # 3 markers: 29
    assert t.minion("10H")["health"] == 2
    assert t.side("p1")["hand"] == hand - 1  # no draw
    assert t.deck == 29
    assert t.ledger_total() == 53


def test_wrath_choice_two_deals_one_boosted_and_draws_a_card():
    t = _enemy_ten()
    assert t.play("p1", "6D") == []  # Spell Damage +1
    hand = t.side("p1")["hand"]
    assert t.play("p1", "QC", target="10H", choice=2) == []  # 1 + 1: 2 markers (30), draw (29)
    assert t.minion("10H")["health"] == 3
    assert t.side("p1")["hand"] == hand  # QC out, one drawn
    assert t.deck == 29
    assert t.ledger_total() == 53


def test_wrath_without_a_choice_is_flagged():
    t = _enemy_ten()
    assert "missing_choice" in t.play("p1", "QC", target="10H")


def test_savage_roar_gives_minions_and_hero_two_attack_this_turn():
    t = start("malfurion", "garrosh", turn=9)  # 34
    assert t.play("p1", "9H") == []  # 4/4
    t.end_turn(2)  # T11: 32
    assert t.play("p1", "KC") == []
    assert (t.minion("9H")["attack"], t.side("p1")["attack"]) == (6, 2)
    assert t.attack("9H", "p2") == []
    assert t.attack("p1", "p2") == []  # the hero attacks with no weapon
    assert t.side("p2")["health"] == 12  # 20 - 6 - 2
    assert t.deck == 32  # unmarked
    t.end_turn()  # T12: 31
    assert (t.minion("9H")["attack"], t.side("p1")["attack"]) == (4, 0)
    assert t.ledger_total() == 53


def test_swipe_deals_four_to_one_minion_and_one_to_all_other_enemy_characters():
    t = start("malfurion", "garrosh", turn=10)  # 33, 5 mana
    assert t.play("p2", "7H") == []  # 2/2 Taunt
    assert t.play("p2", "8D") == []  # 3/3
    t.end_turn()  # T11: 32
    assert t.play("p1", "6H") == []  # friendly: not hit
    discard = t.state["discard"]
    assert t.play("p1", "AC", target="8D") == []
    assert t.minion("8D") is None  # 4 kills the 3/3
    assert t.minion("7H")["health"] == 1  # 1 (1 marker: 31)
    assert t.side("p2")["health"] == 19
    assert t.minion("6H")["health"] == 1
    assert t.side("p1")["health"] == 20
    assert t.deck == 31
    assert t.state["discard"] == discard + 2  # 8D and AC
    assert t.ledger_total() == 53


def test_swipe_on_the_enemy_hero_goes_through_armor_and_is_boosted():
    t = start("malfurion", "garrosh", turn=10)  # 33
    assert t.power("p2") == []  # Armor Up: 2 armor (31)
    assert t.play("p2", "8H") == []  # 3/3 Taunt
    t.end_turn()  # T11: 30
    assert t.play("p1", "6D") == []  # Spell Damage +1
    assert t.play("p1", "AC", target="p2") == []  # 4 + 1 to p2, 1 + 1 to 8H
    p2 = t.side("p2")
    assert (p2["armor"], p2["health"]) == (0, 17)  # 2 armor (cards back: 32), 3 health
    assert t.minion("8H")["health"] == 1  # 2 markers: 30
    assert t.deck == 30
    assert t.ledger_total() == 53


def test_swipe_on_a_friendly_character_is_an_invalid_target():
    t = start("malfurion", "garrosh", turn=9)
    assert t.play("p1", "6H") == []
    assert "invalid_target" in t.play("p1", "AC", target="6H")
