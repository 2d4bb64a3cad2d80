"""The effect words of the hero files: each declares its parameters beside its mechanics.

A word is a class registered in `WORDS` under the name hero files use (`do = "damage"`).
`params` is what a file may give it, which the loader (`tracker.rules.heroes`) checks and fills
with defaults; `do` is what it does to a game, reached only through `tracker.rules.board.Board`.
Adding a card never touches the engine; adding a word touches only this file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from cards import DECK

from .abilities import NO_ABILITY, Ability, Effect, Hero
from .board import Board, Context, EngineError
from .selectors import SELECTORS, select
from .table import MAX_ARMOR, MAX_MINIONS, Minion, Table


def is_whole(value: Any, least: int) -> bool:
    """A whole number (not true or false) of at least `least`."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


MARKERS = {"deck", "card", "none"}
# what a parameter's value may be, by kind: (test, the words of an error)
PARAM_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "amount": (lambda v: is_whole(v, 0), "a whole number ≥ 0"),
    "stat": (lambda v: is_whole(v, 0), "a whole number ≥ 0"),
    "count": (lambda v: is_whole(v, 1), "a whole number ≥ 1"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "token": (lambda v: isinstance(v, str), "the name of a token under [tokens]"),
    "marker": (lambda v: isinstance(v, str) and v in MARKERS,
               f"one of {', '.join(sorted(MARKERS))}"),
    "selector": (lambda v: isinstance(v, str) and v in SELECTORS, "a selector"),
}


@dataclass(frozen=True)
class Param:
    """A parameter of a word: its kind (`PARAM_KINDS`), its default, and `names`, words it
    takes besides (`damage`'s "health_lost"). With no default it must be given."""

    kind: str
    default: Any = None
    names: frozenset[str] = frozenset()

    @property
    def required(self) -> bool:
        return self.default is None


TO = Param("selector")  # the characters it reaches
BOOST = Param("flag", False)  # adds the caster's spell damage (the rulebook's *)


class Word:
    """An effect word: what a hero file may say of it (`params`), and what it does."""

    name: ClassVar[str]
    params: ClassVar[Mapping[str, Param]]
    summons_only: ClassVar[bool] = False  # does nothing but put minions on the table

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        raise NotImplementedError

    def check(self, params: dict[str, Any]) -> str | None:
        """What is wrong with these parameters together, for the loader; None if nothing."""
        return None

    def check_hero(self, hero: Hero) -> tuple[str, str] | None:
        """(key, what is wrong) if the hero lacks what this word needs; None if nothing."""
        return None

    def stops_cast(self, board: Board, ctx: Context) -> bool:
        """Asked as a spell is cast: True if this word's lasting effect counters it."""
        return False


WORDS: dict[str, Word] = {}


def word(name: str, **params: Param) -> Callable[[type[Word]], type[Word]]:
    """Register a word under its name in the hero files, with the parameters it takes."""
    def register(cls: type[Word]) -> type[Word]:
        cls.name, cls.params = name, MappingProxyType(params)
        WORDS[name] = cls()
        return cls
    return register


def _boost(board: Board, ctx: Context, effect: Effect) -> int:
    return board.spell_damage(ctx.player) if effect.params["boost"] else 0


def _minions(board: Board, ctx: Context, effect: Effect) -> list[Minion]:
    return [r for r in select(board, ctx, effect.params["to"]) if isinstance(r, Minion)]


@word("damage", boost=BOOST, to=TO,
      amount=Param("amount", names=frozenset({"health_lost"})))  # what the hero last lost
class Damage(Word):
    """Deals damage; armor absorbs first on heroes."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        amount = effect.params["amount"]
        if amount == "health_lost":  # Eye for an Eye
            amount = board.sides[ctx.player].health_lost
        amount += _boost(board, ctx, effect)
        for ref in select(board, ctx, effect.params["to"]):
            board.damage(ref, amount)


@word("split_damage", amount=Param("amount"), boost=BOOST)
class SplitDamage(Word):
    """One point to each id of the event's target list."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for target in ctx.targets:  # one point a target id; repeats allowed
            ref = board.find(target)
            if ref is not None:
                board.damage(ref, 1)


def split_points(board: Board, player: str, ability: Ability) -> int:
    """How many targets a split-damage ability names: its points and the spell damage."""
    total = sum(e.params["amount"] for e in ability.effects if e.word == "split_damage")
    return total + board.spell_damage(player)


