"""Reading the game: its state, its log, the legal moves, the heroes."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse, Response

from cards import CardError, check_card_id
from tracker.rules import Player

from ..dependencies import READS_LOG, WRITES, HoldsToken, TableDep
from ..responses import jsonl, state_response
from ..session import Refused

router = APIRouter(prefix="/api")


@router.get("/state", summary="The game state, with the open questions")
async def get_state(table: TableDep) -> Response:
    return state_response(table.session)


@router.get("/log", dependencies=READS_LOG,
            summary="The event log of the game in progress (with the token while a secret "
                    "lies face down: the log names it)")
async def get_log(table: TableDep) -> dict[str, Any]:
    return {"game": table.session.game_id,
            "events": [e.model_dump(mode="json", exclude_none=True)
                       for e in table.session.log()]}


@router.get("/log.jsonl", dependencies=READS_LOG, response_class=PlainTextResponse,
            summary="The event log as JSON Lines (replays with `replay`); with the token "
                    "while a secret lies face down")
async def get_log_jsonl(table: TableDep) -> PlainTextResponse:
    return jsonl(table.session.game_id, table.session.log())


@router.get("/moves", summary="The legal moves now; with `card` (or `power=true`, or "
                              "`attacker`), each way to play the card (use the hero power, "
                              "attack with it), legal or not. Secret reveals name a face-down "
                              "card: they are listed only with the token, and `secrets_due` "
                              "says they are the ones the last event set off")
async def get_moves(table: TableDep, token: HoldsToken, card: str | None = None,
                    player: Player | None = None, power: bool = False,
                    attacker: str | None = Query(None, max_length=8)) -> dict[str, Any]:
    if card is not None:
        try:
            card = check_card_id(card.upper(), allow_rank=True)
        except CardError as error:
            raise Refused(422, str(error)) from None
    return await table.change(table.session.moves, card, player, power, attacker, token)


@router.get("/secrets/{player}", dependencies=WRITES,
            summary="The secrets a player has set, face up: a peek for that player alone")
async def get_secrets(table: TableDep, player: Player) -> dict[str, Any]:
    return await table.change(table.session.secrets, player)


@router.get("/overlay/secrets",
            summary="Both players' secrets, face up, for the overlay of a delayed stream "
                    "(`run --overlay-secrets`)")
async def get_overlay_secrets(table: TableDep, request: Request) -> dict[str, Any]:
    if not request.app.state.overlay_secrets:
        raise Refused(404, "the overlay shows no secrets unless the server was started with "
                           "`run --overlay-secrets` (for a stream with a delay)")
    return await table.change(table.session.overlay_secrets)


@router.get("/heroes", summary="The heroes a game may be played with")
async def get_heroes(table: TableDep) -> list[dict[str, str]]:
    return table.session.hero_list()
