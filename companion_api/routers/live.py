"""What is pushed live: the state to every page over the WebSocket, and the camera's frames
with the cards it read as an MJPEG stream."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter, WebSocket
from fastapi.responses import Response, StreamingResponse

from tracker.camera import STREAM_FPS, CameraFeed

from ..dependencies import FeedDep

router = APIRouter()


@router.websocket("/ws")
async def socket(websocket: WebSocket) -> None:
    await websocket.app.state.table.hub.serve(websocket)


@router.get("/stream.mjpg", include_in_schema=False)
async def stream(feed: FeedDep) -> Response:
    return StreamingResponse(_mjpeg(feed),
                             media_type="multipart/x-mixed-replace; boundary=frame")


async def _mjpeg(feed: CameraFeed) -> AsyncIterator[bytes]:
    """The camera's latest annotated frame, a few times a second."""
    while True:
        if feed.jpeg:
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                   + str(len(feed.jpeg)).encode() + b"\r\n\r\n" + feed.jpeg + b"\r\n")
        await asyncio.sleep(1.0 / STREAM_FPS)