def no_room_for(board: Board, player: str, ability: Ability) -> bool:
    """An ability that only summons (Reinforce, Totemic Call, Snake Trap, Noble Sacrifice)
    does nothing with five minions already out."""
    words = [WORDS[e.word] for e in ability.effects]
    return bool(words) and all(w.summons_only for w in words) and \
        len(board.sides[player].minions) >= MAX_MINIONS


@word("heal", amount=Param("amount"), boost=BOOST, to=TO)
class Heal(Word):
    """Restores health up to the maximum; damage markers go back to the deck."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        amount = effect.params["amount"] + _boost(board, ctx, effect)
        for ref in select(board, ctx, effect.params["to"]):
            board.heal(ref, amount)


@word("armor", amount=Param("amount"))
class Armor(Word):
    """Armor cards from the top of the deck, up to 5."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        side = board.sides[ctx.player]
        for _ in range(min(effect.params["amount"], MAX_ARMOR - len(side.armor))):
            side.armor.append(board.table.take_marker())


@word("draw", count=Param("count", 1))
class Draw(Word):
    """Draws from the top of the deck."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for _ in range(effect.params["count"]):
            board.table.draw(ctx.player)


@word("freeze", to=TO)
class Freeze(Word):
    """The character cannot attack during its controller's next turn."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for ref in select(board, ctx, effect.params["to"]):
            board.freeze(ref)


@word("summon", token=Param("token"), count=Param("count", 1),
      new_target=Param("flag", False))
class Summon(Word):
    """Face-down stacks, as many as fit in 5 minions; with `new_target`, each becomes the
    new target of the attack that set off the secret (Noble Sacrifice)."""

    summons_only = True

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        token = board.sides[ctx.player].hero.tokens[effect.params["token"]]
        for _ in range(effect.params["count"]):
            minion = board.summon_token(ctx.player, token)
            if minion is not None and effect.params["new_target"]:
                board.new_targets.add(minion.id)


@word("summon_copy", to=TO)
class SummonCopy(Word):
    """A face-down copy with the minion's base stats, no ability."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for minion in _minions(board, ctx, effect):
            copy = Ability(name=f"copy of {minion.name}", kind="token",
                           attack=minion.base_attack, health=minion.base_health)
            board.summon_token(ctx.player, copy)


@word("buff", to=TO, attack=Param("stat", 0), health=Param("stat", 0),
      marker=Param("marker", "none"), this_turn=Param("flag", False))
class Buff(Word):
    """`marker = "deck"`: one face-down card a +1/+1; `"card"`: the played spell face up
    under the minion; `"none"`: an unmarked bonus for this turn (`this_turn` says so)."""

    def check(self, params: dict[str, Any]) -> str | None:
        if params["marker"] == "deck" and params["attack"] != params["health"]:
            return "a deck-card marker stands for +N/+N: attack must equal health"
        return None

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        attack, health = effect.params["attack"], effect.params["health"]
        marker = effect.params["marker"]
        for minion in _minions(board, ctx, effect):
            if marker == "deck":
                minion.buffs.extend(board.table.take_marker() for _ in range(attack))
            elif marker == "card" and ctx.card and not ctx.card_marks:
                minion.face_up.append((ctx.card, attack, health))
                ctx.card_marks = True
            else:
                minion.temp_attack += attack


@word("hero_attack", amount=Param("amount"))
class HeroAttack(Word):
    """The hero's Attack this turn."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        board.sides[ctx.player].temp_attack += effect.params["amount"]


@word("destroy", to=TO)
class Destroy(Word):
    """Destroys minions."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for minion in _minions(board, ctx, effect):
            minion.destroyed = True


@word("bounce", to=TO)
class Bounce(Word):
    """A minion back to its owner's hand (a token is removed)."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for minion in _minions(board, ctx, effect):
            board.bounce(minion)


@word("transform", to=TO, into=Param("token"))
class Transform(Word):
    """The minion becomes a token."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        token = board.sides[ctx.player].hero.tokens[effect.params["into"]]
        for minion in _minions(board, ctx, effect):
            board.transform(minion, token)


@word("overload", amount=Param("amount"))
class Overload(Word):
    """Locks crystals next turn."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        board.sides[ctx.player].overload += effect.params["amount"]


