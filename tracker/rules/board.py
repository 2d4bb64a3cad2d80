"""The game as the rules' vocabulary sees it: what effect words, selectors, conditions, secret
triggers and legality checks may read of a game and do to it.

They reach a game only through `Board`, a protocol that `tracker.rules.engine.Game` fulfils, so
the vocabulary is written once, apart from the engine, and imports nothing of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .abilities import Ability
from .table import Minion, Side, Table

Character = Minion | str  # a minion, or a player id for a hero


class EngineError(ValueError):
    """An event the engine cannot apply at all (not a rule broken: a log that makes no sense)."""


@dataclass
class Context:
    """What an ability resolves against."""

    player: str  # whose ability it is
    ability: Ability
    card: str | None = None  # the card played, for spells that mark with themselves
    targets: list[str] = field(default_factory=list)
    trigger: str | None = None  # the minion a trigger or secret is about
    self_id: str | None = None  # the minion whose ability this is
    revealed: list[str] | None = None  # cards the event says were turned over
    choice: int | None = None
    combo: bool = False
    card_marks: bool = False  # set when the played card went under a minion


class Board(Protocol):
    """A game in play, as the vocabulary reaches it."""

    table: Table
    turn: int
    active: str  # whose turn it is
    phase: str  # setup | mulligan | play | over
    this_turn: set[str]  # one-turn states words set and read; cleared at cleanup
    dead: dict[str, Minion]  # the minions that died this turn, by id
    new_targets: set[str]  # minions a "when" secret put in an attack's way

    @property
    def sides(self) -> dict[str, Side]: ...

    # --- reading ---
    def find(self, ident: str) -> Character | None: ...
    def owner(self, ref: Character) -> str: ...
    def ability_of(self, player: str, card: str) -> Ability: ...
    def secret_of(self, player: str, card: str) -> Ability | None: ...
    def spell_damage(self, player: str) -> int: ...
    def attack_of(self, ref: Character) -> int: ...
    def frozen(self, ref: Character) -> bool: ...
    def exhausted(self, minion: Minion) -> bool: ...

    # --- changing ---
    def damage(self, ref: Character, amount: int) -> None: ...
    def heal(self, ref: Character, amount: int) -> None: ...
    def freeze(self, ref: Character) -> None: ...
    def new_minion(self, player: str, ability: Ability, *, card: str | None,
                   suit: str | None, totem_suit: str | None = None) -> Minion: ...
    def summon(self, minion: Minion) -> None: ...
    def summon_token(self, player: str, token: Ability) -> Minion | None: ...
    def bounce(self, minion: Minion) -> None: ...
    def transform(self, minion: Minion, token: Ability) -> None: ...
    def equip(self, player: str, ability: Ability, card: str | None) -> None: ...
    def lose_durability(self, player: str, amount: int) -> None: ...
