"""Selectors (`to = …`) and conditions (`if`/`unless`): the characters an effect reaches and
when it applies, each implemented once beside its name.

Side selectors are composed from two parts, whose characters (friendly, enemy or all) and
which of them (heroes, minions or both), as fireplace composes `ENEMY + MINIONS`.
"""

from __future__ import annotations

from collections.abc import Callable

from .abilities import Effect
from .board import Board, Character, Context
from .cards import other
from .table import Minion

Selector = Callable[[Board, Context], list[Character]]
Condition = Callable[[Board, Context], bool]


def _players(whose: str, ctx: Context) -> list[str]:
    me, them = ctx.player, other(ctx.player)
    return {"friendly": [me], "enemy": [them], "all": [me, them]}[whose]


def characters(whose: str, *, heroes: bool = True, minions: bool = True) -> Selector:
    """Heroes first, then minions, friendly side before enemy side."""
    def select(board: Board, ctx: Context) -> list[Character]:
        players = _players(whose, ctx)
        found: list[Character] = list(players) if heroes else []
        if minions:
            found += [m for p in players for m in board.sides[p].minions]
        return found
    return select


def but_targets(selector: Selector) -> Selector:
    """The selection less the characters the player chose."""
    def select(board: Board, ctx: Context) -> list[Character]:
        return [r for r in selector(board, ctx) if ident(r) not in ctx.targets]
    return select


def ident(ref: Character) -> str:
    return ref.id if isinstance(ref, Minion) else ref


def _found(board: Board, idents: list[str | None]) -> list[Character]:
    refs = [board.find(i) for i in idents if i is not None]
    return [r for r in refs if r is not None]


SELECTORS: dict[str, Selector] = {
    "target": lambda board, ctx: _found(board, list(dict.fromkeys(ctx.targets))),
    "self": lambda board, ctx: _found(board, [ctx.self_id]),
    "trigger": lambda board, ctx: _found(board, [ctx.trigger]),
    "friendly_hero": characters("friendly", minions=False),
    "enemy_hero": characters("enemy", minions=False),
    "friendly_minions": characters("friendly", heroes=False),
    "enemy_minions": characters("enemy", heroes=False),
    "all_minions": characters("all", heroes=False),
    "friendly_characters": characters("friendly"),
    "enemy_characters": characters("enemy"),
    "all_characters": characters("all"),
    "other_enemy_characters": but_targets(characters("enemy")),
}


def select(board: Board, ctx: Context, selector: str) -> list[Character]:
    return SELECTORS[selector](board, ctx)


def _target_friendly_demon(board: Board, ctx: Context) -> bool:
    ref = board.find(ctx.targets[0]) if ctx.targets else None
    return isinstance(ref, Minion) and ref.owner == ctx.player and ref.tribe == "demon"


def _target_died(board: Board, ctx: Context) -> bool:
    """Deaths come after the whole effect, so a target doomed by it counts as dead."""
    refs = [board.find(t) for t in ctx.targets]
    return bool(refs) and all(r is None or (isinstance(r, Minion) and r.doomed) for r in refs)


CONDITIONS: dict[str, Condition] = {
    "combo": lambda board, ctx: ctx.combo,
    "have_beast": lambda board, ctx: any(m.tribe == "beast"
                                         for m in board.sides[ctx.player].minions),
    "target_friendly_demon": _target_friendly_demon,
    "target_died": _target_died,
}


def holds(board: Board, ctx: Context, effect: Effect) -> bool:
    """Whether an effect applies: its Choose One choice and its condition."""
    if effect.choice is not None and effect.choice != (ctx.choice or 1):
        return False
    if effect.condition is None:
        return True
    negate = effect.condition.startswith("!")
    return CONDITIONS[effect.condition.lstrip("!")](board, ctx) != negate
