"""The Hearthtop rules engine: the single source of truth for the score.

`Game.apply(event)` applies one event of the log and returns the alerts it raised;
`Game.check(event)` computes those alerts without changing anything; `Game.pop()` undoes
the last event (by replaying the rest: a game is a few hundred events); `Game.state()` is
the JSON of the contract. An illegal event still applies, because the cards are on the
table; only a card that is already in play cannot be played again.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass

from cards import JOKER

from .alerts import Alert, make_alert
from .cards import PLAYERS, parse_card
from .effects import WORDS, Context
from .events import (
    Attack,
    Concede,
    EndTurn,
    Event,
    HeroPower,
    Markers,
    Mulligan,
    NewGame,
    Play,
    SecretRevealed,
)
from .heroes import Ability, Effect, HeroError, get_hero
from .table import MAX_HAND, MAX_HEALTH, MAX_MINIONS, Minion, Side, Table, Weapon

COIN = Ability(name="The Coin", kind="spell", text="Gain 1 mana this turn.",
               effects=(Effect("gain_mana", {"amount": 1}),))
NO_ABILITY = Ability(name="", kind="none")
SUMMONS = {"summon", "totemic_call"}  # effect words that put a minion on the table
Character = Minion | str  # a minion, or a player id for a hero


class EngineError(ValueError):
    """An event the engine cannot apply at all (not a rule broken: a log that makes no sense)."""


def other(player: str) -> str:
    return "p2" if player == "p1" else "p1"


@dataclass
class _Dead:
    """A minion that died this turn, remembered for Redemption."""

    minion: Minion
    owner: str


class Game:
    def __init__(self) -> None:
        self.table: Table | None = None
        self.events: list[Event] = []
        self.alerts: list[Alert] = []
        self.turn = 0
        self.active = "p1"
        self.phase = "setup"  # setup → mulligan → play → over
        self.winner: str | None = None
        self.counter_next_spell = False
        self._entered = 0
        self._tokens = 0
        self._dead: dict[str, _Dead] = {}
        self._new_targets: set[str] = set()  # Noble Sacrifice's Defender, for the next attack

    # --- construction --------------------------------------------------------------
    @classmethod
    def replay(cls, events: Iterable[Event]) -> Game:
        """The game after a fold of `apply` over the events."""
        game = cls()
        for event in events:
            game.apply(event)
        return game

    def copy(self) -> Game:
        """An independent game; events and alerts are immutable, so they are shared."""
        clone = copy.copy(self)
        clone.table = copy.deepcopy(self.table)
        clone.events, clone.alerts = list(self.events), list(self.alerts)
        clone._dead = copy.deepcopy(self._dead)
        clone._new_targets = set(self._new_targets)
        return clone

    def pop(self) -> Event:
        """Undo the last event and return it."""
        if not self.events:
            raise IndexError("no event to undo")
        *rest, last = self.events
        self.__dict__.update(Game.replay(rest).__dict__)
        return last

    @property
    def sides(self) -> dict[str, Side]:
        if self.table is None:
            raise EngineError("the log must begin with a new_game event")
        return self.table.sides

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def new_targets(self) -> frozenset[str]:
        """Minions a "when" secret just put in an attack's way (Noble Sacrifice's Defender):
        the attack that follows may, and should, name them."""
        return frozenset(self._new_targets)

    # --- applying events ----------------------------------------------------------
    def apply(self, event: Event) -> list[Alert]:
        """Apply one event; return the alerts it raised (also kept in `self.alerts`)."""
        if isinstance(event, NewGame):
            self._new_game(event)
            self.events.append(event)
            return []
        if self.table is None:
            raise EngineError("the log must begin with a new_game event")
        if self.phase == "mulligan" and not isinstance(event, Mulligan | Markers):
            self.begin()
        alerts = self.check(event)
        self.events.append(event)
        self.alerts.extend(alerts)
        if self.over or any(a.code == "card_in_play" for a in alerts):
            return alerts
        try:
            getattr(self, f"_do_{event.type}")(event)
        except EngineError:
            # The event makes no sense on this table: leave the game as it was before it.
            self.__dict__.update(Game.replay(self.events[:-1]).__dict__)
            raise
        if not isinstance(event, SecretRevealed | Markers):
            self._new_targets = set()
        self._check_heroes()
        return alerts

    def check(self, event: Event) -> list[Alert]:
        """The alerts `apply(event)` would raise, computed without changing the game."""
        if isinstance(event, NewGame) or self.table is None:
            return []
        if self.phase == "mulligan" and not isinstance(event, Mulligan | Markers):
            ahead = self.copy()
            ahead.begin()
            return ahead.check(event)
        index = len(self.events)
        if self.over:
            return [make_alert("game_over", index, f"the game was already over; "
                                                   f"{_event_words(event)} ignored")]
        found = getattr(self, f"_check_{event.type}", lambda _: [])(event)
        return [make_alert(code, index, message) for code, message in found]

    def is_legal(self, event: Event) -> bool:
        return not any(a.severity == "illegal" for a in self.check(event))

    # --- setup ---------------------------------------------------------------------
    def _new_game(self, event: NewGame) -> None:
        try:
            heroes = {p: get_hero(event.heroes[p]) for p in PLAYERS}
        except HeroError as error:
            raise EngineError(str(error)) from None
        self.__init__()  # a new game starts from nothing
        self.table = Table(heroes, event.deck)
        for player, count in (("p1", 4), ("p2", 5)):
            for _ in range(count):
                self.table.draw(player)
        self.sides["p2"].hand.append(JOKER)
        self.phase = "mulligan"

    def _check_mulligan(self, event: Mulligan) -> list[tuple[str, str]]:
        side = self.sides[event.player]
        if self.phase != "mulligan" or side.mulliganed:
            return [("mulligan_closed", f"{event.player} may mulligan only once, before play")]
        if event.count > len(side.hand) - side.hand.count(JOKER):
            return [("mulligan_too_many", f"{event.player} set aside {event.count} cards "
                                          f"with {len(side.hand)} in hand")]
        return []

    def _do_mulligan(self, event: Mulligan) -> None:
        side = self.sides[event.player]
        if self.phase != "mulligan":
            return
        side.mulliganed = True
        kept = [c for c in side.hand if c != JOKER]
        count = min(event.count, len(kept))
        for card in kept[:count]:
            side.hand.remove(card)
            self.table.set_aside.append(card)
        for _ in range(count):
            self.table.draw(event.player)

    def begin(self) -> None:
        """End the mulligan phase: set-aside cards go back, and p1's first turn begins.
        Any event other than a mulligan does this by itself."""
        if self.phase != "mulligan":
            return
        self.table.shuffle_in(self.table.set_aside)
        self.table.set_aside = []
        self.phase = "play"
        self._upkeep("p1")

    # --- turn structure ---------------------------------------------------------------
    def _upkeep(self, player: str) -> None:
        self.turn += 1
        self.active = player
        side = self.sides[player]
        side.crystals = min(6, side.crystals + 1)
        side.locked, side.overload = side.overload, 0
        side.mana = max(0, side.crystals - side.locked)
        side.hero_power_used = False
        side.cards_played = side.attacks = side.temp_attack = 0
        for minion in side.minions:
            minion.attacks = 0
            minion.stealthed = False  # one-turn Stealth ends as its controller's turn begins
        self.table.draw(player)

    def _do_end_turn(self, event: EndTurn) -> None:
        player = self.active
        side = self.sides[player]
        for minion in list(side.minions):
            if minion.ability and minion.ability.on_end_of_turn and minion in side.minions:
                self._resolve(Context(player, minion.ability, self_id=minion.id),
                              minion.ability.on_end_of_turn)
        while len(side.hand) > MAX_HAND:
            self.table.discard.append(side.hand.pop())
        for minion in (m for s in self.sides.values() for m in s.minions):
            minion.temp_attack = 0
        side.temp_attack = 0
        self.counter_next_spell = False
        self._dead.clear()
        self._check_heroes()
        if self.over:
            return
        if self.table.deck_empty:
            self._end_by_health()
            return
        self._upkeep(other(player))

    def _end_by_health(self) -> None:
        h1, h2 = self.sides["p1"].health, self.sides["p2"].health
        self.winner = "draw" if h1 == h2 else ("p1" if h1 > h2 else "p2")
        self.phase = "over"

    def _check_heroes(self) -> None:
        if self.over or self.table is None:
            return
        dead = [p for p in PLAYERS if self.sides[p].health <= 0]
        if dead:
            self.winner = "draw" if len(dead) == 2 else other(dead[0])
            self.phase = "over"

    def _do_concede(self, event: Concede) -> None:
        self.winner = other(event.player)
        self.phase = "over"

    # --- finding characters --------------------------------------------------------
    def find(self, ident: str) -> Character | None:
        """A player id is its hero; any other id is a minion on the table, or None."""
        if ident in PLAYERS:
            return ident
        for side in self.sides.values():
            for minion in side.minions:
                if minion.id == ident:
                    return minion
        return None

    def owner(self, ref: Character) -> str:
        return ref.owner if isinstance(ref, Minion) else ref

    def select(self, ctx: Context, selector: str) -> list[Character]:
        me, them = ctx.player, other(ctx.player)
        minions = {p: list(self.sides[p].minions) for p in PLAYERS}
        if selector == "target":
            refs = [self.find(t) for t in dict.fromkeys(ctx.targets)]
            return [r for r in refs if r is not None]
        if selector in ("self", "trigger"):
            ref = self.find(ctx.self_id if selector == "self" else ctx.trigger or "")
            return [] if ref is None else [ref]
        return {
            "friendly_hero": [me],
            "enemy_hero": [them],
            "all_minions": minions[me] + minions[them],
            "all_characters": [me, them, *minions[me], *minions[them]],
            "enemy_characters": [them, *minions[them]],
            "enemy_minions": minions[them],
            "friendly_characters": [me, *minions[me]],
            "friendly_minions": minions[me],
            "other_enemy_characters": [r for r in [them, *minions[them]]
                                       if self._ident(r) not in ctx.targets],
        }[selector]

    @staticmethod
    def _ident(ref: Character) -> str:
        return ref.id if isinstance(ref, Minion) else ref

    def condition(self, ctx: Context, name: str) -> bool:
        if name == "combo":
            return ctx.combo
        if name == "have_beast":
            return any(m.tribe == "beast" for m in self.sides[ctx.player].minions)
        if name == "target_friendly_demon":
            ref = self.find(ctx.targets[0]) if ctx.targets else None
            return isinstance(ref, Minion) and ref.owner == ctx.player and ref.tribe == "demon"
        if name == "target_died":  # deaths come after the whole effect: doomed counts
            refs = [self.find(t) for t in ctx.targets]
            return bool(refs) and all(r is None or (isinstance(r, Minion) and self.doomed(r))
                                      for r in refs)
        raise EngineError(f"unknown condition {name!r}")

    # --- numbers the rules compute ------------------------------------------------------
    def spell_damage(self, player: str) -> int:
        return sum(m.spell_damage for m in self.sides[player].minions)

    def attack_of(self, ref: Character) -> int:
        if isinstance(ref, Minion):
            pack = 0
            if ref.ability and ref.ability.pack_attack and any(
                    m.tribe == "beast" and m is not ref for m in self.sides[ref.owner].minions):
                pack = ref.ability.pack_attack
            face_up = sum(a for _, a, _ in ref.face_up)
            return ref.base_attack + len(ref.buffs) + face_up + ref.temp_attack + pack
        side = self.sides[ref]
        return (side.weapon.attack if side.weapon else 0) + side.temp_attack

    def frozen(self, ref: Character) -> bool:
        until = ref.frozen_until if isinstance(ref, Minion) else self.sides[ref].frozen_until
        return self.turn <= until

    def exhausted(self, minion: Minion) -> bool:
        return minion.entered_turn == self.turn and "charge" not in minion.keywords

    def no_room_for(self, player: str, ability: Ability) -> bool:
        """An ability that only summons (Reinforce, Totemic Call, Snake Trap, Noble Sacrifice)
        does nothing with five minions already out."""
        words = {e.word for e in ability.effects}
        return bool(words) and words <= SUMMONS and len(self.sides[player].minions) >= MAX_MINIONS

    def attacks_allowed(self, ref: Character) -> int:
        return 2 if isinstance(ref, Minion) and "windfury" in ref.keywords else 1

    # --- primitives the effect words use ---------------------------------------------
    def damage(self, ref: Character, amount: int) -> None:
        if isinstance(ref, Minion):
            if "focused_will" in ref.keywords and not ref.damage and not ref.pending:
                amount -= 1
            ref.pending += max(0, amount)
            return
        side = self.sides[ref]
        absorbed = min(len(side.armor), max(0, amount))
        if absorbed:
            self.table.to_bottom(side.armor[-absorbed:])
            del side.armor[-absorbed:]
        side.health -= amount - absorbed
        side.health_lost = amount - absorbed

    def heal(self, ref: Character, amount: int) -> None:
        if isinstance(ref, Minion):
            healed = min(amount, len(ref.damage))
            if healed:
                self.table.to_bottom(ref.damage[-healed:])
                del ref.damage[-healed:]
            return
        side = self.sides[ref]
        side.health = min(MAX_HEALTH, side.health + amount)

    def freeze(self, ref: Character) -> None:
        owner = self.owner(ref)
        until = self.turn + (2 if owner == self.active else 1)  # through its owner's next turn
        if isinstance(ref, Minion):
            ref.frozen_until = until
        else:
            self.sides[ref].frozen_until = until

    def _new_minion(self, player: str, ability: Ability, *, card: str | None, suit: str | None,
                    totem_suit: str | None = None) -> Minion:
        if card is None:
            self._tokens += 1
            ident = f"T{self._tokens}"
            size = max(ability.attack, ability.health, 1)
            stack = [self.table.take_marker() for _ in range(size)]
        else:
            ident, stack = card, []
        return Minion(ident, player, ability.name or ident, ability.attack, ability.health,
                      card=card, stack=stack, suit=suit, ability=ability,
                      keywords=ability.keywords, tribe=ability.tribe,
                      spell_damage=ability.spell_damage, totem_suit=totem_suit)

    def _enter(self, minion: Minion) -> None:
        self._entered += 1
        minion.entered = self._entered
        minion.entered_turn = self.turn
        minion.stealthed = "stealth" in minion.keywords
        self.sides[minion.owner].minions.append(minion)

    def _after_summon(self, minion: Minion) -> None:
        weapon = self.sides[minion.owner].weapon
        if weapon and weapon.ability and weapon.ability.on_friendly_summon:
            self._resolve(Context(minion.owner, weapon.ability, trigger=minion.id),
                          weapon.ability.on_friendly_summon)

    def summon_token(self, player: str, token: Ability) -> Minion | None:
        """Summon a face-down stack; nothing happens on a full board."""
        if len(self.sides[player].minions) >= MAX_MINIONS:
            return None
        minion = self._new_minion(player, token, card=None, suit=None)
        self._enter(minion)
        self._after_summon(minion)
        return minion

    def _leave(self, minion: Minion, *, to_hand: bool = False) -> None:
        """Take a minion off the table: markers to the bottom, face-up cards to the discard."""
        self.sides[minion.owner].minions.remove(minion)
        self.table.to_bottom(minion.damage + minion.buffs + minion.stack)
        self.table.discard.extend(card for card, _, _ in minion.face_up)
        if minion.card and to_hand:
            self.sides[minion.owner].hand.append(minion.card)
        elif minion.card:
            self.table.discard.append(minion.card)

    def bounce(self, minion: Minion) -> None:
        self._leave(minion, to_hand=True)

    def transform(self, minion: Minion, token: Ability) -> None:
        side = self.sides[minion.owner]
        position = side.minions.index(minion)
        self._leave(minion)
        frog = self._new_minion(minion.owner, token, card=None, suit=None)
        frog.entered, frog.entered_turn = minion.entered, minion.entered_turn
        side.minions.insert(position, frog)

    def resummon(self, player: str, ident: str) -> None:
        """Redemption: a minion that died this turn returns with 1 Health, buffs lost."""
        dead = self._dead.pop(ident, None)
        if dead is None or len(self.sides[player].minions) >= MAX_MINIONS:
            return
        old = dead.minion
        if old.card:
            if old.card in self.table.discard:
                self.table.discard.remove(old.card)
            minion = self._new_minion(player, old.ability or NO_ABILITY, card=old.card,
                                      suit=old.suit, totem_suit=old.totem_suit)
            minion.name, minion.base_attack, minion.base_health = (
                old.name, old.base_attack, old.base_health)
            minion.keywords, minion.tribe, minion.spell_damage = (
                old.keywords, old.tribe, old.spell_damage)
        else:
            base = Ability(name=old.name, kind="token", attack=old.base_attack,
                           health=old.base_health, keywords=old.keywords, tribe=old.tribe)
            minion = self._new_minion(player, old.ability or base, card=None, suit=None)
            minion.base_attack, minion.base_health = old.base_attack, old.base_health
        minion.damage = [self.table.take_marker() for _ in range(minion.max_health - 1)]
        self._enter(minion)
        self._after_summon(minion)

    def equip(self, player: str, ability: Ability, card: str | None) -> None:
        side = self.sides[player]
        if side.weapon:
            self._destroy_weapon(player)
        durability = [self.table.take_marker() for _ in range(ability.health)]
        side.weapon = Weapon(ability.name, ability.attack, card, durability, ability)

    def lose_durability(self, player: str, amount: int) -> None:
        weapon = self.sides[player].weapon
        if weapon is None:
            return
        lost = weapon.durability[-amount:] if amount else []
        del weapon.durability[len(weapon.durability) - len(lost):]
        self.table.to_bottom(lost)
        if not weapon.durability:
            self._destroy_weapon(player)

    def _destroy_weapon(self, player: str) -> None:
        side = self.sides[player]
        weapon, side.weapon = side.weapon, None
        self.table.to_bottom(weapon.durability)
        if weapon.card:
            self.table.discard.append(weapon.card)
        if weapon.ability and weapon.ability.deathrattle:
            self._resolve(Context(player, weapon.ability), weapon.ability.deathrattle)

    def totemic_call(self, player: str, revealed: list[str] | None) -> None:
        side = self.sides[player]
        present = {m.totem_suit for m in side.minions if m.totem_suit}
        cards = self._reveal(player, revealed, present)
        totem = next((c for c in cards if c[-1] not in present), None)
        self.table.to_bottom([c for c in cards if c != totem])
        if totem is None or len(side.minions) >= MAX_MINIONS:
            if totem is not None:
                self.table.to_bottom([totem])
            return
        ability = side.hero.totems[totem[-1]]
        minion = self._new_minion(player, ability, card=totem, suit=None, totem_suit=totem[-1])
        self._enter(minion)
        self._after_summon(minion)

    def _reveal(self, player: str, revealed: list[str] | None, present: set[str]) -> list[str]:
        """Turn over cards from the top for Totemic Call; an empty deck only stops it."""
        deck = self.table.deck
        if revealed is None:
            if not self.table.known_order:
                raise EngineError("Totemic Call needs 'revealed' (the cards turned over) when "
                                  "the deck order is not known")
            cards = []
            while deck and (not cards or cards[-1][-1] in present):
                cards.append(deck.popleft())
            return cards
        # Check every card before moving any: an unseen card can only be one of the deck's
        # unseen cards, never one taken from the discard pile or a hand.
        unseen = list(deck).count(None)
        for card in revealed:
            place = self.table.where(card)
            if place not in (None, "deck"):
                raise EngineError(f"revealed card {card} is not in the draw deck ({place})")
            unseen -= place is None
        if len(set(revealed)) != len(revealed):
            raise EngineError("a card is revealed twice")
        if unseen < 0:
            raise EngineError("more cards revealed than the draw deck holds")
        for card in revealed:
            self.table.pull(card if self.table.where(card) == "deck" else None)
        return list(revealed)

    # --- resolving abilities ---------------------------------------------------------
    def _resolve(self, ctx: Context, effects: Iterable[Effect]) -> None:
        """Resolve the effects in order; deaths are checked once, after the whole effect
        (heroes.md §4.3): a Deathrattle's summon is not hit by the rest of the spell."""
        for effect in effects:
            if ctx.holds(self, effect):
                WORDS[effect.word](self, ctx, effect)
        self.settle()

    @staticmethod
    def doomed(minion: Minion) -> bool:
        """Destroyed, or damaged to 0 Health, by the effect being resolved."""
        return minion.destroyed or len(minion.damage) + minion.pending >= minion.max_health

    def settle(self) -> None:
        """Mark damage on survivors, destroy the dead, then run deathrattles, until calm."""
        while True:
            everyone = [m for p in PLAYERS for m in self.sides[p].minions]
            dying = [m for m in everyone if self.doomed(m)]
            for minion in dying:
                minion.pending = 0
                self._leave(minion)
                self._dead[minion.id] = _Dead(minion, minion.owner)
            for minion in everyone:
                if minion.pending and minion not in dying:
                    minion.damage.extend(self.table.take_marker() for _ in range(minion.pending))
                    minion.pending = 0
            if not dying:
                return
            for minion in sorted(dying, key=lambda m: m.entered):
                if minion.ability and minion.ability.deathrattle:
                    self._resolve(Context(minion.owner, minion.ability, self_id=minion.id),
                                  minion.ability.deathrattle)

    # --- play -------------------------------------------------------------------------
    def ability_of(self, player: str, card: str) -> Ability:
        """What `card` is when `player` plays it."""
        if card == JOKER:
            return COIN
        parsed = parse_card(card)
        hero = self.sides[player].hero
        if parsed.is_minion:
            return hero.spade if parsed.suit == "S" else NO_ABILITY
        return hero.spell(parsed.rank, parsed.suit)

    @staticmethod
    def cost(card: str) -> int:
        return 0 if card == JOKER else parse_card(card).cost

    def _check_play(self, event: Play) -> list[tuple[str, str]]:
        player, card = event.player, event.card
        side = self.sides[player]
        found = []
        if player != self.active:
            found.append(("out_of_turn", f"{player} played {card} during {self.active}'s turn"))
        place = self.table.where(card)
        if place and place.startswith("play:"):
            return [*found, ("card_in_play", f"{card} is already in play")]
        if place == "discard":
            found.append(("card_in_discard", f"{card} was played from the discard pile"))
        elif place != f"hand:{player}" and (place is not None or None not in side.hand):
            where = "no card in hand" if place is None else _describe(place)
            found.append(("card_not_in_hand", f"{player} played {card}, but it is {where}"))
        cost = self.cost(card)
        if player == self.active and cost > side.mana:
            found.append(("not_enough_mana", f"{player} played {card} ({cost} mana) with "
                                             f"{side.mana} mana available"))
        ability = self.ability_of(player, card)
        if card != JOKER and parse_card(card).is_minion and len(side.minions) >= MAX_MINIONS:
            found.append(("board_full", f"{player} played {card} with {MAX_MINIONS} minions "
                                        "already in play"))
        if ability.choose_one and event.choice is None:
            found.append(("missing_choice", f"{card} ({ability.name}) needs a choice, 1 or 2"))
        combo = side.cards_played > 0
        return found + self._check_targets(player, ability, event.targets, combo, card)

    def _check_targets(self, player: str, ability: Ability, targets: list[str], combo: bool,
                       what: str) -> list[tuple[str, str]]:
        rule = ability.targeting
        label = f"{what} ({ability.name})" if ability.name not in ("", what) else what
        if rule.kind is None:
            return []
        if rule.only_if == "combo" and not combo:
            return [("no_combo", f"{label} has a target only with Combo")] if targets else []
        if not targets:
            return [("missing_target", f"{label} needs a target")]
        found = []
        if rule.count == "split":
            points = self._split_points(player, ability)
            if len(targets) != points:
                found.append(("invalid_target", f"{label} deals {points} damage one point at a "
                                                f"time: name {points} targets, not {len(targets)}"))
        elif len(targets) != rule.count or len(set(targets)) != len(targets):
            found.append(("invalid_target", f"{label} needs {rule.count} different target"
                                            f"{'s' if rule.count > 1 else ''}"))
        for target in dict.fromkeys(targets):
            found += self._check_target(player, ability, target, label)
        return found

    def _split_points(self, player: str, ability: Ability) -> int:
        total = sum(e.get("amount") for e in ability.effects if e.word == "split_damage")
        return total + self.spell_damage(player)

    def _check_target(self, player: str, ability: Ability, target: str,
                      label: str) -> list[tuple[str, str]]:
        rule = ability.targeting
        ref = self.find(target)
        if ref is None:
            return [("target_not_found", f"{label}: {target} is not on the table")]
        enemy = self.owner(ref) != player
        is_minion = isinstance(ref, Minion)
        allowed = {"character": True, "enemy_character": enemy, "minion": is_minion,
                   "enemy_minion": is_minion and enemy,
                   "friendly_minion": is_minion and not enemy}[rule.kind]
        if not allowed:
            return [("invalid_target", f"{label} must target {_kind_words(rule.kind)}, "
                                       f"not {_ref_words(ref, player)}")]
        if is_minion and enemy and ref.stealthed:
            return [("target_stealthed", f"{label}: {target} is in Stealth")]
        attack = self.attack_of(ref)
        if is_minion and rule.max_attack is not None and attack > rule.max_attack:
            return [("invalid_target", f"{label} needs a minion with {rule.max_attack} or less "
                                       f"Attack; {target} has {attack}")]
        if is_minion and rule.min_attack is not None and attack < rule.min_attack:
            return [("invalid_target", f"{label} needs a minion with {rule.min_attack} or more "
                                       f"Attack; {target} has {attack}")]
        return []

    def _take_from_hand(self, player: str, card: str) -> None:
        """Move the played card out of wherever it physically is (normally the hand)."""
        side = self.sides[player]
        place = self.table.where(card)
        if place and place.startswith("play:"):
            return  # checked before: a card on the table is not played again
        if place == f"hand:{player}" or place == "discard":
            (side.hand if place.startswith("hand") else self.table.discard).remove(card)
        elif place is None:
            if None in side.hand:
                side.hand.remove(None)
            else:
                self.table.pull(None)  # an unseen card from elsewhere became this one
        elif side.hand:
            # Known to lie elsewhere: it swaps places with a card of the hand, so every
            # pile keeps its size and the 53 cards stay accounted for.
            self.table.pull(card, side.hand.pop(), keep=True)
        else:
            self.table.pull(card)

    def _do_play(self, event: Play) -> None:
        player, card = event.player, event.card
        side = self.sides[player]
        self._take_from_hand(player, card)
        combo = side.cards_played > 0
        if player == self.active:
            side.mana = max(0, side.mana - self.cost(card))
        side.cards_played += 1
        ability = self.ability_of(player, card)
        ctx = Context(player, ability, card=card, targets=event.targets, choice=event.choice,
                      combo=combo, revealed=event.revealed)
        if card != JOKER and parse_card(card).is_minion:
            self._play_minion(ctx, parse_card(card).suit)
        elif ability.kind == "weapon":
            self.equip(player, ability, card)
            self._resolve(ctx, ability.battlecry)
        else:
            self._cast(ctx)

    def _play_minion(self, ctx: Context, suit: str) -> None:
        ability = ctx.ability
        minion = Minion(ctx.card, ctx.player, ctx.card, *(2 * [parse_card(ctx.card).stats]),
                        card=ctx.card, suit=suit, ability=ability if suit == "S" else None)
        minion.keywords = frozenset({"H": {"taunt"}, "C": {"stealth"}}.get(suit, set())
                                    | (ability.keywords if suit == "S" else set()))
        minion.tribe = ability.tribe if suit == "S" else None
        minion.spell_damage = 1 if suit == "D" else 0
        self._enter(minion)
        ctx.self_id = minion.id
        if suit == "S":
            self._resolve(ctx, ability.battlecry)
        if minion in self.sides[ctx.player].minions:
            self._after_summon(minion)

    def _cast(self, ctx: Context) -> None:
        """Cast a spell or set a secret: the spell counts as cast unless countered."""
        side = self.sides[ctx.player]
        if self.counter_next_spell and ctx.player == self.active:
            self.counter_next_spell = False
            self.table.discard.append(ctx.card)
            return
        for minion in list(side.minions):
            if minion.ability and minion.ability.on_friendly_spell and minion.suit == "S":
                self._resolve(Context(ctx.player, minion.ability, self_id=minion.id),
                              minion.ability.on_friendly_spell)
        if ctx.ability.kind == "secret":
            side.secrets.append(ctx.card)
            return
        self._resolve(ctx, ctx.ability.effects)
        if not ctx.card_marks:
            self.table.discard.append(ctx.card)

    # --- hero power ------------------------------------------------------------------
    def _check_hero_power(self, event: HeroPower) -> list[tuple[str, str]]:
        player = event.player
        side = self.sides[player]
        power = side.hero.power
        found = []
        if player != self.active:
            found.append(("out_of_turn", f"{player} used {power.name} during "
                                         f"{self.active}'s turn"))
        if side.hero_power_used:
            found.append(("hero_power_used", f"{player} used {power.name} twice in one turn"))
        if player == self.active and side.mana < 2:
            found.append(("not_enough_mana", f"{player} used {power.name} (2 mana) with "
                                             f"{side.mana} mana available"))
        if self.no_room_for(player, power):
            found.append(("board_full", f"{player} used {power.name} with {MAX_MINIONS} "
                                        "minions already in play"))
        totems = {m.totem_suit for m in side.minions if m.totem_suit}
        if any(e.word == "totemic_call" for e in power.effects) and \
                len(totems) >= len(side.hero.totems):
            found.append(("totems_complete", f"{player} used {power.name} with all "
                                             f"{len(side.hero.totems)} totems in play"))
        return found + self._check_targets(player, power, event.targets, False, power.name)

    def _do_hero_power(self, event: HeroPower) -> None:
        side = self.sides[event.player]
        if event.player == self.active:
            side.mana = max(0, side.mana - 2)
        side.hero_power_used = True
        ctx = Context(event.player, side.hero.power, targets=event.targets,
                      revealed=event.revealed)
        self._resolve(ctx, side.hero.power.effects)

    # --- attack ----------------------------------------------------------------------
    def _check_attack(self, event: Attack) -> list[tuple[str, str]]:
        attacker, target = self.find(event.attacker), self.find(event.target)
        if attacker is None:
            return [("target_not_found", f"the attacker {event.attacker} is not on the table")]
        if target is None:
            return [("target_not_found", f"the attack target {event.target} is not on the "
                                         "table")]
        player = self.owner(attacker)
        name = attacker.id if isinstance(attacker, Minion) else f"{player}'s hero"
        found = []
        if player != self.active:
            found.append(("out_of_turn", f"{name} attacked during {self.active}'s turn"))
        if isinstance(attacker, Minion) and self.exhausted(attacker):
            found.append(("attacker_exhausted", f"{attacker.id} attacked the turn it was "
                                                "played"))
        if self.frozen(attacker):
            found.append(("attacker_frozen", f"{name} is frozen and cannot attack"))
        done = attacker.attacks if isinstance(attacker, Minion) else self.sides[player].attacks
        if done >= self.attacks_allowed(attacker):
            found.append(("already_attacked", f"{name} already attacked this turn"))
        if self.attack_of(attacker) <= 0:
            found.append(("no_attack", f"{attacker.id} has no Attack")
                         if isinstance(attacker, Minion)
                         else ("no_weapon", f"{player}'s hero attacked with no weapon"))
        if self.owner(target) == player:
            found.append(("invalid_target", f"{name} attacked a friendly character"))
            return found
        if isinstance(target, Minion) and target.stealthed:
            found.append(("target_stealthed", f"{target.id} is in Stealth and cannot be "
                                              "attacked"))
        taunts = [m.id for m in self.sides[self.owner(target)].minions
                  if "taunt" in m.keywords and not m.stealthed]
        if taunts and self._ident(target) not in [*taunts, *self._new_targets]:
            found.append(("taunt", f"{name} attacked {event.target} past Taunt "
                                   f"({', '.join(taunts)})"))
        return found

    def _do_attack(self, event: Attack) -> None:
        attacker, target = self.find(event.attacker), self.find(event.target)
        if attacker is None or target is None:
            return
        dealt, taken = self.attack_of(attacker), self.attack_of(target)
        self.damage(target, dealt)
        if isinstance(target, Minion):
            self.damage(attacker, taken)  # a hero under attack deals nothing back
        if isinstance(attacker, Minion):
            attacker.attacks += 1
            attacker.stealthed = attacker.stealthed and dealt <= 0
        else:
            side = self.sides[attacker]
            side.attacks += 1
        self.settle()
        if not isinstance(attacker, Minion) and self.sides[attacker].weapon:
            self.lose_durability(attacker, 1)

    # --- secrets ---------------------------------------------------------------------
    def died_this_turn(self, player: str) -> list[str]:
        return [ident for ident, dead in self._dead.items() if dead.owner == player]

    def secret_of(self, player: str, card: str) -> Ability | None:
        """The secret `card` is for `player`'s hero, or None if it is not a secret."""
        hero = self.sides[player].hero
        parsed = parse_card(card)
        return hero.secrets[parsed.suit] if parsed.rank == hero.secret_rank else None

    def _check_secret_revealed(self, event: SecretRevealed) -> list[tuple[str, str]]:
        player, card = event.player, event.card
        secret = self.secret_of(player, card)
        found = []
        if secret is None:
            return [("not_a_secret", f"{card} is not a secret of {self.sides[player].hero.name}")]
        place = self.table.where(card)
        if place and place.startswith("play:") and card not in self.sides[player].secrets:
            return [("card_in_play", f"{player} revealed {card}, which is on the table as "
                                     f"{_in_play_words(self, card)}")]
        if card not in self.sides[player].secrets:
            found.append(("not_a_secret", f"{player} revealed {card} ({secret.name}), which was "
                                          "never set as a secret"))
        if player == self.active:
            found.append(("secret_on_own_turn", f"{player}'s {secret.name} was revealed during "
                                                f"{player}'s own turn"))
        kind = secret.trigger_target
        if kind and not event.targets:
            found.append(("missing_target", f"{secret.name} needs the minion it answers"))
        elif kind == "enemy_minion":
            ref = self.find(event.targets[0])
            if ref is None:
                found.append(("target_not_found", f"{secret.name}: {event.targets[0]} is not "
                                                  "on the table"))
            elif not isinstance(ref, Minion) or ref.owner == player:
                found.append(("invalid_target", f"{secret.name} answers an enemy minion, not "
                                                f"{_ref_words(ref, player)}"))
        elif kind == "dead_friendly_minion":
            dead = self._dead.get(event.targets[0])
            if dead is None or dead.owner != player:
                found.append(("invalid_target", f"{secret.name}: {event.targets[0]} is not a "
                                                f"minion of {player} that died this turn"))
        return found

    def _do_secret_revealed(self, event: SecretRevealed) -> None:
        player, card = event.player, event.card
        secret = self.secret_of(player, card)
        if secret is None:
            return
        side = self.sides[player]
        if card in side.secrets:
            side.secrets.remove(card)
        else:
            self._take_from_hand(player, card)
        target = event.targets[0] if event.targets else None
        before = {m.id for m in side.minions}
        self._resolve(Context(player, secret, card=card, trigger=target, targets=event.targets),
                      secret.effects)
        if secret.trigger == "enemy_attacks":  # Noble Sacrifice: the summon is the new target
            self._new_targets |= {m.id for m in side.minions} - before
        self.table.shuffle_in([card])

    # --- what the camera counts -------------------------------------------------------
    def _check_markers(self, event: Markers) -> list[tuple[str, str]]:
        side = self.sides[event.player]
        if event.place == "armor":
            expected, where = len(side.armor), f"beside {event.player}'s hero"
            if event.count > 5:
                return [("armor_over_cap", f"the table shows {event.count} armor markers "
                                           f"{where}; armor is at most 5")]
        elif event.place == "weapon":
            expected = len(side.weapon.durability) if side.weapon else 0
            where = f"under {event.player}'s weapon"
        else:
            minion = self.find(event.minion or "")
            if not isinstance(minion, Minion):
                return [("target_not_found", f"{event.minion} is not on the table")]
            expected = len(minion.damage if event.place == "damage" else minion.buffs)
            where = f"of {event.place} under {minion.id}"
        if event.count != expected:
            return [("marker_mismatch", f"the table shows {event.count} markers {where}, "
                                        f"the rules say {expected}")]
        return []

    def _do_markers(self, event: Markers) -> None:
        """The rules keep the score; a disagreement is only an alert."""

    # --- the contract's JSON ----------------------------------------------------------
    def state(self) -> dict:
        table = self.table
        return {
            "turn": self.turn, "active": self.active, "phase": self.phase,
            "deck": len(table.deck) if table else 0,
            "discard": len(table.discard) if table else 0,
            "deck_empty": bool(table and table.deck_empty),
            "over": self.over, "winner": self.winner,
            "players": {p: self._side_state(p) for p in PLAYERS} if table else {},
            "alerts": [a.to_json() for a in self.alerts],
        }

    def _side_state(self, player: str) -> dict:
        side = self.sides[player]
        weapon = side.weapon and {"card": side.weapon.card, "name": side.weapon.name,
                                  "attack": side.weapon.attack,
                                  "durability": len(side.weapon.durability)}
        return {
            "hero": side.hero.key, "class": side.hero.hero_class, "name": side.hero.name,
            "health": side.health, "armor": len(side.armor), "mana": side.mana,
            "crystals": side.crystals, "overload": side.overload,
            "overload_locked": side.locked, "hand": len(side.hand), "weapon": weapon or None,
            "secrets": len(side.secrets), "hero_power_used": side.hero_power_used,
            "attack": self.attack_of(player), "frozen": self.frozen(player),
            "spell_damage": self.spell_damage(player),
            "minions": [self._minion_state(m) for m in side.minions],
        }

    def _minion_state(self, minion: Minion) -> dict:
        return {
            "id": minion.id, "name": minion.name, "card": minion.card,
            "attack": self.attack_of(minion), "health": minion.health,
            "max_health": minion.max_health, "taunt": "taunt" in minion.keywords,
            "stealth": minion.stealthed, "spell_damage": minion.spell_damage,
            "exhausted": self.exhausted(minion), "frozen": self.frozen(minion),
            "attacked": minion.attacks > 0, "damage": len(minion.damage),
        }


