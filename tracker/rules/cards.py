"""What a card is in Hearthtop: its cost, a minion's stats, minion or spell by rank.

The ids themselves are the project's shared vocabulary (`cards`); token minions are `T1`,
`T2`, …; players are `p1` (who goes first) and `p2`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from cards import JOKER, RANKS, split_card

SPELL_RANKS = ("J", "Q", "K", "A")
PLAYERS = ("p1", "p2")

# The engine numbers a game's tokens T1, T2, … in the order they are made; a game ends when
# the deck runs out (a few dozen turns), and the server keeps at most 5,000 events a game, so
# six digits are far more than any game reaches, and an id stays a few characters long
TOKEN_DIGITS = 6
MAX_TOKEN = 10**TOKEN_DIGITS - 1  # T999999
_TOKEN = re.compile(rf"T[1-9][0-9]{{0,{TOKEN_DIGITS - 1}}}")


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


@cache  # 66 possible answers; the engine asks often
def parse_card(text: str) -> Card:
    """Parse a card id of the 52-card deck (not the joker, a back or a token), or a rank
    alone (`Q`, suit ""): a card known by its rank only."""
    return Card(text, "") if text in RANKS else Card(*split_card(text))


def by_rank(card: str) -> bool:
    """`card` is a rank alone: one of that rank's four cards, which nobody named."""
    return card in RANKS


def card_cost(card: str) -> int:
    """What playing `card` costs; The Coin (the joker) costs nothing."""
    return 0 if card == JOKER else parse_card(card).cost


def is_token_id(text: str) -> bool:
    """`T1` … `T999999` (the engine's numbering; no leading zero)."""
    return bool(_TOKEN.fullmatch(text))


def other(player: str) -> str:
    """The opponent of `player`."""
    return "p2" if player == "p1" else "p1"
