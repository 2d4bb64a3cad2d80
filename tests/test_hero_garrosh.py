"""Garrosh Hellscream (warrior), heroes.md §5.3: every card effect, worked out by hand.

Deck arithmetic: the draw deck holds 43 - N cards at the start of turn N. Armor, durability
and damage markers leave the top of the deck and come back to its bottom.
"""

from conftest import ok, start

from tracker.rules.events import Play
from tracker.rules.secrets import reveals_before

# --- hero power: Armor Up! ----------------------------------------------------------------

def test_armor_up_gains_2_armor_marked_with_2_cards():
    t = start("garrosh", "jaina", turn=3)
    deck = t.deck
    ok(t.power("p1"))
    assert t.side("p1")["armor"] == 2 and t.side("p1")["mana"] == 0
    assert t.deck == deck - 2
    assert t.ledger_total() == 53


def test_armor_never_goes_above_5():
    t = start("garrosh", "jaina", turn=11)
    deck = t.deck
    ok(t.power("p1"))  # 0 -> 2
    ok(t.play("p1", "KH"))  # Shield Block: 2 -> 5, only 3 of its 5 gained; draw 1
    assert t.side("p1")["armor"] == 5
    assert t.deck == deck - 2 - 3 - 1
    t.end_turn(2)
    deck = t.deck
    ok(t.power("p1"))  # already 5: nothing gained
    assert t.side("p1")["armor"] == 5 and t.deck == deck
    assert t.ledger_total() == 53


def test_armor_absorbs_damage_first_and_goes_back_to_the_bottom():
    t = start("garrosh", "jaina", turn=11)
    ok(t.power("p1"))  # 2 armor
    t.end_turn()  # turn 12, p2: 6 mana
    deck = t.deck
    ok(t.power("p2", target="p1"))  # Fireblast 1: armor 2 -> 1
    assert (t.side("p1")["armor"], t.side("p1")["health"]) == (1, 20)
    assert t.deck == deck + 1
    ok(t.play("p2", "AH", target="p1"))  # Fireball 5: 1 absorbed, 4 to health
    assert (t.side("p1")["armor"], t.side("p1")["health"]) == (0, 16)
    assert t.deck == deck + 2
    assert t.ledger_total() == 53


# --- ♠ Charge -----------------------------------------------------------------------------

def test_charge_minion_attacks_the_turn_it_is_played():
    t = start("garrosh", "jaina", turn=11)
    ok(t.play("p1", "8S"))  # 3/3 Charge
    ok(t.attack("8S", "p2"))
    assert t.side("p2")["health"] == 17
    ok(t.play("p1", "8H"))  # no Charge
    assert "attacker_exhausted" in t.check("attack", attacker="8H", target="p2")


# --- J Whirlwind --------------------------------------------------------------------------

def test_whirlwind_deals_1_to_all_minions_of_both_sides():
    t = start("garrosh", "jaina", turn=10)
    ok(t.play("p2", "6H"))  # 1/1
    ok(t.play("p2", "8H"))  # 3/3
    t.end_turn()
    ok(t.play("p1", "7H"))  # 2/2, friendly
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "JH"))
    assert t.minion("6H") is None
    assert t.minion("8H")["health"] == 2 and t.minion("7H")["health"] == 1
    assert t.side("p1")["health"] == 20 and t.side("p2")["health"] == 20  # minions only
    assert t.deck == deck - 2  # a marker on each survivor
    assert t.state["discard"] == discard + 2  # JH and 6H
    assert t.ledger_total() == 53


def test_whirlwind_is_boosted_by_spell_damage():
    t = start("garrosh", "jaina", turn=10)
    ok(t.play("p2", "6H"))
    ok(t.play("p2", "8H"))
    t.end_turn()
    ok(t.play("p1", "6D"))  # 1/1 Spell Damage +1
    ok(t.play("p1", "9H"))  # 4/4
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "JH"))  # 1 + 1 = 2 to every minion, 6D included
    assert t.minion("6H") is None and t.minion("6D") is None
    assert t.minion("8H")["health"] == 1 and t.minion("9H")["health"] == 2
    assert t.deck == deck - 4
    assert t.state["discard"] == discard + 3
    assert t.ledger_total() == 53


# --- Q Fiery War Axe ----------------------------------------------------------------------

