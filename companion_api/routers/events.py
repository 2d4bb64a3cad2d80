"""Changing the game: an event, an undo, a new game. With a camera, the camera keeps the
game: the phone gives what no camera sees (a new game, a mulligan, the end of a turn, a
concession) and what the camera missed (a play, an attack, a hero power, a secret
revealed), which go to the camera's tracker."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from tracker.camera import MISSABLE, PHONE_INPUTS
from tracker.rules import EngineError, Event, Game, LogError, NewGame, Player, parse_event

from ..dependencies import WRITES, Table, TableDep
from ..fixes import missed
from ..responses import with_state
from ..session import Refused

router = APIRouter(prefix="/api", dependencies=WRITES)


class NewGameRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    heroes: dict[Player, str] = Field(description="the hero of p1 (who goes first) and of p2")
    deck: list[str] | None = Field(None, description="the full deck order (simulations)")


@router.post("/events", summary="Add one event of the log; answers the new state and the "
                                "alerts the event raised")
async def post_event(table: TableDep, event: Annotated[Event, Body()]) -> Response:
    if event.source is None:
        event = event.model_copy(update={"source": "phone"})
    if table.feed and event.type in MISSABLE:  # the camera missed it: added now
        fix = await table.change(missed, table.session, True, event, None)
        if not table.feed.fix(fix):
            raise Refused(409, "a fix is on its way to the camera; try again in a moment")
        return with_state(table.session, [])
    if _to_the_camera(table, event):
        return with_state(table.session, [])
    return with_state(table.session, await table.change(table.session.add, event))


@router.post("/undo", summary="Remove the last event")
async def post_undo(table: TableDep) -> Response:
    if table.feed:
        raise Refused(409, "the camera keeps this game: take the card back on the table, "
                           "or answer its question")
    await table.change(table.session.undo)
    return with_state(table.session, [])


@router.post("/new-game", summary="Start a new game (the last one is kept)")
async def post_new_game(table: TableDep, request: NewGameRequest) -> Response:
    try:
        event = parse_event({"type": "new_game", "source": "phone",
                             **request.model_dump(exclude_none=True)})
    except LogError as error:
        raise Refused(422, str(error)) from None
    assert isinstance(event, NewGame)
    if _to_the_camera(table, event):
        return with_state(table.session, [])
    return with_state(table.session, await table.change(table.session.new_game, event))


def _to_the_camera(table: Table, event: Event) -> bool:
    """With a camera the phone's inputs go to its tracker (the state follows within a
    frame); anything else is the camera's to see. False without a camera."""
    if not table.feed:
        return False
    if event.type not in PHONE_INPUTS:
        raise Refused(409, f"the camera keeps this game: a {event.type} is read from the "
                           "table; the phone gives new games, mulligans, ends of turn, "
                           "concessions and what the camera missed")
    if isinstance(event, NewGame):  # refused here: the camera's thread cannot answer
        try:
            Game().apply(event)
        except EngineError as error:
            raise Refused(422, str(error)) from None
    table.feed.phone(event)
    return True
