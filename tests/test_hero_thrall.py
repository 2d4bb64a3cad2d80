"""Thrall (shaman), every hero card effect, worked out by hand from heroes.md §4 and §5.7 and
the rulebook's Totemic Call (reveal until a suit whose totem you lack).

Deck arithmetic: `start(turn=N)` leaves 43 - N cards in the draw deck, and each `end_turn`
draws one more. With a known order (`deck=`), p1 is dealt D[0:4], p2 D[4:9], and turn N
draws D[8 + N], so at turn N the top card is D[9 + N] until a reveal takes cards.
"""

import pytest
from conftest import start

from cards import DECK
from tracker.rules.engine import EngineError


def arranged(placed: dict[int, str]) -> list[str]:
    """The 52 cards with `placed` at those deck positions and the rest in DECK order."""
    rest = [c for c in DECK if c not in placed.values()]
    return [placed[i] if i in placed else rest.pop(0) for i in range(52)]


def totem(t, card):
    m = t.minion(card)
    return m["name"], m["attack"], m["health"], m["taunt"], m["spell_damage"]


def test_totemic_call_reveals_until_a_missing_suit_and_puts_the_rest_at_the_bottom():
    deck = arranged({12: "5H", 15: "2H", 16: "3H", 17: "4D"})
    t = start("thrall", "garrosh", turn=3, deck=deck)  # 40 cards; top D12
    assert t.power("p1") == []  # 5H: no totem yet, so ♥ Stoneclaw Totem
    assert t.minion_ids("p1") == ["5H"]
    assert t.deck == 39  # the totem card left the deck
    t.end_turn(2)  # T4 draws D13, T5 draws D14: 37, top D15
    assert t.power("p1") == []  # 2H, 3H (♥ in play), then 4D: Wrath of Air Totem
    assert t.minion_ids("p1") == ["5H", "4D"]
    assert t.deck == 36  # 37 - 3 revealed + 2 put back
    assert sorted(list(t.game.table.deck)[-2:]) == ["2H", "3H"]  # at the bottom, any order
    assert t.game.table.deck[0] == deck[18]  # the next card after the reveal is on top
    assert t.ledger_total() == 53


def test_totemic_call_reveals_past_the_coin_which_is_no_totem():
    # A log that plays a card known to lie in the deck swaps it with the last card of the
    # hand; here that is The Coin, which lands on top of the deck and is turned over next.
    deck = arranged({10: "6H", 11: "2C", 12: "5H"})
    t = start("garrosh", "thrall", turn=2, deck=deck)  # p2: D4-D8, The Coin, D10
    assert t.play("p2", "6H") == []
    assert t.play("p2", "2C") == ["card_not_in_hand", "not_enough_mana"]
    assert t.game.table.deck[0] == "JK"
    t.power("p2")  # reveals The Coin, then 5H: Stoneclaw Totem
    assert t.minion_ids("p2") == ["6H", "2C", "5H"]
    assert t.game.table.deck[-1] == "JK"  # back to the bottom with what was not a totem
    assert t.ledger_total() == 53


def _four_totems():
    """Thrall calls a totem on turns 3, 5, 7 and 9 from a known deck: ♥ ♦ ♣ ♠."""
    t = start("thrall", "garrosh", turn=3,
              deck=arranged({12: "5H", 15: "4D", 18: "4C", 21: "6S"}))  # 40
    for _ in range(4):  # 40 -> 39, T5 37 -> 36, T7 34 -> 33, T9 31 -> 30
        assert t.power("p1") == []
        t.end_turn(2)
    return t  # T10 draw: 29, T11 draw: 28


def test_totemic_call_makes_the_four_totems_by_suit():
    t = _four_totems()
    assert t.minion_ids("p1") == ["5H", "4D", "4C", "6S"]
    assert totem(t, "5H") == ("Stoneclaw Totem", 0, 2, True, 0)
    assert totem(t, "4D") == ("Wrath of Air Totem", 0, 2, False, 1)
    assert totem(t, "4C") == ("Searing Totem", 1, 1, False, 0)
    assert totem(t, "6S") == ("Healing Totem", 0, 2, False, 0)
    assert t.side("p1")["spell_damage"] == 1
    assert t.side("p1")["overload"] == 0  # 4C and 6S are totems, not minions played
    assert t.deck == 28
    assert t.ledger_total() == 53


def test_totemic_call_with_all_four_totems_raises_totems_complete():
    t = _four_totems()
    assert "totems_complete" in t.power("p1")


def _five_minions():
    """Four minions from hand and a Healing Totem: a full board at turn 9."""
    t = start("thrall", "garrosh", turn=7)  # 36, 4 mana
    for card in ("6H", "7H", "6D"):
        assert t.play("p1", card) == []
    t.end_turn(2)  # T9: 34, 5 mana
    assert t.play("p1", "6C") == []
    assert t.power("p1", revealed=["2S"]) == []  # ♠: Healing Totem (33)
    assert t.minion_ids("p1") == ["6H", "7H", "6D", "6C", "2S"]
    assert t.deck == 33
    return t


