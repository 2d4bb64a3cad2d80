"""Uther the Lightbringer (paladin), heroes.md §5.4: every card effect, worked out by hand.

Deck arithmetic: the draw deck holds 43 - N cards at the start of turn N. Token stacks,
buff, damage and durability markers leave the top of the deck and come back to its
bottom; a revealed secret is shuffled back in (+1).
"""

from conftest import ok, start, stats

from tracker.rules.events import Attack
from tracker.rules.secrets import reveals_before

# --- hero power: Reinforce ----------------------------------------------------------------

def test_reinforce_summons_a_1_1_recruit_from_one_card():
    t = start("uther", "garrosh", turn=3)
    deck = t.deck
    ok(t.power("p1"))
    [recruit] = t.side("p1")["minions"]
    assert recruit["name"] == "Silver Hand Recruit" and recruit["card"] is None
    assert stats(recruit) == (1, 1) and recruit["exhausted"]
    assert t.side("p1")["mana"] == 0
    assert t.deck == deck - 1
    assert t.ledger_total() == 53


def test_reinforce_cannot_be_used_with_5_minions():
    t = start("uther", "garrosh", turn=9)  # 5 mana
    for card in ("6H", "6D", "6C"):
        ok(t.play("p1", card))
    ok(t.power("p1"))
    t.end_turn(2)
    ok(t.play("p1", "7H"))  # the fifth minion
    assert "board_full" in t.check("hero_power", player="p1")


# --- ♠ Reinforcements ---------------------------------------------------------------------

def test_reinforcements_deathrattle_summons_a_recruit():
    t = start("uther", "jaina", turn=11)
    ok(t.play("p1", "7S"))  # 2/2 Deathrattle: summon a 1/1
    t.end_turn()
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p2", "AH", target="7S"))  # Fireball
    [recruit] = t.side("p1")["minions"]
    assert recruit["name"] == "Silver Hand Recruit" and stats(recruit) == (1, 1)
    assert t.deck == deck - 1
    assert t.state["discard"] == discard + 2  # AH and 7S
    assert t.ledger_total() == 53


# --- J secrets ----------------------------------------------------------------------------

def test_noble_sacrifice_summons_a_2_2_defender_that_becomes_the_target():
    t = start("uther", "garrosh", turn=11)
    ok(t.play("p1", "JH"))  # Noble Sacrifice
    t.end_turn()
    ok(t.play("p2", "9S"))  # 4/4 Charge
    deck = t.deck
    ok(t.reveal("p1", "JH"))  # when 9S attacks p1's hero
    [defender] = t.side("p1")["minions"]
    assert defender["name"] == "Defender" and stats(defender) == (2, 2)
    assert t.deck == deck - 2 + 1  # a stack of two cards; the secret shuffled in
    ok(t.attack("9S", defender["id"]))  # the log shows the attack on the Defender
    assert t.side("p1")["minions"] == [] and t.side("p1")["health"] == 20
    assert t.minion("9S")["health"] == 2
    assert t.deck == deck - 2 + 1 + 2 - 2  # the Defender's stack back, 2 marks on 9S
    assert t.ledger_total() == 53


def test_noble_sacrifice_defender_takes_a_hero_attack_on_a_minion_even_past_taunt():
    t = start("uther", "garrosh", turn=11)
    ok(t.play("p1", "7H"))  # 2/2 Taunt
    ok(t.play("p1", "JH"))
    t.end_turn()
    ok(t.play("p2", "QH"))  # Fiery War Axe: -2
    deck = t.deck
    ok(t.reveal("p1", "JH"))  # when p2's hero attacks 7H: Defender -2, secret +1
    defender = t.minion_ids("p1")[-1]
    ok(t.attack("p2", defender))  # 3 kills the Defender (+2); p2 takes 2; durability +1
    assert t.minion_ids("p1") == ["7H"] and t.minion("7H")["health"] == 2
    assert t.side("p2")["health"] == 18
    assert t.deck == deck - 2 + 1 + 2 + 1
    ok(t.play("p2", "8S"))  # 3/3 Charge: a new attack must respect Taunt again
    assert "taunt" in t.check("attack", attacker="8S", target="p1")
    assert t.ledger_total() == 53


