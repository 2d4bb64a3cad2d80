"""The game state of the contract (DESIGN.md, "Game state") as pydantic models: what
`Game.state()` returns, `replay --json` prints and the server will answer with.

Field names and their order are the contract's: other people's tools read them. More fields
may be added; none renamed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .alerts import Alert

Player = Literal["p1", "p2"]


class _State(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True, serialize_by_alias=True)


class WeaponState(_State):
    card: str | None  # None: a weapon with no card (Dagger Mastery's dagger)
    name: str
    attack: int
    durability: int


class MinionState(_State):
    id: str  # the card id, or a token id T1, T2 …
    name: str
    card: str | None  # None for a token
    attack: int
    health: int  # what remains: max_health minus damage
    max_health: int
    taunt: bool
    stealth: bool
    spell_damage: int
    exhausted: bool
    frozen: bool
    attacked: bool
    damage: int  # damage markers under it


class PlayerState(_State):
    hero: str  # the hero file's name: jaina, rexxar, …
    hero_class: str = Field(alias="class")
    name: str
    health: int
    armor: int
    mana: int
    crystals: int
    overload: int  # crystals locked next turn
    overload_locked: int  # crystals locked this turn
    hand: int
    weapon: WeaponState | None
    secrets: int
    hero_power_used: bool
    attack: int
    frozen: bool
    spell_damage: int
    minions: list[MinionState]


class GameState(_State):
    turn: int
    active: Player
    phase: Literal["setup", "mulligan", "play", "over"]
    deck: int  # cards in the draw deck
    discard: int  # cards in the discard pile
    deck_empty: bool  # the end-of-deck rule has triggered this game
    over: bool
    winner: Literal["p1", "p2", "draw"] | None
    players: dict[Player, PlayerState]
    alerts: list[Alert]
