"""Jaina Proudmoore (mage), heroes.md §5.1: every card effect, worked out by hand.

Deck arithmetic: a new game deals 4 + 5 cards, so the draw deck holds 43 - N cards at the
start of turn N. Markers (damage, buff, armor, durability, token stacks) leave the top of
the deck and come back to its bottom; a revealed secret is shuffled back in (+1).
"""

from conftest import ok, start

# --- hero power: Fireblast ----------------------------------------------------------------

def test_fireblast_deals_1_to_a_hero_once_per_turn_for_2_mana():
    t = start("jaina", "garrosh", turn=3)  # p1: 2 crystals
    deck = t.deck
    ok(t.power("p1", target="p2"))
    p1 = t.side("p1")
    assert t.side("p2")["health"] == 19
    assert p1["mana"] == 0 and p1["hero_power_used"]
    assert t.deck == deck  # hero damage is kept on the tracker, not with cards
    assert "hero_power_used" in t.check("hero_power", player="p1", target="p2")
    assert t.ledger_total() == 53


def test_fireblast_marks_1_damage_on_a_surviving_minion():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "8H"))  # 3/3 Taunt
    t.end_turn()
    deck = t.deck
    ok(t.power("p1", target="8H"))
    assert t.minion("8H")["health"] == 2
    assert t.deck == deck - 1  # one damage marker
    assert t.ledger_total() == 53


def test_fireblast_is_not_boosted_by_spell_damage():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "8H"))
    t.end_turn()
    ok(t.play("p1", "6D"))  # Spell Damage +1
    assert t.side("p1")["spell_damage"] == 1
    deck = t.deck
    ok(t.power("p1", target="8H"))
    assert t.minion("8H")["health"] == 2  # 1, not 2: Fireblast has no *
    assert t.deck == deck - 1
    assert t.ledger_total() == 53


# --- ♠ Arcane Growth ----------------------------------------------------------------------

def test_arcane_growth_gains_a_marked_1_1_per_spell_but_not_for_the_hero_power():
    t = start("jaina", "garrosh", turn=11)  # 6 mana
    ok(t.play("p1", "7S"))  # 2/2
    deck = t.deck
    ok(t.play("p1", "QH", target="p2"))  # Frostbolt: a spell cast
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (3, 3)
    assert t.minion("7S")["max_health"] == 3
    assert t.deck == deck - 1  # one upright buff marker; hero damage takes none
    ok(t.power("p1", target="p2"))  # Fireblast is not a spell
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (3, 3)
    assert t.deck == deck - 1
    assert t.side("p2")["health"] == 20 - 3 - 1
    assert t.ledger_total() == 53


def test_arcane_growth_counts_the_coin_and_secrets_and_only_spade_minions_grow():
    t = start("garrosh", "jaina", turn=8)  # p2 acts: 4 crystals and still the Coin
    ok(t.play("p2", "6S"))  # 1/1 Arcane Growth
    ok(t.play("p2", "6H"))  # 1/1 Taunt: no ♠ ability
    deck = t.deck
    ok(t.play("p2", "JK"))  # The Coin: a spell, +1 mana
    ok(t.play("p2", "KH"))  # a secret: a spell cast too
    assert (t.minion("6S")["attack"], t.minion("6S")["health"]) == (3, 3)
    assert (t.minion("6H")["attack"], t.minion("6H")["health"]) == (1, 1)
    assert t.side("p2")["mana"] == 4 - 1 - 1 + 1 - 3
    assert t.side("p2")["secrets"] == 1
    assert t.deck == deck - 2  # two buff markers
    assert t.ledger_total() == 53


# --- J Arcane Missiles --------------------------------------------------------------------

def test_arcane_missiles_splits_3_damage_among_enemy_characters():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "8H"))  # 3/3
    t.end_turn()
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "JH", target=["8H", "8H", "p2"]))
    assert t.minion("8H")["health"] == 1
    assert t.side("p2")["health"] == 19
    assert t.deck == deck - 2  # two damage markers on 8H
    assert t.state["discard"] == discard + 1  # the spell
    assert t.ledger_total() == 53


def test_arcane_missiles_gets_one_more_point_per_spell_damage():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "8H"))
    t.end_turn()
    ok(t.play("p1", "6D"))
    assert "invalid_target" in t.check("play", player="p1", card="JH",
                                     target=["8H", "8H", "p2"])  # 3 + 1 = 4 points to name
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "JH", target=["8H", "8H", "8H", "p2"]))
    assert t.minion("8H") is None  # 3 points kill the 3/3
    assert t.side("p2")["health"] == 19
    assert t.deck == deck  # a dead minion keeps no markers
    assert t.state["discard"] == discard + 2  # JH and 8H
    assert t.ledger_total() == 53


