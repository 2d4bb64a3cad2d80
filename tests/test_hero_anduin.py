"""Anduin Wrynn (priest), every hero card effect, worked out by hand from heroes.md §4 and §5.5.

Deck arithmetic: `start(turn=N)` leaves 52 - 4 - 5 - N = 43 - N cards in the draw deck, and
each `end_turn` draws one more. Damage and buff markers leave the top of the deck and come
back to its bottom; a card that marks face up (Power Word: Shield) never touches the deck.
"""

from conftest import start


def test_lesser_heal_restores_two_health_to_a_hero_not_boosted_by_spell_damage():
    t = start("anduin", "garrosh", turn=9)  # deck 43 - 9 = 34
    assert t.play("p1", "7D") == []  # 2/2, Spell Damage +1
    t.end_turn()  # T10 draw: 33
    assert t.play("p2", "8S") == []  # Garrosh ♠: 3/3 Charge
    assert t.attack("8S", "p1") == []  # 20 - 3 = 17
    t.end_turn()  # T11 draw: 32
    assert t.power("p1", target="p1") == []
    assert t.side("p1")["health"] == 19  # 17 + 2: Lesser Heal has no *, so 7D adds nothing
    assert t.deck == 32  # hero health is not marked with cards
    assert t.ledger_total() == 53


def test_lesser_heal_never_raises_a_hero_above_twenty():
    t = start("anduin", "garrosh", turn=10)  # 33
    assert t.play("p2", "6S") == []  # Garrosh ♠: 1/1 Charge
    assert t.attack("6S", "p1") == []  # p1 19
    t.end_turn()  # T11: 32
    assert t.power("p1", target="p1") == []
    assert t.side("p1")["health"] == 20  # 19 + 2, capped at 20


def test_lesser_heal_needs_a_target():
    t = start("anduin", "garrosh", turn=3)
    assert "missing_target" in t.power("p1")


def test_lesser_heal_on_a_minion_returns_healed_damage_markers_to_the_deck():
    t = start("anduin", "garrosh", turn=9)  # 34
    assert t.play("p1", "9H") == []  # 4/4 Taunt
    t.end_turn()  # 33
    assert t.play("p2", "8S") == []
    assert t.attack("8S", "9H") == []  # 9H takes 3 (3 markers: 30); 8S takes 4 and dies
    assert t.minion("8S") is None
    assert t.deck == 30
    t.end_turn()  # 29
    assert t.power("p1", target="9H") == []  # 2 of the 3 damage markers back: 29 + 2 = 31
    assert t.minion("9H")["health"] == 3
    assert t.minion("9H")["damage"] == 1
    assert t.deck == 31
    assert t.ledger_total() == 53


def test_focused_will_takes_one_less_per_damage_instance_only_while_undamaged():
    t = start("anduin", "garrosh", turn=9)  # 34
    assert t.play("p1", "9S") == []  # 4/4 Focused Will
    t.end_turn()  # T10: 33, Garrosh has 5 mana
    assert t.play("p2", "JH") == []  # Whirlwind: 1 - 1 = 0 to the undamaged 9S
    assert t.minion("9S")["health"] == 4
    assert t.deck == 33  # no damage, no marker
    assert t.play("p2", "8S") == []
    assert t.attack("8S", "9S") == []  # 3 - 1 = 2 to 9S (2 markers: 31); 8S takes 4, dies
    assert t.minion("9S")["health"] == 2
    assert t.deck == 31
    assert t.play("p2", "6H") == []  # 1/1 Taunt, played after the Whirlwind
    t.end_turn()  # T11: 30
    assert t.attack("9S", "6H") == []  # 9S is damaged now: the full 1 (1 marker: 29)
    assert t.minion("9S")["health"] == 1
    assert t.minion("6H") is None
    assert t.deck == 29
    assert t.ledger_total() == 53


def test_focused_will_comes_back_when_healed_to_full():
    t = start("anduin", "garrosh", turn=9)  # 34
    assert t.play("p1", "9S") == []  # 4/4 Focused Will
    t.end_turn()  # 33
    assert t.play("p2", "8S") == []
    assert t.attack("8S", "9S") == []  # 3 - 1 = 2 (31); 8S dies
    assert t.play("p2", "7H") == []  # 2/2 Taunt
    t.end_turn()  # T11: 30
    assert t.power("p1", target="9S") == []  # healed to full: both markers back, 32
    assert t.minion("9S")["health"] == 4
    assert t.deck == 32
    assert t.attack("9S", "7H") == []  # undamaged again: 2 - 1 = 1 (1 marker: 31); 7H dies
    assert t.minion("9S")["health"] == 3
    assert t.minion("7H") is None
    assert t.deck == 31
    assert t.ledger_total() == 53


def test_focused_will_stays_off_after_a_partial_heal():
    t = start("anduin", "garrosh", turn=11)  # 32
    assert t.play("p1", "9S") == []
    t.end_turn()  # T12: 31, Garrosh has 6 mana
    assert t.play("p2", "8S") == []
    assert t.attack("8S", "9S") == []  # 3 - 1 = 2 (29); 8S dies
    assert t.play("p2", "JH") == []  # 9S is damaged: the full 1 (28)
    assert t.minion("9S")["health"] == 1
    assert t.play("p2", "7H") == []  # 2/2 Taunt, after the Whirlwind
    assert t.deck == 28
    t.end_turn()  # T13: 27
    assert t.power("p1", target="9S") == []  # 3 damage - 2 healed = 1 left (29)
    assert t.minion("9S")["health"] == 3
    assert t.attack("9S", "7H") == []  # still damaged: the full 2 (27)
    assert t.minion("9S")["health"] == 1
    assert t.deck == 27
    assert t.ledger_total() == 53


