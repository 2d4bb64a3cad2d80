"""The rules an event must follow, apart from applying it (as python-chess keeps
`is_legal` apart from `push`), and the moves they allow.

`CHECKS` maps each event type to a function `(board, event) -> [(code, message)]` that says
which rules the event breaks in the position `board`; `tracker.rules.engine.Game.check` turns them
into alerts. `TARGET_KINDS` and `TRIGGER_TARGETS` are the targets a hero file may ask for,
each with its test. `legal_moves` lists what the active player may do now.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass

from cards import JOKER

from .abilities import Ability
from .board import Board, Character
from .cards import by_rank, card_cost, parse_card
from .effects import no_room_for, split_points
from .events import (
    Attack,
    Concede,
    EndTurn,
    Event,
    HeroPower,
    Markers,
    Mulligan,
    Play,
    SecretRevealed,
)
from .keywords import attacks_allowed, guards
from .narrate import in_play_words, place_words, ref_words
from .selectors import ident
from .table import HERO_POWER_COST, MAX_ARMOR, MAX_MINIONS, Minion

Found = list[tuple[str, str]]  # (alert code, message)


@dataclass(frozen=True)
class TargetKind:
    words: str  # "an enemy minion", for messages
    allows: Callable[[bool, bool], bool]  # (is a minion, is an enemy) -> may be chosen


TARGET_KINDS: dict[str, TargetKind] = {
    "character": TargetKind("a character", lambda minion, enemy: True),
    "enemy_character": TargetKind("an enemy character", lambda minion, enemy: enemy),
    "minion": TargetKind("a minion", lambda minion, enemy: minion),
    "enemy_minion": TargetKind("an enemy minion", lambda minion, enemy: minion and enemy),
    "friendly_minion": TargetKind("a friendly minion", lambda minion, enemy: minion and not enemy),
}


def _enemy_minion(board: Board, player: str, target: str, label: str) -> Found:
    ref = board.find(target)
    if ref is None:
        return [("target_not_found", f"{label}: {target} is not on the table")]
    if not isinstance(ref, Minion) or ref.owner == player:
        return [("invalid_target", f"{label} answers an enemy minion, not "
                                   f"{ref_words(ref, player)}")]
    return []


def _dead_friendly_minion(board: Board, player: str, target: str, label: str) -> Found:
    dead = board.dead.get(target)
    if dead is None or dead.owner != player:
        return [("invalid_target", f"{label}: {target} is not a minion of {player} that died "
                                   "this turn")]
    return []


# what a secret's `target` must be: (board, owner, target, the secret's name) -> found
TRIGGER_TARGETS: dict[str, Callable[[Board, str, str, str], Found]] = {
    "enemy_minion": _enemy_minion,
    "dead_friendly_minion": _dead_friendly_minion,
}


def can_attack_times(ref: Character) -> int:
    return attacks_allowed(ref) if isinstance(ref, Minion) else 1


# --- each event type -------------------------------------------------------------------

def check_mulligan(board: Board, event: Mulligan) -> Found:
    side = board.sides[event.player]
    if board.phase != "mulligan" or side.mulliganed:
        return [("mulligan_closed", f"{event.player} may mulligan only once, before play")]
    if event.count > len(side.hand) - side.hand.count(JOKER):
        return [("mulligan_too_many", f"{event.player} set aside {event.count} cards "
                                      f"with {len(side.hand)} in hand")]
    return []


def check_play(board: Board, event: Play) -> Found:
    player, card = event.player, event.card
    side = board.sides[player]
    found = []
    if player != board.active:
        found.append(("out_of_turn", f"{player} played {card} during {board.active}'s turn"))
    place = board.table.where(card)
    if place and place.startswith("play:"):
        return [*found, ("card_in_play", f"{card} is already in play")]
    if place is None and card != JOKER:
        found += _accounted(board, player, card)
    if place == "discard":
        found.append(("card_in_discard", f"{card} was played from the discard pile"))
    elif place != f"hand:{player}" and (place is not None or None not in side.hand):
        where = "no card in hand" if place is None else place_words(place)
        found.append(("card_not_in_hand", f"{player} played {card}, but it is {where}"))
    cost = card_cost(card)
    if player == board.active and cost > side.mana:
        found.append(("not_enough_mana", f"{player} played {card} ({cost} mana) with "
                                         f"{side.mana} mana available"))
    ability = board.ability_of(player, card)
    if card != JOKER and parse_card(card).is_minion and len(side.minions) >= MAX_MINIONS:
        found.append(("board_full", f"{player} played {card} with {MAX_MINIONS} minions "
                                    "already in play"))
    if ability.choose_one and event.choice is None:
        found.append(("missing_choice", f"{card} ({ability.name}) needs a choice, 1 or 2"))
    combo = side.cards_played > 0
    return found + check_targets(board, player, ability, event.targets, combo, card)


def _accounted(board: Board, player: str, card: str) -> Found:
    """A card not seen yet, or told by its rank alone, while its rank's four cards are all
    known elsewhere (some told by rank alone: which of them is not known, but they are
    there)."""
    rank = parse_card(card).rank
    if not by_rank(card) and not board.table.told_by_rank(rank):
        return []  # a named card can be one of the four only where one was told by rank
    named, alone = board.table.of_rank(rank, hand=player if by_rank(card) else None)
    if len(named) + alone < 4:
        return []
    told = f", {alone} told by rank alone" if alone else ""
    what = f"a {rank}" if by_rank(card) else card
    return [("card_accounted_for", f"{player} played {what}, but all four {rank} are "
                                   f"accounted for ({len(named)} named{told})")]


def check_targets(board: Board, player: str, ability: Ability, targets: list[str],
                  combo: bool, what: str) -> Found:
    """The chosen targets against the ability's targeting: how many, and each one."""
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
        points = split_points(board, player, ability)
        if len(targets) != points:
            found.append(("invalid_target", f"{label} deals {points} damage one point at a "
                                            f"time: name {points} targets, not {len(targets)}"))
    elif len(targets) != rule.count or len(set(targets)) != len(targets):
        found.append(("invalid_target", f"{label} needs {rule.count} different target"
                                        f"{'s' if rule.count > 1 else ''}"))
    for target in dict.fromkeys(targets):
        found += check_target(board, player, ability, target, label)
    return found