def test_arcane_missiles_hits_only_enemy_characters():
    t = start("jaina", "garrosh", turn=11)
    ok(t.play("p1", "7H"))
    assert "invalid_target" in t.check("play", player="p1", card="JH",
                                     target=["p2", "p2", "p1"])
    assert "invalid_target" in t.check("play", player="p1", card="JH",
                                     target=["p2", "p2", "7H"])


# --- Q Frostbolt --------------------------------------------------------------------------

def test_frostbolt_deals_3_and_freezes_through_next_turn():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "10H"))  # 5/5
    t.end_turn()  # turn 11
    deck = t.deck
    ok(t.play("p1", "QH", target="10H"))
    assert t.minion("10H")["health"] == 2
    assert t.minion("10H")["frozen"]
    assert t.deck == deck - 3  # three damage markers
    t.end_turn()  # turn 12: p2's next turn, 10H still frozen
    assert t.minion("10H")["frozen"]
    assert "attacker_frozen" in t.check("attack", attacker="10H", target="p1")
    t.end_turn()  # turn 13: the freeze is over
    assert not t.minion("10H")["frozen"]
    t.end_turn()  # turn 14
    ok(t.attack("10H", "p1"))
    assert t.side("p1")["health"] == 15
    assert t.ledger_total() == 53


def test_frostbolt_freezes_a_hero_so_its_weapon_cannot_attack():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "QH"))  # Fiery War Axe 3/2
    t.end_turn()
    deck = t.deck
    ok(t.play("p1", "QD", target="p2"))
    assert t.side("p2")["health"] == 17 and t.side("p2")["frozen"]
    assert t.deck == deck
    t.end_turn()
    assert "attacker_frozen" in t.check("attack", attacker="p2", target="p1")
    assert t.ledger_total() == 53


def test_frostbolt_is_boosted_by_spell_damage():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "9H"))  # 4/4
    t.end_turn()
    ok(t.play("p1", "6D"))
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "QH", target="9H"))  # 3 + 1 = 4: dead
    assert t.minion("9H") is None
    assert t.deck == deck
    assert t.state["discard"] == discard + 2  # QH and 9H
    assert t.ledger_total() == 53


# --- A Fireball ---------------------------------------------------------------------------

def test_fireball_deals_5_to_a_character():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "10H"))  # 5/5
    t.end_turn()
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "AH", target="10H"))
    assert t.minion("10H") is None
    assert t.deck == deck
    assert t.state["discard"] == discard + 2
    t.end_turn(2)
    ok(t.play("p1", "AD", target="p2"))
    assert t.side("p2")["health"] == 15
    assert t.ledger_total() == 53


def test_fireball_gets_plus_1_per_spell_damage_minion():
    t = start("jaina", "garrosh", turn=11)
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "AH", target="p2"))  # 5 + 1
    assert t.side("p2")["health"] == 14
    assert t.side("p1")["mana"] == 1


# --- K secrets ----------------------------------------------------------------------------

def test_secret_is_set_face_down_and_cannot_go_off_on_its_owners_turn():
    t = start("jaina", "garrosh", turn=5)  # 3 mana
    hand = t.side("p1")["hand"]
    ok(t.play("p1", "KH"))
    assert t.side("p1")["secrets"] == 1 and t.side("p1")["hand"] == hand - 1
    assert t.side("p1")["mana"] == 0
    assert "secret_on_own_turn" in t.check("secret_revealed", player="p1", card="KH")
    assert "not_a_secret" in t.check("secret_revealed", player="p1", card="QH")


def test_ice_barrier_gives_5_armor_before_the_attack_lands():
    t = start("jaina", "garrosh", turn=11)
    ok(t.play("p1", "KH"))  # Ice Barrier
    t.end_turn()
    ok(t.play("p2", "8S"))  # 3/3 Charge
    deck = t.deck
    ok(t.reveal("p1", "KH"))  # before the attack
    assert t.side("p1")["armor"] == 5 and t.side("p1")["secrets"] == 0
    assert t.deck == deck - 5 + 1  # five armor cards out, the secret shuffled in
    ok(t.attack("8S", "p1"))
    assert t.side("p1")["armor"] == 2 and t.side("p1")["health"] == 20
    assert t.deck == deck - 5 + 1 + 3  # three armor cards back to the bottom
    assert t.ledger_total() == 53