def test_power_word_shield_gives_two_health_marked_by_its_own_card_and_draws():
    t = start("anduin", "garrosh", turn=9)  # 34
    assert t.play("p1", "7H") == []  # 2/2 Taunt
    t.end_turn(2)  # T11: 32
    hand, discard = t.side("p1")["hand"], t.state["discard"]
    assert t.play("p1", "JS", target="7H") == []
    assert (t.minion("7H")["attack"], t.minion("7H")["health"]) == (2, 4)
    assert t.minion("7H")["max_health"] == 4
    assert t.deck == 31  # the draw only: JS itself lies face up under 7H
    assert t.side("p1")["hand"] == hand  # JS out, one card drawn
    assert t.state["discard"] == discard  # JS is under the minion, not discarded
    assert t.ledger_total() == 53


def test_power_word_shield_card_goes_to_the_discard_pile_when_the_minion_dies():
    t = start("anduin", "garrosh", turn=9)  # 34
    assert t.play("p1", "7H") == []
    t.end_turn(2)  # T11: 32
    assert t.play("p1", "JS", target="7H") == []  # 2/4; draw: 31
    t.end_turn()  # T12: 30, Garrosh has 6 mana
    assert t.play("p2", "JH") == []  # Whirlwind: 7H takes 1 (29)
    assert t.minion("7H")["health"] == 3
    discard = t.state["discard"]
    assert t.play("p2", "10S") == []  # 5/5 Charge
    assert t.attack("10S", "7H") == []  # 7H dies: its damage marker back (30);
    #                                     10S takes 2 (2 markers: 28)
    assert t.minion("7H") is None
    assert t.minion("10S")["health"] == 3
    assert t.deck == 28  # the face-up JS never came from the deck and does not go back to it
    assert t.state["discard"] == discard + 2  # 7H and the JS that marked it
    assert t.ledger_total() == 53


def _gul_dan_board():
    """Gul'dan (p2) plays a Fel Pact 7S (2/2 +2/+2 = 4/4) and an 8H (3/3 Taunt); Anduin's
    turn 11 follows. Deck: 33 at T10, 7S's two buff markers: 31, T11 draw: 30."""
    t = start("anduin", "guldan", turn=10)
    assert t.play("p2", "7S") == []
    assert t.play("p2", "8H") == []
    t.end_turn()
    assert t.minion("7S")["attack"] == 4
    assert t.deck == 30
    return t


def test_shadow_word_pain_destroys_a_minion_with_three_or_less_attack():
    t = _gul_dan_board()
    discard = t.state["discard"]
    assert t.play("p1", "QD", target="8H") == []  # 8H has 3 Attack
    assert t.minion("8H") is None
    assert t.deck == 30  # 8H carried no markers
    assert t.state["discard"] == discard + 2  # QD and 8H
    assert t.ledger_total() == 53


def test_shadow_word_pain_on_a_minion_buffed_to_four_attack_is_an_invalid_target():
    t = _gul_dan_board()
    assert "invalid_target" in t.play("p1", "QD", target="7S")  # base 2, current 4


def test_shadow_word_death_destroys_a_minion_with_four_or_more_attack_buffs_included():
    t = _gul_dan_board()
    discard = t.state["discard"]
    assert t.play("p1", "KD", target="7S") == []  # base 2 Attack, 4 with Fel Pact's +2/+2
    assert t.minion("7S") is None
    assert t.deck == 32  # 30 + 7S's two buff markers back to the bottom
    assert t.state["discard"] == discard + 2  # KD and 7S
    assert t.ledger_total() == 53


def test_shadow_word_death_on_a_three_attack_minion_is_an_invalid_target():
    t = _gul_dan_board()
    assert "invalid_target" in t.play("p1", "KD", target="8H")


def test_holy_nova_damage_and_heal_are_both_boosted_by_spell_damage():
    t = start("anduin", "garrosh", turn=11)  # 32
    assert t.play("p1", "7D") == []  # 2/2, Spell Damage +1
    t.end_turn()  # T12: 31, Garrosh has 6 mana
    assert t.play("p2", "8S") == []
    assert t.attack("8S", "p1") == []  # p1: 17
    assert t.play("p2", "JH") == []  # 7D takes 1 (30), 8S takes 1 (29)
    assert t.power("p2") == []  # Armor Up: 2 armor (27)
    assert t.deck == 27
    t.end_turn()  # T13: 26
    assert t.play("p1", "AH") == []  # Holy Nova: 2 + 1 = 3 damage, 3 heal
    p2 = t.side("p2")
    assert (p2["armor"], p2["health"]) == (0, 19)  # 2 armor absorb (2 cards back: 28), 1 lost
    assert t.minion("8S") is None  # 1 + 3 damage on a 3/3: dies, its marker back (29)
    assert t.side("p1")["health"] == 20  # 17 + 3 (2 unboosted would give 19)
    assert t.minion("7D")["health"] == 2  # healed: its marker back (30)
    assert t.deck == 30
    assert t.ledger_total() == 53
