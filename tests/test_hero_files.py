"""Hero files: the nine heroes load by hero or class; mistakes are errors naming the place."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tracker.rules import engine as engine_module
from tracker.rules import keywords as keywords_module
from tracker.rules.abilities import HOOKS
from tracker.rules.alerts import CODES
from tracker.rules.effects import PARAM_KINDS, WORDS, Word
from tracker.rules.engine import Game
from tracker.rules.events import NewGame
from tracker.rules.heroes import (
    ABILITY_KEYS,
    HEROES_DIR,
    HeroError,
    get_hero,
    hero_names,
    load_hero_file,
)
from tracker.rules.keywords import KEYWORDS
from tracker.rules.legality import TARGET_KINDS, TRIGGER_TARGETS
from tracker.rules.secrets import TRIGGERS
from tracker.rules.selectors import CONDITIONS, SELECTORS

DOCS = Path(__file__).parents[1] / "docs"
NAMES = {"jaina": "mage", "rexxar": "hunter", "garrosh": "warrior", "uther": "paladin",
         "anduin": "priest", "valeera": "rogue", "thrall": "shaman", "malfurion": "druid",
         "guldan": "warlock"}


@pytest.mark.parametrize("hero, hero_class", NAMES.items())
def test_each_hero_is_named_by_hero_or_class(hero, hero_class):
    assert get_hero(hero) is get_hero(hero_class) is get_hero(hero.upper())
    assert get_hero(hero).key == hero and get_hero(hero).hero_class == hero_class


def test_nine_heroes_each_with_power_spade_and_four_ranks():
    assert hero_names() == sorted(NAMES)
    for name in NAMES:
        hero = get_hero(name)
        assert hero.power.effects, name
        assert set(hero.ranks) | ({hero.secret_rank} if hero.secret_rank else set()) == {
            "J", "Q", "K", "A"}


def test_secret_ranks_follow_hearthstone_costs():
    assert {n: get_hero(n).secret_rank for n in ("jaina", "rexxar", "uther")} == {
        "jaina": "K", "rexxar": "Q", "uther": "J"}
    assert all(get_hero(n).secret_rank is None for n in NAMES if n not in (
        "jaina", "rexxar", "uther"))


def test_unknown_hero_lists_the_choices():
    with pytest.raises(HeroError, match=r"unknown hero 'arthas' \(expected one of anduin, "):
        get_hero("arthas")


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = (HEROES_DIR / "jaina.toml").read_text()
    assert old in text
    path = tmp_path / "jaina.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("old, new, message", [
    ('do = "damage", amount = 3', 'do = "damge", amount = 3',
     r"jaina.toml: Q.effects\[0\]: unknown effect word 'damge'"),
    ('to = "target" },\n  { do = "freeze"', 'to = "targte" },\n  { do = "freeze"',
     r"jaina.toml: Q.effects\[0\]: unknown selector 'targte'"),
    ('target = "character"\neffects = [{ do = "damage", amount = 5',
     'target = "everyone"\neffects = [{ do = "damage", amount = 5',
     r"jaina.toml: A: unknown target 'everyone'"),
    ('on = "enemy_attacks_hero"', 'on = "whenever"', r"jaina.toml: K.H: a secret needs 'on'"),
    ('class = "mage"', 'clas = "mage"', r"jaina.toml: top level: unknown key 'clas'"),
    ('amount = 5, boost', 'amount = -5, boost', r"jaina.toml: A.effects\[0\]: amount must be"),
    ('type = "spell"\ntext = "Deal 5*', 'type = "spel"\ntext = "Deal 5*',
     r'jaina.toml: A.type: must be "spell", "weapon" or "secret"'),
    ('hero = "Jaina Proudmoore"', 'hero = "Jaina', r"jaina.toml: not valid TOML"),
])
def test_hero_file_mistake_is_an_error_naming_file_and_key(tmp_path, old, new, message):
    with pytest.raises(HeroError, match=message):
        load_hero_file(_broken(tmp_path, old, new))


def test_a_group_can_play_with_its_own_hero_card(tmp_path, monkeypatch):
    # A stronger Fireball in a folder of the group's own: it replaces the built-in Jaina.
    _broken(tmp_path, "amount = 5, boost", "amount = 7, boost")
    monkeypatch.setenv("HEARTHTOP_HEROES", str(tmp_path))
    assert get_hero("mage").ranks["A"].effects[0].params["amount"] == 7
    game = Game()
    game.apply(NewGame(heroes={"p1": "mage", "p2": "warrior"}))
    assert game.sides["p1"].hero.ranks["A"].effects[0].params["amount"] == 7
    monkeypatch.delenv("HEARTHTOP_HEROES")
    assert get_hero("mage").ranks["A"].effects[0].params["amount"] == 5


def _doc_tables() -> dict[str, list[list[str]]]:
    """docs/heroes.md's tables by section heading: each row as its cells."""
    tables: dict[str, list[list[str]]] = {}
    section = ""
    for line in (DOCS / "heroes.md").read_text().splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif line.startswith("| `"):
            tables.setdefault(section, []).append([c.strip() for c in line.strip("|").split("|")])
    return tables


