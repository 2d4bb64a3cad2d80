"""What the server does to every request and answer, whoever asks: only its own host names
answered and only its own pages' writes taken, the pages' content policy, headers that keep
the token out of referrers, a bound on request bodies, a rate limit on writes per client,
and the token kept out of the access log."""

from __future__ import annotations

import logging
import re
import secrets
import socket
import time
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The pages load only their own scripts, styles and socket: a script that got into the page
# (a card name, a hero file's text) could not run, nor send the token anywhere
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
               "frame-ancestors 'none'")
# An answer that brings no policy of its own (the API's JSON, an error) may load nothing
NO_CONTENT_POLICY = b"default-src 'none'; frame-ancestors 'none'"
# on every answer: the phone's address carries the token, so no page sends it as a referrer;
# no answer is read as another type than it says, nor shown in another site's frame
EVERY_ANSWER = [(b"referrer-policy", b"no-referrer"), (b"x-content-type-options", b"nosniff"),
                (b"x-frame-options", b"DENY")]
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
TOKEN_IN_ADDRESS = re.compile(r"([?&]token=)[^&\s]*", re.IGNORECASE)
MAX_CLIENTS_KEPT = 10_000  # rate buckets: past this, the idle ones are forgotten


class HideToken(logging.Filter):
    """An access log line shows `token=…`, never the token (uvicorn logs the query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(TOKEN_IN_ADDRESS.sub(r"\1…", a) if isinstance(a, str) else a
                                for a in record.args)
        return True


HIDE_TOKEN = HideToken()


def token_matches(given: str, token: str) -> bool:
    """In constant time: how long a wrong guess took says nothing of the token."""
    return secrets.compare_digest(given.encode(), token.encode())


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """An answer's headers with EVERY_ANSWER's, and a policy that loads nothing if it has
    none of its own."""
    extra = list(EVERY_ANSWER)
    if not any(name.lower() == b"content-security-policy" for name, _ in headers):
        extra.append((b"content-security-policy", NO_CONTENT_POLICY))
    return [*headers, *extra]


class Headers:
    """EVERY_ANSWER's headers added to each HTTP answer (ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = with_security_headers(list(message.get("headers", [])))
            await send(message)

        await self.app(scope, receive, with_headers)


def own_names() -> frozenset[str]:
    """The names this machine answers to besides its addresses: loopback, and its host name
    (as typed, and as `.local` on a network that resolves names by mDNS)."""
    name = socket.gethostname().lower()
    return LOOPBACK | {name, f"{name}.local"}


def _host_name(value: str) -> str | None:
    """The name in a Host header (`name[:port]`, `[v6]:port`), lower case; None if none."""
    try:
        return urlsplit(f"//{value}").hostname
    except ValueError:
        return None


def _arrived_at(scope: Scope) -> str:
    """The address a request came in on, as a phone would type it (an IPv4 address that
    reached a dual-stack socket is shown as `::ffff:a.b.c.d`)."""
    address = str((scope.get("server") or ("",))[0]).lower()
    return address.removeprefix("::ffff:") if "." in address else address


class HostCheck:
    """Answer only to a name the server is reached by, and take writes and sockets only from
    its own pages (ASGI middleware).

    A page of another site cannot read the game by pointing a name of its own at this
    machine (DNS rebinding): its requests carry that name as their Host. The names: the
    address the request came in on, `names` (loopback, this machine's name, the printed
    address, `--allow-host`). A browser says which page sent a write or opened a socket
    (`Origin`): it must be this server's own, or one of `origins` (`--allow-origin`)."""

    def __init__(self, app: ASGIApp, names: frozenset[str], origins: tuple[str, ...]) -> None:
        self.app, self.names = app, frozenset(n.lower() for n in names)
        self.origins = frozenset(o.lower() for o in origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        refusal = self._refusal(scope)
        if refusal is None:
            return await self.app(scope, receive, send)
        if scope["type"] == "http":
            return await JSONResponse({"detail": refusal}, status_code=403)(scope, receive, send)
        await receive()  # the handshake, then a denial in place of the socket
        if "websocket.http.response" in scope.get("extensions", {}):
            await JSONResponse({"detail": refusal}, status_code=403)(scope, receive, send)
        else:
            await send({"type": "websocket.close", "code": 1008, "reason": refusal[:120]})

    def _refusal(self, scope: Scope) -> str | None:
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1")
        name = _host_name(host)
        if name is None or (name not in self.names and name != _arrived_at(scope)):
            return ("this server answers only to its own addresses; to reach it by another "
                    "name, start it with `run --allow-host NAME`")
        origin = headers.get(b"origin")
        writes = scope["type"] == "websocket" or scope["method"] not in SAFE_METHODS
        if origin is None or not writes:
            return None
        origin_text = origin.decode("latin-1").lower()
        scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
        if origin_text == f"{scheme}://{host.lower()}" or origin_text in self.origins:
            return None
        return ("a page of another site may not change the game or open a socket here; "
                "allow it with `run --allow-origin URL`")


class BodyLimit:
    """Refuse a request body over `limit` bytes before the app reads it (ASGI middleware)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await self._refuse(send)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                return await self._refuse(send)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        await JSONResponse({"detail": f"the request body is larger than {self.limit} bytes"},
                           status_code=413)({"type": "http"}, _nothing, send)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


class RateLimit:
    """A token bucket per client address for writes: a flood is told to slow down."""

    def __init__(self, per_s: float, burst: int) -> None:
        self.per_s, self.burst = per_s, burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, client: str) -> bool:
        now = time.monotonic()
        tokens, then = self._buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.per_s)
        if tokens < 1:
            self._buckets[client] = (tokens, now)
            return False
        self._buckets[client] = (tokens - 1, now)
        if len(self._buckets) > MAX_CLIENTS_KEPT:  # forget idle clients, keep memory bounded
            self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < 60}
        return True
