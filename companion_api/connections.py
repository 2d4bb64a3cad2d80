"""Bounds on the server's sockets, beneath the app: no client address holds more than a few
connections, and a connection that sends no whole request in time is closed. uvicorn keeps
an idle socket, or one that sends its headers a byte at a time, for as long as it is open:
a few hundred of them use up the open files, and every phone is shut out.

`guarded_protocol` makes uvicorn's HTTP protocol (`uvicorn.Config(http=…)`) with both.
A connection counts against its address from its first byte to its close, whatever it
becomes: a request, a WebSocket (once upgraded, uvicorn's WebSocket protocol owns the
socket, and pings find a dead one) or the camera's MJPEG stream.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from .security import with_security_headers

MAX_ADDRESSES = 10_000  # addresses remembered; past this, those with no open socket go


@dataclass(frozen=True)
class ConnectionLimits:
    per_address: int | None = 32  # connections one address may hold: HTTP, sockets, streams
    request_s: float = 10.0  # a request's headers and body must arrive within this
    keep_alive_s: int = 5  # an idle connection between requests is closed after this
    max_connections: int = 1100  # every connection at once; past it, a 503


def _refusal(status: str, detail: str) -> bytes:
    """A whole HTTP answer, written to the socket before any app sees the request (so with
    the security headers every answer carries)."""
    body = json.dumps({"detail": detail}).encode()
    headers = with_security_headers([(b"content-type", b"application/json"),
                                     (b"content-length", str(len(body)).encode()),
                                     (b"connection", b"close")])
    return (f"HTTP/1.1 {status}\r\n".encode()
            + b"".join(name + b": " + value + b"\r\n" for name, value in headers)
            + b"\r\n" + body)


TOO_MANY = _refusal("503 Service Unavailable", "too many connections from this address; "
                                               "close some of its pages and try again")


class AddressCount:
    """The open connections of each client address (their transports: closed ones are
    dropped as they are found, whichever protocol owned them at the end)."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._open: dict[str, list[asyncio.BaseTransport]] = {}

    def admit(self, address: str, transport: asyncio.BaseTransport) -> bool:
        still = [t for t in self._open.get(address, ()) if not t.is_closing()]
        if len(still) >= self.per_address:
            self._open[address] = still
            return False
        self._open[address] = [*still, transport]
        if len(self._open) > MAX_ADDRESSES:
            self._forget_closed()
        return True

    def _forget_closed(self) -> None:
        self._open = {a: kept for a, ts in self._open.items()
                      if (kept := [t for t in ts if not t.is_closing()])}


def guarded_protocol(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol, with the cap per address and the request deadline."""
    count = AddressCount(limits.per_address) if limits.per_address else None

    class Guarded(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _refused = False
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            if count is not None and peer and not count.admit(str(peer[0]), transport):
                self._refused = True
                transport.write(TOO_MANY)
                transport.close()
                return
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection has the same time

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = asyncio.get_running_loop().call_later(limits.request_s,
                                                                   self._too_slow)

        def _too_slow(self) -> None:
            """Close a connection still waiting for a whole request; not one whose answer
            is being sent (a stream), nor one that became a WebSocket."""
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            cycle = self.cycle
            if cycle is None or cycle.response_complete or cycle.more_body:
                self.transport.close()

    return Guarded
