"""The effect words of the hero files, each implemented once.

A word is a function `(game, ctx, effect)`; it finds its targets with `game.select` and
changes the table through the engine's primitives (damage, heal, summon, markers …).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .heroes import Ability, Effect
from .table import MAX_ARMOR, Minion

if TYPE_CHECKING:
    from .engine import Game


@dataclass
class Context:
    """What an ability resolves against."""

    player: str  # whose ability it is
    ability: Ability
    card: str | None = None  # the card played, for spells that mark with themselves
    targets: list[str] = field(default_factory=list)
    trigger: str | None = None  # the minion a trigger or secret is about
    self_id: str | None = None  # the minion whose ability this is
    revealed: list[str] | None = None  # cards the event says were turned over
    choice: int | None = None
    combo: bool = False
    card_marks: bool = False  # set when the played card went under a minion

    def holds(self, game: Game, effect: Effect) -> bool:
        if effect.choice is not None and effect.choice != (self.choice or 1):
            return False
        if effect.condition is None:
            return True
        negate = effect.condition.startswith("!")
        return game.condition(self, effect.condition.lstrip("!")) != negate


def damage(game: Game, ctx: Context, effect: Effect) -> None:
    amount = effect.get("amount")
    if amount == "health_lost":
        amount = game.sides[ctx.player].health_lost
    amount += game.spell_damage(ctx.player) if effect.get("boost") else 0
    for ref in game.select(ctx, effect.get("to")):
        game.damage(ref, amount)


def split_damage(game: Game, ctx: Context, effect: Effect) -> None:
    for target in ctx.targets:  # one point a target id; repeats allowed
        ref = game.find(target)
        if ref is not None:
            game.damage(ref, 1)


def heal(game: Game, ctx: Context, effect: Effect) -> None:
    amount = effect.get("amount") + (game.spell_damage(ctx.player) if effect.get("boost") else 0)
    for ref in game.select(ctx, effect.get("to")):
        game.heal(ref, amount)


def armor(game: Game, ctx: Context, effect: Effect) -> None:
    side = game.sides[ctx.player]
    for _ in range(min(effect.get("amount"), MAX_ARMOR - len(side.armor))):
        side.armor.append(game.table.take_marker())


def draw(game: Game, ctx: Context, effect: Effect) -> None:
    for _ in range(effect.get("count", 1)):
        game.table.draw(ctx.player)


def freeze(game: Game, ctx: Context, effect: Effect) -> None:
    for ref in game.select(ctx, effect.get("to")):
        game.freeze(ref)


def summon(game: Game, ctx: Context, effect: Effect) -> None:
    token = game.sides[ctx.player].hero.tokens[effect.get("token")]
    for _ in range(effect.get("count", 1)):
        game.summon_token(ctx.player, token)


def summon_copy(game: Game, ctx: Context, effect: Effect) -> None:
    for ref in game.select(ctx, effect.get("to")):
        if isinstance(ref, Minion):
            copy = Ability(name=f"copy of {ref.name}", kind="token", attack=ref.base_attack,
                           health=ref.base_health)
            game.summon_token(ctx.player, copy)


def buff(game: Game, ctx: Context, effect: Effect) -> None:
    attack, health = effect.get("attack", 0), effect.get("health", 0)
    marker = effect.get("marker", "none")
    for ref in game.select(ctx, effect.get("to")):
        if not isinstance(ref, Minion):
            continue
        if marker == "deck":
            ref.buffs.extend(game.table.take_marker() for _ in range(attack))
        elif marker == "card" and ctx.card and not ctx.card_marks:
            ref.face_up.append((ctx.card, attack, health))
            ctx.card_marks = True
        else:
            ref.temp_attack += attack


def hero_attack(game: Game, ctx: Context, effect: Effect) -> None:
    game.sides[ctx.player].temp_attack += effect.get("amount")


def destroy(game: Game, ctx: Context, effect: Effect) -> None:
    for ref in game.select(ctx, effect.get("to")):
        if isinstance(ref, Minion):
            ref.destroyed = True


def bounce(game: Game, ctx: Context, effect: Effect) -> None:
    for ref in game.select(ctx, effect.get("to")):
        if isinstance(ref, Minion):
            game.bounce(ref)


def transform(game: Game, ctx: Context, effect: Effect) -> None:
    token = game.sides[ctx.player].hero.tokens[effect.get("into")]
    for ref in game.select(ctx, effect.get("to")):
        if isinstance(ref, Minion):
            game.transform(ref, token)


def overload(game: Game, ctx: Context, effect: Effect) -> None:
    game.sides[ctx.player].overload += effect.get("amount")


def equip(game: Game, ctx: Context, effect: Effect) -> None:
    weapon = Ability(name="Dagger", kind="weapon", attack=effect.get("attack"),
                     health=effect.get("durability"))
    game.equip(ctx.player, weapon, card=None)


def totemic_call(game: Game, ctx: Context, effect: Effect) -> None:
    game.totemic_call(ctx.player, ctx.revealed)


def gain_mana(game: Game, ctx: Context, effect: Effect) -> None:
    game.sides[ctx.player].mana += effect.get("amount")


def counter(game: Game, ctx: Context, effect: Effect) -> None:
    game.counter_next_spell = True


def damage_to_one(game: Game, ctx: Context, effect: Effect) -> None:
    for ref in game.select(ctx, effect.get("to")):
        if isinstance(ref, Minion):
            ref.damage.extend(game.table.take_marker() for _ in range(ref.health - 1))


def resummon(game: Game, ctx: Context, effect: Effect) -> None:
    if ctx.trigger is not None:
        game.resummon(ctx.player, ctx.trigger)


def lose_durability(game: Game, ctx: Context, effect: Effect) -> None:
    game.lose_durability(ctx.player, effect.get("amount", 1))


WORDS: dict[str, Callable[[Game, Context, Effect], None]] = {
    "damage": damage, "split_damage": split_damage, "heal": heal, "armor": armor,
    "draw": draw, "freeze": freeze, "summon": summon, "summon_copy": summon_copy,
    "buff": buff, "hero_attack": hero_attack, "destroy": destroy, "bounce": bounce,
    "transform": transform, "overload": overload, "equip": equip,
    "totemic_call": totemic_call, "gain_mana": gain_mana, "counter": counter,
    "damage_to_one": damage_to_one, "resummon": resummon, "lose_durability": lose_durability,
}
