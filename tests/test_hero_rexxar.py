"""Rexxar (hunter), heroes.md §5.2: every card effect, worked out by hand.

Deck arithmetic: the draw deck holds 43 - N cards at the start of turn N. Markers leave the
top of the deck and come back to its bottom; a revealed secret is shuffled back in (+1).
"""

from conftest import ok, start

from tracker.rules.events import Attack
from tracker.rules.secrets import reveals_before

# --- hero power: Steady Shot --------------------------------------------------------------

def test_steady_shot_deals_2_to_the_enemy_hero_without_a_target():
    t = start("rexxar", "garrosh", turn=3)
    deck = t.deck
    ok(t.power("p1"))
    assert t.side("p2")["health"] == 18
    assert t.side("p1")["mana"] == 0
    assert t.deck == deck


def test_steady_shot_is_not_boosted_by_spell_damage():
    t = start("rexxar", "garrosh", turn=11)
    ok(t.play("p1", "6D"))
    ok(t.power("p1"))
    assert t.side("p2")["health"] == 18  # 2, not 3


def test_steady_shot_is_absorbed_by_armor_which_goes_back_to_the_deck():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.power("p2"))  # Armor Up!: 2 armor cards
    t.end_turn()
    deck = t.deck
    ok(t.power("p1"))
    assert t.side("p2")["armor"] == 0 and t.side("p2")["health"] == 20
    assert t.deck == deck + 2  # both armor cards back to the bottom
    assert t.ledger_total() == 53


# --- ♠ Aspect of the Pack -----------------------------------------------------------------

def test_aspect_of_the_pack_gives_plus_1_attack_unmarked_while_another_beast_is_there():
    t = start("rexxar", "garrosh", turn=11)
    deck = t.deck
    ok(t.play("p1", "6H"))  # not a Beast
    ok(t.play("p1", "7S"))
    assert t.stats("7S") == (2, 2)
    ok(t.play("p1", "8S"))  # a second Beast
    assert t.stats("7S") == (3, 2) and t.stats("8S") == (4, 3)
    assert t.stats("6H") == (1, 1)
    assert t.deck == deck  # a conditional bonus is not marked


def test_aspect_of_the_pack_is_plus_1_however_many_beasts():
    t = start("rexxar", "garrosh", turn=11)
    for card in ("6S", "7S", "8S"):
        ok(t.play("p1", card))
    assert [t.stats(c) for c in ("6S", "7S", "8S")] == [(2, 1), (3, 2), (4, 3)]


def test_aspect_of_the_pack_bonus_deals_damage_and_ends_when_the_pack_breaks():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "10H"))  # 5/5 Taunt
    t.end_turn()
    ok(t.play("p1", "7S"))
    ok(t.play("p1", "8S"))
    t.end_turn(2)  # turn 13
    deck, discard = t.deck, t.state["discard"]
    ok(t.attack("7S", "10H"))  # 2 + 1 = 3 damage; 7S takes 5 and dies
    assert t.minion("10H")["health"] == 2
    assert t.minion("7S") is None
    assert t.deck == deck - 3  # three damage markers on 10H
    assert t.state["discard"] == discard + 1
    assert t.stats("8S") == (3, 3)  # the pack is gone
    assert t.ledger_total() == 53


# --- J Arcane Shot ------------------------------------------------------------------------

def test_arcane_shot_deals_2_to_a_character():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "8H"))
    t.end_turn()
    deck = t.deck
    ok(t.play("p1", "JH", target="8H"))
    assert t.minion("8H")["health"] == 1
    assert t.deck == deck - 2
    ok(t.play("p1", "JD", target="p2"))
    assert t.side("p2")["health"] == 18
    assert t.ledger_total() == 53


def test_arcane_shot_is_boosted_by_spell_damage():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "8H"))
    t.end_turn()
    ok(t.play("p1", "6D"))
    deck = t.deck
    ok(t.play("p1", "JH", target="8H"))  # 2 + 1 kills the 3/3
    assert t.minion("8H") is None
    assert t.deck == deck


# --- Q secrets ----------------------------------------------------------------------------

def test_explosive_trap_hits_all_enemy_characters_and_a_dead_attacker_never_attacks():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "7H"))  # 2/2
    ok(t.play("p2", "8H"))  # 3/3
    t.end_turn()
    ok(t.play("p1", "QH"))  # Explosive Trap
    t.end_turn()  # turn 12
    deck, discard = t.deck, t.state["discard"]
    ok(t.reveal("p1", "QH"))  # when 7H attacks p1
    assert t.minion("7H") is None
    assert t.minion("8H")["health"] == 1
    assert t.side("p2")["health"] == 18
    assert t.side("p1")["health"] == 20  # the attack is cancelled: no attack event
    assert t.deck == deck - 2 + 1  # two damage markers on 8H; the secret shuffled in
    assert t.state["discard"] == discard + 1
    assert t.ledger_total() == 53