def test_counterspell_cancels_a_spell_its_mana_stays_spent_and_arcane_growth_waits():
    t = start("jaina", "jaina", turn=11)
    ok(t.play("p1", "KD"))  # Counterspell
    t.end_turn()  # turn 12, p2: 6 mana
    ok(t.play("p2", "7S"))  # 2/2 Arcane Growth
    deck, discard = t.deck, t.state["discard"]
    ok(t.reveal("p1", "KD"))  # when p2 casts the spell
    ok(t.play("p2", "QH", target="p1"))  # countered
    assert t.side("p1")["health"] == 20 and not t.side("p1")["frozen"]
    assert t.side("p2")["mana"] == 6 - 2 - 2
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (2, 2)
    assert t.state["discard"] == discard + 1  # the countered card
    assert t.deck == deck + 1  # the secret; no buff marker
    ok(t.play("p2", "JH", target=["p1", "p1", "p1"]))  # the next spell works
    assert t.side("p1")["health"] == 17
    assert (t.minion("7S")["attack"], t.minion("7S")["health"]) == (3, 3)
    assert t.deck == deck + 1 - 1
    assert t.ledger_total() == 53


def test_counterspell_on_the_coin_gives_no_mana():
    t = start("jaina", "garrosh", turn=5)
    ok(t.play("p1", "KD"))
    t.end_turn()  # turn 6, p2: 3 crystals and the Coin
    ok(t.reveal("p1", "KD"))
    ok(t.play("p2", "JK"))
    assert t.side("p2")["mana"] == 3
    assert "not_enough_mana" in t.check("play", player="p2", card="9H")  # 4 mana
    assert t.ledger_total() == 53


def test_countered_spell_still_counts_as_a_card_played_for_combo():
    t = start("jaina", "valeera", turn=5)
    ok(t.play("p1", "KD"))
    t.end_turn()
    ok(t.reveal("p1", "KD"))
    ok(t.play("p2", "JK"))  # countered, but played
    ok(t.play("p2", "6S", target="p1"))  # rogue ♠ Combo: 1 damage
    assert t.side("p1")["health"] == 19


def test_mirror_entity_summons_a_face_down_copy_without_the_suit_ability():
    t = start("jaina", "garrosh", turn=11)
    ok(t.play("p1", "KC"))  # Mirror Entity
    t.end_turn()
    ok(t.play("p2", "9H"))  # 4/4 Taunt
    deck = t.deck
    ok(t.reveal("p1", "KC", target="9H"))  # after the minion is played
    [copy] = t.side("p1")["minions"]
    assert copy["card"] is None
    assert (copy["attack"], copy["health"], copy["taunt"]) == (4, 4, False)
    assert t.deck == deck - 4 + 1  # a stack of four cards; the secret shuffled in
    assert t.ledger_total() == 53


def test_mirror_entity_copies_base_stats_only():
    t = start("jaina", "uther", turn=11)
    ok(t.play("p1", "KC"))
    t.end_turn()  # turn 12, p2: 6 mana
    ok(t.play("p2", "KS"))  # Sword of Justice 1/5
    ok(t.play("p2", "7D"))  # 2/2 Spell Damage +1, buffed to 3/3 by the Sword
    assert (t.minion("7D")["attack"], t.minion("7D")["health"]) == (3, 3)
    deck = t.deck
    ok(t.reveal("p1", "KC", target="7D"))
    [copy] = t.side("p1")["minions"]
    assert (copy["attack"], copy["health"], copy["spell_damage"]) == (2, 2, 0)
    assert t.side("p1")["spell_damage"] == 0
    assert t.deck == deck - 2 + 1
    assert t.ledger_total() == 53


def test_vaporize_destroys_a_minion_attacking_the_hero_and_the_attack_never_happens():
    t = start("jaina", "garrosh", turn=10)
    ok(t.play("p2", "9H"))  # 4/4
    t.end_turn()
    ok(t.power("p1", target="9H"))  # one damage marker on 9H
    ok(t.play("p1", "KS"))  # Vaporize
    t.end_turn()  # turn 12
    deck, discard = t.deck, t.state["discard"]
    assert "invalid_target" in t.check("secret_revealed", player="p1", card="KS",
                                     target="p2")  # a hero attack is not a minion's
    ok(t.reveal("p1", "KS", target="9H"))  # before 9H's attack on p1
    assert t.minion("9H") is None
    assert t.state["discard"] == discard + 1  # the minion card
    assert t.deck == deck + 1 + 1  # its damage marker back, the secret shuffled in
    assert t.side("p1")["health"] == 20
    assert t.ledger_total() == 53
