"""Valeera Sanguinar (rogue), every hero card effect, worked out by hand from heroes.md §4 and
§5.6.

Deck arithmetic: `start(turn=N)` leaves 43 - N cards in the draw deck, and each `end_turn`
draws one more. Durability and damage markers leave the top of the deck and come back to its
bottom; Cold Blood marks with its own card face up, which never touches the deck.
"""

from conftest import start

from tracker.rules.events import parse_event


def test_dagger_mastery_equips_a_one_two_dagger_that_has_no_card():
    t = start("valeera", "garrosh", turn=3)  # deck 43 - 3 = 40, 2 mana
    hand, discard = t.side("p1")["hand"], t.state["discard"]
    assert t.power("p1") == []
    weapon = t.side("p1")["weapon"]
    assert (weapon["card"], weapon["attack"], weapon["durability"]) == (None, 1, 2)
    assert t.deck == 38  # two durability cards
    assert t.side("p1")["hand"] == hand
    assert t.state["discard"] == discard
    assert t.attack("p1", "p2") == []  # 1 damage; one durability card back: 39
    assert t.side("p2")["health"] == 19
    assert t.side("p1")["weapon"]["durability"] == 1
    assert t.deck == 39
    assert t.ledger_total() == 53


def test_dagger_mastery_replaces_the_equipped_weapon():
    t = start("valeera", "garrosh", turn=3)  # 40
    assert t.power("p1") == []  # 38
    assert t.attack("p1", "p2") == []  # durability 1: 39
    t.end_turn(2)  # T5: 37
    discard = t.state["discard"]
    assert t.power("p1") == []  # old dagger's last card back (38), two new ones (36)
    assert t.side("p1")["weapon"]["durability"] == 2  # replaced, not 1 + 2
    assert t.deck == 36
    assert t.state["discard"] == discard  # a dagger has no card to discard
    assert t.ledger_total() == 53


def test_spade_combo_deals_one_damage_after_the_coin():
    t = start("garrosh", "valeera", turn=2)  # 41; Valeera is p2: 1 crystal and The Coin
    assert t.play("p2", "JK") == []  # The Coin is a card played: Combo is active
    assert t.play("p2", "7S", target="p1") == []  # 1 + 1 mana for the 7S
    assert t.side("p1")["health"] == 19
    assert t.deck == 41  # hero damage is not marked
    assert t.ledger_total() == 53


def test_spade_combo_damage_is_one_not_boosted_by_spell_damage():
    t = start("valeera", "garrosh", turn=4)  # 39
    assert t.play("p2", "7H") == []  # 2/2 Taunt
    t.end_turn()  # T5: 38, 3 mana
    assert t.play("p1", "6D") == []  # Spell Damage +1, and a card played this turn
    assert t.play("p1", "7S", target="7H") == []  # 1 damage, no * (1 marker: 37)
    assert t.minion("7H")["health"] == 1
    assert t.deck == 37
    assert t.ledger_total() == 53


def test_spade_combo_is_not_active_after_only_the_hero_power():
    t = start("valeera", "garrosh", turn=5)  # 38, 3 mana
    assert t.power("p1") == []  # Dagger Mastery: 36; not a card played
    assert "no_combo" in t.play("p1", "6S", target="p2")
    assert t.side("p2")["health"] == 20  # no Combo, no damage
    assert t.deck == 36


def test_spade_minion_as_the_first_card_needs_no_target():
    t = start("valeera", "garrosh", turn=3)  # 40
    assert t.play("p1", "6S") == []
    assert t.side("p2")["health"] == 20
    assert t.minion("6S")["attack"] == 1
    assert t.deck == 40


def test_cold_blood_gives_plus_two_attack_marked_by_its_own_card():
    t = start("valeera", "garrosh", turn=1)  # 42
    assert t.play("p1", "6H") == []  # 1/1 Taunt
    t.end_turn(2)  # T3: 40
    discard = t.state["discard"]
    assert t.play("p1", "JD", target="6H") == []  # first card this turn: +2
    assert (t.minion("6H")["attack"], t.minion("6H")["health"]) == (3, 1)
    assert t.deck == 40  # the JD under 6H is the marker
    assert t.state["discard"] == discard
    t.end_turn()  # T4: 39
    assert t.minion("6H")["attack"] == 3  # permanent, not "this turn"
    assert t.ledger_total() == 53


def test_cold_blood_with_combo_gives_plus_four_attack():
    t = start("valeera", "garrosh", turn=1)  # 42
    assert t.play("p1", "6H") == []
    t.end_turn(2)  # T3: 40
    assert t.play("p1", "6C") == []  # a card played earlier this turn
    assert t.play("p1", "JD", target="6H") == []  # Combo: +4
    assert t.minion("6H")["attack"] == 5
    assert t.deck == 40
    t.end_turn()  # T4: 39
    assert t.minion("6H")["attack"] == 5  # the tracker remembers +4, not +2
    assert t.ledger_total() == 53


