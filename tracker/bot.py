"""A simple bot that plays whole legal games on a simulated deck.

It knows every card (the deck order is given), lists the events the rules allow the active
player, picks one at random and answers the opponent's secrets when they are due. It is
what the property tests, the benchmark and the demo game are made with.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

from cards import DECK, JOKER

from .engine import Game, other
from .events import Attack, EndTurn, Event, HeroPower, Mulligan, NewGame, Play
from .heroes import Ability
from .secrets import reveals_after, reveals_before


def _characters(game: Game) -> list[str]:
    return [p for p in game.sides] + [m.id for s in game.sides.values() for m in s.minions]


def _target_options(game: Game, player: str, ability: Ability,
                    rng: random.Random) -> list[str | list[str] | None]:
    rule = ability.targeting
    if rule.kind is None:
        return [None]
    everyone = _characters(game)
    if rule.count == "split":
        enemies = [c for c in everyone if game.owner(game.find(c)) != player]
        points = game._split_points(player, ability)
        spread = [rng.choice(enemies) for _ in range(points)]
        return [[c] * points for c in enemies] + [spread]
    if rule.count == 1:
        return [None, *everyone] if rule.only_if else everyone
    return [list(pair) for pair in itertools.combinations(everyone, rule.count)]


def legal_moves(game: Game, rng: random.Random | None = None) -> list[Event]:
    """Every event the active player may make now without breaking a rule (split damage
    and multi-target cards are sampled rather than listed in full)."""
    rng = rng or random.Random(0)
    player = game.active
    side = game.sides[player]
    moves: list[Event] = [EndTurn(source="bot")]
    for card in dict.fromkeys(c for c in side.hand if c is not None):
        ability = game.ability_of(player, card)
        choices = [1, 2] if ability.choose_one else [None]
        for target, choice in itertools.product(_target_options(game, player, ability, rng),
                                                choices):
            moves.append(Play(player=player, card=card, target=target, choice=choice,
                              source="bot"))
    power = side.hero.power
    for target in _target_options(game, player, power, rng):
        moves.append(HeroPower(player=player, target=target, source="bot"))
    attackers = [player] + [m.id for m in side.minions]
    for attacker, target in itertools.product(attackers, _characters(game)):
        moves.append(Attack(attacker=attacker, target=target, source="bot"))
    return [m for m in moves if game.is_legal(m)]


def _retarget(game: Game, move: Event) -> Event | None:
    """After the opponent's "when" secrets: drop an attack whose attacker is gone, and send
    one at the minion a secret put in its way (Noble Sacrifice's Defender)."""
    if isinstance(move, Attack) and game.new_targets:
        move = Attack(attacker=move.attacker, target=min(game.new_targets), source="bot")
    return move if game.is_legal(move) else None


def play_turn_event(game: Game, move: Event) -> Iterator[Event]:
    """Apply `move` with the secrets it sets off; yield every event applied, in order."""
    revealed = False
    for reveal in reveals_before(game, move):
        if game.is_legal(reveal):
            game.apply(reveal)
            revealed = True
            yield reveal
    if revealed:
        move = _retarget(game, move)
    if move is None or game.over:
        return
    before = game.copy() if game.sides[other(game.active)].secrets else game
    game.apply(move)
    yield move
    while not game.over and not isinstance(move, EndTurn):
        reveals = [r for r in reveals_after(game, move, before) if game.is_legal(r)]
        if not reveals:
            break
        game.apply(reveals[0])
        yield reveals[0]


def play_game(heroes: tuple[str, str], seed: int, max_events: int = 3000,
              end_turn_weight: float = 0.15) -> Game:
    """A whole random legal game between two heroes, reproducible from `seed`."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    game = Game()
    game.apply(NewGame(heroes={"p1": heroes[0], "p2": heroes[1]}, deck=deck, source="bot"))
    for player in ("p1", "p2"):
        kept = len(game.sides[player].hand) - game.sides[player].hand.count(JOKER)
        game.apply(Mulligan(player=player, count=rng.randint(0, kept), source="bot"))
    while not game.over and len(game.events) < max_events:
        moves = legal_moves(game, rng)
        actions = [m for m in moves if not isinstance(m, EndTurn)]
        if not actions or rng.random() < end_turn_weight:
            move: Event = EndTurn(source="bot")
        else:
            move = rng.choice(actions)
        for _ in play_turn_event(game, move):
            pass
    return game

