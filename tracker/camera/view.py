"""The table as a camera can see it, in the rules' terms: which face-up card lies where, and
how many face-down cards mark what. No pixels here.

`expected_view(game)` is what the rules say the table shows now (from the engine's ledger
of the 53 cards): the simulator draws it, and the reconciler compares the camera's view
with the view each candidate event would leave. The physical conventions behind it are in
`docs/table.md`:

- a minion is its face-up card in its owner's minion row, left to right in the order they
  entered (a token: a face-down upright stack, one card a point of size; a totem: the
  revealed card); damage markers lie sideways under it, +1/+1 markers upright under it, a
  spell that buffs it face up under it;
- a weapon lies face up beside the hero (Dagger Mastery's dagger: its durability markers
  alone), its durability as sideways markers under it;
- armor: face-down cards beside the hero; secrets: face-down cards in the secrets zone;
- the hero card is turned sideways when its hero power is used, and upright again as its
  owner's next turn begins;
- the draw deck and the discard pile (top card face up) are shared.

Hero health, mana and the hands are never on the table: they are computed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from tracker.rules.cards import PLAYERS

UNNAMED = "?"  # in a camera's view: a face-up card seen where no one could name it
TOKEN = "token"  # an attacker hint: a face-down stack slid forward (one of the tokens)


@dataclass(frozen=True)
class Hints:
    """What the camera saw between two stable views that the second one no longer shows:
    the characters that slid into their attack zone (an attack), and the cards turned over
    one by one (Totemic Call's reveals), in order."""

    attackers: tuple[str, ...] = ()
    revealed: tuple[str, ...] = ()


NO_HINTS = Hints()


@dataclass(frozen=True)
class MinionView:
    id: str  # the card id, or the engine's token id (T1 …), which no camera can read
    card: str | None  # the face-up card (UNNAMED: not read); None for a token's stack
    stack: int = 0  # face-down cards of a token's stack (0 in a camera's view: not counted)
    damage: int = 0  # face-down sideways markers under it
    buffs: int = 0  # face-down upright markers under it
    spells: tuple[str, ...] = ()  # face-up buff spells under it
    attacking: bool = False  # slid into the attack zone (only while it attacks)


@dataclass(frozen=True)
class SideView:
    minions: tuple[MinionView, ...] = ()
    weapon: str | None = None  # the weapon's card; None with no weapon or a cardless one
    durability: int = 0  # face-down sideways markers in the weapon zone
    armor: int = 0  # face-down cards beside the hero
    secrets: int = 0  # face-down cards in the secrets zone
    power_used: bool | None = False  # the hero card turned sideways (None: not seen)

    def minion(self, ident: str) -> MinionView | None:
        return next((m for m in self.minions if m.id == ident), None)


@dataclass(frozen=True)
class TableView:
    sides: dict[str, SideView]
    deck: int  # cards in the draw deck (the camera sees a pile, not a count)
    # bottom to top, None where no one saw the card (a hand's overflow); the camera sees the top
    discard: tuple[str | None, ...] = ()

    @property
    def discard_top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    def face_up(self) -> dict[str, str]:
        """Every face-up card on the table and where it lies: `minion:P`, `spell:P` (under a
        minion), `weapon:P` or `discard` (the top card only: the rest are hidden)."""
        seen = {}
        for player, side in self.sides.items():
            for minion in side.minions:
                if minion.card and minion.card != UNNAMED:
                    seen[minion.card] = f"minion:{player}"
                seen.update({card: f"spell:{player}" for card in minion.spells
                             if card != UNNAMED})
            if side.weapon:
                seen[side.weapon] = f"weapon:{player}"
        if self.discard_top:
            seen[self.discard_top] = "discard"
        return seen


def expected_view(game) -> TableView:
    """What the rules say the table shows after the events `game` has applied."""
    table = game.table
    if table is None:
        return TableView(sides={p: SideView() for p in PLAYERS}, deck=52)
    sides = {}
    for player, side in table.sides.items():
        minions = tuple(
            MinionView(id=m.id, card=m.card, stack=len(m.stack), damage=len(m.damage),
                       buffs=len(m.buffs), spells=tuple(card for card, _, _ in m.face_up))
            for m in side.minions)
        weapon = side.weapon
        sides[player] = SideView(
            minions=minions, weapon=weapon.card if weapon else None,
            durability=len(weapon.durability) if weapon else 0, armor=len(side.armor),
            secrets=len(side.secrets), power_used=side.hero_power_used)
    return TableView(sides=sides, deck=len(table.deck), discard=tuple(table.discard))


def renamed(view: TableView, hints: Hints, names: Mapping[str, str]) -> tuple[TableView, Hints]:
    """The view and hints with each card the camera reads as a key of `names` named as its
    value: a card the players named by hand that the recogniser keeps misreading."""
    def name(card: str | None) -> str | None:
        return names.get(card, card) if card else card

    sides = {player: replace(side, weapon=name(side.weapon), minions=tuple(
        replace(m, id=name(m.id) if m.card else m.id, card=name(m.card),
                spells=tuple(name(c) for c in m.spells)) for m in side.minions))
        for player, side in view.sides.items()}
    return (replace(view, sides=sides, discard=tuple(name(c) for c in view.discard)),
            Hints(attackers=tuple(name(a) for a in hints.attackers),
                  revealed=tuple(name(c) for c in hints.revealed)))
