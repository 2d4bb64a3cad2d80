"""The games kept in the data folder, and each one's log to download."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from ..dependencies import TableDep, log_reader
from ..responses import jsonl
from ..session import Refused
from ..store import StoreError

router = APIRouter(prefix="/api/games")


@router.get("", summary="Every game kept in the data folder, newest first")
async def get_games(table: TableDep) -> list[dict[str, Any]]:
    return await table.change(table.session.games)


@router.get("/{game}/log.jsonl", summary="A kept game's event log",
            response_class=PlainTextResponse)
async def get_game_log(table: TableDep, game: str, request: Request,
                       token: str | None = None) -> PlainTextResponse:
    if game == table.session.game_id:  # the game in progress: its secrets stay hidden
        log_reader(request, table, token)
    if game not in table.folder.game_ids():
        raise Refused(404, f"there is no game {game[:100]!r} in the data folder")
    try:
        return jsonl(game, table.folder.read(game).events)
    except StoreError as error:  # its reason: no path, nothing the file holds
        raise Refused(409, f"the log of game {game!r} cannot be read: "
                           f"{error.reason or 'a damaged file'}") from None