def test_totems_count_toward_the_five_minion_limit():
    t = _five_minions()
    assert "board_full" in t.play("p1", "7C")  # 2 of the 5 mana left


def test_totemic_call_with_five_minions_is_board_full():
    t = _five_minions()
    t.end_turn(2)  # T11
    assert "board_full" in t.power("p1", revealed=["2H"])


def test_healing_totem_heals_friendly_minions_one_at_the_end_of_its_owners_turn():
    t = start("thrall", "garrosh", turn=7)  # 36
    assert t.power("p1", revealed=["4D"]) == []  # ♦ Wrath of Air Totem (35)
    t.end_turn(2)  # T9: 33
    assert t.play("p1", "9H") == []  # 4/4 Taunt
    t.end_turn()  # T10: 32
    assert t.play("p2", "8S") == []
    assert t.attack("8S", "9H") == []  # 9H takes 3 (29); 8S dies
    t.end_turn()  # T11: 28
    assert t.power("p1", revealed=["2S"]) == []  # ♠ Healing Totem (27)
    assert t.deck == 27
    t.end_turn()  # end of T11: 9H healed 1, not boosted (one marker back: 28); T12 draw: 27
    assert t.minion("9H")["health"] == 2
    assert t.deck == 27
    t.end_turn()  # end of p2's T12: no heal; T13 draw: 26
    assert t.minion("9H")["health"] == 2
    assert t.deck == 26
    assert t.ledger_total() == 53


def test_totemic_call_on_an_unknown_deck_needs_the_revealed_cards():
    t = start("thrall", "garrosh", turn=3)
    with pytest.raises(EngineError, match="revealed"):
        t.power("p1")


def test_wrath_of_air_totem_adds_spell_damage_to_lightning_bolt():
    t = start("thrall", "garrosh", turn=3)  # 40
    assert t.power("p1", revealed=["4D"]) == []  # ♦ Wrath of Air Totem (39)
    assert t.side("p1")["spell_damage"] == 1
    t.end_turn(2)  # T5: 37
    assert t.play("p1", "JH", target="p2") == []
    assert t.side("p2")["health"] == 16  # 3 + 1
    assert t.deck == 37


def test_destroyed_totem_card_goes_to_the_discard_pile():
    t = start("thrall", "garrosh", turn=3)  # 40
    assert t.power("p1", revealed=["2C"]) == []  # ♣ Searing Totem 1/1 (39)
    t.end_turn()  # T4: 38
    discard = t.state["discard"]
    assert t.play("p2", "JH") == []  # Whirlwind kills it
    assert t.minion_ids("p1") == []
    assert t.state["discard"] == discard + 2  # JH and the totem card 2C
    assert t.deck == 38
    assert t.ledger_total() == 53


def test_an_empty_deck_during_a_reveal_does_not_end_the_game():
    deck = arranged({46: "5H", 49: "2H", 50: "3H", 51: "4H"})
    t = start("thrall", "garrosh", turn=37, deck=deck)  # 43 - 37 = 6 cards; top D46
    assert t.power("p1") == []  # 5H: Stoneclaw Totem (5)
    t.end_turn(2)  # T38 draws D47, T39 draws D48: 3 cards left, all ♥
    assert t.deck == 3
    assert t.power("p1") == []  # reveals 2H, 3H, 4H: the deck runs out, no totem
    assert t.minion_ids("p1") == ["5H"]
    assert t.deck == 3  # all three back at the bottom
    assert t.state["deck_empty"] is False
    t.end_turn()  # T40 draws one: the game goes on
    assert t.state["over"] is False
    assert t.state["turn"] == 40
    assert t.deck == 2
    assert t.ledger_total() == 53


def test_an_empty_deck_during_a_reported_reveal_does_not_end_the_game():
    t = start("thrall", "garrosh", turn=39)  # unknown order: 43 - 39 = 4 cards
    assert t.power("p1", revealed=["5H"]) == []  # ♥ Stoneclaw Totem (3)
    t.end_turn(2)  # T40, T41: 1 card left
    assert t.power("p1", revealed=["2H"]) == []  # ♥ is in play and the deck ran out
    assert t.minion_ids("p1") == ["5H"]
    assert t.deck == 1  # 2H went back to the bottom
    assert t.state["deck_empty"] is False
    t.end_turn()  # T42 draws the last card; the game goes on
    assert (t.state["over"], t.deck) == (False, 0)
    assert t.ledger_total() == 53


def test_a_reveal_of_more_cards_than_the_deck_holds_takes_none_from_the_discard_pile():
    t = start("thrall", "garrosh", turn=39)  # 4 cards
    assert t.power("p1", revealed=["5H"]) == []  # 3
    t.end_turn(2)  # T41: 1 card left
    discard = t.state["discard"]
    with pytest.raises(EngineError, match="more cards revealed"):
        t.power("p1", revealed=["2H", "3H", "4H"])  # three cards from a one-card deck
    assert (t.deck, t.state["discard"]) == (1, discard)
    assert t.ledger_total() == 53


