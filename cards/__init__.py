"""Card ids: the one vocabulary of cards that every part of the project shares.

A card id is rank + suit (`2S` … `10S`, `JS`, `QS`, `KS`, `AS`; suits S H D C), `JK` for the
joker and `BACK` for a face-down card (DESIGN.md, "Card ids"). A card known by its rank
alone (`Q`: a spell that is one card in every suit, told without its suit) is its rank: it
is one of that rank's four cards, never a particular one. Names only: what a card does in
the game is the tracker's (`tracker.rules.cards`), what it looks like is vision's.
"""

from __future__ import annotations

SUITS = ("S", "H", "D", "C")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER = "JK"
BACK = "BACK"
DECK = tuple(rank + suit for suit in SUITS for rank in RANKS)  # the 52 faces, jokers out


class CardError(ValueError):
    """A string that is not a card id."""


def check_card_id(text: object, *, allow_joker: bool = True, allow_rank: bool = False) -> str:
    """Return `text` if it names a physical card (with `allow_rank`, or a rank alone), else
    raise CardError with a clear message."""
    if not isinstance(text, str) or not (text in DECK or (allow_joker and text == JOKER)
                                         or (allow_rank and text in RANKS)):
        alone = ", or a spell's rank alone, Q" if allow_rank else ""
        raise CardError(f"{text!r} is not a card id (expected e.g. 7H, 10S, QD, JK{alone})")
    return text


def split_card(card: str) -> tuple[str, str]:
    """(rank, suit) of one of the 52 faces: `10H` -> ("10", "H")."""
    check_card_id(card, allow_joker=False)
    return card[:-1], card[-1]