def check_target(board: Board, player: str, ability: Ability, target: str,
                 label: str) -> Found:
    rule = ability.targeting
    ref = board.find(target)
    if ref is None:
        return [("target_not_found", f"{label}: {target} is not on the table")]
    enemy = board.owner(ref) != player
    is_minion = isinstance(ref, Minion)
    kind = TARGET_KINDS[rule.kind]
    if not kind.allows(is_minion, enemy):
        return [("invalid_target", f"{label} must target {kind.words}, "
                                   f"not {ref_words(ref, player)}")]
    if is_minion and enemy and ref.stealthed:
        return [("target_stealthed", f"{label}: {target} is in Stealth")]
    attack = board.attack_of(ref)
    if is_minion and rule.max_attack is not None and attack > rule.max_attack:
        return [("invalid_target", f"{label} needs a minion with {rule.max_attack} or less "
                                   f"Attack; {target} has {attack}")]
    if is_minion and rule.min_attack is not None and attack < rule.min_attack:
        return [("invalid_target", f"{label} needs a minion with {rule.min_attack} or more "
                                   f"Attack; {target} has {attack}")]
    return []


def check_hero_power(board: Board, event: HeroPower) -> Found:
    player = event.player
    side = board.sides[player]
    power = side.hero.power
    found = []
    if player != board.active:
        found.append(("out_of_turn", f"{player} used {power.name} during "
                                     f"{board.active}'s turn"))
    if side.hero_power_used:
        found.append(("hero_power_used", f"{player} used {power.name} twice in one turn"))
    if player == board.active and side.mana < HERO_POWER_COST:
        found.append(("not_enough_mana", f"{player} used {power.name} "
                                         f"({HERO_POWER_COST} mana) with "
                                         f"{side.mana} mana available"))
    if no_room_for(board, player, power):
        found.append(("board_full", f"{player} used {power.name} with {MAX_MINIONS} "
                                    "minions already in play"))
    totems = {m.totem_suit for m in side.minions if m.totem_suit}
    if any(e.word == "totemic_call" for e in power.effects) and \
            len(totems) >= len(side.hero.totems):
        found.append(("totems_complete", f"{player} used {power.name} with all "
                                         f"{len(side.hero.totems)} totems in play"))
    return found + check_targets(board, player, power, event.targets, False, power.name)


