"""Hero files: the nine heroes load by hero or class; mistakes are errors naming the place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracker import heroes as hero_module
from tracker.alerts import CODES
from tracker.engine import Game
from tracker.events import NewGame
from tracker.heroes import HEROES_DIR, HeroError, get_hero, hero_names, load_hero_file

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
    assert get_hero("mage").ranks["A"].effects[0].get("amount") == 7
    game = Game()
    game.apply(NewGame(heroes={"p1": "mage", "p2": "warrior"}))
    assert game.sides["p1"].hero.ranks["A"].effects[0].get("amount") == 7
    monkeypatch.delenv("HEARTHTOP_HEROES")
    assert get_hero("mage").ranks["A"].effects[0].get("amount") == 5


def test_docs_list_every_effect_word_selector_condition_and_trigger():
    text = (DOCS / "heroes.md").read_text()
    for name in (*hero_module.WORDS, *hero_module.SELECTORS, *hero_module.CONDITIONS,
                 *hero_module.SECRET_TRIGGERS, *hero_module.KEYWORDS):
        assert f"`{name}`" in text, name


def test_docs_list_every_alert_code():
    documented = set(re.findall(r"^\| `(\w+)` \|", (DOCS / "alerts.md").read_text(), re.M))
    assert documented == set(CODES)


def test_each_ruling_cites_tests_that_exist():
    tests = Path(__file__).parent
    defined = set(re.findall(r"^def (test_\w+)", "\n".join(
        p.read_text() for p in tests.glob("test_*.py")), re.M))
    cited = set(re.findall(r"\b(test_\w+)\b", (DOCS / "rulings.md").read_text()))
    assert cited and cited <= defined, sorted(cited - defined)
