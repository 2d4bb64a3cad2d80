"""The event log: one JSON object a line, the unit of persistence and replay.

Each event type is a pydantic model; `parse_event` turns a line into one and `read_log`
reads a whole file, naming the line of the first bad one in a one-line error.

Every list and id in an event is bounded by what the rules allow (targets: the characters
that can be on the table; revealed cards: a deck; token ids: six digits; hero names: 40
characters), so an event that validates is always one line a log can read back.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from cards import DECK, CardError, check_card_id

from .cards import MAX_TOKEN, PLAYERS, is_token_id
from .table import MAX_MINIONS

Player = Literal["p1", "p2"]
Source = Literal["camera", "phone", "replay", "bot"]


# The longest event the bounds below admit (a play naming 12 tokens T999999, revealing the
# 52 cards) is under 600 characters, a new game with its 53 cards' order about 400, and a
# game a few hundred events: what is far past these is no log, and is not read whole
MAX_LINE = 16 * 1024  # characters a line
MAX_LOG_BYTES = 16 * 2**20  # bytes a log file
MAX_TARGETS = 2 + 2 * MAX_MINIONS  # 12: both heroes and two full boards
MAX_REVEALED = len(DECK)  # 52: a deck's cards, jokers out
MAX_NAME = 40  # characters of a hero's name (the heroes' keys are under 10)
_SHOWN = 40  # characters of a refused value an error message repeats

# What the server or the camera may set on an event after it was validated (a `source`, a
# `confidence`): a line that fits with them room left still fits once they are written
_ADDED_LATER = {"source": len(',"source":"camera"'), "confidence": len(',"confidence":') + 24,
                "unsure": len(',"unsure":true')}


class LogError(ValueError):
    """A line of an event log that is not a valid event."""


def _shown(value: object) -> str:
    """`value` as a message repeats it: its repr, cut to about 40 characters, one line."""
    text = repr(value)
    if len(text) <= _SHOWN:
        return text
    if not isinstance(value, str):
        return text[:_SHOWN - 1] + "…"
    cut = value[:_SHOWN - 3]
    while len(repr(cut + "…")) > _SHOWN:  # escapes (\u2028) take several characters
        cut = cut[:-1]
    return repr(cut + "…")


def _check_card(value: object, *, allow_joker: bool = True, allow_rank: bool = False) -> str:
    try:
        return check_card_id(value, allow_joker=allow_joker, allow_rank=allow_rank)
    except CardError as error:
        if len(repr(value)) <= _SHOWN:
            raise
        raise CardError(f"{_shown(value)} is not a card id (expected e.g. 7H, 10S, QD, JK)"
                        ) from error


_TOKEN_LIKE = re.compile(r"T[0-9]+")


def _check_target(value: str) -> str:
    if value in PLAYERS or is_token_id(value):
        return value
    if _TOKEN_LIKE.fullmatch(value):
        raise ValueError(f"{_shown(value)} is not a token id (T1 to T{MAX_TOKEN})")
    return _check_card(value, allow_joker=False)


def _not_a_bool(value: Any) -> Any:
    """JSON's true and false are no numbers (pydantic's lax mode reads them as 1 and 0)."""
    if isinstance(value, bool):
        raise ValueError(f"{str(value).lower()} is not a number")
    return value


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: Source | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0, strict=True)
    # the camera's reading of a play that would break a rule, not confirmed by a person:
    # its rule breaks are `unsure` alerts (asked on the phone), not `illegal` ones
    unsure: bool | None = Field(default=None, strict=True)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)

    @model_validator(mode="after")
    def _fits_a_line(self) -> Self:
        """Whatever is acknowledged reads back: the stored line (with a source and a
        confidence set later) is never longer than a log's line may be."""
        length = len(self.to_json()) + sum(
            extra for name, extra in _ADDED_LATER.items() if getattr(self, name) is None)
        if length > MAX_LINE:
            raise ValueError(f"the event is longer than a log line may be ({MAX_LINE:,} "
                             "characters)")
        return self


class NewGame(_Event):
    type: Literal["new_game"] = "new_game"
    heroes: dict[Player, str]
    deck: list[str] | None = None

    @field_validator("heroes")
    @classmethod
    def _both_heroes(cls, heroes: dict[str, str]) -> dict[str, str]:
        if set(heroes) != set(PLAYERS):
            raise ValueError("heroes must name a hero for both p1 and p2")
        for player, name in heroes.items():
            if len(name) > MAX_NAME:
                raise ValueError(f"{player}'s hero name is {len(name):,} characters long (at "
                                 f"most {MAX_NAME})")
            # JSON writes a line break such as U+2028 or U+0085 as it is, and a log's reader
            # would split the line there
            if not name.isprintable():
                raise ValueError(f"{player}'s hero name {_shown(name)} has a control or "
                                 "line-break character")
        return heroes

    @field_validator("deck")
    @classmethod
    def _full_deck(cls, deck: list[str] | None) -> list[str] | None:
        if deck is None:
            return None
        if len(deck) == len(DECK):
            for card in deck:
                _check_card(card, allow_joker=False)
        if len(deck) != len(DECK) or len(set(deck)) != len(DECK):
            raise ValueError("deck must list each of the 52 cards once (jokers out)")
        return deck


