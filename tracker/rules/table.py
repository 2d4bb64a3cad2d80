"""The physical table: where each of the 53 cards lies, and the characters they make up.

Every card is a slot: its id where the engine knows it, `None` where it does not (a card in
a hand or a face-down marker whose face nobody has seen). Markers leave the top of the
draw deck and come back to its bottom, so the ledger always adds up to 53. `EXTERNAL` is
a stand-in marker the rulebook allows once the deck is empty; it is not one of the 53.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any

from cards import JOKER

from .abilities import Ability, Hero
from .cards import by_rank

Slot = str | None
EXTERNAL = "EXTERNAL"
MAX_HEALTH = 20
MAX_ARMOR = 5
MAX_CRYSTALS = 6
MAX_MINIONS = 5
MAX_HAND = 10
HERO_POWER_COST = 2


def _clone(item: object) -> Any:
    """A shallow copy, several times faster than copy.copy: snapshots are taken per event."""
    clone = object.__new__(type(item))
    clone.__dict__ = item.__dict__.copy()
    return clone


@dataclass
class Minion:
    id: str  # the card id, or a token id T1, T2 …
    owner: str
    name: str
    base_attack: int
    base_health: int
    card: str | None = None  # the card that is the minion; None for a token
    stack: list[Slot] = field(default_factory=list)  # a token's face-down cards
    suit: str | None = None  # suit of a card minion (its ability); None for tokens
    ability: Ability | None = None  # ♠ ability, token or totem definition
    keywords: frozenset[str] = frozenset()
    tribe: str | None = None
    spell_damage: int = 0
    totem_suit: str | None = None
    damage: list[Slot] = field(default_factory=list)  # face-down sideways markers
    buffs: list[Slot] = field(default_factory=list)  # face-down upright markers, +1/+1 each
    face_up: list[tuple[str, int, int]] = field(default_factory=list)  # (card, +atk, +hp)
    temp_attack: int = 0
    entered: int = 0  # order of entry: deathrattles resolve in it
    entered_turn: int = 0
    attacks: int = 0
    frozen_until: int = -1
    stealthed: bool = False
    pending: int = 0  # damage dealt by the effect being resolved, not yet marked
    destroyed: bool = False

    @property
    def is_token(self) -> bool:
        return self.card is None

    @property
    def max_health(self) -> int:
        return self.base_health + len(self.buffs) + sum(hp for _, _, hp in self.face_up)

    @property
    def health(self) -> int:
        return self.max_health - len(self.damage)

    @property
    def doomed(self) -> bool:
        """Destroyed, or damaged to 0 Health, by the effect being resolved."""
        return self.destroyed or len(self.damage) + self.pending >= self.max_health

    def copy(self) -> Minion:
        clone = _clone(self)
        clone.stack, clone.damage = list(self.stack), list(self.damage)
        clone.buffs, clone.face_up = list(self.buffs), list(self.face_up)
        return clone


@dataclass
class Weapon:
    name: str
    attack: int
    card: str | None  # None: Dagger Mastery's dagger has no card
    durability: list[Slot] = field(default_factory=list)  # face-down sideways markers
    ability: Ability | None = None

    def copy(self) -> Weapon:
        clone = _clone(self)
        clone.durability = list(self.durability)
        return clone


@dataclass
class Side:
    """One player's hero and half of the table."""

    hero: Hero
    health: int = MAX_HEALTH
    armor: list[Slot] = field(default_factory=list)
    crystals: int = 0
    mana: int = 0
    overload: int = 0  # locks this many crystals next turn
    locked: int = 0  # crystals locked this turn by last turn's overload
    hand: list[Slot] = field(default_factory=list)
    weapon: Weapon | None = None
    secrets: list[str] = field(default_factory=list)
    minions: list[Minion] = field(default_factory=list)
    hero_power_used: bool = False
    temp_attack: int = 0
    attacks: int = 0
    frozen_until: int = -1
    cards_played: int = 0  # this turn, for Combo
    health_lost: int = 0  # by the last damage to this hero, for Eye for an Eye
    mulliganed: bool = False

    def copy(self) -> Side:
        clone = _clone(self)
        clone.armor, clone.hand, clone.secrets = list(self.armor), list(self.hand), list(
            self.secrets)
        clone.weapon = self.weapon and self.weapon.copy()
        clone.minions = [minion.copy() for minion in self.minions]
        return clone