def test_spade_windfury_attacks_twice_and_overload_locks_a_crystal_next_turn():
    t = start("thrall", "garrosh", turn=9)  # 34, 5 mana
    assert t.play("p1", "9S") == []  # 4/4 Windfury; Overload (1)
    assert (t.side("p1")["mana"], t.side("p1")["overload"]) == (1, 1)
    t.end_turn(2)  # T11: 6 crystals, 1 locked
    p1 = t.side("p1")
    assert (p1["crystals"], p1["overload_locked"], p1["mana"], p1["overload"]) == (6, 1, 5, 0)
    assert t.attack("9S", "p2") == []
    assert t.attack("9S", "p2") == []  # Windfury: a second attack
    assert t.side("p2")["health"] == 12
    assert "already_attacked" in t.attack("9S", "p2")


def test_lightning_bolt_deals_three_and_overloads_one():
    t = start("thrall", "garrosh", turn=10)  # 33
    assert t.play("p2", "10H") == []  # 5/5 Taunt
    t.end_turn()  # T11: 32
    assert t.play("p1", "JH", target="10H") == []  # 3 markers: 29
    assert t.minion("10H")["health"] == 2
    assert t.side("p1")["overload"] == 1
    assert t.deck == 29
    t.end_turn(2)  # T13: 6 crystals, 1 locked
    assert t.side("p1")["mana"] == 5
    assert t.ledger_total() == 53


def test_two_overloads_in_one_turn_add_up():
    t = start("thrall", "garrosh", turn=9)  # 5 mana
    assert t.play("p1", "9S") == []  # Overload (1)
    assert t.play("p1", "JD", target="p2") == []  # Overload (1)
    assert t.side("p1")["overload"] == 2
    t.end_turn(2)  # T11: 6 crystals - 2
    assert t.side("p1")["mana"] == 4


def test_stormforged_axe_is_a_two_three_weapon_with_overload():
    t = start("thrall", "garrosh", turn=3)  # 40, 2 mana
    assert t.play("p1", "QS") == []
    weapon = t.side("p1")["weapon"]
    assert (weapon["card"], weapon["attack"], weapon["durability"]) == ("QS", 2, 3)
    assert t.deck == 37  # three durability cards
    assert t.side("p1")["overload"] == 1
    assert t.attack("p1", "p2") == []  # one durability card back: 38
    assert t.side("p2")["health"] == 18
    assert t.side("p1")["weapon"]["durability"] == 2
    assert t.deck == 38
    t.end_turn(2)  # T5: 3 crystals - 1
    assert t.side("p1")["mana"] == 2
    assert t.ledger_total() == 53


def test_hex_discards_the_card_returns_its_markers_and_makes_a_taunt_frog():
    t = start("thrall", "guldan", turn=10)  # 33
    assert t.play("p2", "7S") == []  # Fel Pact: 4/4, two buff markers (31)
    t.end_turn()  # T11: 30
    assert t.play("p1", "JH", target="7S") == []  # 3 damage markers: 27
    assert t.minion("7S")["health"] == 1
    discard = t.state["discard"]
    assert t.play("p1", "KH", target="7S") == []
    # 7S to the discard pile; 3 damage + 2 buff markers to the bottom (32); the Frog is one
    # face-down card from the top (31)
    assert t.minion("7S") is None
    assert t.minion_ids("p2") == ["T1"]
    frog = t.minion("T1")
    assert (frog["name"], frog["attack"], frog["health"], frog["taunt"]) == ("Frog", 0, 1, True)
    assert t.deck == 31
    assert t.state["discard"] == discard + 2  # 7S and KH
    assert t.ledger_total() == 53


def test_bloodlust_gives_friendly_minions_two_attack_this_turn_only():
    t = start("thrall", "garrosh", turn=9)  # 34
    assert t.play("p1", "9H") == []  # 4/4 Taunt
    t.end_turn()  # T10: 33
    assert t.play("p2", "7H") == []  # 2/2 Taunt
    t.end_turn()  # T11: 32, 6 mana
    assert t.play("p1", "AS") == []
    assert t.minion("9H")["attack"] == 6
    assert t.minion("7H")["attack"] == 2  # an enemy minion
    assert t.play("p1", "6H") == []  # played after Bloodlust
    assert t.minion("6H")["attack"] == 1
    assert t.deck == 32  # unmarked
    assert t.attack("9H", "7H") == []  # 6 kills 7H; 9H takes 2 (30)
    assert t.minion("7H") is None
    assert t.deck == 30
    t.end_turn()  # T12: 29
    assert t.minion("9H")["attack"] == 4
    assert t.ledger_total() == 53