def test_noble_sacrifice_does_not_go_off_with_5_minions():
    t = start("uther", "garrosh", turn=9)
    for card in ("6H", "6D", "6C"):
        ok(t.play("p1", card))
    ok(t.power("p1"))
    t.end_turn(2)
    ok(t.play("p1", "JH"))
    attack = Attack(attacker="9S", target="p1")
    t.end_turn()
    ok(t.play("p2", "9S"))
    assert [r.card for r in reveals_before(t.game, attack)] == ["JH"]
    t.end_turn()
    ok(t.play("p1", "7H"))  # the fifth minion
    t.end_turn()
    assert reveals_before(t.game, attack) == []


def test_repentance_leaves_a_just_played_minion_at_1_health_and_it_can_be_healed():
    t = start("uther", "uther", turn=11)
    ok(t.play("p1", "JD"))  # Repentance
    t.end_turn()
    ok(t.play("p2", "10H"))  # 5/5
    deck = t.deck
    ok(t.reveal("p1", "JD", target="10H"))  # after the minion is played
    assert t.minion("10H")["health"] == 1 and t.minion("10H")["max_health"] == 5
    assert t.minion("10H")["damage"] == 4
    assert t.deck == deck - 4 + 1
    t.end_turn(2)
    deck = t.deck
    ok(t.play("p2", "QH", target="10H"))  # Holy Light heals the marked damage
    assert t.minion("10H")["health"] == 5
    assert t.deck == deck + 4
    assert t.ledger_total() == 53


def test_redemption_returns_a_dead_minion_from_the_discard_with_1_health():
    t = start("uther", "jaina", turn=11)
    ok(t.play("p1", "9H"))  # 4/4 Taunt
    ok(t.play("p1", "JC"))  # Redemption
    t.end_turn()  # turn 12
    deck, discard = t.deck, t.state["discard"]
    ok(t.power("p2", target="9H"))  # one damage marker: -1
    ok(t.play("p2", "AH", target="9H"))  # dead: its marker back, +1
    assert t.minion("9H") is None
    ok(t.reveal("p1", "JC", target="9H"))  # when it dies (logged right after)
    nine = t.minion("9H")
    assert (nine["attack"], nine["health"], nine["max_health"]) == (4, 1, 4)
    assert nine["damage"] == 3 and nine["taunt"]
    assert t.deck == deck - 1 + 1 - 3 + 1  # 3 fresh damage markers; the secret shuffled in
    assert t.state["discard"] == discard + 1  # only the Fireball: 9H came back
    assert t.ledger_total() == 53


def test_redemption_loses_the_old_buffs():
    t = start("uther", "jaina", turn=11)
    ok(t.play("p1", "KS"))  # Sword of Justice, 5 durability
    for card in ("6H", "6D", "6C"):
        ok(t.play("p1", card))  # each buffed: durability 5 -> 2
    t.end_turn(2)  # turn 13
    ok(t.play("p1", "JC"))
    ok(t.power("p1"))  # durability 1
    ok(t.play("p1", "7H"))  # 3/3 with one buff marker; the sword breaks
    assert stats(t.minion("7H")) == (3, 3) and t.side("p1")["weapon"] is None
    t.end_turn()  # turn 14
    deck = t.deck
    ok(t.play("p2", "AH", target="7H"))  # dead: the buff marker back, +1
    ok(t.reveal("p1", "JC", target="7H"))  # a 2/2 again: 1 damage marker, -1; secret +1
    seven = t.minion("7H")
    assert (seven["attack"], seven["health"], seven["max_health"]) == (2, 1, 2)
    assert t.deck == deck + 1 - 1 + 1
    assert t.ledger_total() == 53


def test_redemption_restacks_a_token_at_base_stats_with_damage_markers():
    t = start("uther", "garrosh", turn=11)
    ok(t.play("p1", "JH"))  # Noble Sacrifice
    ok(t.play("p1", "JC"))  # Redemption
    t.end_turn()
    ok(t.play("p2", "9S"))  # 4/4 Charge
    deck = t.deck
    ok(t.reveal("p1", "JH"))  # Defender: -2, secret +1
    [defender] = t.minion_ids("p1")
    ok(t.attack("9S", defender))  # Defender dies: +2; 9S marked: -2
    assert t.minion_ids("p1") == []
    ok(t.reveal("p1", "JC", target=defender))  # restacked: -2, 1 damage: -1, secret +1
    [back] = t.side("p1")["minions"]
    assert back["name"] == "Defender" and back["card"] is None
    assert (back["attack"], back["health"], back["max_health"]) == (2, 1, 2)
    assert t.deck == deck - 2 + 1 + 2 - 2 - 2 - 1 + 1
    assert t.ledger_total() == 53


