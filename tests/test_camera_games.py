"""Short games written by hand, one for each rule the tracker must see through the camera
(issue 44): each is rendered by `simulate` and read back by `track` as a user runs them,
and its final state is checked against numbers worked out by hand from the rulebook and
the hero cards, not by the engine. The same numbers are checked against `replay` of the
hand log, so a failure says which is wrong: the engine (both fail) or the camera path
(only the camera's fails).

Counting conventions (docs/rulings.md): the deal takes 4 + 5 cards (and The Coin to p2),
so the deck holds 43 when play begins; each upkeep draws one; markers come off the top and
go back to the bottom; a hand over ten is discarded down at its turn's end; a minion's
health is what remains.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from companion_api.cli import replay_log
from tracker.rules.events import (
    Attack,
    EndTurn,
    Event,
    HeroPower,
    NewGame,
    Play,
    dump_log,
)

FPS = "10"  # enough for the tracker to see every card settle; a third of the default cost


def _new(p1: str, p2: str) -> NewGame:
    return NewGame(heroes={"p1": p1, "p2": p2})


def _play(player: str, card: str, target: str | None = None) -> Play:
    return Play(player=player, card=card, target=target)


def _attack(attacker: str, target: str) -> Attack:
    return Attack(attacker=attacker, target=target)


def _power(player: str, **fields) -> HeroPower:
    return HeroPower(player=player, **fields)


END = EndTurn()


def _side(health: int, crystals: int, hand: int, minions: list[tuple[str, int, int]] = (),
          armor: int = 0, weapon: tuple[str, int, int] | None = None) -> dict:
    return {"health": health, "armor": armor, "crystals": crystals, "hand": hand,
            "weapon": weapon, "minions": list(minions)}


def _final(turn: int, deck: int, discard: int, p1: dict, p2: dict, *,
           winner: str | None = None, deck_empty: bool = False,
           illegal: tuple[str, ...] = ()) -> dict:
    return {"turn": turn, "deck": deck, "discard": discard, "deck_empty": deck_empty,
            "over": winner is not None, "winner": winner, "p1": p1, "p2": p2,
            "illegal": list(illegal)}


# name: (seed, events, the final state worked out by hand)
GAMES: dict[str, tuple[int, list[Event], dict]] = {
    # Deck end (rulebook "Winning the Game"; rulings 9-10): the deck is emptied by draws
    # and markers; Hellfire's 3 hits p1's armor first (3 cards back to the bottom) before
    # p2's five minions are marked (15). On turn 13 Armor Up's first marker takes the last
    # card and its second finds the deck empty: a stand-in, and the game ends after that
    # turn's cleanup. Higher health wins (armor does not count): p1 20, p2 3.
    # Deck: 43; T1 42; T2 41, 2S's markers 39; T3 38, Armor Up 36; T4 35, 7S 33; T5 32, Shield
    # Block 3 armor 29 + a draw 28; T6 27, 3S 25; T7 24, Death's Bite 22; T8 21, 4S 19;
    # T9 18, the weapon's marker back 19; T10 18, 5S 16; T11 15; T12 14, Hellfire +3 -15 =
    # 2; T13 1, Armor Up 0 and a stand-in. Gul'dan's Fel Pact: 2 damage and +2/+2 a spade.
    "deck_end": (1, [
        _new("garrosh", "guldan"), END,
        _play("p2", "JK"), _play("p2", "2S"), END,
        _power("p1"), END,
        _play("p2", "7S"), END,
        _play("p1", "KH"), END,  # Shield Block
        _play("p2", "3S"), END,
        _play("p1", "AH"), END,  # Death's Bite, 4/2
        _play("p2", "4S"), END,
        _attack("p1", "p2"), END,
        _play("p2", "5S"), END,
        END,
        _play("p2", "AD"), END,  # Hellfire
        _power("p1"), END,
    ], _final(13, 0, 3, deck_empty=True, winner="p1",  # the pile: JK, KH, AD
              p1=_side(20, 6, 10, armor=4, weapon=("AH", 4, 1)),
              p2=_side(3, 6, 5, [("2S", 4, 1), ("7S", 4, 1), ("3S", 5, 2), ("4S", 6, 3),
                                 ("5S", 7, 4)]))),
    # A draw at the deck's end: equal health. p2's Life Taps fill its hand, one card is
    # discarded at the end of turn 6. Hellfire on turn 11 kills 6S (3/3: its two markers
    # back first), then marks six minions (18) with 17 cards: a stand-in, the deck ends.
    # Health: p1 20 - 5 Fel Pacts - 3 = 7; p2 20 - 3 Life Taps - 2 Fel Pacts - 3 = 7.
    # Deck: 43; T1 42, 6S 40; T2 39, Life Tap 38; T3 37, 7S 35; T4 34, 33; T5 32, 3S 30;
    # T6 29, 28; T7 27, 4S 25; T8 24, 2S 22; T9 21, 5S 19; T10 18, 8S 16; T11 15, +2 -18.
    "deck_draw": (1, [
        _new("guldan", "guldan"),
        _play("p1", "6S"), END,
        _play("p2", "JK"), _power("p2"), END,
        _play("p1", "7S"), END,
        _power("p2"), END,
        _play("p1", "3S"), END,
        _power("p2"), END,
        _play("p1", "4S"), END,
        _play("p2", "2S"), END,
        _play("p1", "5S"), END,
        _play("p2", "8S"), END,
        _play("p1", "AD"), END,  # Hellfire
    ], _final(11, 0, 4, deck_empty=True, winner="draw",  # JK, the discard, 6S, AD
              p1=_side(7, 6, 4, [("7S", 4, 1), ("3S", 5, 2), ("4S", 6, 3), ("5S", 7, 4)]),
              p2=_side(7, 5, 10, [("2S", 4, 1), ("8S", 5, 2)]))),
    # Death's Bite (Garrosh's A, 4/2, Deathrattle: 1 damage to all minions; heroes.md
    # 5.3). Bought on turn 6 with The Coin: it kills 7D (4 damage) and Garrosh takes 2;
    # on turn 8 it hits Jaina for 4 and breaks: 6D dies, 7C keeps 1 damage.
    # Deck: 43; T1 42; T2 41; T3 40; T4 39; T5 38; T6 37, durability 35, an attack 36;
    # T7 35; T8 34, the last durability back 35, 7C's marker 34.
    "deaths_bite": (1, [
        _new("jaina", "garrosh"),
        _play("p1", "6D"), END, END,
        _play("p1", "7D"), END,
        _play("p2", "7C"), END, END,
        _play("p2", "JK"), _play("p2", "AS"), _attack("p2", "7D"), END, END,
        _attack("p2", "p1"),
    ], _final(8, 34, 4, p1=_side(16, 4, 6),  # the pile: JK, 7D, AS, 6D
              p2=_side(18, 4, 7, [("7C", 2, 1)]))),
    # Trades: 6D and 6H (1/1 each) kill each other; 6C attacks 2D and dies, 2D keeps one
    # damage (2/1). Deck: 43; T1 42; T2 41; T3 40; T4 39, 2D's marker 38.
    "trade": (1, [
        _new("jaina", "garrosh"),
        _play("p1", "6D"), END,
        _play("p2", "JK"), _play("p2", "6C"), _play("p2", "6H"), END,
        _attack("6D", "6H"), _play("p1", "2D"), END,
        _attack("6C", "2D"),
    ], _final(4, 38, 4, p1=_side(20, 2, 4, [("2D", 2, 1)]), p2=_side(20, 2, 5))),
    # A sixth minion (rulebook: at most 5): still laid, and flagged. Deck: 43 - 7 draws.
    "sixth_minion": (1, [
        _new("garrosh", "jaina"),
        _play("p1", "6H"), END, END,
        _play("p1", "6D"), _play("p1", "6C"), END, END,
        _play("p1", "7S"), _play("p1", "6S"), END, END,
        _play("p1", "7D"),
    ], _final(7, 36, 0, p1=_side(20, 4, 2, [("6H", 1, 1), ("6D", 1, 1), ("6C", 1, 1),
                                            ("7S", 2, 2), ("6S", 1, 1), ("7D", 2, 2)]),
              p2=_side(20, 3, 9), illegal=("board_full",))),
    # A card played twice: Fireblast kills 6H, which p1 then takes from the discard pile
    # and plays again. Deck: 43 - 3 draws.
    "played_twice": (1, [
        _new("garrosh", "jaina"),
        _play("p1", "6H"), END,
        _play("p2", "JK"), _power("p2", target="6H"), END,
        _play("p1", "6H"),
    ], _final(3, 40, 1, p1=_side(20, 2, 5, [("6H", 1, 1)]), p2=_side(20, 1, 6),
              illegal=("card_in_discard",))),  # the pile: JK; 6H left it, no hand card
    # Mana exhausted: a 3-mana minion with 1 crystal. Deck: 43 - 2 draws.
    "no_mana": (1, [
        _new("jaina", "garrosh"),
        _play("p1", "3H"), END,
    ], _final(2, 41, 0, p1=_side(20, 1, 4, [("3H", 3, 3)]), p2=_side(20, 1, 7),
              illegal=("not_enough_mana",))),
    # Totemic Call (heroes.md 5.7): the first call turns over 5H, Stoneclaw Totem (0/2,
    # Taunt); the second 2H (hearts: already there, to the bottom) then 9S, Healing Totem
    # (0/2), not the 4/4 minion 9S is from a hand. Deck: 43; T1 42; T2 41, 5H 40; T3 39;
    # T4 38, 9S 37 (2H back under); T5 36.
    "totemic_call": (1, [
        _new("jaina", "thrall"), END,
        _play("p2", "JK"), _power("p2", revealed=["5H"]), END, END,
        _power("p2", revealed=["2H", "9S"]), END,
    ], _final(5, 36, 1, p1=_side(20, 3, 7),
              p2=_side(20, 2, 7, [("5H", 0, 2), ("9S", 0, 2)]))),
}


def _reading(state: dict) -> dict:
    """The numbers a hand-worked final state gives, from the contract's game state."""
    def side(player: str) -> dict:
        hero = state["players"][player]
        weapon = hero["weapon"]
        return {"health": hero["health"], "armor": hero["armor"], "crystals": hero["crystals"],
                "hand": hero["hand"],
                "weapon": weapon and (weapon["card"], weapon["attack"], weapon["durability"]),
                "minions": [(m["id"], m["attack"], m["health"]) for m in hero["minions"]]}

    illegal = [a["code"] for a in state["alerts"] if a["severity"] == "illegal"]
    return {"turn": state["turn"], "deck": state["deck"], "discard": state["discard"],
            "deck_empty": state["deck_empty"],
            "over": state["over"], "winner": state["winner"], "p1": side("p1"),
            "p2": side("p2"), "illegal": illegal}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion_api.cli", *args],
                          capture_output=True, text=True, timeout=600)


