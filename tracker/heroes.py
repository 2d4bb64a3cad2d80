"""Hero definitions: one TOML file a hero, checked on load with errors that name the place.

A hero file is a hero power, a ♠ minion ability and the four spell ranks J Q K A, each a
few effect words (`damage`, `heal`, `armor`, `summon`, `buff` …) with target selectors and
triggers. The words are implemented once, in `tracker.effects`; docs/heroes.md lists them.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from cards import SUITS

from .cards import SPELL_RANKS

HEROES_DIR = Path(__file__).with_name("heroes")


class HeroError(ValueError):
    """An unknown hero name or a hero file that does not follow the format."""


# effect word -> the parameters it accepts (besides the common ones below)
WORDS: dict[str, set[str]] = {
    "damage": {"amount", "boost", "to"},
    "split_damage": {"amount", "boost"},
    "heal": {"amount", "boost", "to"},
    "armor": {"amount"},
    "draw": {"count"},
    "freeze": {"to"},
    "summon": {"token", "count"},
    "summon_copy": {"to"},
    "buff": {"to", "attack", "health", "marker", "this_turn"},
    "hero_attack": {"amount"},
    "destroy": {"to"},
    "bounce": {"to"},
    "transform": {"to", "into"},
    "overload": {"amount"},
    "equip": {"attack", "durability"},
    "totemic_call": set(),
    "gain_mana": {"amount"},
    "counter": set(),
    "damage_to_one": {"to"},
    "resummon": {"to"},
    "lose_durability": {"amount"},
}
COMMON = {"do", "if", "unless", "choice"}
SELECTORS = {
    "target", "self", "trigger", "friendly_hero", "enemy_hero", "all_minions",
    "all_characters", "enemy_characters", "enemy_minions", "friendly_characters",
    "friendly_minions", "other_enemy_characters",
}
CONDITIONS = {"combo", "have_beast", "target_friendly_demon", "target_died"}
TARGET_KINDS = {"character", "enemy_character", "minion", "enemy_minion", "friendly_minion"}
TRIGGER_TARGETS = {"enemy_minion", "dead_friendly_minion"}
SECRET_TRIGGERS = {
    "enemy_attacks", "enemy_attacks_hero", "enemy_minion_attacks",
    "enemy_minion_attacks_hero", "friendly_minion_attacked", "enemy_plays_minion",
    "enemy_casts_spell", "friendly_minion_dies", "friendly_hero_damaged",
}
KEYWORDS = {"taunt", "charge", "windfury", "focused_will", "stealth"}
TRIBES = {"beast", "demon"}
MARKERS = {"deck", "card", "none"}


@dataclass(frozen=True)
class Effect:
    word: str
    params: dict[str, Any]
    condition: str | None = None  # "combo", "!combo", … (a leading ! means unless)
    choice: int | None = None

    def get(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)


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
    kind: str  # power | spell | secret | weapon | spade | token | totem
    text: str = ""
    targeting: Targeting = Targeting()
    effects: tuple[Effect, ...] = ()
    choose_one: bool = False
    trigger: str | None = None  # secrets: when they may be revealed
    trigger_target: str | None = None
    attack: int = 0
    health: int = 0  # minions; durability for weapons
    keywords: frozenset[str] = frozenset()
    tribe: str | None = None
    spell_damage: int = 0
    pack_attack: int = 0
    battlecry: tuple[Effect, ...] = ()
    deathrattle: tuple[Effect, ...] = ()
    on_friendly_spell: tuple[Effect, ...] = ()
    on_friendly_summon: tuple[Effect, ...] = ()
    on_end_of_turn: tuple[Effect, ...] = ()

    def __deepcopy__(self, memo: dict) -> Ability:
        return self  # immutable: a copied game shares its definitions


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

    def __deepcopy__(self, memo: dict) -> Hero:
        return self

    def spell(self, rank: str, suit: str) -> Ability:
        return self.secrets[suit] if rank == self.secret_rank else self.ranks[rank]


class _Reader:
    """Walks one hero file, raising HeroError with the file and the key path."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, message: str) -> HeroError:
        return HeroError(f"{self.path.name}: {where}: {message}")

    def table(self, data: dict, key: str, where: str) -> dict:
        value = data.get(key)
        if not isinstance(value, dict):
            raise self.fail(where or key, f"missing table [{key}]")
        return value

    def check_keys(self, data: dict, allowed: set[str], where: str) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r} (expected one of "
                            f"{', '.join(sorted(allowed))})")

    def effects(self, items: Any, where: str) -> tuple[Effect, ...]:
        if not isinstance(items, list):
            raise self.fail(where, "must be a list of effects")
        return tuple(self.effect(item, f"{where}[{i}]") for i, item in enumerate(items))

    def effect(self, item: Any, where: str) -> Effect:
        if not isinstance(item, dict) or "do" not in item:
            raise self.fail(where, "an effect needs 'do' (the effect word)")
        word = item["do"]
        if word not in WORDS:
            raise self.fail(where, f"unknown effect word {word!r} (expected one of "
                            f"{', '.join(sorted(WORDS))})")
        self.check_keys(item, WORDS[word] | COMMON, where)
        to = item.get("to")
        if to is not None and to not in SELECTORS:
            raise self.fail(where, f"unknown selector {to!r} (expected one of "
                            f"{', '.join(sorted(SELECTORS))})")
        if "to" in WORDS[word] and to is None:
            raise self.fail(where, f"{word!r} needs 'to'")
        amount = item.get("amount", 0)
        if not (isinstance(amount, int) and amount >= 0) and amount != "health_lost":
            raise self.fail(where, "amount must be a whole number ≥ 0")
        if item.get("marker", "none") not in MARKERS:
            raise self.fail(where, f"marker must be one of {', '.join(sorted(MARKERS))}")
        if word == "buff" and item.get("marker") == "deck" and item.get("attack") != item.get(
                "health"):
            raise self.fail(where, "a deck-card marker stands for +N/+N: attack must equal health")
        condition = None
        for key, prefix in (("if", ""), ("unless", "!")):
            if key in item:
                if item[key] not in CONDITIONS:
                    raise self.fail(where, f"unknown condition {item[key]!r} (expected one of "
                                    f"{', '.join(sorted(CONDITIONS))})")
                condition = prefix + item[key]
        choice = item.get("choice")
        if choice not in (None, 1, 2):
            raise self.fail(where, "choice must be 1 or 2")
        params = {k: v for k, v in item.items() if k not in COMMON}
        return Effect(word, params, condition, choice)

    def ability(self, data: Any, kind: str, where: str) -> Ability:
        if not isinstance(data, dict):
            raise self.fail(where, "must be a table")
        allowed = {
            "name", "type", "text", "target", "targets", "target_if", "max_attack",
            "min_attack", "effects", "choose_one", "on", "trigger_target", "attack", "health",
            "durability", "keywords", "tribe", "spell_damage", "pack_attack", "battlecry",
            "deathrattle", "on_friendly_spell", "on_friendly_summon", "on_end_of_turn",
        }
        self.check_keys(data, allowed, where)
        if kind not in ("spade",) and not isinstance(data.get("name"), str):
            raise self.fail(where, "needs a 'name'")
        target = data.get("target")
        if target is not None and target not in TARGET_KINDS:
            raise self.fail(where, f"unknown target {target!r} (expected one of "
                            f"{', '.join(sorted(TARGET_KINDS))})")
        count = data.get("targets", 1)
        if count != "split" and not (isinstance(count, int) and count >= 1):
            raise self.fail(where, "targets must be a number ≥ 1 or \"split\"")
        keywords = data.get("keywords", [])
        bad = [k for k in keywords if k not in KEYWORDS]
        if bad:
            raise self.fail(where, f"unknown keyword {bad[0]!r} (expected one of "
                            f"{', '.join(sorted(KEYWORDS))})")
        if data.get("tribe") not in (None, *TRIBES):
            raise self.fail(where, f"tribe must be one of {', '.join(sorted(TRIBES))}")
        trigger = data.get("on")
        if kind == "secret" and trigger not in SECRET_TRIGGERS:
            raise self.fail(where, "a secret needs 'on', one of "
                            + ", ".join(sorted(SECRET_TRIGGERS)))
        if data.get("trigger_target") not in (None, *TRIGGER_TARGETS):
            raise self.fail(where, "trigger_target must be one of "
                            + ", ".join(sorted(TRIGGER_TARGETS)))
        ints = ("attack", "health", "durability", "spell_damage", "pack_attack")
        for key in ints:
            if key in data and not (isinstance(data[key], int) and data[key] >= 0):
                raise self.fail(where, f"{key} must be a whole number ≥ 0")
        if kind == "weapon" and not data.get("durability"):
            raise self.fail(where, "a weapon needs attack and durability ≥ 1")
        if data.get("target_if") not in (None, *CONDITIONS):
            raise self.fail(where, f"unknown condition {data['target_if']!r}")
        for key in ("max_attack", "min_attack"):
            if key in data and not isinstance(data[key], int):
                raise self.fail(where, f"{key} must be a whole number")

        def effects(key: str) -> tuple[Effect, ...]:
            return self.effects(data[key], f"{where}.{key}") if key in data else ()

        return Ability(
            name=data.get("name", ""), kind=kind, text=data.get("text", ""),
            targeting=Targeting(target, count, data.get("target_if"),
                                data.get("max_attack"), data.get("min_attack")),
            effects=effects("effects"), choose_one=bool(data.get("choose_one", False)),
            trigger=trigger, trigger_target=data.get("trigger_target"),
            attack=data.get("attack", 0),
            health=data.get("durability", data.get("health", 0)),
            keywords=frozenset(keywords), tribe=data.get("tribe"),
            spell_damage=data.get("spell_damage", 0), pack_attack=data.get("pack_attack", 0),
            battlecry=effects("battlecry"), deathrattle=effects("deathrattle"),
            on_friendly_spell=effects("on_friendly_spell"),
            on_friendly_summon=effects("on_friendly_summon"),
            on_end_of_turn=effects("on_end_of_turn"),
        )