def check_attack(board: Board, event: Attack) -> Found:
    attacker, target = board.find(event.attacker), board.find(event.target)
    if attacker is None:
        return [("target_not_found", f"the attacker {event.attacker} is not on the table")]
    if target is None:
        return [("target_not_found", f"the attack target {event.target} is not on the table")]
    player = board.owner(attacker)
    name = attacker.id if isinstance(attacker, Minion) else f"{player}'s hero"
    found = []
    if player != board.active:
        found.append(("out_of_turn", f"{name} attacked during {board.active}'s turn"))
    if isinstance(attacker, Minion) and board.exhausted(attacker):
        found.append(("attacker_exhausted", f"{attacker.id} attacked the turn it was played"))
    if board.frozen(attacker):
        found.append(("attacker_frozen", f"{name} is frozen and cannot attack"))
    done = attacker.attacks if isinstance(attacker, Minion) else board.sides[player].attacks
    if done >= can_attack_times(attacker):
        found.append(("already_attacked", f"{name} already attacked this turn"))
    if board.attack_of(attacker) <= 0:
        found.append(("no_attack", f"{attacker.id} has no Attack")
                     if isinstance(attacker, Minion)
                     else ("no_weapon", f"{player}'s hero attacked with no weapon"))
    if board.owner(target) == player:
        found.append(("invalid_target", f"{name} attacked a friendly character"))
        return found
    if isinstance(target, Minion) and target.stealthed:
        found.append(("target_stealthed", f"{target.id} is in Stealth and cannot be attacked"))
    taunts = [m.id for m in board.sides[board.owner(target)].minions if guards(m)]
    if taunts and ident(target) not in [*taunts, *board.new_targets]:
        found.append(("taunt", f"{name} attacked {event.target} past Taunt "
                               f"({', '.join(taunts)})"))
    return found


def check_secret_revealed(board: Board, event: SecretRevealed) -> Found:
    player, card = event.player, event.card
    secret = board.secret_of(player, card)
    found = []
    if secret is None:
        return [("not_a_secret", f"{card} is not a secret of {board.sides[player].hero.name}")]
    place = board.table.where(card)
    if place and place.startswith("play:") and card not in board.sides[player].secrets:
        return [("card_in_play", f"{player} revealed {card}, which is on the table as "
                                 f"{in_play_words(board.sides, card)}")]
    if card not in board.sides[player].secrets:
        found.append(("not_a_secret", f"{player} revealed {card} ({secret.name}), which was "
                                      "never set as a secret"))
    if player == board.active:
        found.append(("secret_on_own_turn", f"{player}'s {secret.name} was revealed during "
                                            f"{player}'s own turn"))
    kind = secret.trigger_target
    if kind and not event.targets:
        found.append(("missing_target", f"{secret.name} needs the minion it answers"))
    elif kind:
        found += TRIGGER_TARGETS[kind](board, player, event.targets[0], secret.name)
    return found


def check_markers(board: Board, event: Markers) -> Found:
    side = board.sides[event.player]
    if event.place == "armor":
        expected, where = len(side.armor), f"beside {event.player}'s hero"
        if event.count > MAX_ARMOR:
            return [("armor_over_cap", f"the table shows {event.count} armor markers "
                                       f"{where}; armor is at most {MAX_ARMOR}")]
    elif event.place == "weapon":
        expected = len(side.weapon.durability) if side.weapon else 0
        where = f"under {event.player}'s weapon"
    else:
        minion = board.find(event.minion or "")
        if not isinstance(minion, Minion):
            return [("target_not_found", f"{event.minion} is not on the table")]
        expected = len(minion.damage if event.place == "damage" else minion.buffs)
        where = f"of {event.place} under {minion.id}"
    if event.count != expected:
        return [("marker_mismatch", f"the table shows {event.count} markers {where}, "
                                    f"the rules say {expected}")]
    return []


