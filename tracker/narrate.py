"""Short sentences about events, for people reading a replay."""

from __future__ import annotations

from cards import JOKER

from .engine import Game
from .events import (
    Attack,
    Concede,
    EndTurn,
    Event,
    HeroPower,
    Mulligan,
    NewGame,
    Play,
    SecretRevealed,
)


def describe_event(game: Game, event: Event) -> str:
    """One line about an event that `game` has just applied."""
    prefix = f"[turn {game.turn:>2}] "
    if isinstance(event, NewGame):
        sides = game.sides
        return (f"new game: p1 {sides['p1'].hero.name} against p2 {sides['p2'].hero.name}")
    if isinstance(event, Mulligan):
        return f"{event.player} mulligans {event.count} card{'s' * (event.count != 1)}"
    if isinstance(event, Play):
        what = "The Coin" if event.card == JOKER else event.card
        name = game.ability_of(event.player, event.card).name
        extra = f" ({name})" if name and event.card != JOKER else ""
        target = f" at {', '.join(event.targets)}" if event.targets else ""
        return f"{prefix}{event.player} plays {what}{extra}{target}"
    if isinstance(event, Attack):
        return f"{prefix}{event.attacker} attacks {event.target}"
    if isinstance(event, HeroPower):
        target = f" at {', '.join(event.targets)}" if event.targets else ""
        return f"{prefix}{event.player} uses {game.sides[event.player].hero.power.name}{target}"
    if isinstance(event, SecretRevealed):
        return f"{prefix}{event.player} reveals the secret {event.card}"
    if isinstance(event, EndTurn):
        return f"{prefix}turn ends"
    if isinstance(event, Concede):
        return f"{prefix}{event.player} concedes"
    return f"{prefix}{event.type}"
