"""Property tests: whole random games by the bot, and random illegal events.

Legal games never break an invariant and never raise an `illegal` alert; every event of a
game, replayed one by one, keeps the 53 cards accounted for; each kind of illegal event,
dropped into a random position, raises an alert.
"""

from __future__ import annotations

import os
import random
from collections import Counter

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cards import DECK, JOKER
from tracker.rules.bot import play_game
from tracker.rules.cards import parse_card
from tracker.rules.engine import EngineError, Game, other
from tracker.rules.events import (
    Attack,
    EndTurn,
    Event,
    HeroPower,
    Markers,
    Mulligan,
    Play,
    SecretRevealed,
)
from tracker.rules.heroes import hero_names
from tracker.rules.keywords import attacks_allowed
from tracker.rules.table import MAX_ARMOR, MAX_CRYSTALS, MAX_HEALTH, MAX_MINIONS

HEROES = hero_names()
games = st.tuples(st.sampled_from(HEROES), st.sampled_from(HEROES), st.integers(0, 10**6))
# HT_EXAMPLES raises the number of examples for a longer hunt (default 40 keeps CI quick).
SETTINGS = settings(max_examples=int(os.environ.get("HT_EXAMPLES", 40)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def assert_invariants(game: Game) -> None:
    state = game.state().model_dump()
    assert state["deck"] >= 0
    for side in state["players"].values():
        assert side["health"] <= MAX_HEALTH
        assert 0 <= side["armor"] <= MAX_ARMOR
        assert 0 <= side["crystals"] <= MAX_CRYSTALS
        assert side["mana"] >= 0
        assert len(side["minions"]) <= MAX_MINIONS
        for minion in side["minions"]:
            assert 0 < minion["health"] <= minion["max_health"]
        if side["weapon"]:
            assert side["weapon"]["durability"] >= 1
    ledger = game.table.ledger()
    assert sum(ledger.values()) == 53, ledger
    known = game.table.known_cards()
    duplicates = [card for card, n in Counter(known).items() if n > 1]
    assert not duplicates, f"cards in two places at once: {duplicates}"


@SETTINGS
@given(games)
def test_bot_games_keep_invariants_and_raise_no_illegal_alert(spec):
    p1, p2, seed = spec
    played = play_game((p1, p2), seed)
    assert played.over or len(played.events) >= 3000
    replayed = Game()
    for event in played.events:
        alerts = replayed.apply(event)
        assert [a.message for a in alerts if a.severity == "illegal"] == []
        assert_invariants(replayed)
    assert replayed.state() == played.state()


@SETTINGS
@given(games)
def test_games_end_by_health_or_by_the_deck(spec):
    game = play_game(spec[:2], spec[2])
    state = game.state().model_dump()
    healths = {p: s["health"] for p, s in state["players"].items()}
    assert state["over"]
    if min(healths.values()) <= 0:
        dead = [p for p, h in healths.items() if h <= 0]
        assert state["winner"] == ("draw" if len(dead) == 2 else other(dead[0]))
    else:
        assert state["deck_empty"]
        best = max(healths.values())
        leaders = [p for p, h in healths.items() if h == best]
        assert state["winner"] == ("draw" if len(leaders) == 2 else leaders[0])


# --- random illegal events -------------------------------------------------------------

def _position(spec: tuple[str, str, int], cut: float) -> Game:
    """A random position: a bot game cut after some share of its events."""
    p1, p2, seed = spec
    events = play_game((p1, p2), seed).events
    return Game.replay(events[:max(4, int(len(events) * cut))])


def _illegal_events(game: Game, rng: random.Random) -> list[tuple[str, Event]]:
    """Events that break a rule here, each with the alert code it must raise."""
    me = game.active
    them = other(me)
    side, enemy = game.sides[me], game.sides[them]
    found: list[tuple[str, Event]] = []
    on_table = [m.id for s in game.sides.values() for m in s.minions if not m.is_token]
    for card in on_table:
        found.append(("card_in_play", Play(player=me, card=card)))
    for card in [c for c in game.table.discard if c and c != JOKER]:
        found.append(("card_in_discard", Play(player=me, card=card)))
    unseen = [c for c in DECK if game.table.where(c) not in ("discard",) and
              not (game.table.where(c) or "").startswith("play")]
    dear = [c for c in unseen if parse_card(c).cost > side.mana]
    if dear:
        found.append(("not_enough_mana", Play(player=me, card=rng.choice(dear))))
    if unseen:
        found.append(("out_of_turn", Play(player=them, card=rng.choice(unseen))))
    found.append(("out_of_turn", HeroPower(player=them)))
    if side.hero_power_used:
        found.append(("hero_power_used", HeroPower(player=me)))
    elif side.mana < 2:
        found.append(("not_enough_mana", HeroPower(player=me)))
    if len(side.minions) >= MAX_MINIONS:
        minions = [c for c in unseen if parse_card(c).is_minion]
        found.append(("board_full", Play(player=me, card=rng.choice(minions))))
    for minion in side.minions:
        if game.exhausted(minion):
            found.append(("attacker_exhausted", Attack(attacker=minion.id, target=them)))
        if minion.attacks >= attacks_allowed(minion):
            found.append(("already_attacked", Attack(attacker=minion.id, target=them)))
        found.append(("invalid_target", Attack(attacker=minion.id, target=me)))
        taunts = [m for m in enemy.minions if "taunt" in m.keywords and not m.stealthed]
        if taunts:
            found.append(("taunt", Attack(attacker=minion.id, target=them)))
        for target in enemy.minions:
            if target.stealthed:
                found.append(("target_stealthed", Attack(attacker=minion.id, target=target.id)))
    for minion in enemy.minions:
        found.append(("out_of_turn", Attack(attacker=minion.id, target=me)))
    if game.attack_of(me) <= 0:
        found.append(("no_weapon", Attack(attacker=me, target=them)))
    return found


@SETTINGS
@given(games, st.floats(0.05, 1.0), st.randoms(use_true_random=False))
def test_random_illegal_events_always_raise_an_alert(spec, cut, rng):
    game = _position(spec, cut)
    assume(not game.over)
    for code, event in _illegal_events(game, rng):
        alerts = game.copy().apply(event)
        codes = [a.code for a in alerts if a.severity == "illegal"]
        assert code in codes, f"{event.to_json()} raised {codes}, expected {code}"


# --- arbitrary events: never a crash, never a card lost ----------------------------------

def _ids_in_view(game: Game) -> list[str]:
    """Card and character ids worth aiming at: what is on the table, in hands, discarded."""
    ids = ["p1", "p2", "T1", "T2", "T3"]
    ids += [m.id for s in game.sides.values() for m in s.minions]
    ids += [c for s in game.sides.values() for c in [*s.hand, *s.secrets] if c]
    ids += [s.weapon.card for s in game.sides.values() if s.weapon and s.weapon.card]
    ids += [c for c in game.table.discard if c]
    return ids


def _arbitrary_event(data: st.DataObject, game: Game) -> Event:
    ids = _ids_in_view(game)
    ident = st.one_of(st.sampled_from(ids), st.sampled_from(DECK))
    card = st.one_of(ident.filter(lambda c: c in DECK), st.just(JOKER))
    character = ident.filter(lambda c: c != JOKER)
    player = st.sampled_from(["p1", "p2"])
    target = st.one_of(st.none(), character, st.lists(character, min_size=1, max_size=5))
    return data.draw(st.one_of(
        st.builds(Play, player=player, card=card, target=target,
                  choice=st.sampled_from([None, 1, 2])),
        st.builds(Attack, attacker=character, target=character),
        st.builds(HeroPower, player=player, target=target),
        st.builds(SecretRevealed, player=player, card=ident.filter(lambda c: c in DECK),
                  target=target),
        st.builds(EndTurn),
        st.builds(Mulligan, player=player, count=st.integers(0, 5)),
        st.builds(Markers, player=player,
                  place=st.sampled_from(["armor", "weapon", "damage", "buff"]),
                  count=st.integers(0, 8), minion=st.one_of(st.none(), character)),
    ))


@SETTINGS
@given(games, st.floats(0.0, 1.0), st.data())
def test_arbitrary_events_never_crash_or_lose_a_card(spec, cut, data):
    game = _position(spec, cut)
    for _ in range(data.draw(st.integers(1, 12))):
        event = _arbitrary_event(data, game)
        try:
            game.apply(event)
        except EngineError:
            continue  # refused whole, as a one-line error: nothing applied
        ledger = game.table.ledger()
        assert sum(ledger.values()) == 53, (event.to_json(), ledger)
        known = game.table.known_cards()
        assert len(known) == len(set(known)), event.to_json()
        for side in game.state().model_dump()["players"].values():
            assert side["health"] <= MAX_HEALTH and 0 <= side["armor"] <= MAX_ARMOR
