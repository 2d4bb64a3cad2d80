"""What the server does to every request and answer, whoever asks: the pages' content
policy, headers that keep the token out of referrers, a bound on request bodies, a rate limit
on writes per client, and the token kept out of the access log."""

from __future__ import annotations

import logging
import re
import secrets
import time

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The pages load only their own scripts, styles and socket: a script that got into the page
# (a card name, a hero file's text) could not run, nor send the token anywhere
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
               "frame-ancestors 'none'")
# on every answer: the phone's address carries the token, so no page sends it as a referrer
EVERY_ANSWER = [(b"referrer-policy", b"no-referrer"), (b"x-content-type-options", b"nosniff")]
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


class Headers:
    """EVERY_ANSWER's headers added to each HTTP answer (ASGI middleware)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *EVERY_ANSWER]
            await send(message)

        await self.app(scope, receive, with_headers)


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