def _event_words(event: Event) -> str:
    """An event named for a message: "p2's play of 6H", "6H's attack", "the end of turn"."""
    noun = {"hero_power": "hero power", "secret_revealed": "secret reveal",
            "end_turn": "end of turn", "concede": "concession",
            "markers": "marker count"}.get(event.type, event.type)
    who = getattr(event, "player", None) or getattr(event, "attacker", None)
    words = f"{who}'s {noun}" if who else f"the {noun}"
    card = getattr(event, "card", None)
    return f"{words} of {card}" if card else words


def _in_play_words(game: Game, card: str) -> str:
    for player, side in game.sides.items():
        if card in side.secrets:
            return f"{player}'s secret"
        if side.weapon and side.weapon.card == card:
            return f"{player}'s weapon"
        for minion in side.minions:
            if card in [minion.card, *(c for c, _, _ in minion.face_up)]:
                return f"a card of {player}'s minion {minion.id}"
    return "another card"


def _describe(place: str) -> str:
    kind, _, player = place.partition(":")
    return {"deck": "in the draw deck", "set_aside": "set aside in the mulligan",
            "hand": f"in {player}'s hand", "marker": f"a face-down marker on {player}'s side"
            }.get(kind, place)


def _kind_words(kind: str) -> str:
    return {"character": "a character", "enemy_character": "an enemy character",
            "minion": "a minion", "enemy_minion": "an enemy minion",
            "friendly_minion": "a friendly minion"}[kind]


def _ref_words(ref: Character, player: str) -> str:
    if isinstance(ref, Minion):
        return f"{'a friendly' if ref.owner == player else 'an enemy'} minion ({ref.id})"
    return f"{'the friendly' if ref == player else 'the enemy'} hero ({ref})"
