"""When a secret on the table is due: the reveals an event calls for.

A secret resolves when its owner reveals it (`secret_revealed`). The log puts a "when"
secret just before the event it answers and an "after" secret just after it. This module
says which secrets an event sets off, from the trigger each hero file names. The bot uses it
to play whole games; the tracker will use it to ask the players about a secret that should
have gone off but was not turned over.
"""

from __future__ import annotations

from cards import JOKER

from .cards import parse_card
from .engine import Game, other
from .events import Attack, Event, Play, SecretRevealed
from .table import Minion

BEFORE = {"enemy_attacks", "enemy_attacks_hero", "enemy_minion_attacks",
          "enemy_minion_attacks_hero", "friendly_minion_attacked", "enemy_casts_spell"}


def _is_spell(game: Game, event: Play) -> bool:
    if event.card == JOKER:
        return True
    card = parse_card(event.card)
    return not card.is_minion and game.ability_of(event.player, event.card).kind != "weapon"


def _fires_before(game: Game, trigger: str, owner: str, event: Event) -> bool:
    if isinstance(event, Attack):
        attacker, target = game.find(event.attacker), game.find(event.target)
        if attacker is None or target is None or game.owner(attacker) != other(owner):
            return False
        by_minion = isinstance(attacker, Minion)
        at_hero = target == owner
        return {
            "enemy_attacks": game.owner(target) == owner,
            "enemy_attacks_hero": at_hero,
            "enemy_minion_attacks": by_minion and game.owner(target) == owner,
            "enemy_minion_attacks_hero": by_minion and at_hero,
            "friendly_minion_attacked": isinstance(target, Minion) and target.owner == owner,
        }.get(trigger, False)
    if isinstance(event, Play) and trigger == "enemy_casts_spell":
        return event.player == other(owner) and _is_spell(game, event)
    return False


def reveals_before(game: Game, event: Event) -> list[SecretRevealed]:
    """The "when" secrets of the player not acting that `event` sets off, oldest first."""
    owner = other(game.active)
    side = game.sides[owner]
    found = []
    for card in side.secrets:
        secret = game.secret_of(owner, card)
        if secret and secret.trigger in BEFORE and _fires_before(game, secret.trigger, owner,
                                                                 event):
            if game.no_room_for(owner, secret):
                continue
            target = event.attacker if isinstance(event, Attack) and secret.trigger_target \
                else None
            found.append(SecretRevealed(player=owner, card=card, target=target, source="bot"))
    return found


def reveals_after(game: Game, event: Event, before: Game) -> list[SecretRevealed]:
    """The "after" secrets that `event`, just applied to `game`, sets off (`before` is the
    game as it was before the event)."""
    owner = other(game.active)
    side = game.sides[owner]
    found = []
    for card in side.secrets:
        secret = game.secret_of(owner, card)
        if secret is None or secret.trigger in BEFORE:
            continue
        target = None
        if secret.trigger == "enemy_plays_minion":
            if isinstance(event, Play) and event.player == other(owner) and \
                    event.card != JOKER and parse_card(event.card).is_minion and \
                    isinstance(game.find(event.card), Minion):
                target = event.card
        elif secret.trigger == "friendly_minion_dies":
            target = next((m for m in game.died_this_turn(owner)
                           if m not in before.died_this_turn(owner)), None)
        elif secret.trigger == "friendly_hero_damaged":
            lost = before.sides[owner].health - game.sides[owner].health
            target = "" if lost > 0 and game.sides[owner].health > 0 else None
        if target is not None:
            found.append(SecretRevealed(player=owner, card=card, target=target or None,
                                        source="bot"))
            break  # one at a time: the next may no longer apply
    return found