def _names(cell: str) -> list[str]:
    return re.findall(r"`(\w+)`", cell)


@pytest.mark.parametrize("section, registry", [
    ("Hooks", HOOKS), ("Effect words", WORDS), ("Selectors", SELECTORS),
    ("Conditions", CONDITIONS), ("Targets", TARGET_KINDS), ("Keywords", KEYWORDS),
    ("Secret triggers", TRIGGERS), ("Trigger targets", TRIGGER_TARGETS),
])
def test_docs_list_exactly_what_the_engine_implements(section, registry):
    documented = [row[0].strip("`") for row in _doc_tables()[section]]
    assert sorted(documented) == sorted(registry)


def test_docs_give_each_word_its_parameters_and_each_hook_its_carriers():
    tables = _doc_tables()
    for name, params, _ in tables["Effect words"]:
        assert set(_names(params)) - {"trigger"} == set(WORDS[name.strip("`")].params), name
    kinds = {"♠": "spade", "tokens": "token", "totems": "totem", "weapons": "weapon"}
    for name, carriers, _ in tables["Hooks"]:
        assert {kinds[c.strip()] for c in carriers.split(",")} == HOOKS[
            name.strip("`")].carriers, name
    keys = {n for row in tables["An ability"] for n in _names(row[0])}
    assert keys == ABILITY_KEYS - set(HOOKS)


def test_secret_triggers_say_when_they_are_revealed():
    for name, when, _ in _doc_tables()["Secret triggers"]:
        assert TRIGGERS[name.strip("`")].before == (when == "before"), name


def test_what_a_hero_file_may_say_is_what_the_engine_implements():
    """Each word a file may name has its own mechanics, each parameter a kind the loader
    checks; each hook is fired by the engine; each keyword has its mechanics."""
    for name, word in WORDS.items():
        assert type(word).do is not Word.do, name
        assert all(p.kind in PARAM_KINDS for p in word.params.values()), name
    engine_source = inspect.getsource(engine_module)
    for hook in HOOKS:
        assert f'"{hook}"' in engine_source, hook
    mechanics = inspect.getsource(keywords_module).split("TRIBES")[1]
    for keyword in KEYWORDS:
        assert f'"{keyword}"' in mechanics, keyword


SUMMON_IMP = '[{ do = "summon", token = "imp" }]'
SIMPLE_HERO = {  # the least a hero file holds: a power, the ♠ ability and four ranks
    "power": 'name = "Think"\neffects = [{ do = "draw" }]',
    "spade": 'name = "Plain"',
    "J": 'name = "Jab"\ntype = "spell"\neffects = [{ do = "draw" }]',
    "Q": 'name = "Quip"\ntype = "spell"\neffects = [{ do = "draw" }]',
    "K": 'name = "Kick"\ntype = "spell"\neffects = [{ do = "draw" }]',
    "A": 'name = "Axe"\ntype = "weapon"\nattack = 1\ndurability = 2',
}


def _hero_file(tmp_path: Path, **sections: str) -> Path:
    """A hero file of SIMPLE_HERO's sections, some replaced or added (`tokens_wisp` is
    [tokens.wisp], `K_H` is [K.H])."""
    tables = {**SIMPLE_HERO, **sections}
    text = 'hero = "Tester"\nclass = "tester"\n' + "".join(
        f"\n[{name.replace('_', '.', 1) if name[:2] in ('K_', 'to') else name}]\n{body}\n"
        for name, body in tables.items())
    path = tmp_path / "tester.toml"
    path.write_text(text)
    return path


# Every place an effect can stand, each naming a token that is not defined.
DANGLING = {
    "power": ("power.effects[0]", {"power": f'name = "Call"\neffects = {SUMMON_IMP}'}),
    "spade battlecry": ("spade.battlecry[0]", {"spade": f'name = "S"\nbattlecry = {SUMMON_IMP}'}),
    "spade on a friendly spell": ("spade.on_friendly_spell[0]", {
        "spade": f'name = "S"\non_friendly_spell = {SUMMON_IMP}'}),
    "spade deathrattle": ("spade.deathrattle[0]", {
        "spade": f'name = "S"\ndeathrattle = {SUMMON_IMP}'}),
    "weapon after a summon": ("A.on_friendly_summon[0]", {
        "A": f'name = "Axe"\ntype = "weapon"\nattack = 1\ndurability = 2\n'
             f'on_friendly_summon = {SUMMON_IMP}'}),
    "spell transforms": ("Q.effects[0]", {
        "Q": 'name = "Hex"\ntype = "spell"\ntarget = "minion"\n'
             'effects = [{ do = "transform", to = "target", into = "imp" }]'}),
    "secret": ("K.H.effects[0]", {
        "K": 'type = "secret"', **{f"K_{suit}": 'name = "Trap"\non = "enemy_attacks"\n'
                                                'effects = [{ do = "draw" }]' for suit in "SDC"},
        "K_H": f'name = "Trap"\non = "enemy_attacks"\neffects = {SUMMON_IMP}'}),
    "token's deathrattle": ("tokens.wisp.deathrattle[0]", {
        "tokens_wisp": f'name = "Wisp"\nattack = 1\nhealth = 1\ndeathrattle = {SUMMON_IMP}'}),
    "token's end of turn": ("tokens.wisp.on_end_of_turn[0]", {
        "tokens_wisp": f'name = "Wisp"\non_end_of_turn = {SUMMON_IMP}'}),
}


