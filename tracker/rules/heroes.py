"""Hero files: one TOML file a hero, checked on load with errors that name the file and key.

A hero file is a hero power, a ♠ minion ability and the four spell ranks J Q K A, each a
few effect words (`damage`, `heal`, `armor`, `summon`, `buff` …) with target selectors and
triggers. Every name a file may use is checked against the registry that implements it
(`effects.WORDS`, `selectors`, `secrets.TRIGGERS`, `keywords`, `legality`, `abilities.HOOKS`,
all in `tracker.rules`), and every reference (a token, a totem) is checked at load: a file that
loads never fails in the middle of a game.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from cards import SUITS

from .abilities import HOOKS, Ability, Effect, Hero, Targeting
from .cards import SPELL_RANKS
from .effects import PARAM_KINDS, WORDS, Param, is_whole
from .keywords import KEYWORDS, TRIBES
from .legality import TARGET_KINDS, TRIGGER_TARGETS
from .secrets import TRIGGERS
from .selectors import CONDITIONS, SELECTORS

HEROES_DIR = Path(__file__).with_name("heroes")
COMMON = {"do", "if", "unless", "choice"}  # what any effect may carry besides its parameters
ABILITY_KEYS = {
    "name", "type", "text", "target", "targets", "target_if", "max_attack", "min_attack",
    "effects", "choose_one", "on", "trigger_target", "attack", "health", "durability",
    "keywords", "tribe", "spell_damage", "pack_attack", *HOOKS,
}


class HeroError(ValueError):
    """An unknown hero name or a hero file that does not follow the format."""


def _choices(names: Any) -> str:
    return ", ".join(sorted(names))


def _one_of(value: Any, names: Any) -> bool:
    """A name among `names` (a list or a table where a name should be is none of them)."""
    return isinstance(value, str) and value in names


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
                            f"{_choices(allowed)})")

    def effects(self, items: Any, where: str) -> tuple[Effect, ...]:
        if not isinstance(items, list):
            raise self.fail(where, "must be a list of effects")
        return tuple(self.effect(item, f"{where}[{i}]") for i, item in enumerate(items))

    def effect(self, item: Any, where: str) -> Effect:
        if not isinstance(item, dict) or "do" not in item:
            raise self.fail(where, "an effect needs 'do' (the effect word)")
        name = item["do"]
        word = WORDS.get(name) if isinstance(name, str) else None
        if word is None:
            raise self.fail(where, f"unknown effect word {name!r} (expected one of "
                            f"{_choices(WORDS)})")
        self.check_keys(item, set(word.params) | COMMON, where)
        params = {}
        for key, param in word.params.items():
            if key not in item:
                if param.required:
                    raise self.fail(where, f"{name!r} needs {key!r}")
                params[key] = param.default
            else:
                params[key] = self.value(item[key], key, param, where)
        problem = word.check(params)
        if problem:
            raise self.fail(where, problem)
        condition = None
        for key, prefix in (("if", ""), ("unless", "!")):
            if key in item:
                if not _one_of(item[key], CONDITIONS):
                    raise self.fail(where, f"unknown condition {item[key]!r} (expected one of "
                                    f"{_choices(CONDITIONS)})")
                condition = prefix + item[key]
        choice = item.get("choice")
        if choice not in (None, 1, 2) or isinstance(choice, bool):
            raise self.fail(where, "choice must be 1 or 2")
        return Effect(name, params, condition, choice)

    def value(self, value: Any, key: str, param: Param, where: str) -> Any:
        """One parameter's value, checked against its kind."""
        if isinstance(value, str) and value in param.names:
            return value
        test, expected = PARAM_KINDS[param.kind]
        ok = test(value)
        if param.kind == "selector" and not ok:
            raise self.fail(where, f"unknown selector {value!r} (expected one of "
                            f"{_choices(SELECTORS)})")
        if not ok:
            also = "".join(f" or {n!r}" for n in sorted(param.names))
            raise self.fail(where, f"{key} must be {expected}{also}")
        return value

    def ability(self, data: Any, kind: str, where: str) -> Ability:
        if not isinstance(data, dict):
            raise self.fail(where, "must be a table")
        self.check_keys(data, ABILITY_KEYS, where)
        if kind not in ("spade",) and not isinstance(data.get("name"), str):
            raise self.fail(where, "needs a 'name'")
        target = data.get("target")
        if target is not None and not _one_of(target, TARGET_KINDS):
            raise self.fail(where, f"unknown target {target!r} (expected one of "
                            f"{_choices(TARGET_KINDS)})")
        count = data.get("targets", 1)
        if count != "split" and not is_whole(count, 1):
            raise self.fail(where, "targets must be a number ≥ 1 or \"split\"")
        keywords = data.get("keywords", [])
        if not isinstance(keywords, list):
            raise self.fail(where, "keywords must be a list")
        bad = [k for k in keywords if not _one_of(k, KEYWORDS)]
        if bad:
            raise self.fail(where, f"unknown keyword {bad[0]!r} (expected one of "
                            f"{_choices(KEYWORDS)})")
        if data.get("tribe") not in (None, *TRIBES):
            raise self.fail(where, f"tribe must be one of {_choices(TRIBES)}")
        trigger = data.get("on")
        if kind == "secret" and not _one_of(trigger, TRIGGERS):
            raise self.fail(where, f"a secret needs 'on', one of {_choices(TRIGGERS)}")
        if data.get("trigger_target") not in (None, *TRIGGER_TARGETS):
            raise self.fail(where, f"trigger_target must be one of {_choices(TRIGGER_TARGETS)}")
        for key in ("attack", "health", "durability", "spell_damage", "pack_attack"):
            if key in data and not is_whole(data[key], 0):
                raise self.fail(where, f"{key} must be a whole number ≥ 0")
        if kind == "weapon" and not data.get("durability"):
            raise self.fail(where, "a weapon needs attack and durability ≥ 1")
        if data.get("target_if") not in (None, *CONDITIONS):
            raise self.fail(where, f"unknown condition {data['target_if']!r}")
        for key in ("max_attack", "min_attack"):
            if key in data and not (isinstance(data[key], int) and not isinstance(data[key],
                                                                                   bool)):
                raise self.fail(where, f"{key} must be a whole number")
        hooks = {}
        for hook in HOOKS:
            if hook in data:
                if kind not in HOOKS[hook].carriers:
                    raise self.fail(f"{where}.{hook}", f"a {kind} has no {hook} (only "
                                    f"{_choices(HOOKS[hook].carriers)} do)")
                hooks[hook] = self.effects(data[hook], f"{where}.{hook}")
        return Ability(
            name=data.get("name", ""), kind=kind, text=data.get("text", ""),
            targeting=Targeting(target, count, data.get("target_if"),
                                data.get("max_attack"), data.get("min_attack")),
            effects=self.effects(data["effects"], f"{where}.effects") if "effects" in data
            else (),
            choose_one=bool(data.get("choose_one", False)),
            trigger=trigger, trigger_target=data.get("trigger_target"),
            attack=data.get("attack", 0),
            health=data.get("durability", data.get("health", 0)),
            keywords=frozenset(keywords), tribe=data.get("tribe"),
            spell_damage=data.get("spell_damage", 0), pack_attack=data.get("pack_attack", 0),
            hooks=hooks,
        )

    def named_tables(self, data: dict, key: str) -> dict[str, Any]:
        section = data.get(key, {})
        if not isinstance(section, dict):
            raise self.fail(key, f"must be tables [{key}.NAME]")
        return section


