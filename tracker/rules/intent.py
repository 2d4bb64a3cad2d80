"""What a targeted card or hero power means to do, as people play them: a hostile effect at
an enemy, a kind one at a friend who can use it.

The bot plays this way when it plays like a person (`play_game(..., sensible=True)`), and the
reconciler takes the likelier of explanations that the camera cannot tell apart (Fireblast
at one hero or the other: hero health is never on the table).
"""

from __future__ import annotations

from .abilities import Ability
from .board import Board
from .events import Attack, Event
from .table import Minion

HOSTILE = frozenset({"damage", "damage_to_one", "destroy", "freeze", "transform", "bounce",
                     "split_damage", "lose_durability"})
KIND = frozenset({"heal", "buff"})


def _ability(board: Board, event: Event) -> Ability | None:
    player = getattr(event, "player", None)
    if event.type == "play":
        return board.ability_of(player, event.card)
    if event.type == "hero_power":
        return board.sides[player].hero.power
    return None


def _words(ability: Ability) -> set[str]:
    return {effect.word for _, effects in ability.effect_lists() for effect in effects}


def _wounded(board: Board, ident: str) -> bool:
    ref = board.find(ident)
    if isinstance(ref, Minion):
        return ref.health < ref.max_health
    return board.sides[ident].health < 20


def _overkill(board: Board, targets: list[str]) -> int:
    """Points of split damage at a minion beyond its health: a person sends them on."""
    count = 0
    for target in set(targets):
        ref = board.find(target)
        if isinstance(ref, Minion):
            count += max(0, targets.count(target) - ref.health)
    return count


def against_intent(board: Board, event: Event) -> int:
    """How many of an event's targets go against what its effect is for: a hostile effect
    at a friend, a kind one at an enemy, a heal at someone unhurt, split damage beyond what
    kills a minion, an attack on one's own side (0: as a person plays)."""
    if isinstance(event, Attack):  # nobody attacks their own side
        attacker, target = board.find(event.attacker), board.find(event.target)
        return int(attacker is not None and target is not None
                   and board.owner(attacker) == board.owner(target))
    ability = _ability(board, event)
    targets = getattr(event, "targets", [])
    if ability is None or not targets:
        return 0
    words = _words(ability)
    hostile, kind = bool(words & HOSTILE), bool(words & KIND)
    count = _overkill(board, targets) if "split_damage" in words else 0
    for target in targets:
        ref = board.find(target)
        if ref is None:
            continue
        friendly = board.owner(ref) == event.player
        if hostile and not kind:
            count += friendly
        elif kind and not hostile:
            count += not friendly or ("heal" in words and "buff" not in words
                                      and not _wounded(board, target))
    return count
