"""Questions: what the camera could not decide, put to the players' phones.

A question offers options, each the events it stands for (none for "nothing happened");
the answer applies them. The tracker asks; the server carries the questions to the phones
and back.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tracker.rules.events import Event, NewGame


class Option(BaseModel):
    model_config = ConfigDict(frozen=True)
    label: str = Field(min_length=1, max_length=200)
    events: list[Event] = []

    @field_validator("events")
    @classmethod
    def _same_game(cls, events: list[Event]) -> list[Event]:
        if any(isinstance(e, NewGame) for e in events):
            raise ValueError("an answer goes on with the game; it cannot start a new one")
        return events


class Question(BaseModel):
    """`default` is the option taken when nobody answers (the most likely one)."""

    model_config = ConfigDict(frozen=True)
    id: int
    prompt: str = Field(min_length=1, max_length=300)
    options: list[Option] = Field(min_length=1, max_length=20)
    default: int = 0


class Answer(BaseModel):
    """An answer to a question: the index of the chosen option."""

    model_config = ConfigDict(extra="forbid")
    option: int = Field(ge=0, le=19)