def test_redemption_and_reinforcements_both_bring_something_back():
    t = start("uther", "jaina", turn=11)
    ok(t.play("p1", "7S"))
    ok(t.play("p1", "JC"))
    t.end_turn()
    deck = t.deck
    ok(t.play("p2", "AH", target="7S"))  # the deathrattle summons a recruit: -1
    ok(t.reveal("p1", "JC", target="7S"))  # 7S back as 2/1: -1, secret +1
    assert sorted(m["name"] for m in t.side("p1")["minions"]) == ["7S", "Silver Hand Recruit"]
    assert stats(t.minion("7S")) == (2, 1)
    assert t.deck == deck - 1 - 1 + 1
    assert t.ledger_total() == 53


def test_eye_for_an_eye_deals_the_damage_taken_to_the_enemy_hero():
    t = start("uther", "garrosh", turn=11)
    ok(t.play("p1", "JS"))  # Eye for an Eye
    t.end_turn()
    deck = t.deck
    ok(t.play("p2", "QH"))  # Fiery War Axe: -2
    ok(t.attack("p2", "p1"))  # 3 damage; a durability card back: +1
    assert t.side("p1")["health"] == 17
    ok(t.reveal("p1", "JS"))  # logged after the damage it answers; secret +1
    assert t.side("p2")["health"] == 17
    assert t.deck == deck - 2 + 1 + 1
    assert t.ledger_total() == 53


def test_eye_for_an_eye_is_boosted_by_spell_damage_and_hits_armor_first():
    t = start("uther", "garrosh", turn=11)
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "JS"))
    t.end_turn()
    ok(t.power("p2"))  # Armor Up!: 2 armor
    ok(t.play("p2", "QH"))
    deck = t.deck
    ok(t.attack("p2", "p1"))  # 3 damage: +1 durability card
    ok(t.reveal("p1", "JS"))  # 3 + 1 = 4: 2 armor cards back (+2), 2 to health; +1
    assert (t.side("p2")["armor"], t.side("p2")["health"]) == (0, 18)
    assert t.deck == deck + 1 + 2 + 1
    assert t.ledger_total() == 53


def test_eye_for_an_eye_counts_only_the_health_lost_after_armor():
    t = start("uther", "garrosh", turn=11)
    # Uther has no armor card of his own; give his hero 2 armor cards by hand from the
    # top of the deck, as another effect would.
    side = t.game.sides["p1"]
    side.armor.extend(t.game.table.take_marker() for _ in range(2))
    ok(t.play("p1", "JS"))
    t.end_turn()
    ok(t.play("p2", "QH"))
    deck = t.deck
    ok(t.attack("p2", "p1"))  # 3: 2 armor (+2 cards), 1 health; +1 durability card
    assert (t.side("p1")["armor"], t.side("p1")["health"]) == (0, 19)
    ok(t.reveal("p1", "JS"))
    assert t.side("p2")["health"] == 19  # 1, the health lost, not 3
    assert t.deck == deck + 2 + 1 + 1
    assert t.ledger_total() == 53


# --- Q Holy Light -------------------------------------------------------------------------

def test_holy_light_restores_6_but_never_above_20():
    t = start("uther", "jaina", turn=10)
    ok(t.play("p2", "AH", target="p1"))  # 15
    t.end_turn()
    ok(t.play("p1", "QH", target="p1"))
    assert t.side("p1")["health"] == 20


def test_holy_light_is_boosted_by_spell_damage():
    t = start("uther", "jaina", turn=10)
    ok(t.play("p2", "AH", target="p1"))  # 15
    t.end_turn(2)
    ok(t.play("p2", "AD", target="p1"))  # 10
    ok(t.power("p2", target="p1"))  # 9
    t.end_turn()
    deck = t.deck
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "QH", target="p1"))  # 6 + 1
    assert t.side("p1")["health"] == 16
    assert t.deck == deck