@word("equip", attack=Param("stat"), durability=Param("stat"))
class Equip(Word):
    """A weapon with no card (Dagger Mastery)."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        weapon = Ability(name="Dagger", kind="weapon", attack=effect.params["attack"],
                         health=effect.params["durability"])
        board.equip(ctx.player, weapon, card=None)


@word("totemic_call")
class TotemicCall(Word):
    """Reveals until a suit whose totem the hero lacks."""

    summons_only = True

    def check_hero(self, hero: Hero) -> tuple[str, str] | None:
        if len(hero.totems) != 4:
            return "totems", "Totemic Call needs four totems, one a suit"
        return None

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        side = board.sides[ctx.player]
        present = {m.totem_suit for m in side.minions if m.totem_suit}
        cards = _turn_over(board.table, ctx.revealed, present)
        totem = next((c for c in cards if _new_totem(c, present)), None)
        board.table.to_bottom([c for c in cards if c != totem])
        if totem is None or len(side.minions) >= MAX_MINIONS:
            if totem is not None:
                board.table.to_bottom([totem])
            return
        ability = side.hero.totems[totem[-1]]
        board.summon(board.new_minion(ctx.player, ability, card=totem, suit=None,
                                      totem_suit=totem[-1]))


def _new_totem(card: str, present: set[str]) -> bool:
    """A face of a suit whose totem is not in play (The Coin has no suit)."""
    return card in DECK and card[-1] not in present


def _turn_over(table: Table, revealed: list[str] | None, present: set[str]) -> list[str]:
    """The cards Totemic Call turns over from the top; an empty deck only stops it."""
    deck = table.deck
    if revealed is None:
        if not table.known_order:
            raise EngineError("Totemic Call needs 'revealed' (the cards turned over) when "
                              "the deck order is not known")
        cards = []
        while deck and (not cards or not _new_totem(cards[-1], present)):
            cards.append(deck.popleft())
        return cards
    # Check every card before moving any: an unseen card can only be one of the deck's
    # unseen cards, never one taken from the discard pile or a hand.
    unseen = list(deck).count(None)
    for card in revealed:
        place = table.where(card)
        if place not in (None, "deck"):
            raise EngineError(f"revealed card {card} is not in the draw deck ({place})")
        unseen -= place is None
    if len(set(revealed)) != len(revealed):
        raise EngineError("a card is revealed twice")
    if unseen < 0:
        raise EngineError("more cards revealed than the draw deck holds")
    for card in revealed:
        table.pull(card if table.where(card) == "deck" else None)
    return list(revealed)


@word("gain_mana", amount=Param("amount"))
class GainMana(Word):
    """Mana this turn (The Coin)."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        board.sides[ctx.player].mana += effect.params["amount"]


@word("counter")
class Counter(Word):
    """Counters the opponent's next spell this turn."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        board.this_turn.add(self.name)

    def stops_cast(self, board: Board, ctx: Context) -> bool:
        """The countered spell is spent: it goes to the discard pile and does nothing."""
        if self.name not in board.this_turn or ctx.player != board.active:
            return False
        board.this_turn.discard(self.name)
        board.table.discard.append(ctx.card)
        return True


@word("damage_to_one", to=TO)
class DamageToOne(Word):
    """Marks damage until 1 health is left (Repentance)."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        for minion in _minions(board, ctx, effect):
            minion.damage.extend(board.table.take_marker() for _ in range(minion.health - 1))


@word("resummon", to=TO)  # `trigger`: the minion that died
class Resummon(Word):
    """Returns a minion that died this turn with 1 health, buffs lost (Redemption)."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        dead = board.dead.pop(ctx.trigger, None) if ctx.trigger is not None else None
        if dead is None or len(board.sides[ctx.player].minions) >= MAX_MINIONS:
            return
        if dead.card:
            if dead.card in board.table.discard:
                board.table.discard.remove(dead.card)
            minion = board.new_minion(ctx.player, dead.ability or NO_ABILITY, card=dead.card,
                                      suit=dead.suit, totem_suit=dead.totem_suit)
            minion.name, minion.keywords = dead.name, dead.keywords
            minion.tribe, minion.spell_damage = dead.tribe, dead.spell_damage
        else:
            base = Ability(name=dead.name, kind="token", attack=dead.base_attack,
                           health=dead.base_health, keywords=dead.keywords, tribe=dead.tribe)
            minion = board.new_minion(ctx.player, dead.ability or base, card=None, suit=None)
        minion.base_attack, minion.base_health = dead.base_attack, dead.base_health
        minion.damage = [board.table.take_marker() for _ in range(minion.max_health - 1)]
        board.summon(minion)


@word("lose_durability", amount=Param("amount", 1))
class LoseDurability(Word):
    """The hero's weapon loses durability."""

    def do(self, board: Board, ctx: Context, effect: Effect) -> None:
        board.lose_durability(ctx.player, effect.params["amount"])
