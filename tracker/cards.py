"""Card ids and what the rank of a card means in Hearthtop.

A card id is rank + suit (`2S` … `10S`, `JS`, `QS`, `KS`, `AS`; suits S H D C), `JK` for
the joker (The Coin) and `BACK` for a face-down card. Token minions are `T1`, `T2`, ….
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

SUITS = ("S", "H", "D", "C")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SPELL_RANKS = ("J", "Q", "K", "A")
JOKER = "JK"
BACK = "BACK"
PLAYERS = ("p1", "p2")

DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)  # the 52 cards, jokers out
ALL_CARDS = (*DECK, JOKER)  # the 53 physical cards of a game

_TOKEN = re.compile(r"T[1-9][0-9]*")


class CardError(ValueError):
    """A string that is not a card id."""


@dataclass(frozen=True, slots=True)
class Card:
    rank: str
    suit: str

    @property
    def id(self) -> str:
        return self.rank + self.suit

    @property
    def is_minion(self) -> bool:
        return self.rank not in SPELL_RANKS

    @property
    def cost(self) -> int:
        """Mana cost: 2-5 cost their value, 6-10 cost value - 5, J Q K A cost 1 2 3 4."""
        if self.rank in SPELL_RANKS:
            return SPELL_RANKS.index(self.rank) + 1
        value = int(self.rank)
        return value if value <= 5 else value - 5

    @property
    def stats(self) -> int:
        """Attack = health of a minion card (equal to its cost)."""
        return self.cost


@cache  # 53 possible answers; the engine asks often
def parse_card(text: str) -> Card:
    """Parse a card id of the 52-card deck (not the joker, a back or a token)."""
    if not isinstance(text, str) or len(text) < 2:
        raise CardError(f"{text!r} is not a card id")
    rank, suit = text[:-1], text[-1]
    if rank not in RANKS or suit not in SUITS:
        raise CardError(f"{text!r} is not a card id (expected e.g. 7H, 10S, QD, JK)")
    return Card(rank, suit)


def is_card_id(text: str) -> bool:
    return text == JOKER or text in DECK


def is_token_id(text: str) -> bool:
    return bool(_TOKEN.fullmatch(text))


def check_card_id(text: object, *, allow_joker: bool = True) -> str:
    """Return `text` if it names a physical card, else raise CardError with a clear message."""
    if not isinstance(text, str) or not (text in DECK or (allow_joker and text == JOKER)):
        raise CardError(f"{text!r} is not a card id (expected e.g. 7H, 10S, QD, JK)")
    return text