def load_hero_file(path: Path) -> Hero:
    """Load and check one hero file; raise HeroError naming the file and the key."""
    reader = _Reader(Path(path))
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise HeroError(f"{Path(path).name}: cannot read ({error})") from None
    except tomllib.TOMLDecodeError as error:
        raise HeroError(f"{Path(path).name}: not valid TOML ({error})") from None
    except RecursionError:
        raise HeroError(f"{Path(path).name}: nested too deeply to be a hero file") from None
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
              for name, body in reader.named_tables(data, "tokens").items()}
    totems = {}
    for suit, body in reader.named_tables(data, "totems").items():
        if suit not in SUITS:
            raise reader.fail(f"totems.{suit}", "totems are keyed by suit: S, H, D or C")
        totems[suit] = reader.ability(body, "totem", f"totems.{suit}")
    hero = Hero(Path(path).stem.lower(), data["hero"], data["class"].strip().lower(), power,
                spade, ranks, secrets, secret_rank, tokens, totems)
    _check_references(hero, reader)
    return hero


def _check_references(hero: Hero, reader: _Reader) -> None:
    """Every token an effect names is defined, and every word finds what it needs in the
    hero (Totemic Call its four totems), in every ability and hook, tokens' own included."""
    used = set()
    for where, ability in hero.abilities():
        for key, effects in ability.effect_lists():
            for i, effect in enumerate(effects):
                used.add(effect.word)
                for name, param in WORDS[effect.word].params.items():
                    token = effect.params[name]
                    if param.kind == "token" and token not in hero.tokens:
                        raise reader.fail(f"{where}.{key}[{i}]", f"token {token!r} is not "
                                          "defined under [tokens]")
    for name in sorted(used):
        problem = WORDS[name].check_hero(hero)
        if problem:
            raise reader.fail(*problem)


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
        raise HeroError(f"unknown hero {name!r} (expected one of {_choices(heroes)})")
    return hero
