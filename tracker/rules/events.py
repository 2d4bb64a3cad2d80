"""The event log: one JSON object a line, the unit of persistence and replay.

Each event type is a pydantic model; `parse_event` turns a line into one and `read_log`
reads a whole file, naming the line of the first bad one in a one-line error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from cards import CardError, check_card_id

from .cards import PLAYERS, is_token_id

Player = Literal["p1", "p2"]
Source = Literal["camera", "phone", "replay", "bot"]


class LogError(ValueError):
    """A line of an event log that is not a valid event."""


def _check_target(value: str) -> str:
    if value in PLAYERS or is_token_id(value):
        return value
    return check_card_id(value, allow_joker=False)


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: Source | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True)


class NewGame(_Event):
    type: Literal["new_game"] = "new_game"
    heroes: dict[Player, str]
    deck: list[str] | None = None

    @field_validator("heroes")
    @classmethod
    def _both_heroes(cls, heroes: dict[str, str]) -> dict[str, str]:
        if set(heroes) != set(PLAYERS):
            raise ValueError("heroes must name a hero for both p1 and p2")
        return heroes

    @field_validator("deck")
    @classmethod
    def _full_deck(cls, deck: list[str] | None) -> list[str] | None:
        if deck is None:
            return None
        for card in deck:
            check_card_id(card, allow_joker=False)
        if len(deck) != 52 or len(set(deck)) != 52:
            raise ValueError("deck must list each of the 52 cards once (jokers out)")
        return deck


class Mulligan(_Event):
    type: Literal["mulligan"] = "mulligan"
    player: Player
    count: int = Field(ge=0, le=5)


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
            return [_check_target(t) for t in target]
        return None if target is None else _check_target(target)

    @field_validator("revealed")
    @classmethod
    def _revealed(cls, cards: list[str] | None) -> list[str] | None:
        if cards is not None:
            for card in cards:
                check_card_id(card, allow_joker=False)
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
        return check_card_id(card)


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
        return check_card_id(card, allow_joker=False)


class EndTurn(_Event):
    type: Literal["end_turn"] = "end_turn"


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
    count: int = Field(ge=0, le=53)
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
    first = error.errors()[0]
    # drop the union branch names pydantic puts in the path ("target.list[str].1")
    where = ".".join(str(p) for p in first["loc"] if p not in ("str", "list[str]"))
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "union_tag_invalid":
        return f"unknown event type (expected one of {', '.join(EVENT_TYPES)})"
    if first["type"] == "union_tag_not_found":
        return "event has no 'type'"
    if first["type"] == "extra_forbidden":
        return f"unknown field {where.split('.')[-1]!r}"
    return f"{where}: {message}" if where else message


# The longest event, a new game with its 53 cards' order, is about 400 characters, and a
# game a few hundred events: what is far past these is no log, and is not read whole
MAX_LINE = 16 * 1024  # characters a line
MAX_LOG_BYTES = 16 * 2**20  # bytes a log file


def parse_event(data: str | dict) -> Event:
    """Validate one event (a JSON line or a dict); raise LogError with a one-line reason."""
    if isinstance(data, str):
        if len(data) > MAX_LINE:
            raise LogError(f"a line of {len(data):,} characters, more than an event has "
                           f"(at most {MAX_LINE:,})")
        try:
            data = json.loads(data)
        except json.JSONDecodeError as error:
            raise LogError(f"not valid JSON ({error.msg})") from None
        except RecursionError:
            raise LogError("JSON nested too deeply to be an event") from None
        except ValueError:  # a number of thousands of digits (Python's int conversion limit)
            raise LogError("a number too long to be part of an event") from None
    if not isinstance(data, dict):
        raise LogError("an event must be a JSON object")
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


def read_text(path: Path, limit: int = MAX_LOG_BYTES) -> str:
    """A log file's text (UTF-8, a byte-order mark read past); LogError for one that cannot
    be read or is larger than `limit` bytes."""
    try:
        size = Path(path).stat().st_size
        if size > limit:
            raise LogError(f"{path}: {size / 2**20:.1f} MB, more than a log may be "
                           f"({limit // 2**20} MB: a game is a few KB)")
        return Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise LogError(f"{path}: cannot read ({error.__class__.__name__}: {error})") from None


def read_log(path: Path) -> list[Event]:
    return [event for _, event in iter_log(path)]


def dump_log(events: list[Event], path: Path) -> None:
    Path(path).write_text("".join(e.to_json() + "\n" for e in events), encoding="utf-8")