class Mulligan(_Event):
    type: Literal["mulligan"] = "mulligan"
    player: Player
    count: int = Field(ge=0, le=5, strict=True)


Targets = str | list[str]


class _Targeted(_Event):
    target: Targets | None = None
    revealed: list[str] | None = None

    @field_validator("target")
    @classmethod
    def _targets(cls, target: Targets | None) -> Targets | None:
        if isinstance(target, list):
            if not target:
                raise ValueError("target list is empty")
            # a character may be named more than once (split damage: one point an id), and
            # the most points any hero's split names is 3 + 5 spell damage, under 12
            if len(target) > MAX_TARGETS:
                raise ValueError(f"{len(target):,} targets, more than the table holds (at "
                                 f"most {MAX_TARGETS}: two heroes and {MAX_MINIONS} minions "
                                 "a side)")
            return [_check_target(t) for t in target]
        return None if target is None else _check_target(target)

    @field_validator("revealed")
    @classmethod
    def _revealed(cls, cards: list[str] | None) -> list[str] | None:
        if cards is not None:
            if len(cards) > MAX_REVEALED:
                raise ValueError(f"{len(cards):,} cards revealed, more than a deck holds (at "
                                 f"most {MAX_REVEALED})")
            for card in cards:
                _check_card(card, allow_joker=False)
        return cards

    @property
    def targets(self) -> list[str]:
        if self.target is None:
            return []
        return [self.target] if isinstance(self.target, str) else list(self.target)


class Play(_Targeted):
    type: Literal["play"] = "play"
    player: Player
    card: str
    choice: Literal[1, 2] | None = None

    @field_validator("card")
    @classmethod
    def _card(cls, card: str) -> str:
        return _check_card(card, allow_rank=True)  # a spell told by its rank alone: `Q`

    @field_validator("choice", mode="before")
    @classmethod
    def _choice(cls, choice: Any) -> Any:
        return _not_a_bool(choice)


class Attack(_Event):
    type: Literal["attack"] = "attack"
    attacker: str
    target: str

    @field_validator("attacker", "target")
    @classmethod
    def _character(cls, value: str) -> str:
        return _check_target(value)


class HeroPower(_Targeted):
    type: Literal["hero_power"] = "hero_power"
    player: Player


class SecretRevealed(_Targeted):
    type: Literal["secret_revealed"] = "secret_revealed"
    player: Player
    card: str

    @field_validator("card")
    @classmethod
    def _card(cls, card: str) -> str:
        return _check_card(card, allow_joker=False)


class EndTurn(_Event):
    type: Literal["end_turn"] = "end_turn"
    # the cards the cleanup discarded down to ten, as the camera saw them reach the pile
    # (the last on top); unnamed, they are the cards drawn last
    discarded: list[str] | None = None

    @field_validator("discarded")
    @classmethod
    def _discarded(cls, cards: list[str] | None) -> list[str] | None:
        if cards is not None:
            if len(cards) > MAX_REVEALED + 1:
                raise ValueError(f"{len(cards):,} cards discarded, more than there are (at "
                                 f"most {MAX_REVEALED + 1})")
            for card in cards:
                _check_card(card)
        return cards


class Concede(_Event):
    type: Literal["concede"] = "concede"
    player: Player


MarkerPlace = Literal["armor", "weapon", "damage", "buff"]


class Markers(_Event):
    """What the camera counts on the table: face-down markers at one place.

    An extension of the contract's event table: it changes nothing, the engine checks it
    against the rules (armor beside a hero, durability under a weapon, damage or buffs under
    a minion) and raises an alert where they disagree.
    """

    type: Literal["markers"] = "markers"
    player: Player
    place: MarkerPlace
    count: int = Field(ge=0, le=53, strict=True)
    minion: str | None = None

    @field_validator("minion")
    @classmethod
    def _minion(cls, value: str | None) -> str | None:
        return None if value is None else _check_target(value)


Event = Annotated[
    NewGame | Mulligan | Play | Attack | HeroPower | SecretRevealed | EndTurn | Concede | Markers,
    Field(discriminator="type"),
]
EVENT_TYPES = (
    "new_game", "mulligan", "play", "attack", "hero_power",
    "secret_revealed", "end_turn", "concede", "markers",
)
_adapter: TypeAdapter[Event] = TypeAdapter(Event)