def test_cold_blood_card_goes_to_the_discard_pile_when_the_minion_dies():
    t = start("valeera", "garrosh", turn=1)  # 42
    assert t.play("p1", "6H") == []
    t.end_turn(2)  # T3: 40
    assert t.play("p1", "JD", target="6H") == []
    t.end_turn()  # T4: 39
    discard = t.state["discard"]
    assert t.play("p2", "JH") == []  # Whirlwind: the 3/1 6H dies
    assert t.minion("6H") is None
    assert t.state["discard"] == discard + 3  # JH, 6H and the JD under it
    assert t.deck == 39  # nothing of 6H came from the deck
    assert t.ledger_total() == 53


def test_eviscerate_deals_two_damage():
    t = start("valeera", "garrosh", turn=3)  # 40
    assert t.play("p1", "QD", target="p2") == []
    assert t.side("p2")["health"] == 18
    assert t.deck == 40


def test_eviscerate_with_combo_deals_four_plus_spell_damage():
    t = start("valeera", "garrosh", turn=5)  # 38, 3 mana
    assert t.play("p1", "6D") == []  # Spell Damage +1, and Combo for what follows
    assert t.play("p1", "QD", target="p2") == []  # 4 + 1
    assert t.side("p2")["health"] == 15


def test_eviscerate_on_a_minion_marks_its_damage():
    t = start("valeera", "garrosh", turn=10)  # 33
    assert t.play("p2", "10H") == []  # 5/5 Taunt
    t.end_turn()  # T11: 32
    assert t.play("p1", "QD", target="10H") == []  # no Combo: 2 (2 markers: 30)
    assert t.minion("10H")["health"] == 3
    assert t.deck == 30
    assert t.ledger_total() == 53


def test_fan_of_knives_hits_every_enemy_minion_and_draws():
    t = start("valeera", "garrosh", turn=10)  # 33
    assert t.play("p2", "7H") == []  # 2/2 Taunt
    assert t.play("p2", "6D") == []  # 1/1
    t.end_turn()  # T11: 32
    assert t.play("p1", "6H") == []  # a friendly minion: not hit
    hand = t.side("p1")["hand"]
    assert t.play("p1", "KS") == []
    assert t.minion("7H")["health"] == 1  # 1 marker: 31
    assert t.minion("6D") is None  # dies, no marker
    assert t.minion("6H")["health"] == 1
    assert t.side("p2")["health"] == 20  # minions only
    assert t.deck == 30  # the draw: 31 - 1
    assert t.side("p1")["hand"] == hand  # KS out, one card drawn
    assert t.ledger_total() == 53


def test_fan_of_knives_is_boosted_by_spell_damage():
    t = start("valeera", "garrosh", turn=10)  # 33
    assert t.play("p2", "10H") == []  # 5/5 Taunt
    t.end_turn()  # T11: 32
    assert t.play("p1", "6D") == []  # Spell Damage +1
    assert t.play("p1", "KS") == []  # 1 + 1 (2 markers: 30), draw (29)
    assert t.minion("10H")["health"] == 3
    assert t.deck == 29
    assert t.ledger_total() == 53


def test_assassinate_destroys_an_enemy_minion_and_its_markers_go_back_to_the_deck():
    t = start("valeera", "garrosh", turn=10)  # 33, Garrosh has 5 mana
    assert t.play("p2", "9H") == []  # 4/4 Taunt
    assert t.play("p2", "JH") == []  # Whirlwind: 9H takes 1 (32)
    t.end_turn()  # T11: 31
    discard = t.state["discard"]
    assert t.play("p1", "AS", target="9H") == []
    assert t.minion("9H") is None
    assert t.deck == 32  # its damage marker back
    assert t.state["discard"] == discard + 2  # AS and 9H
    assert t.ledger_total() == 53


def test_assassinate_on_a_friendly_minion_or_a_hero_is_an_invalid_target():
    t = start("valeera", "garrosh", turn=11)  # 6 mana
    assert t.play("p1", "6H") == []
    assert "invalid_target" in would_play(t, "p1", "AS", target="6H")
    assert "invalid_target" in would_play(t, "p1", "AS", target="p2")
    assert t.minion("6H") is not None  # only checked, nothing applied


def would_play(t, player, card, **fields):
    """The alert codes the play would raise, without applying it."""
    event = parse_event({"type": "play", "player": player, "card": card, **fields})
    return [alert.code for alert in t.game.check(event)]
