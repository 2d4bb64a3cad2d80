"""Setting the camera up: the check of its latest frame (markers, card size, tilt, light,
focus, each problem with what to do), that frame with the markers and zones drawn on it, and
the printable markers. Read-only, like the camera's stream: anyone on the network may look."""

from __future__ import annotations

import asyncio
import time
from functools import cache
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from calibration import encode_sheet, render_sheet
from tracker.camera import CameraFeed, Recording

from ..dependencies import FeedDep
from ..session import Refused

router = APIRouter(prefix="/api/setup")

# the camera's condition, when it is not "ok", in one sentence saying what to do
CONDITION = {
    "lost": "No picture from the camera: check that it is plugged in and that no other "
            "program is using it.",
    "frozen": "The picture has stopped changing: the camera may have hung; unplug it and "
              "plug it back in.",
    "moved": "The camera moved: it is finding the table again; keep it still.",
}
ENDED = "The recording has ended: this is its last picture."
STARTING = "Reading the camera's first picture (the card models load, a few seconds)."


@router.get("", summary="The camera setup check of the latest frame: the markers found, "
                        "the card size, the tilt, light and focus, and what to do")
async def get_setup(feed: FeedDep) -> dict[str, Any]:
    made = await asyncio.to_thread(feed.setup)
    condition = _condition(feed)
    if made is None:
        return {"camera": feed.status, "picture": False, "ready": False,
                "problems": [condition or "Waiting for the camera's first picture."]}
    check, _ = made
    answer = check.to_json() | {"camera": feed.status, "picture": True,
                                "age_s": round(time.monotonic() - feed.pictured_at, 1)}
    if condition:
        answer["problems"] = [condition, *answer["problems"]]
        answer["ready"] = False
    return answer


@router.get("/picture.jpg", summary="The latest frame with the markers found (green), "
                                    "missing (red), the play area and the zones drawn",
            response_class=Response)
async def get_picture(feed: FeedDep) -> Response:
    made = await asyncio.to_thread(feed.setup)
    if made is None:
        raise Refused(404, "no picture from the camera yet: wait a moment, or check that it "
                           "is plugged in")
    return Response(made[1], media_type="image/jpeg", headers={"Cache-Control": "no-store"})


@router.get("/markers.pdf", summary="The table's four markers to print (A4, at 100 %)",
            response_class=Response)
async def get_markers() -> Response:
    return Response(await asyncio.to_thread(_markers_pdf), media_type="application/pdf", headers={
        "Content-Disposition": 'attachment; filename="hearthtop-markers.pdf"'})


@cache
def _markers_pdf() -> bytes:
    return encode_sheet(render_sheet(), ".pdf")


def _condition(feed: CameraFeed) -> str | None:
    """The camera's condition in a sentence, when it is not right: a picture taken whose
    first look is not done is no lost camera (the models load at the first)."""
    if feed.ended and isinstance(feed.source, Recording):
        return ENDED
    if feed.status == "lost" and feed.picture is not None and feed.frame == 0:
        return STARTING
    return CONDITION.get(feed.status)