def _explain(error: ValidationError) -> str:
    """The first thing wrong, in one sentence that repeats no more than ~40 characters of
    what was sent (a key, a value)."""
    first = error.errors()[0]
    # drop the union branch names pydantic puts in the path ("target.list[str].1")
    loc = [p for p in first["loc"] if p not in ("str", "list[str]")]
    where = ".".join(p if isinstance(p, str) and len(p) <= _SHOWN else
                     _shown(p) if isinstance(p, str) else str(p) for p in loc)
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "union_tag_invalid":
        return f"unknown event type (expected one of {', '.join(EVENT_TYPES)})"
    if first["type"] == "union_tag_not_found":
        return "event has no 'type'"
    if first["type"] == "extra_forbidden":
        return f"unknown field {_shown(loc[-1])}"
    if first["type"] in ("int_type", "float_type") and isinstance(first.get("input"), bool):
        message = f"{str(first['input']).lower()} is not a number"
    if len(loc) == 1 and loc[0] in EVENT_TYPES:  # the event as a whole
        return message
    return f"{where}: {message}" if where else message


# json's own phrases ("Unterminated string starting at") and what they mean
_JSON_PHRASES = {
    "Expecting value": "a value was expected",
    "Unterminated string starting at": "an unterminated string",
    "Expecting ',' delimiter": "a comma was expected",
    "Expecting ':' delimiter": "a colon was expected",
    "Expecting property name enclosed in double quotes": "a name in double quotes was "
                                                         "expected",
    "Extra data": "something after the end of the event",
    "Invalid control character at": "a control character inside a string",
    "Invalid \\escape": "a backslash escape JSON does not know",
    "Invalid \\uXXXX escape": "a backslash escape JSON does not know",
}
_JSON_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number"}


def _json_words(error: json.JSONDecodeError) -> str:
    """Where and why a line is not JSON, in words: "an unterminated string at column 12"."""
    words = _JSON_PHRASES.get(error.msg, error.msg.removesuffix(" at").lower())
    return f"{words} at column {error.colno}"


def parse_event(data: str | dict) -> Event:
    """Validate one event (a JSON line or a dict); raise LogError with a one-line reason."""
    if isinstance(data, str):
        if len(data) > MAX_LINE:
            raise LogError(f"a line of {len(data):,} characters, more than an event has "
                           f"(at most {MAX_LINE:,})")
        try:
            data = json.loads(data)
        except json.JSONDecodeError as error:
            raise LogError(f"not valid JSON ({_json_words(error)})") from None
        except RecursionError:
            raise LogError("JSON nested too deeply to be an event") from None
        except ValueError:  # a number of thousands of digits (Python's int conversion limit)
            raise LogError("a number too long to be part of an event") from None
    if not isinstance(data, dict):
        raise LogError("an event must be a JSON object, not " + (
            json.dumps(data) if data is None or isinstance(data, bool)
            else _JSON_KINDS.get(type(data), "a JSON value")))
    try:
        return _adapter.validate_python(data)
    except ValidationError as error:
        raise LogError(_explain(error)) from None
    except CardError as error:
        raise LogError(str(error)) from None


def iter_log(path: Path) -> Iterator[tuple[int, Event]]:
    """Yield (line number, event) for each non-blank line; LogError names the bad line. A
    byte-order mark (a log saved by Windows Notepad) is read past."""
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, parse_event(line)
        except LogError as error:
            raise LogError(f"{path}:{number}: {error}") from None


def read_text(path: Path, limit: int = MAX_LOG_BYTES, *, kind: str = "log file") -> str:
    """A log file's text (UTF-8, a byte-order mark read past); LogError, one sentence
    naming the file (`kind`: what it should have been), for one that cannot be read, is
    not text or is larger than `limit` bytes."""
    try:
        found = Path(path).stat()
        if stat.S_ISDIR(found.st_mode):
            raise LogError(f"{path}: a folder, not a {kind}")
        if not stat.S_ISREG(found.st_mode):  # a FIFO or a device: never waited on
            raise LogError(f"{path}: not a regular file, so not a {kind}")
        if found.st_size > limit:
            raise LogError(f"{path}: {found.st_size / 2**20:.1f} MB, more than a log may be "
                           f"({limit // 2**20} MB: a game is a few KB)")
        return Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise LogError(f"{path}: not a text file (it is not UTF-8)") from None
    except OSError as error:
        reason = (error.strerror or "the system refused").lower()
        raise LogError(f"{path}: cannot be read ({reason})") from None


def read_log(path: Path) -> list[Event]:
    return [event for _, event in iter_log(path)]


def dump_log(events: list[Event], path: Path) -> None:
    Path(path).write_text("".join(e.to_json() + "\n" for e in events), encoding="utf-8")