def test_fiery_war_axe_is_a_3_2_weapon_that_loses_1_durability_an_attack():
    t = start("garrosh", "jaina", turn=11)
    deck = t.deck
    ok(t.play("p1", "QH"))
    assert t.side("p1")["weapon"]["attack"] == 3
    assert t.side("p1")["weapon"]["durability"] == 2
    assert t.side("p1")["attack"] == 3
    assert t.deck == deck - 2  # two durability cards
    ok(t.attack("p1", "p2"))
    assert t.side("p2")["health"] == 17
    assert t.side("p1")["weapon"]["durability"] == 1 and t.deck == deck - 1
    assert "already_attacked" in t.check("attack", attacker="p1", target="p2")
    t.end_turn(2)
    deck, discard = t.deck, t.state["discard"]
    ok(t.attack("p1", "p2"))
    assert t.side("p2")["health"] == 14
    assert t.side("p1")["weapon"] is None
    assert t.deck == deck + 1 and t.state["discard"] == discard + 1
    assert t.ledger_total() == 53


def test_hero_attacking_a_minion_takes_its_attack_armor_first():
    t = start("garrosh", "jaina", turn=10)
    ok(t.play("p2", "9H"))  # 4/4
    t.end_turn()
    deck = t.deck
    ok(t.power("p1"))  # 2 armor: -2
    ok(t.play("p1", "QH"))  # axe: -2
    ok(t.attack("p1", "9H"))
    assert t.minion("9H")["health"] == 1  # 3 damage markers: -3
    assert (t.side("p1")["armor"], t.side("p1")["health"]) == (0, 18)  # armor back: +2
    assert t.side("p1")["weapon"]["durability"] == 1  # one durability back: +1
    assert t.deck == deck - 2 - 2 - 3 + 2 + 1
    assert t.ledger_total() == 53


def test_a_weapon_is_not_a_spell_so_counterspell_waits():
    t = start("garrosh", "jaina", turn=10)
    ok(t.play("p2", "KD"))  # Counterspell
    t.end_turn()
    axe = Play(player="p1", card="QH")
    whirlwind = Play(player="p1", card="JH")
    assert reveals_before(t.game, axe) == []
    assert [r.card for r in reveals_before(t.game, whirlwind)] == ["KD"]


# --- K Shield Block -----------------------------------------------------------------------

def test_shield_block_gains_5_armor_and_draws_a_card():
    t = start("garrosh", "jaina", turn=5)  # 3 mana
    deck, hand, discard = t.deck, t.side("p1")["hand"], t.state["discard"]
    ok(t.play("p1", "KH"))
    assert t.side("p1")["armor"] == 5
    assert t.side("p1")["hand"] == hand - 1 + 1
    assert t.deck == deck - 5 - 1  # five armor cards and the draw
    assert t.state["discard"] == discard + 1
    assert t.ledger_total() == 53


# --- A Death's Bite -----------------------------------------------------------------------

def test_deaths_bite_deathrattle_deals_1_to_all_minions_when_it_breaks():
    t = start("garrosh", "jaina", turn=10)
    ok(t.play("p2", "8D"))  # 3/3
    ok(t.play("p2", "7D"))  # 2/2
    t.end_turn()  # turn 11
    deck = t.deck
    ok(t.play("p1", "AH"))  # Death's Bite 4/2
    ok(t.play("p1", "7H"))  # 2/2, friendly
    assert t.side("p1")["weapon"]["attack"] == 4
    assert t.deck == deck - 2
    ok(t.attack("p1", "p2"))
    assert t.side("p2")["health"] == 16
    assert t.side("p1")["weapon"]["durability"] == 1 and t.deck == deck - 1
    t.end_turn(2)  # turn 13
    ok(t.play("p1", "6D"))  # Spell Damage +1 does not boost the deathrattle
    deck, discard = t.deck, t.state["discard"]
    ok(t.attack("p1", "p2"))  # the last durability: the weapon breaks
    assert t.side("p2")["health"] == 12
    assert t.side("p1")["weapon"] is None
    assert t.minion("8D")["health"] == 2 and t.minion("7D")["health"] == 1
    assert t.minion("7H")["health"] == 1 and t.minion("6D") is None
    assert t.deck == deck + 1 - 3  # the durability card back, 3 damage markers out
    assert t.state["discard"] == discard + 2  # AH and 6D
    assert t.ledger_total() == 53


def test_replacing_deaths_bite_triggers_its_deathrattle():
    t = start("garrosh", "jaina", turn=10)
    ok(t.play("p2", "8D"))
    t.end_turn()
    ok(t.play("p1", "AH"))
    t.end_turn(2)
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "QH"))  # the axe replaces Death's Bite
    assert t.side("p1")["weapon"]["card"] == "QH"
    assert t.minion("8D")["health"] == 2
    assert t.deck == deck + 2 - 1 - 2  # old durability back, a damage marker, new durability
    assert t.state["discard"] == discard + 1
    assert t.ledger_total() == 53