def test_holy_light_returns_healed_damage_markers_to_the_deck():
    t = start("uther", "jaina", turn=9)
    ok(t.play("p1", "10H"))  # 5/5
    t.end_turn()
    ok(t.play("p2", "QD", target="10H"))  # Frostbolt: 3 damage markers
    t.end_turn()
    deck = t.deck
    ok(t.play("p1", "QH", target="10H"))
    assert t.minion("10H")["health"] == 5 and t.minion("10H")["damage"] == 0
    assert t.deck == deck + 3
    assert t.ledger_total() == 53


# --- K Sword of Justice -------------------------------------------------------------------

def test_sword_of_justice_buffs_each_summon_and_loses_1_durability():
    t = start("uther", "garrosh", turn=11)
    deck = t.deck
    ok(t.play("p1", "KS"))
    assert t.side("p1")["weapon"]["attack"] == 1
    assert t.side("p1")["weapon"]["durability"] == 5
    assert t.deck == deck - 5
    ok(t.play("p1", "7H"))  # +1/+1 marker out, a durability card back
    ok(t.play("p1", "6H"))
    assert stats(t.minion("7H")) == (3, 3) and t.minion("7H")["max_health"] == 3
    assert stats(t.minion("6H")) == (2, 2)
    assert t.side("p1")["weapon"]["durability"] == 3
    assert t.deck == deck - 5
    t.end_turn()
    ok(t.play("p2", "7D"))  # an enemy summon does nothing
    assert stats(t.minion("7D")) == (2, 2)
    t.end_turn()
    deck, discard = t.deck, t.state["discard"]
    ok(t.power("p1"))  # the recruit: stack -1, buff -1, durability +1
    recruit = t.side("p1")["minions"][-1]
    assert stats(recruit) == (2, 2)
    ok(t.play("p1", "7C"))
    ok(t.play("p1", "6D"))  # the fifth summon breaks the sword
    assert stats(t.minion("7C")) == (3, 3) and stats(t.minion("6D")) == (2, 2)
    assert t.side("p1")["weapon"] is None
    assert t.deck == deck - 1
    assert t.state["discard"] == discard + 1  # the sword
    assert t.ledger_total() == 53


def test_sword_of_justice_buffs_a_deathrattle_recruit_on_the_enemy_turn():
    t = start("uther", "jaina", turn=11)
    ok(t.play("p1", "KS"))
    ok(t.play("p1", "7S"))  # 3/3, durability 4
    t.end_turn()
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p2", "AH", target="7S"))  # 7S dies: its buff marker back, +1
    [recruit] = t.side("p1")["minions"]  # stack -1, buff -1, durability +1
    assert recruit["name"] == "Silver Hand Recruit" and stats(recruit) == (2, 2)
    assert t.side("p1")["weapon"]["durability"] == 3
    assert t.deck == deck + 1 - 1 - 1 + 1
    assert t.state["discard"] == discard + 2  # AH and 7S
    assert t.ledger_total() == 53


# --- A Consecration -----------------------------------------------------------------------

def test_consecration_deals_2_to_all_enemy_characters():
    t = start("uther", "garrosh", turn=10)
    ok(t.play("p2", "6H"))  # 1/1
    ok(t.play("p2", "9H"))  # 4/4
    t.end_turn()
    ok(t.play("p1", "7H"))  # friendly: spared
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "AH"))
    assert t.minion("6H") is None and t.minion("9H")["health"] == 2
    assert t.side("p2")["health"] == 18
    assert t.side("p1")["health"] == 20 and t.minion("7H")["health"] == 2
    assert t.deck == deck - 2
    assert t.state["discard"] == discard + 2
    assert t.ledger_total() == 53


def test_consecration_is_boosted_by_spell_damage():
    t = start("uther", "garrosh", turn=10)
    ok(t.play("p2", "9H"))
    t.end_turn()
    ok(t.play("p1", "6D"))
    deck = t.deck
    ok(t.play("p1", "AH"))  # 2 + 1
    assert t.minion("9H")["health"] == 1 and t.side("p2")["health"] == 17
    assert t.deck == deck - 3