CHECKS: dict[str, Callable[[Board, Event], Found]] = {
    "mulligan": check_mulligan,
    "play": check_play,
    "hero_power": check_hero_power,
    "attack": check_attack,
    "secret_revealed": check_secret_revealed,
    "markers": check_markers,
}  # end_turn, concede: no rule to break


# --- move generation -------------------------------------------------------------------

def characters(board: Board) -> list[str]:
    """Every character's id: both heroes, then each side's minions."""
    return [*board.sides] + [m.id for s in board.sides.values() for m in s.minions]


def _target_options(board: Board, player: str, ability: Ability, rng: random.Random,
                    every_spread: bool = False) -> list[str | list[str] | None]:
    rule = ability.targeting
    if rule.kind is None:
        return [None]
    everyone = characters(board)
    if rule.count == "split":
        enemies = [c for c in everyone if board.owner(board.find(c)) != player]
        points = split_points(board, player, ability)
        if every_spread:  # each way to share the points (their order changes nothing)
            return [list(way) for way in itertools.combinations_with_replacement(enemies,
                                                                                 points)]
        spread = [rng.choice(enemies) for _ in range(points)]
        return [[c] * points for c in enemies] + [spread]
    if rule.count == 1:
        return [None, *everyone] if rule.only_if else everyone
    return [list(pair) for pair in itertools.combinations(everyone, rule.count)]


def candidate_moves(board: Board, rng: random.Random) -> list[Event]:
    """Every play, hero power and attack of the active player worth checking, and the end of
    the turn (split damage and multi-target cards are sampled rather than listed in full)."""
    player = board.active
    side = board.sides[player]
    moves: list[Event] = [EndTurn(source="bot")]
    for card in dict.fromkeys(c for c in side.hand if c is not None):
        ability = board.ability_of(player, card)
        choices = [1, 2] if ability.choose_one else [None]
        for target, choice in itertools.product(_target_options(board, player, ability, rng),
                                                choices):
            moves.append(Play(player=player, card=card, target=target, choice=choice,
                              source="bot"))
    for target in _target_options(board, player, side.hero.power, rng):
        moves.append(HeroPower(player=player, target=target, source="bot"))
    attackers = [player] + [m.id for m in side.minions]
    for attacker, target in itertools.product(attackers, characters(board)):
        moves.append(Attack(attacker=attacker, target=target, source="bot"))
    return moves


def card_plays(board: Board, player: str, card: str, rng: random.Random, *,
               every_spread: bool = False) -> list[Play]:
    """Every way `player` might play `card` now (each target and choice), legal or not: what
    a person picks from once they have named the card. Split damage's ways to share its
    points are sampled, or with `every_spread` all listed (a camera tells them apart)."""
    ability = board.ability_of(player, card)
    choices = [1, 2] if ability.choose_one else [None]
    return [Play(player=player, card=card, target=target, choice=choice)
            for target, choice in itertools.product(
                _target_options(board, player, ability, rng, every_spread), choices)]


def power_uses(board: Board, player: str, rng: random.Random) -> list[HeroPower]:
    """Every way `player` might use the hero power now (each target), legal or not."""
    return [HeroPower(player=player, target=target)
            for target in _target_options(board, player, board.sides[player].hero.power, rng)]


def reactions(board: Board) -> list[Event]:
    """What people may do beside the active player's moves: a mulligan before play, the
    waiting player's secrets being revealed, and either player conceding."""
    found: list[Event] = []
    if board.phase == "mulligan":
        found += [Mulligan(player=p, count=n) for p, side in board.sides.items()
                  if not side.mulliganed
                  for n in range(len(side.hand) - side.hand.count(JOKER) + 1)]
    waiting = next(p for p in board.sides if p != board.active)
    for card in dict.fromkeys(board.sides[waiting].secrets):
        for target in [None, *characters(board)]:
            found.append(SecretRevealed(player=waiting, card=card, target=target))
    found += [Concede(player=p) for p in board.sides]
    return found