def load_hero_file(path: Path) -> Hero:
    """Load and check one hero file; raise HeroError naming the file and the key."""
    reader = _Reader(Path(path))
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise HeroError(f"{Path(path).name}: cannot read ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise HeroError(f"{Path(path).name}: not valid TOML ({error})") from None
    reader.check_keys(data, {"hero", "class", "power", "spade", "tokens", "totems",
                             *SPELL_RANKS}, "top level")
    for key in ("hero", "class"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise reader.fail(key, f"missing the hero's {'name' if key == 'hero' else key}")
    power = reader.ability(reader.table(data, "power", ""), "power", "power")
    spade = reader.ability(reader.table(data, "spade", ""), "spade", "spade")
    ranks: dict[str, Ability] = {}
    secrets: dict[str, Ability] = {}
    secret_rank = None
    for rank in SPELL_RANKS:
        entry = reader.table(data, rank, "")
        kind = entry.get("type")
        if kind == "secret":
            if secret_rank:
                raise reader.fail(rank, f"only one rank may hold secrets ({secret_rank} does)")
            secret_rank = rank
            reader.check_keys(entry, {"type", *SUITS}, rank)
            for suit in SUITS:
                secrets[suit] = reader.ability(reader.table(entry, suit, rank), "secret",
                                               f"{rank}.{suit}")
        elif kind in ("spell", "weapon"):
            ranks[rank] = reader.ability(entry, kind, rank)
        else:
            raise reader.fail(f"{rank}.type", "must be \"spell\", \"weapon\" or \"secret\"")
    tokens = {name: reader.ability(body, "token", f"tokens.{name}")
              for name, body in data.get("tokens", {}).items()}
    totems = {}
    for suit, body in data.get("totems", {}).items():
        if suit not in SUITS:
            raise reader.fail(f"totems.{suit}", "totems are keyed by suit: S, H, D or C")
        totems[suit] = reader.ability(body, "totem", f"totems.{suit}")
    hero = Hero(Path(path).stem.lower(), data["hero"], data["class"].strip().lower(), power,
                spade, ranks, secrets, secret_rank, tokens, totems)
    _check_references(hero, reader)
    return hero


def _check_references(hero: Hero, reader: _Reader) -> None:
    abilities = [hero.power, hero.spade, *hero.ranks.values(), *hero.secrets.values(),
                 *hero.totems.values()]
    for ability in abilities:
        for effect in (*ability.effects, *ability.battlecry, *ability.deathrattle,
                       *ability.on_friendly_summon, *ability.on_end_of_turn):
            for key in ("token", "into"):
                name = effect.get(key)
                if name is not None and name not in hero.tokens:
                    raise reader.fail(ability.name or "spade",
                                      f"token {name!r} is not defined under [tokens]")
            if effect.word == "totemic_call" and len(hero.totems) != 4:
                raise reader.fail("totems", "Totemic Call needs four totems, one a suit")


def hero_dirs() -> tuple[Path, ...]:
    """The built-in heroes, then the folders in $HEARTHTOP_HEROES (separated like PATH),
    whose files add heroes or replace a built-in one of the same file name."""
    extra = os.environ.get("HEARTHTOP_HEROES", "")
    return (HEROES_DIR, *(Path(p) for p in extra.split(os.pathsep) if p))


def all_heroes(directories: tuple[Path, ...] | None = None) -> dict[str, Hero]:
    """Every hero, by each of its names (hero and class)."""
    return _load(directories or hero_dirs())


@cache
def _load(directories: tuple[Path, ...]) -> dict[str, Hero]:
    by_key: dict[str, Hero] = {}
    for directory in directories:
        if not Path(directory).is_dir():
            raise HeroError(f"hero folder {directory} does not exist")
        for path in sorted(Path(directory).glob("*.toml")):
            hero = load_hero_file(path)
            by_key[hero.key] = hero
    heroes: dict[str, Hero] = {}
    for hero in by_key.values():
        for name in dict.fromkeys((hero.key, hero.hero_class)):
            if name in heroes:
                raise HeroError(f"{hero.key}.toml: the name {name!r} is taken by "
                                f"{heroes[name].key}")
            heroes[name] = hero
    return heroes


def hero_names(directories: tuple[Path, ...] | None = None) -> list[str]:
    return sorted({h.key for h in all_heroes(directories).values()})


def get_hero(name: str, directories: tuple[Path, ...] | None = None) -> Hero:
    """A hero by hero or class name (`jaina` or `mage`), case-insensitive."""
    heroes = all_heroes(directories)
    hero = heroes.get(str(name).strip().lower())
    if hero is None:
        choices = ", ".join(sorted(heroes))
        raise HeroError(f"unknown hero {name!r} (expected one of {choices})")
    return hero