def test_the_simple_hero_file_of_these_tests_loads(tmp_path):
    assert load_hero_file(_hero_file(tmp_path)).name == "Tester"
    defined = {"tokens_imp": 'name = "Imp"\nattack = 1\nhealth = 1'}
    for _, sections in DANGLING.values():  # each place is fine once the token exists
        assert load_hero_file(_hero_file(tmp_path, **sections, **defined)).tokens["imp"]


@pytest.mark.parametrize("place", DANGLING)
def test_a_token_that_is_not_defined_is_refused_at_load_wherever_it_is_named(tmp_path, place):
    where, sections = DANGLING[place]
    with pytest.raises(HeroError, match=rf"^tester.toml: {re.escape(where)}: token 'imp' is "
                                        r"not defined under \[tokens\]$"):
        load_hero_file(_hero_file(tmp_path, **sections))


def test_a_file_nested_too_deeply_is_a_one_line_error(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(HeroError, match=r"^deep.toml: nested too deeply to be a hero file$"):
        load_hero_file(path)


def test_totemic_call_without_four_totems_is_refused_at_load(tmp_path):
    text = (HEROES_DIR / "thrall.toml").read_text()
    path = tmp_path / "thrall.toml"
    path.write_text(text.split("[totems.S]")[0])
    with pytest.raises(HeroError, match=r"thrall.toml: totems: Totemic Call needs four totems"):
        load_hero_file(path)


@pytest.mark.parametrize("effect, message", [
    ('{ do = "armor" }', r"'armor' needs 'amount'"),
    ('{ do = "draw", count = 0 }', r"count must be a whole number ≥ 1"),
    ('{ do = "heal", amount = "health_lost", to = "target" }', r"amount must be a whole"),
    ('{ do = "damage", amount = 1, boost = "yes", to = "target" }', r"boost must be true or"),
    ('{ do = "summon", token = 3 }', r"token must be the name of a token"),
])
def test_a_parameter_of_the_wrong_kind_is_refused_at_load(tmp_path, effect, message):
    text = (HEROES_DIR / "jaina.toml").read_text().replace(
        'effects = [{ do = "damage", amount = 1, to = "target" }]', f"effects = [{effect}]", 1)
    path = tmp_path / "jaina.toml"
    path.write_text(text)
    with pytest.raises(HeroError, match=rf"jaina.toml: power.effects\[0\]: {message}"):
        load_hero_file(path)


@pytest.mark.parametrize("section, message", [
    ('name = "Think"\ntarget = ["character"]\neffects = [{ do = "draw" }]',
     r"power: unknown target \['character'\]"),
    ('name = "Think"\neffects = [{ do = "draw", if = ["combo"] }]',
     r"power.effects\[0\]: unknown condition \['combo'\]"),
    ('name = "Think"\neffects = [{ do = "freeze", to = ["self"] }]',
     r"power.effects\[0\]: unknown selector \['self'\]"),
    ('name = "Think"\neffects = [{ do = "buff", to = "self", marker = [1] }]',
     r"power.effects\[0\]: marker must be one of card, deck, none"),
    ('name = "Think"\nkeywords = [["taunt"]]\neffects = [{ do = "draw" }]',
     r"power: unknown keyword \['taunt'\]"),
])
def test_a_list_where_a_name_belongs_is_a_one_line_error(tmp_path, section, message):
    with pytest.raises(HeroError, match=rf"^tester.toml: {message}"):
        load_hero_file(_hero_file(tmp_path, power=section))


def test_a_hook_on_an_ability_that_cannot_have_it_is_refused(tmp_path):
    text = (HEROES_DIR / "jaina.toml").read_text().replace(
        'name = "Fireball"', 'name = "Fireball"\nbattlecry = [{ do = "draw" }]', 1)
    path = tmp_path / "jaina.toml"
    path.write_text(text)
    with pytest.raises(HeroError, match=r"jaina.toml: A.battlecry: a spell has no battlecry"):
        load_hero_file(path)


def test_docs_list_every_alert_code():
    documented = set(re.findall(r"^\| `(\w+)` \|", (DOCS / "alerts.md").read_text(), re.M))
    assert documented == set(CODES)


def test_each_ruling_cites_tests_that_exist():
    tests = Path(__file__).parent
    defined = set(re.findall(r"^def (test_\w+)", "\n".join(
        p.read_text() for p in tests.glob("test_*.py")), re.M))
    cited = set(re.findall(r"\b(test_\w+)\b", (DOCS / "rulings.md").read_text()))
    assert cited and cited <= defined, sorted(cited - defined)
