"""A simple bot that plays whole legal games on a simulated deck.

It knows every card (the deck order is given), takes the events the rules allow the active
player (`Game.legal_moves`), picks one at random and answers the opponent's secrets when
they are due (`tracker.rules.secrets`). It is what the property tests, the benchmark and the demo
game are made with.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from cards import DECK, JOKER

from .cards import other
from .engine import Game
from .events import EndTurn, Event, Mulligan, NewGame
from .intent import against_intent
from .secrets import after_reveal, reveals_after, reveals_before


def _retarget(game: Game, move: Event) -> Event | None:
    """After the opponent's "when" secrets: the move as it goes on, if it is still legal."""
    move = after_reveal(game, move)
    return move if move is not None and game.is_legal(move) else None


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
              end_turn_weight: float = 0.15, sensible: bool = False) -> Game:
    """A whole random legal game between two heroes, reproducible from `seed`. A sensible
    bot aims as people do (`tracker.rules.intent`): no Fireblast at its own face."""
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    game = Game()
    game.apply(NewGame(heroes={"p1": heroes[0], "p2": heroes[1]}, deck=deck, source="bot"))
    for player in ("p1", "p2"):
        kept = len(game.sides[player].hand) - game.sides[player].hand.count(JOKER)
        game.apply(Mulligan(player=player, count=rng.randint(0, kept), source="bot"))
    while not game.over and len(game.events) < max_events:
        moves = game.legal_moves(rng)
        actions = [m for m in moves if not isinstance(m, EndTurn)]
        if sensible:
            actions = [m for m in actions if not against_intent(game, m)] or actions
        if not actions or rng.random() < end_turn_weight:
            move: Event = EndTurn(source="bot")
        else:
            move = rng.choice(actions)
        for _ in play_turn_event(game, move):
            pass
    return game
