"""A person's fix of what the camera read: what may be put in place of one of its events
(`tracker.camera.fix_options`: the view's other explanations, the event with another
target or attacker, "nothing happened"; or the card named by hand), in the players' words;
or an event it missed, added after any event or now. A fix is checked against the game
before it goes to the camera's tracker.

Plain functions of the session, called under the table's lock. A fix that cannot be made
raises `Refused` with one sentence and changes nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cards import DECK, JOKER
from tracker.camera import MISSABLE, Fix, Fixes, fix_options, in_words
from tracker.rules import EngineError, Event, Game, Play, answers, describe_event

from .session import Refused, Session, never_set

CARD_IDS = frozenset((*DECK, JOKER))


class FixRequest(BaseModel):
    """One of the offered options (by its place in the list), or the play's card named
    (with its target and Choose One choice, if the card was played otherwise than the
    camera read), or an event the camera missed right after this one."""

    model_config = ConfigDict(extra="forbid")
    option: int | None = Field(None, ge=0, description="an option of GET …/fixes")
    card: str | None = Field(None, max_length=4, description="the card really played")
    target: str | list[str] | None = Field(None, description="the named card's target(s)")
    choice: int | None = Field(None, description="the named card's Choose One choice")
    missed: Event | None = Field(None, description="a play, attack, hero power or revealed "
                                                   "secret the camera missed after this event")

    @model_validator(mode="after")
    def _one(self) -> FixRequest:
        if sum(x is not None for x in (self.option, self.card, self.missed)) != 1:
            raise ValueError('give exactly one of "option", "card" and "missed"')
        if self.card is None and (self.target is not None or self.choice is not None):
            raise ValueError('"target" and "choice" go with "card"')
        return self


def offer(session: Session, camera: bool, index: int) -> dict[str, Any]:
    """What event `index` says, and what may be put in place of its view's events."""
    event, fixes = _camera_event(session, camera, index)
    before, then = session.game.copy().undo_to(fixes.index), session.game.copy().undo_to(index + 1)
    return {"event": index, "first": fixes.index, "length": fixes.length,
            "now": _said(then, event),
            "options": [{"label": in_words(before, option), "chosen": k == 0,
                         "events": [e.model_dump(mode="json", exclude_none=True)
                                    for e in option]}
                        for k, option in enumerate(_options(session, index, fixes))],
            "name_card": event.type == "play",
            "turn_of": then.active}


def _options(session: Session, index: int, fixes: Fixes) -> list[tuple[Event, ...]]:
    """The view's events as they are in the log, then what may replace them."""
    others = fix_options(session.game, list(session.fixes), index)
    return [fixes.options[fixes.chosen], *(tuple(o) for o in others)]


def request(session: Session, camera: bool, index: int, asked: FixRequest) -> Fix:
    """The fix asked for, checked against the game as the server holds it."""
    if asked.missed is not None:
        return missed(session, camera, asked.missed, index)
    event, fixes = _camera_event(session, camera, index)
    if asked.option is not None:
        options = _options(session, index, fixes)
        if asked.option >= len(options):
            raise Refused(422, f"event {index} has {len(options)} options "
                               f"(0 to {len(options) - 1})")
        return Fix(index, event, events=options[asked.option])
    card, before = asked.card or "", session.game.copy().undo_to(index)
    _check_card(before, event, index, card)
    _check_play(before, event, card, asked)
    return Fix(index, event, card=card, target=asked.target, choice=asked.choice)


def missed(session: Session, camera: bool, event: Event, after: int | None) -> Fix:
    """An event the camera missed, right after event `after` (None: now), checked: one the
    camera could have seen, that the game can take there (against the rules or not)."""
    events = session.game.events
    if after is not None:
        _check_index(events, after)
    if not camera:
        raise Refused(409, "no camera keeps this game: record the event itself")
    if event.type not in MISSABLE:
        raise Refused(422, f"{event.type} is the phone's own input, not the camera's to "
                           "see: only a play, an attack, a hero power or a revealed secret "
                           "can be added for it")
    if session.game.table is None:
        raise Refused(409, "no game in progress: start one with a new game first")
    if after is None and session.game.over and not answers(session.game, event):
        raise Refused(409, "the game is over: what the camera missed before its end is added "
                           "with the Fix of the event it followed")
    before = session.game.copy().undo_to(len(events) if after is None else after + 1)
    never_set(before, event)
    gone = [a for a in before.check(event) if a.code == "target_not_found"]
    if gone:  # against the rules may be kept, with its alert; not what cannot have been
        raise Refused(422, f"{gone[0].message} then: it cannot have happened")
    try:
        before.apply(event)
    except EngineError as error:
        raise Refused(422, str(error)) from None
    return Fix(after, None if after is None else events[after], missed=event)


def _camera_event(session: Session, camera: bool, index: int) -> tuple[Event, Fixes]:
    events = session.game.events
    _check_index(events, index)
    if not camera:
        raise Refused(409, "no camera keeps this game: every event is the phone's, and "
                           "the last one is taken back with undo")
    fixes = session.fix_of(index)
    if fixes is None:
        said = _said(session.game.copy().undo_to(index + 1), events[index])
        raise Refused(409, f"event {index} ({said}) came from the phone, not the camera: "
                           "there is nothing to fix")
    return events[index], fixes


def _check_index(events: list[Event], index: int) -> None:
    if not 0 <= index < len(events):
        raise Refused(404, f"there is no event {index} (the game has {len(events)})")


def _check_card(before: Game, event: Event, index: int, card: str) -> None:
    """A card that could have been played there: a card id, not the one read, not already
    on the table or in the discard pile."""
    if event.type != "play":
        raise Refused(422, f"event {index} is not a play: only a played card can be named")
    if card not in CARD_IDS:
        raise Refused(422, f"{card!r} is not a card id (expected e.g. 7H, 10S, QD, JK)")
    if card == event.card:
        raise Refused(422, f"the camera read {card} there already; name the card that "
                           "was played")
    place = before.table.where(card) or ""
    if place.startswith("play:") or place == "discard":
        where = "the discard pile" if place == "discard" else f"play ({place[5:]}'s side)"
        raise Refused(422, f"{card} was already in {where} then: it cannot have been played")


def _check_play(before: Game, event: Event, card: str, asked: FixRequest) -> None:
    """A named card's target and choice: those of a play, naming what was in play then."""
    if asked.target is None and asked.choice is None:
        return
    try:
        Play(player=event.player, card=card, target=asked.target, choice=asked.choice)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise Refused(422, f"{where}: {first['msg'].removeprefix('Value error, ')}") from None
    there = {*before.sides, *(m.id for side in before.sides.values() for m in side.minions)}
    targets = asked.target if isinstance(asked.target, list) else [asked.target]
    for target in targets:
        if target is not None and target not in there:
            raise Refused(422, f"{target} was not in play then: it cannot have been the "
                               "target")


def _said(board: Game, event: Event) -> str:
    """An event that `board` has just applied, in words, without its turn."""
    return describe_event(board, event).split("] ", 1)[-1]
