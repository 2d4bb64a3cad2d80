"""Secret triggers (`on = …`): when a secret on the table is due, each implemented once.

A secret resolves when its owner reveals it (`secret_revealed`). The log puts a "when"
secret just before the event it answers and an "after" secret just after it. `TRIGGERS` is
every trigger a hero file may name, with what sets it off; `reveals_before` and
`reveals_after` list the reveals an event calls for. The bot uses them to play whole games;
the tracker will use them to ask about a secret that should have gone off but was not
turned over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cards import JOKER

from .abilities import Ability
from .board import Board, EngineError
from .cards import other, parse_card
from .effects import no_room_for
from .events import Attack, Event, Play, SecretRevealed
from .table import Minion

# (board, the secret's owner, the event, the board before the event) -> what the secret is
# about: a minion or hero id, "" when it answers with no target, None when it is not due
Answer = Callable[[Board, str, Event, Board], str | None]


@dataclass(frozen=True)
class Trigger:
    text: str
    before: bool  # a "when" secret, revealed before the event it answers; else "after"
    answer: Answer


def _attack(*, by_minion: bool = False, at: str = "character") -> Answer:
    """An enemy attack on the owner's side: by any character or by a minion only, at any
    friendly character, at the hero or at a minion. The answer is the attacker."""
    def answer(board: Board, owner: str, event: Event, before: Board) -> str | None:
        if not isinstance(event, Attack):
            return None
        attacker, target = board.find(event.attacker), board.find(event.target)
        if attacker is None or target is None or board.owner(attacker) != other(owner):
            return None
        aimed = {"character": True, "hero": target == owner,
                 "minion": isinstance(target, Minion)}[at]
        mine = board.owner(target) == owner
        if not mine or not aimed or (by_minion and not isinstance(attacker, Minion)):
            return None
        return event.attacker
    return answer


def _is_spell(board: Board, event: Play) -> bool:
    if event.card == JOKER:
        return True
    card = parse_card(event.card)
    return not card.is_minion and board.ability_of(event.player, event.card).kind != "weapon"


def _casts_spell(board: Board, owner: str, event: Event, before: Board) -> str | None:
    spell = isinstance(event, Play) and event.player == other(owner) and _is_spell(board, event)
    return "" if spell else None


def _plays_minion(board: Board, owner: str, event: Event, before: Board) -> str | None:
    if isinstance(event, Play) and event.player == other(owner) and event.card != JOKER and \
            parse_card(event.card).is_minion and isinstance(board.find(event.card), Minion):
        return event.card
    return None


def _minion_dies(board: Board, owner: str, event: Event, before: Board) -> str | None:
    earlier = set(died_this_turn(before, owner))
    return next((m for m in died_this_turn(board, owner) if m not in earlier), None)


def _hero_damaged(board: Board, owner: str, event: Event, before: Board) -> str | None:
    lost = before.sides[owner].health - board.sides[owner].health
    return "" if lost > 0 and board.sides[owner].health > 0 else None


TRIGGERS: dict[str, Trigger] = {
    "enemy_attacks": Trigger("an enemy character attacks one of yours", True, _attack()),
    "enemy_attacks_hero": Trigger("an enemy character attacks your hero", True,
                                  _attack(at="hero")),
    "enemy_minion_attacks": Trigger("an enemy minion attacks one of your characters", True,
                                    _attack(by_minion=True)),
    "enemy_minion_attacks_hero": Trigger("an enemy minion attacks your hero", True,
                                         _attack(by_minion=True, at="hero")),
    "friendly_minion_attacked": Trigger("one of your minions is attacked", True,
                                        _attack(at="minion")),
    "enemy_casts_spell": Trigger("your opponent casts a spell", True, _casts_spell),
    "enemy_plays_minion": Trigger("your opponent plays a minion", False, _plays_minion),
    "friendly_minion_dies": Trigger("one of your minions dies", False, _minion_dies),
    "friendly_hero_damaged": Trigger("your hero takes damage and lives", False, _hero_damaged),
}


def died_this_turn(board: Board, player: str) -> list[str]:
    return [ident for ident, minion in board.dead.items() if minion.owner == player]


def _secret(board: Board, owner: str, card: str) -> tuple[Ability | None, Trigger | None]:
    """The secret a card on the table is for its owner, and its trigger."""
    secret = board.secret_of(owner, card)
    return secret, TRIGGERS[secret.trigger] if secret and secret.trigger else None


def reveals_before(board: Board, event: Event) -> list[SecretRevealed]:
    """The "when" secrets of the player not acting that `event` sets off, oldest first."""
    owner = other(board.active)
    found = []
    for card in board.sides[owner].secrets:
        secret, trigger = _secret(board, owner, card)
        if trigger is None or not trigger.before:
            continue
        answer = trigger.answer(board, owner, event, board)
        if answer is None or no_room_for(board, owner, secret):
            continue
        target = answer or None if secret.trigger_target else None
        found.append(SecretRevealed(player=owner, card=card, target=target, source="bot"))
    return found


def reveals_after(board: Board, event: Event, before: Board) -> list[SecretRevealed]:
    """The first "after" secret that `event`, just applied to `board`, sets off (`before`
    is the board as it was before the event): one at a time, the next may no longer apply."""
    owner = other(board.active)
    for card in board.sides[owner].secrets:
        _, trigger = _secret(board, owner, card)
        if trigger is None or trigger.before:
            continue
        answer = trigger.answer(board, owner, event, before)
        if answer is not None:
            return [SecretRevealed(player=owner, card=card, target=answer or None,
                                   source="bot")]
    return []


def after_reveal(board: Board, event: Event) -> Event | None:
    """`event` as it goes on after the "when" secrets it set off were revealed before it:
    an attack whose attacker or target a secret took off the table never happens (None),
    one a secret put a minion in the way of (Noble Sacrifice's Defender) goes at it."""
    if not isinstance(event, Attack):
        return event
    if board.new_targets:
        event = event.model_copy(update={"target": min(board.new_targets)})
    if board.find(event.attacker) is None or board.find(event.target) is None:
        return None
    return event


def reveal_before_last(game, reveal: SecretRevealed) -> tuple[list, Event, Event | None]:
    """Put a "when" secret told after the event it answers (`answers`) before that event,
    the log's last, as it went off at the table; the event then goes on as the secret left
    it (`after_reveal`), or not at all: not in a game the secret ended, nor where it makes
    no sense on the table the secret left. Returns the secret's alerts, the event as it was
    told and as it went on (None: it never happened). A secret the engine cannot apply
    there raises EngineError with the game as it was."""
    answered = game.pop()
    try:
        alerts = game.apply(reveal)
    except EngineError:
        game.apply(answered)
        raise
    goes_on = None if game.over else after_reveal(game, answered)
    if goes_on is not None:
        try:
            game.apply(goes_on)
        except EngineError:
            goes_on = None
    return alerts, answered, goes_on


def when_due(game) -> list[SecretRevealed]:
    """The "when" secrets the log's last event set off, oldest first: told after it (its
    owner says "Vaporize!" once the attack is declared), each goes before it. Also once
    that event ended the game: the secret may stop the blow that ended it."""
    if len(game.events) < 2:
        return []
    before = game.copy().undo_to(len(game.events) - 1)
    return [r.model_copy(update={"source": None})
            for r in reveals_before(before, game.events[-1])]


def answers(game, event: Event) -> bool:
    """Whether `event` is a "when" secret revealed just after the event it answers: its
    place in the log is before that event, which it may stop or turn aside."""
    return isinstance(event, SecretRevealed) and any(
        r.player == event.player and r.card == event.card for r in when_due(game))


def due_secrets(game) -> list[SecretRevealed]:
    """The secrets of the player not acting that the log's last event sets off: the "after"
    ones it set off as it was applied, then the "when" ones it would have set off (the
    phone records the event first, the secret as its owner turns it over). What a phone
    offers first when a secret is revealed."""
    if len(game.events) < 2 or game.over:
        return []
    last = game.events[-1]
    before = game.copy().undo_to(len(game.events) - 1)
    due = [*reveals_after(game, last, before), *reveals_before(before, last)]
    return [r.model_copy(update={"source": None}) for r in dict.fromkeys(due)]