class Table:
    """The draw deck, the discard pile, the cards set aside and both sides."""

    def __init__(self, heroes: dict[str, Hero], deck: list[str] | None) -> None:
        self.known_order = deck is not None
        self.deck: deque[Slot] = deque(deck if deck is not None else [None] * 52)
        self.discard: list[Slot] = []
        self.set_aside: list[Slot] = []  # mulliganed cards, until play begins
        self.sides = {player: Side(hero) for player, hero in heroes.items()}
        self.deck_empty = False  # a draw or a marking found the deck empty this game

    def copy(self) -> Table:
        """An independent table; hero and ability definitions are shared (immutable)."""
        clone = _clone(self)
        clone.deck = deque(self.deck)
        clone.discard = list(self.discard)
        clone.set_aside = list(self.set_aside)
        clone.sides = {player: side.copy() for player, side in self.sides.items()}
        return clone

    # --- the draw deck -------------------------------------------------------------
    def take_marker(self) -> Slot:
        """The top card for a marking; on an empty deck a stand-in, and the game will end."""
        if not self.deck:
            self.deck_empty = True
            return EXTERNAL
        return self.deck.popleft()

    def to_bottom(self, cards: list[Slot]) -> None:
        """Face-down markers go back to the bottom of the draw deck; stand-ins vanish."""
        self.deck.extend(c for c in cards if c != EXTERNAL)

    def shuffle_in(self, cards: list[Slot]) -> None:
        """Shuffle cards into the deck. With a simulated order they go to the bottom;
        otherwise the deck's order is no longer known, so its card ids are forgotten."""
        self.deck.extend(cards)
        if not self.known_order:
            self.deck = deque([None] * len(self.deck))

    def draw(self, player: str) -> bool:
        """Draw the top card; on an empty deck nothing is drawn and the game will end."""
        if not self.deck:
            self.deck_empty = True
            return False
        self.sides[player].hand.append(self.deck.popleft())
        return True

    # --- finding physical cards ------------------------------------------------------
    def _containers(self) -> Iterator[tuple[str, MutableSequence[Slot]]]:
        """Every pile of slots on the table, named by kind and owner."""
        yield "deck", self.deck
        yield "discard", self.discard
        yield "set_aside", self.set_aside
        for player, side in self.sides.items():
            yield f"hand:{player}", side.hand
            yield f"marker:{player}", side.armor
            if side.weapon:
                yield f"marker:{player}", side.weapon.durability
            for m in side.minions:
                yield f"marker:{player}", m.stack
                yield f"marker:{player}", m.damage
                yield f"marker:{player}", m.buffs

    def _in_play(self, player: str) -> list[str]:
        """The face-up cards of a side: secrets, weapon, minions and the spells under them."""
        side = self.sides[player]
        cards = list(side.secrets)
        if side.weapon and side.weapon.card:
            cards.append(side.weapon.card)
        for m in side.minions:
            cards += [m.card] if m.card else []
            cards += [c for c, _, _ in m.face_up]
        return cards

    def _places(self) -> Iterator[tuple[str, Sequence[Slot]]]:
        """Every place a card can lie: the piles, then each side's face-up cards."""
        yield from self._containers()
        for player in self.sides:
            yield f"play:{player}", self._in_play(player)

    def where(self, card: str) -> str | None:
        """Which place holds `card`: deck, discard, set_aside, hand:P, play:P or marker:P.
        None for a rank alone: it is one of its rank's cards not seen yet."""
        if by_rank(card):
            return None
        for player in self.sides:
            if card in self._in_play(player):
                return f"play:{player}"
        for place, cards in self._containers():
            if card in cards:
                return place
        return None

    def told_by_rank(self, rank: str) -> bool:
        """Whether a card of `rank` lies told by its rank alone: such a card is played, so
        it lies on the pile or face up in play (a weapon, a spell under a minion)."""
        return rank in self.discard or any(rank in self._in_play(p) for p in self.sides)

    def of_rank(self, rank: str, *, hand: str | None = None) -> tuple[list[str], int]:
        """The cards of `rank` whose place is known, and how many of it lie told by their
        rank alone (on the pile, in play): together at most four. `hand`: a player whose
        hand is left out (the card they play may be one of it)."""
        named, alone = [], 0
        for place, cards in self._places():
            for card in cards:
                if card == rank:
                    alone += 1
                elif card and card not in (JOKER, EXTERNAL) and card[:-1] == rank and \
                        place != f"hand:{hand}":
                    named.append(card)
        return named, alone

    def pull(self, card: Slot, substitute: Slot | object = None, *, keep: bool = False) -> bool:
        """Take `card` (an id, or None for an unseen card) out of the first pile holding it,
        own piles being searched in the order of `_containers`. With keep=True the slot is
        refilled with `substitute`, so the pile keeps its size. False if nowhere."""
        for _, cards in self._containers():
            if card in cards:
                index = list(cards).index(card)
                if keep:
                    cards[index] = substitute
                else:
                    del cards[index]
                return True
        return False

    def ledger(self) -> dict[str, int]:
        """How many of the 53 physical cards lie where: the shared piles, and each player's
        hand and table (stand-in markers not counted)."""
        counts: dict[str, int] = {}
        for place, cards in self._places():
            owner = place.partition(":")[2] or place
            counts[owner] = counts.get(owner, 0) + sum(1 for c in cards if c != EXTERNAL)
        return counts

    def known_cards(self) -> list[str]:
        return [c for _, cards in self._places() for c in cards
                if c is not None and c != EXTERNAL]