def test_explosive_trap_is_boosted_and_a_surviving_attacker_still_attacks():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "10H"))  # 5/5
    t.end_turn()
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "QH"))
    t.end_turn()
    deck = t.deck
    ok(t.reveal("p1", "QH"))
    assert t.minion("10H")["health"] == 2  # 2 + 1
    assert t.side("p2")["health"] == 17
    assert t.minion("6D")["health"] == 1  # friendly minions are spared
    ok(t.attack("10H", "p1"))
    assert t.side("p1")["health"] == 15
    assert t.deck == deck - 3 + 1
    assert t.ledger_total() == 53


def test_explosive_trap_answers_a_hero_attack_and_hits_that_hero():
    t = start("rexxar", "garrosh", turn=11)
    ok(t.play("p1", "QH"))
    t.end_turn()
    ok(t.play("p2", "QD"))  # Fiery War Axe: -2
    deck = t.deck
    ok(t.reveal("p1", "QH"))  # 2 to p2's hero; secret +1
    assert t.side("p2")["health"] == 18
    ok(t.attack("p2", "p1"))  # the hero survives: the attack goes on; durability +1
    assert t.side("p1")["health"] == 17
    assert t.deck == deck + 1 + 1
    assert t.ledger_total() == 53


def test_snipe_deals_4_to_a_minion_just_played():
    t = start("rexxar", "garrosh", turn=11)
    ok(t.play("p1", "QD"))  # Snipe
    t.end_turn()
    ok(t.play("p2", "10H"))
    deck = t.deck
    ok(t.reveal("p1", "QD", target="10H"))  # after the minion is played
    assert t.minion("10H")["health"] == 1
    assert t.deck == deck - 4 + 1
    assert t.ledger_total() == 53


def test_snipe_is_boosted_by_spell_damage():
    t = start("rexxar", "garrosh", turn=11)
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "QD"))
    t.end_turn()
    ok(t.play("p2", "10H"))
    deck, discard = t.deck, t.state["discard"]
    ok(t.reveal("p1", "QD", target="10H"))  # 4 + 1 kills the 5/5
    assert t.minion("10H") is None
    assert t.deck == deck + 1
    assert t.state["discard"] == discard + 1
    assert t.ledger_total() == 53


def test_snake_trap_summons_three_beast_snakes_and_the_attack_goes_on():
    t = start("rexxar", "garrosh", turn=11)
    ok(t.play("p1", "9H"))  # 4/4 Taunt
    ok(t.play("p1", "QC"))  # Snake Trap
    t.end_turn()
    ok(t.play("p2", "8S"))  # 3/3 Charge
    deck = t.deck
    ok(t.reveal("p1", "QC"))  # when 9H is attacked
    snakes = t.minion_ids("p1")[1:]
    assert len(snakes) == 3
    assert all(t.stats(s) == (1, 1) and t.minion(s)["card"] is None for s in snakes)
    assert t.deck == deck - 3 + 1  # one card a snake; the secret shuffled in
    ok(t.attack("8S", "9H"))  # the original target
    assert t.minion("9H")["health"] == 1 and t.minion("8S") is None
    assert t.deck == deck - 3 + 1 - 3
    t.end_turn()
    ok(t.play("p1", "KH", target="p2"))  # Kill Command: Snakes are Beasts
    assert t.side("p2")["health"] == 15
    assert t.ledger_total() == 53


def test_snake_trap_summons_only_as_many_snakes_as_fit():
    t = start("rexxar", "garrosh", turn=9)
    for card in ("6H", "7H", "7D"):
        ok(t.play("p1", card))
    t.end_turn(2)
    ok(t.play("p1", "QC"))
    t.end_turn()
    ok(t.play("p2", "6S"))  # 1/1 Charge
    deck = t.deck
    ok(t.reveal("p1", "QC"))
    assert len(t.minion_ids("p1")) == 5  # 3 minions + 2 snakes
    assert t.deck == deck - 2 + 1
    ok(t.attack("6S", "6H"))
    assert t.minion("6S") is None and t.minion("6H") is None
    assert t.ledger_total() == 53


def test_snake_trap_does_not_go_off_when_no_snake_fits():
    t = start("rexxar", "garrosh", turn=9)
    for card in ("6H", "7H", "7D"):
        ok(t.play("p1", card))
    t.end_turn(2)
    ok(t.play("p1", "QC"))
    attack = Attack(attacker="6S", target="6H")
    t.end_turn()
    ok(t.play("p2", "6S"))
    assert [r.card for r in reveals_before(t.game, attack)] == ["QC"]  # room for two
    t.end_turn()
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "6C"))  # five minions: no room
    t.end_turn()
    assert reveals_before(t.game, attack) == []