def _through_the_camera(folder: Path, seed: int, events: list[Event]) -> dict:
    """`simulate` then `track`, as a user runs them; the state `track` prints."""
    folder.mkdir(parents=True)
    dump_log(events, folder / "game.jsonl")
    made = _cli("simulate", str(folder / "game.jsonl"), "--out", str(folder / "sim"),
                "--seed", str(seed), "--fps", FPS)
    assert made.returncode == 0, made.stderr
    run = _cli("track", str(folder / "sim"), "--json", "--events", str(folder / "got.jsonl"))
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.fixture(scope="module")
def tracked(tmp_path_factory) -> dict[str, Future]:
    """Every game rendered and read, two at a time (each a process of its own), the longest
    first; a test waits for its own game only."""
    root = tmp_path_factory.mktemp("camera_games")
    pool = ThreadPoolExecutor(2)
    longest_first = sorted(GAMES, key=lambda name: -len(GAMES[name][1]))
    futures = {name: pool.submit(_through_the_camera, root / name, GAMES[name][0],
                                 GAMES[name][1]) for name in longest_first}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("name", GAMES)
def test_the_engine_replays_the_hand_log_to_the_hand_worked_state(name, tmp_path):
    _, events, want = GAMES[name]
    dump_log(events, tmp_path / "game.jsonl")
    state = replay_log(tmp_path / "game.jsonl").state().model_dump(mode="json")
    assert _reading(state) == want


@pytest.mark.parametrize("name", GAMES)
def test_the_camera_reads_the_hand_worked_state(name, tracked):
    state = tracked[name].result()
    assert _reading(state) == GAMES[name][2]
