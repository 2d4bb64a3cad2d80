"""What a hero file holds, as values: abilities made of effects, and the hooks that fire them.

An `Ability` is a hero power, a spell, a secret, a weapon, the ♠ ability, a token or a totem.
Its `effects` resolve when it is used; each hook of `HOOKS` (battlecry, deathrattle, on_*)
holds effects that resolve at one moment of the game. The words an effect may name are
`tracker.rules.effects.WORDS`, its selectors and conditions `tracker.rules.selectors`; the loader
(`tracker.rules.heroes`) checks every file against them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from cards import JOKER

MINION_KINDS = frozenset({"spade", "token", "totem"})  # abilities that are minions


@dataclass(frozen=True)
class Hook:
    """A moment of the game at which an ability's own effects resolve."""

    text: str  # when, in docs/heroes.md's words
    carriers: frozenset[str]  # the kinds of ability that may have it


HOOKS: dict[str, Hook] = {
    "battlecry": Hook("effects when played from hand", frozenset({"spade", "weapon"})),
    "deathrattle": Hook("effects after it is destroyed", MINION_KINDS | {"weapon"}),
    "on_friendly_spell": Hook("effects whenever its owner casts a spell",
                              MINION_KINDS | {"weapon"}),
    "on_friendly_summon": Hook("effects after its owner summons a minion (`to = \"trigger\"` "
                               "is the minion)", MINION_KINDS | {"weapon"}),
    "on_end_of_turn": Hook("effects at the end of its owner's turn", MINION_KINDS | {"weapon"}),
}


@dataclass(frozen=True)
class Effect:
    word: str
    params: dict[str, Any]  # every parameter of the word, defaults filled in by the loader
    condition: str | None = None  # "combo", "!combo", … (a leading ! means unless)
    choice: int | None = None


@dataclass(frozen=True)
class Targeting:
    kind: str | None = None  # what the player chooses; None: no chosen target
    count: int | str = 1  # a number of distinct targets, or "split" (one a point)
    only_if: str | None = None  # the target is wanted only under this condition
    max_attack: int | None = None
    min_attack: int | None = None


@dataclass(frozen=True)
class Ability:
    """A hero power, a spell, a secret, a weapon, the ♠ ability, a token or a totem."""

    name: str
    kind: str  # power | spell | secret | weapon | spade | token | totem | none
    text: str = ""
    targeting: Targeting = Targeting()
    effects: tuple[Effect, ...] = ()
    choose_one: bool = False
    trigger: str | None = None  # secrets: when they may be revealed (tracker.rules.secrets)
    trigger_target: str | None = None
    attack: int = 0
    health: int = 0  # minions; durability for weapons
    keywords: frozenset[str] = frozenset()
    tribe: str | None = None
    spell_damage: int = 0
    pack_attack: int = 0
    hooks: Mapping[str, tuple[Effect, ...]] = field(default_factory=dict, hash=False)

    def hook(self, name: str) -> tuple[Effect, ...]:
        """The effects of one of `HOOKS` (none if the ability does not have it)."""
        if name not in HOOKS:
            raise KeyError(f"{name!r} is not a hook")
        return self.hooks.get(name, ())

    def effect_lists(self) -> Iterator[tuple[str, tuple[Effect, ...]]]:
        """("effects", …) then each hook it has: every effect the ability can resolve."""
        yield "effects", self.effects
        yield from self.hooks.items()


NO_ABILITY = Ability(name="", kind="none")
COIN = Ability(name="The Coin", kind="spell", text="Gain 1 mana this turn.",
               effects=(Effect("gain_mana", {"amount": 1}),))


@dataclass(frozen=True)
class Hero:
    key: str  # the file's stem: jaina, rexxar, …
    name: str  # Jaina Proudmoore
    hero_class: str  # mage
    power: Ability
    spade: Ability
    ranks: dict[str, Ability]  # J Q K A -> spell or weapon; secrets are in `secrets`
    secrets: dict[str, Ability] = field(default_factory=dict)  # suit -> secret
    secret_rank: str | None = None
    tokens: dict[str, Ability] = field(default_factory=dict)
    totems: dict[str, Ability] = field(default_factory=dict)  # suit -> totem

    def spell(self, rank: str, suit: str) -> Ability:
        return self.secrets[suit] if rank == self.secret_rank else self.ranks[rank]

    def is_secret(self, card: str) -> bool:
        """`card` (an id, the joker too) is one of this hero's secrets."""
        return card != JOKER and self.secret_rank is not None and card[:-1] == self.secret_rank

    def abilities(self) -> Iterator[tuple[str, Ability]]:
        """Every ability of the hero, each with where it stands in the hero file."""
        yield "power", self.power
        yield "spade", self.spade
        for rank, ability in self.ranks.items():
            yield rank, ability
        for suit, ability in self.secrets.items():
            yield f"{self.secret_rank}.{suit}", ability
        for name, ability in self.tokens.items():
            yield f"tokens.{name}", ability
        for suit, ability in self.totems.items():
            yield f"totems.{suit}", ability
