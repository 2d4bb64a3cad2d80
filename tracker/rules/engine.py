"""The Hearthtop rules engine: the single source of truth for the score.

`Game` coordinates. `apply(event)` applies one event of the log and returns the alerts it
raised; `check(event)` computes those alerts without changing anything (the rules
themselves are `tracker.rules.legality`); `pop()` undoes the last event by restoring the snapshot
taken before it, and `copy()` is cheap, as python-chess does; `state()` is the contract's
game state (`tracker.rules.state`), and `str(game)` the board in a few lines. An illegal event
still applies, because the cards are on the table; only a card that is already in play
cannot be played again.

What cards do is not here: the effect words, selectors, keywords and secret triggers of
the hero files reach the game through `tracker.rules.board.Board`, which `Game` fulfils with the
primitives below (damage, heal, summon, markers …).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from cards import JOKER

from . import keywords
from .abilities import COIN, NO_ABILITY, Ability, Effect
from .alerts import Alert, make_alert
from .board import Character, Context, EngineError
from .cards import PLAYERS, by_rank, card_cost, other, parse_card
from .effects import WORDS
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
from .heroes import HeroError, get_hero
from .legality import CHECKS, candidate_moves
from .narrate import event_words, summary
from .selectors import holds
from .state import GameState, MinionState, PlayerState, WeaponState
from .table import (
    HERO_POWER_COST,
    MAX_HAND,
    MAX_HEALTH,
    MAX_MINIONS,
    Minion,
    Side,
    Table,
    Weapon,
)

__all__ = ["EngineError", "Game"]

# Everything an event can change, but the log and its alerts: what a snapshot holds.
_POSITION = ("table", "turn", "active", "phase", "winner", "this_turn", "dead",
             "new_targets", "_entered", "_tokens")
_FIRST_HANDS = {"p1": 4, "p2": 5}  # and the second player gets The Coin


class Game:
    def __init__(self) -> None:
        self.table: Table | None = None
        self.events: list[Event] = []
        self.alerts: list[Alert] = []
        self.turn = 0
        self.active = "p1"
        self.phase = "setup"  # setup → mulligan → play → over
        self.winner: str | None = None
        self.this_turn: set[str] = set()  # one-turn states of words (Counterspell's)
        self.dead: dict[str, Minion] = {}  # the minions that died this turn, for Redemption
        # minions a "when" secret put in an attack's way (Noble Sacrifice's Defender): the
        # attack that follows may, and should, name them
        self.new_targets: set[str] = set()
        self._entered = 0
        self._tokens = 0
        self._stack: list[tuple[dict[str, Any], int]] = []  # (position, alerts) before each event

    # --- construction, undo and copies ------------------------------------------------
    @classmethod
    def replay(cls, events: Iterable[Event]) -> Game:
        """The game after a fold of `apply` over the events."""
        game = cls()
        for event in events:
            game.apply(event)
        return game

    def _position(self) -> dict[str, Any]:
        """A copy of everything an event can change, the log and its alerts aside. Dead
        minions are never changed again, so they are shared."""
        position = {name: getattr(self, name) for name in _POSITION}
        position["table"] = self.table and self.table.copy()
        position["this_turn"] = set(self.this_turn)
        position["dead"] = dict(self.dead)
        position["new_targets"] = set(self.new_targets)
        return position

    def _restore(self, snapshot: tuple[dict[str, Any], int]) -> None:
        position, alerts = snapshot
        self.__dict__.update(position)
        self.__dict__.update(self._position())  # the snapshot stays as it was, for copies
        del self.alerts[alerts:]

    def copy(self) -> Game:
        """An independent game. Events, alerts and snapshots never change, so they are
        shared; only the position is copied."""
        clone = Game.__new__(Game)
        clone.__dict__.update(self._position())
        clone.events, clone.alerts = list(self.events), list(self.alerts)
        clone._stack = list(self._stack)
        return clone

    def pop(self) -> Event:
        """Undo the last event and return it."""
        if not self.events:
            raise IndexError("no event to undo")
        self._restore(self._stack.pop())
        return self.events.pop()

    def undo_to(self, count: int) -> Game:
        """Undo every event after the first `count`; the game itself (`copy().undo_to(n)`:
        the game as it stood then)."""
        while len(self.events) > count:
            self.pop()
        return self

    @property
    def sides(self) -> dict[str, Side]:
        if self.table is None:
            raise EngineError("the log must begin with a new_game event")
        return self.table.sides

    @property
    def over(self) -> bool:
        return self.phase == "over"

    # --- applying events ----------------------------------------------------------
    def apply(self, event: Event) -> list[Alert]:
        """Apply one event; return the alerts it raised (also kept in `self.alerts`)."""
        if isinstance(event, NewGame):
            self._new_game(event)
            return []
        if self.table is None:
            raise EngineError("the log must begin with a new_game event")
        snapshot = (self._position(), len(self.alerts))
        if self.phase == "mulligan" and not isinstance(event, Mulligan | Markers):
            self.begin()
        alerts = self.check(event)
        self._stack.append(snapshot)
        self.events.append(event)
        self.alerts.extend(alerts)
        if self.over or any(a.code == "card_in_play" for a in alerts):
            return alerts
        try:
            _HANDLERS[event.type](self, event)
        except EngineError:
            self.pop()  # the event makes no sense on this table: the game stays as it was
            raise
        if not isinstance(event, SecretRevealed | Markers):
            self.new_targets = set()
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
                                                   f"{event_words(event)} ignored")]
        check = CHECKS.get(event.type)
        found = check(self, event) if check else []
        return [make_alert(code, index, message, unsure=bool(event.unsure))
                for code, message in found]

    def is_legal(self, event: Event) -> bool:
        return not any(a.severity != "warning" for a in self.check(event))

    def legal_moves(self, rng: random.Random | None = None) -> list[Event]:
        """Every event the active player may make now without breaking a rule (split damage
        and multi-target cards are sampled rather than listed in full)."""
        moves = candidate_moves(self, rng or random.Random(0))
        return [m for m in moves if self.is_legal(m)]

    # --- setup ---------------------------------------------------------------------
    def _new_game(self, event: NewGame) -> None:
        """A new game starts from nothing; undoing it gives back an empty game."""
        try:
            heroes = {p: get_hero(event.heroes[p]) for p in PLAYERS}
        except HeroError as error:
            raise EngineError(str(error)) from None
        self.__init__()
        self._stack.append((self._position(), 0))
        self.events.append(event)
        self.table = Table(heroes, event.deck)
        for player, count in _FIRST_HANDS.items():
            for _ in range(count):
                self.table.draw(player)
        self.sides["p2"].hand.append(JOKER)
        self.phase = "mulligan"

    def _mulligan(self, event: Mulligan) -> None:
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
        if all(s.mulliganed for s in self.sides.values()):
            self.begin()  # both have: turn 1 begins, its crystal and draw with it

    def begin(self) -> None:
        """End the mulligan phase: set-aside cards go back, and p1's first turn begins.
        The second player's mulligan does this, and so does any event other than a
        mulligan before it (a log with one mulligan, or none)."""
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

    def _end_turn(self, event: EndTurn) -> None:
        """Cleanup of the active player, then the upkeep of the next."""
        player = self.active
        side = self.sides[player]
        self._fire("on_end_of_turn", player)
        self._discard_down(player, event.discarded or [])
        for minion in (m for s in self.sides.values() for m in s.minions):
            minion.temp_attack = 0
        side.temp_attack = 0
        self.this_turn.clear()
        self.dead.clear()
        self._check_heroes()
        if self.over:
            return
        if self.table.deck_empty:
            self._end_by_health()
            return
        self._upkeep(other(player))

    def _discard_down(self, player: str, seen: list[str]) -> None:
        """Cleanup: a hand over ten discards the cards drawn last (rulings 8), but for the
        cards seen going to the pile (the last on top), which come out of the hand as a
        played card does. A name that cannot be a hand's card (in play, on the pile)
        names nothing."""
        side = self.sides[player]
        extra = max(0, len(side.hand) - MAX_HAND)
        named = [card for card in dict.fromkeys(seen[max(0, len(seen) - extra):])
                 if not (self.table.where(card) or "").startswith(("play:", "discard"))]
        for card in named:
            self._take_from_hand(player, card)
        while len(side.hand) > MAX_HAND:
            self.table.discard.append(side.hand.pop())
        self.table.discard.extend(named)

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

    def _concede(self, event: Concede) -> None:
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

    # --- numbers the rules compute ------------------------------------------------------
    def spell_damage(self, player: str) -> int:
        return sum(m.spell_damage for m in self.sides[player].minions)

    def attack_of(self, ref: Character) -> int:
        if isinstance(ref, Minion):
            face_up = sum(a for _, a, _ in ref.face_up)
            pack = keywords.pack_bonus(ref, self.sides[ref.owner].minions)
            return ref.base_attack + len(ref.buffs) + face_up + ref.temp_attack + pack
        side = self.sides[ref]
        return (side.weapon.attack if side.weapon else 0) + side.temp_attack

    def frozen(self, ref: Character) -> bool:
        until = ref.frozen_until if isinstance(ref, Minion) else self.sides[ref].frozen_until
        return self.turn <= until

    def exhausted(self, minion: Minion) -> bool:
        return minion.entered_turn == self.turn and not keywords.ready_on_entry(minion)

    def ability_of(self, player: str, card: str) -> Ability:
        """What `card` is when `player` plays it. A rank alone is a card only where the
        rank is one card in every suit (EngineError otherwise)."""
        if card == JOKER:
            return COIN
        parsed = parse_card(card)
        hero = self.sides[player].hero
        if by_rank(card) and card not in hero.ranks:
            raise EngineError(f"{card} alone is not a card of {hero.name}: its suits are "
                              "different cards, so the suit must be named")
        if parsed.is_minion:
            return hero.spade if parsed.suit == "S" else NO_ABILITY
        return hero.spell(parsed.rank, parsed.suit)

    def secret_of(self, player: str, card: str) -> Ability | None:
        """The secret `card` is for `player`'s hero, or None if it is not a secret."""
        hero = self.sides[player].hero
        parsed = parse_card(card)
        return hero.secrets[parsed.suit] if parsed.rank == hero.secret_rank else None

    # --- primitives the effect words use ---------------------------------------------
    def damage(self, ref: Character, amount: int) -> None:
        if isinstance(ref, Minion):
            ref.pending += max(0, keywords.damage_taken(ref, amount))
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

    def new_minion(self, player: str, ability: Ability, *, card: str | None,
                   suit: str | None, totem_suit: str | None = None) -> Minion:
        """A minion not yet on the table: a card, or a token whose face-down stack (one
        card a point of size) comes from the top of the deck."""
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
        minion.stealthed = keywords.enters_stealthed(minion)
        self.sides[minion.owner].minions.append(minion)

    def summon(self, minion: Minion) -> None:
        """Put a minion on the table; its owner's "after you summon" abilities follow."""
        self._enter(minion)
        self._fire("on_friendly_summon", minion.owner, trigger=minion)

    def summon_token(self, player: str, token: Ability) -> Minion | None:
        """Summon a face-down stack; nothing happens on a full board."""
        if len(self.sides[player].minions) >= MAX_MINIONS:
            return None
        minion = self.new_minion(player, token, card=None, suit=None)
        self.summon(minion)
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
        frog = self.new_minion(minion.owner, token, card=None, suit=None)
        frog.entered, frog.entered_turn = minion.entered, minion.entered_turn
        side.minions.insert(position, frog)

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
        if weapon.ability and (effects := weapon.ability.hook("deathrattle")):
            self._resolve(Context(player, weapon.ability), effects)

    # --- resolving abilities ---------------------------------------------------------
    def _resolve(self, ctx: Context, effects: Iterable[Effect]) -> None:
        """Resolve the effects in order; deaths are checked once, after the whole effect
        (heroes.md §4.3): a Deathrattle's summon is not hit by the rest of the spell."""
        for effect in effects:
            if holds(self, ctx, effect):
                WORDS[effect.word].do(self, ctx, effect)
        self.settle()

    def _fire(self, hook: str, player: str, trigger: Minion | None = None) -> None:
        """Resolve a hook of every ability on `player`'s side that has it: minions in order
        (those still on the table), then the weapon. A minion is not its own trigger."""
        side = self.sides[player]
        for minion in list(side.minions):
            effects = minion.ability.hook(hook) if minion.ability else ()
            if effects and minion in side.minions and minion is not trigger:
                self._resolve(Context(player, minion.ability, self_id=minion.id,
                                      trigger=trigger and trigger.id), effects)
        weapon = side.weapon
        if weapon and weapon.ability and (effects := weapon.ability.hook(hook)):
            self._resolve(Context(player, weapon.ability, trigger=trigger and trigger.id),
                          effects)

    def settle(self) -> None:
        """Mark damage on survivors, destroy the dead, then run deathrattles, until calm."""
        while True:
            everyone = [m for p in PLAYERS for m in self.sides[p].minions]
            dying = [m for m in everyone if m.doomed]
            for minion in dying:
                minion.pending = 0
                self._leave(minion)
                self.dead[minion.id] = minion
            for minion in everyone:
                if minion.pending and minion not in dying:
                    minion.damage.extend(self.table.take_marker() for _ in range(minion.pending))
                    minion.pending = 0
            if not dying:
                return
            for minion in sorted(dying, key=lambda m: m.entered):
                if minion.ability and (effects := minion.ability.hook("deathrattle")):
                    self._resolve(Context(minion.owner, minion.ability, self_id=minion.id),
                                  effects)

    # --- play -------------------------------------------------------------------------
    def _take_from_hand(self, player: str, card: str) -> None:
        """Move the played card out of wherever it physically is (normally the hand)."""
        side = self.sides[player]
        place = self.table.where(card)
        if place and place.startswith("play:"):
            return  # checked before: a card on the table is not played again
        if place == f"hand:{player}" or place == "discard":
            (side.hand if place.startswith("hand") else self.table.discard).remove(card)
        elif place is None:
            alike = [c for c in side.hand if c not in (None, JOKER) and c[:-1] == card
                     ] if by_rank(card) else []
            if None in side.hand:
                side.hand.remove(None)
            elif alike:  # told by its rank alone: one of that rank the hand is known to hold
                side.hand.remove(alike[0])
            else:
                self.table.pull(None)  # an unseen card from elsewhere became this one
        elif side.hand:
            # Known to lie elsewhere: it swaps places with a card of the hand, so every
            # pile keeps its size and the 53 cards stay accounted for.
            self.table.pull(card, side.hand.pop(), keep=True)
        else:
            self.table.pull(card)

    def _play(self, event: Play) -> None:
        player, card = event.player, event.card
        side = self.sides[player]
        self._take_from_hand(player, card)
        combo = side.cards_played > 0
        if player == self.active:
            side.mana = max(0, side.mana - card_cost(card))
        side.cards_played += 1
        ability = self.ability_of(player, card)
        ctx = Context(player, ability, card=card, targets=event.targets, choice=event.choice,
                      combo=combo, revealed=event.revealed)
        if card != JOKER and parse_card(card).is_minion:
            self._play_minion(ctx, parse_card(card).suit)
        elif ability.kind == "weapon":
            self.equip(player, ability, card)
            self._resolve(ctx, ability.hook("battlecry"))
        else:
            self._cast(ctx)

    def _play_minion(self, ctx: Context, suit: str) -> None:
        """A card minion: its suit's keyword (♥ Taunt, ♦ Spell Damage, ♣ Stealth) or the
        hero's ♠ ability, whose battlecry resolves as it enters."""
        ability = ctx.ability if suit == "S" else None
        stats = parse_card(ctx.card).stats
        minion = Minion(ctx.card, ctx.player, ctx.card, stats, stats, card=ctx.card, suit=suit,
                        ability=ability)
        minion.keywords = frozenset({"H": {"taunt"}, "C": {"stealth"}}.get(suit, set())
                                    | (ability.keywords if ability else set()))
        minion.tribe = ability.tribe if ability else None
        minion.spell_damage = 1 if suit == "D" else 0
        self._enter(minion)
        ctx.self_id = minion.id
        if ability:
            self._resolve(ctx, ability.hook("battlecry"))
        if minion in self.sides[ctx.player].minions:
            self._fire("on_friendly_summon", ctx.player, trigger=minion)

    def _cast(self, ctx: Context) -> None:
        """Cast a spell or set a secret: the spell counts as cast unless countered."""
        if any(word.stops_cast(self, ctx) for word in WORDS.values()):
            return
        self._fire("on_friendly_spell", ctx.player)
        side = self.sides[ctx.player]
        if ctx.ability.kind == "secret":
            side.secrets.append(ctx.card)
            return
        self._resolve(ctx, ctx.ability.effects)
        if not ctx.card_marks:
            self.table.discard.append(ctx.card)

    def _hero_power(self, event: HeroPower) -> None:
        side = self.sides[event.player]
        if event.player == self.active:
            side.mana = max(0, side.mana - HERO_POWER_COST)
        side.hero_power_used = True
        ctx = Context(event.player, side.hero.power, targets=event.targets,
                      revealed=event.revealed)
        self._resolve(ctx, side.hero.power.effects)

    def _attack(self, event: Attack) -> None:
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
            self.sides[attacker].attacks += 1
        self.settle()
        if not isinstance(attacker, Minion) and self.sides[attacker].weapon:
            self.lose_durability(attacker, 1)

    def _secret_revealed(self, event: SecretRevealed) -> None:
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
        self._resolve(Context(player, secret, card=card, trigger=target, targets=event.targets),
                      secret.effects)
        self.table.shuffle_in([card])

    def _markers(self, event: Markers) -> None:
        """What the camera counts: the rules keep the score; a disagreement is only an alert."""

    # --- what the game shows ------------------------------------------------------------
    def state(self) -> GameState:
        """The contract's game state."""
        table = self.table
        return GameState(
            turn=self.turn, active=self.active, phase=self.phase,
            deck=len(table.deck) if table else 0,
            discard=len(table.discard) if table else 0,
            deck_empty=bool(table and table.deck_empty), over=self.over, winner=self.winner,
            players={p: self._player_state(p) for p in PLAYERS} if table else {},
            alerts=self.alerts)

    def _player_state(self, player: str) -> PlayerState:
        side = self.sides[player]
        weapon = side.weapon and WeaponState(
            card=side.weapon.card, name=side.weapon.name, attack=side.weapon.attack,
            durability=len(side.weapon.durability))
        return PlayerState(
            hero=side.hero.key, hero_class=side.hero.hero_class, name=side.hero.name,
            health=side.health, armor=len(side.armor), mana=side.mana,
            crystals=side.crystals, overload=side.overload, overload_locked=side.locked,
            hand=len(side.hand), weapon=weapon or None, secrets=len(side.secrets),
            hero_power_used=side.hero_power_used, attack=self.attack_of(player),
            frozen=self.frozen(player), spell_damage=self.spell_damage(player),
            minions=[self._minion_state(m) for m in side.minions])

    def _minion_state(self, minion: Minion) -> MinionState:
        return MinionState(
            id=minion.id, name=minion.name, card=minion.card, attack=self.attack_of(minion),
            health=minion.health, max_health=minion.max_health,
            taunt="taunt" in minion.keywords, stealth=minion.stealthed,
            spell_damage=minion.spell_damage, exhausted=self.exhausted(minion),
            frozen=self.frozen(minion), attacked=minion.attacks > 0,
            damage=len(minion.damage))

    def __str__(self) -> str:
        return summary(self.state())


# event type -> what applying it does (new_game is handled apart: it resets the game)
_HANDLERS: dict[str, Callable[[Game, Any], None]] = {
    "mulligan": Game._mulligan,
    "play": Game._play,
    "hero_power": Game._hero_power,
    "attack": Game._attack,
    "secret_revealed": Game._secret_revealed,
    "end_turn": Game._end_turn,
    "concede": Game._concede,
    "markers": Game._markers,
}