def test_freezing_trap_returns_the_attacker_to_hand_and_its_markers_to_the_deck():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "10H"))
    t.end_turn()
    ok(t.play("p1", "JH", target="10H"))  # two damage markers
    ok(t.play("p1", "QS"))  # Freezing Trap
    t.end_turn()  # turn 12
    deck, hand, discard = t.deck, t.side("p2")["hand"], t.state["discard"]
    assert "invalid_target" in t.check("secret_revealed", player="p1", card="QS",
                                     target="p2")
    ok(t.reveal("p1", "QS", target="10H"))  # when 10H attacks; the attack is cancelled
    assert t.minion("10H") is None
    assert t.side("p2")["hand"] == hand + 1
    assert t.state["discard"] == discard
    assert t.deck == deck + 2 + 1  # damage markers back; the secret shuffled in
    assert t.side("p1")["health"] == 20
    ok(t.play("p2", "10H"))  # back from the hand, undamaged
    assert t.stats("10H") == (5, 5)
    assert t.ledger_total() == 53


def test_freezing_trap_removes_a_token_instead():
    t = start("rexxar", "uther", turn=10)
    ok(t.power("p2"))  # Reinforce: a 1/1 Silver Hand Recruit
    [recruit] = t.minion_ids("p2")
    t.end_turn()
    ok(t.play("p1", "QS"))
    t.end_turn()
    deck, hand = t.deck, t.side("p2")["hand"]
    ok(t.reveal("p1", "QS", target=recruit))
    assert t.minion_ids("p2") == []
    assert t.side("p2")["hand"] == hand
    assert t.deck == deck + 1 + 1  # the token's card and the secret
    assert t.ledger_total() == 53


# --- K Kill Command -----------------------------------------------------------------------

def test_kill_command_deals_3_without_a_friendly_beast():
    t = start("rexxar", "rexxar", turn=10)
    ok(t.play("p2", "7S"))  # an enemy Beast does not count
    t.end_turn()
    ok(t.play("p1", "6H"))  # not a Beast
    ok(t.play("p1", "KH", target="p2"))
    assert t.side("p2")["health"] == 17


def test_kill_command_deals_5_with_a_beast():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "10H"))
    t.end_turn()
    ok(t.play("p1", "6S"))  # a Beast
    deck = t.deck
    ok(t.play("p1", "KH", target="10H"))
    assert t.minion("10H") is None
    assert t.deck == deck


def test_kill_command_with_a_beast_is_boosted_by_spell_damage():
    t = start("rexxar", "garrosh", turn=11)
    ok(t.play("p1", "6S"))
    ok(t.play("p1", "6D"))
    ok(t.play("p1", "KH", target="p2"))
    assert t.side("p2")["health"] == 14  # 5 + 1


# --- A Multi-Shot -------------------------------------------------------------------------

def test_multi_shot_deals_3_to_each_of_two_different_enemy_minions():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "9H"))  # 4/4
    ok(t.play("p2", "6H"))  # 1/1
    t.end_turn()
    deck, discard = t.deck, t.state["discard"]
    ok(t.play("p1", "AH", target=["9H", "6H"]))
    assert t.minion("9H")["health"] == 1 and t.minion("6H") is None
    assert t.deck == deck - 3
    assert t.state["discard"] == discard + 2
    assert t.ledger_total() == 53


def test_multi_shot_is_boosted_by_spell_damage():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "9H"))
    ok(t.play("p2", "6H"))
    t.end_turn()
    ok(t.play("p1", "6D"))
    deck = t.deck
    ok(t.play("p1", "AH", target=["9H", "6H"]))  # 3 + 1 each
    assert t.minion_ids("p2") == []
    assert t.deck == deck


def test_multi_shot_needs_two_different_targetable_enemy_minions():
    t = start("rexxar", "garrosh", turn=10)
    ok(t.play("p2", "9H"))
    ok(t.play("p2", "6C"))  # Stealth until p2's next turn
    t.end_turn()
    ok(t.play("p1", "7H"))

    def codes(target):
        return t.check("play", player="p1", card="AH", target=target)

    assert "invalid_target" in codes(["9H"])
    assert "invalid_target" in codes(["9H", "9H"])
    assert "target_stealthed" in codes(["9H", "6C"])
    assert "invalid_target" in codes(["9H", "7H"])
    assert "invalid_target" in codes(["9H", "p2"])
