"""A person's fix of any event the camera read: what may be put in its place, and the fix,
which goes to the camera's tracker (the log is rewritten from that point, and every page
follows)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from ..dependencies import READS_LOG, WRITES, TableDep
from ..fixes import FixRequest, offer, request
from ..responses import with_state
from ..session import Refused

router = APIRouter(prefix="/api/events/{index}")


@router.get("/fixes", dependencies=READS_LOG,
            summary="What may be put in place of an event the camera read (with the token "
                    "while a secret lies face down: the options name the events)")
async def get_fixes(table: TableDep, index: int) -> dict[str, Any]:
    return await table.change(offer, table.session, table.feed is not None, index)


@router.post("/fix", dependencies=WRITES, summary="Fix an event the camera read: one of "
                                                  "its options, or the card named by hand")
async def post_fix(table: TableDep, index: int, asked: FixRequest) -> Response:
    fix = await table.change(request, table.session, table.feed is not None, index, asked)
    if table.feed is None or not table.feed.fix(fix):
        raise Refused(409, "another fix is on its way to the camera; try again in a moment")
    return with_state(table.session, [])
