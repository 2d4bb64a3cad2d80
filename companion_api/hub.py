"""The WebSocket hub: every connected page gets the newest state, and only the newest.

Each client has its own sender that waits for a change (or, every `resend_s`, sends the
same state again, so a page that missed something heals by itself). A burst of changes
while a client is busy collapses into one message, so a slow phone never holds up a fast
one, and a client that stops reading is dropped once a send has waited `send_timeout_s`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from fastapi import WebSocket, WebSocketDisconnect


class Hub:
    def __init__(self, latest: Callable[[], str], *, resend_s: float = 5.0,
                 send_timeout_s: float = 5.0, max_clients: int = 1000) -> None:
        self._latest = latest  # the current state message, made once per change
        self.resend_s, self.send_timeout_s, self.max_clients = (resend_s, send_timeout_s,
                                                                max_clients)
        self._wakers: set[asyncio.Event] = set()

    @property
    def clients(self) -> int:
        return len(self._wakers)

    def publish(self) -> None:
        """Tell every client that the state changed."""
        for waker in self._wakers:
            waker.set()

    async def serve(self, websocket: WebSocket) -> None:
        await websocket.accept()  # a socket over the limit is told why: 1013, not a 403
        if self.clients >= self.max_clients:
            await websocket.close(code=1013, reason="too many clients; try again later")
            return
        waker = asyncio.Event()
        waker.set()  # the full state on connect
        self._wakers.add(waker)
        sender = asyncio.create_task(self._send(websocket, waker))
        reader = asyncio.create_task(self._read(websocket))
        try:
            await asyncio.wait({sender, reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._wakers.discard(waker)
            for task in (sender, reader):
                task.cancel()
            with contextlib.suppress(Exception):  # a page that does not read never acks
                await asyncio.wait_for(websocket.close(), self.send_timeout_s)

    async def _send(self, websocket: WebSocket, waker: asyncio.Event) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waker.wait(), self.resend_s)
            waker.clear()
            try:
                await asyncio.wait_for(websocket.send_text(self._latest()),
                                       self.send_timeout_s)
            except (TimeoutError, WebSocketDisconnect, RuntimeError, OSError):
                return  # a client that does not read, or has gone

    async def _read(self, websocket: WebSocket) -> None:
        """Pages send nothing that matters; reading notices a page that closes."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while (await websocket.receive())["type"] != "websocket.disconnect":
                pass
