"""The companion server: the game state for phones, the overlay and other tools, and the
phone's actions back into the event log.

REST under `/api` (OpenAPI at `/docs`), the WebSocket `/ws`, and the pages. Anyone on the
network may watch; writing needs the table's token (`Authorization: Bearer TOKEN` or
`?token=TOKEN`). A bad request is a 4xx with one sentence in `{"detail": …}` and changes
nothing. Every change to the game goes through one lock, and runs in a worker thread
(the engine and the fsync) so that the event loop keeps every socket fed meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Body, Depends, FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cards import CardError, check_card_id
from tracker.engine import EngineError, Game
from tracker.events import Event, LogError, NewGame, Player, parse_event
from tracker.live import PHONE_EVENTS
from tracker.questions import Answer

from .hub import Hub
from .session import Limits, Refused, Session
from .store import DataFolder, StoreError

PAGES = Path(__file__).with_name("pages")
API_VERSION = "1"
T = TypeVar("T")
# The pages load only their own scripts, styles and socket: a script that got into the page
# (a card name, a hero file's text) could not run, nor send the token anywhere
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
               "frame-ancestors 'none'")
# on every answer: the phone's address carries the token, so no page sends it as a referrer
EVERY_ANSWER = [(b"referrer-policy", b"no-referrer"), (b"x-content-type-options", b"nosniff")]
TOKEN_IN_ADDRESS = re.compile(r"([?&]token=)[^&\s]*", re.IGNORECASE)


class _HideToken(logging.Filter):
    """An access log line shows `token=…`, never the token (uvicorn logs the query)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(TOKEN_IN_ADDRESS.sub(r"\1…", a) if isinstance(a, str) else a
                                for a in record.args)
        return True


_HIDE_TOKEN = _HideToken()


@dataclass(frozen=True)
class ServerLimits:
    max_body: int = 64 * 1024  # bytes of a request body; an event is well under 1 KiB
    writes_per_s: float = 20.0  # per client address, sustained …
    write_burst: int = 60  # … after a burst of this many
    resend_s: float = 5.0  # a full state to every socket at least this often
    send_timeout_s: float = 5.0  # a socket that takes longer to take a message is dropped
    max_sockets: int = 1000
    save_again_s: float = 2.0  # how often a game the disk could not keep is written again


class NewGameRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    heroes: dict[Player, str] = Field(description="the hero of p1 (who goes first) and of p2")
    deck: list[str] | None = Field(None, description="the full deck order (simulations)")


class _Headers:
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


class _BodyLimit:
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


class _RateLimit:
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
        if len(self._buckets) > 10_000:  # forget idle clients, keep memory bounded
            self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < 60}
        return True


def _sentence(error: RequestValidationError) -> str:
    """The first thing wrong with a request, in one sentence."""
    first = error.errors()[0]
    if first["type"] == "json_invalid":
        return "the body is not valid JSON"
    where = ".".join(str(p) for p in first["loc"] if p != "body")
    if not where and first["type"] in ("model_attributes_type", "dict_type"):
        return "the body must be a JSON object"
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _event_sentence(error: RequestValidationError) -> str:
    """An event's own checks say best what is wrong with it."""
    if error.errors()[0]["type"] == "json_invalid":
        return "the body is not valid JSON"
    if not isinstance(error.body, dict):
        return "an event must be a JSON object"
    try:
        parse_event(error.body)
    except LogError as problem:
        return str(problem)
    return _sentence(error)


def create_app(data: Path | DataFolder, *, limits: ServerLimits = ServerLimits(),
               game_limits: Limits | None = None,
               feed: Callable[[Callable], Any] | None = None,
               allow_origins: tuple[str, ...] = ()) -> FastAPI:
    """The server for one table, keeping its games in `data`. `feed`, if given, makes the
    live source (`companion_api.feed.CameraFeed`, a camera or a recording such as the
    demo's) from the function that takes its log, camera status and game number; the
    camera then keeps the game, and the phone gives only what no camera sees (new game,
    end of turn, concession). `allow_origins`: the web pages elsewhere that may call the
    API from a browser (CORS); none unless asked for."""
    folder = data if isinstance(data, DataFolder) else DataFolder(Path(data))
    session = Session(folder, game_limits or Limits())
    token = folder.token()
    hub = Hub(lambda: session.message_json, resend_s=limits.resend_s,
              send_timeout_s=limits.send_timeout_s, max_clients=limits.max_sockets)
    lock = asyncio.Lock()
    rate = _RateLimit(limits.writes_per_s, limits.write_burst)

    async def locked(change: Callable[..., T], *args: Any) -> T:
        """Run `change` alone, in a worker thread; tell every socket if the game moved."""
        async with lock:
            version = session.version
            try:
                return await asyncio.to_thread(change, *args)
            finally:
                if session.version != version:
                    hub.publish()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()

        def publish(tracker: Any, camera: str, game: int,  # from the feed's thread
                    deck: dict | None = None) -> None:
            asyncio.run_coroutine_threadsafe(
                locked(session.mirror, list(tracker.events), camera,
                       tracker.open_choices(), game, deck), loop).result(30)

        async def save_again() -> None:  # a full disk: the log is completed once it has room
            while True:
                await asyncio.sleep(limits.save_again_s)
                if session.unsaved is not None:
                    await locked(session.save_again)

        camera = feed(publish) if feed else None
        app.state.feed = camera
        if camera:
            camera.start()
        saver = asyncio.create_task(save_again())
        try:
            yield
        finally:
            saver.cancel()
            if camera:
                await asyncio.to_thread(camera.stop)
            folder.close()

    app = FastAPI(title="Hearthtop Companion", version=API_VERSION, lifespan=lifespan,
                  description="The live state of a Hearthtop table, and the phone's "
                              "scorekeeping. Writes need the table's token.")
    app.state.session, app.state.hub, app.state.token = session, hub, token
    app.state.feed = None  # the live source, once the server runs
    app.state.lock = lock
    app.add_middleware(_BodyLimit, limit=limits.max_body)
    if allow_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(allow_origins),
                           allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(_Headers)
    logging.getLogger("uvicorn.access").addFilter(_HIDE_TOKEN)  # once: filters are a set

    # --- errors: one sentence, never a traceback ---------------------------------------
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        explain = _event_sentence if request.url.path == "/api/events" else _sentence
        return JSONResponse({"detail": explain(error)}, status_code=422)

    @app.exception_handler(Refused)
    async def _refused(request: Request, error: Refused) -> JSONResponse:
        return JSONResponse({"detail": error.detail}, status_code=error.status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, error: StarletteHTTPException) -> JSONResponse:
        detail = error.detail
        if error.status_code == 404 and detail == "Not Found":
            detail = f"there is nothing at {request.url.path}"
        return JSONResponse({"detail": detail}, status_code=error.status_code,
                            headers=error.headers)

    @app.exception_handler(Exception)
    async def _bug(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"detail": f"the server failed ({type(error).__name__}); the "
                                       "game is unchanged"}, status_code=500)

    # --- who may write -------------------------------------------------------------------
    def writer(request: Request,
               token_param: Annotated[str | None, Query(alias="token")] = None) -> None:
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        given = credentials.strip() if scheme.lower() == "bearer" else token_param
        if not given:
            raise Refused(401, "this needs the table's token: open the address that `run` "
                               "printed (or scan its QR code)")
        if not secrets.compare_digest(given.encode(), token.encode()):
            raise Refused(403, "the token is wrong: open the address that `run` printed "
                               "(or scan its QR code)")
        client = request.client.host if request.client else "?"
        if not rate.allow(client):
            raise Refused(429, f"too many changes from {client} (more than "
                               f"{limits.writes_per_s:g} a second); slow down")

    writes = [Depends(writer)]

    def state_response() -> Response:
        return Response(session.state_json, media_type="application/json")

    def answer(raised: list) -> Response:
        raised_json = ",".join(a.model_dump_json() for a in raised)
        return Response(f'{{"raised":[{raised_json}],"state":{session.state_json}}}',
                        media_type="application/json")

    # --- reading -------------------------------------------------------------------------
    @app.get("/api/state", summary="The game state, with the open questions")
    async def get_state() -> Response:
        return state_response()

    @app.get("/api/log", summary="The event log of the game in progress")
    async def get_log() -> dict[str, Any]:
        events = session.log()
        return {"game": session.game_id,
                "events": [e.model_dump(mode="json", exclude_none=True) for e in events]}

    @app.get("/api/log.jsonl", summary="The event log as JSON Lines (replays with `replay`)",
             response_class=PlainTextResponse)
    async def get_log_jsonl() -> PlainTextResponse:
        return _jsonl(session.game_id, session.log())

    @app.get("/api/moves", summary="The legal moves now; with `card` (or `power=true`), each "
                                   "way to play the card (use the hero power), legal or not")
    async def get_moves(card: str | None = None, player: Player | None = None,
                        power: bool = False) -> dict[str, Any]:
        if card is not None:
            try:
                card = check_card_id(card.upper())
            except CardError as error:
                raise Refused(422, str(error)) from None
        return await locked(session.moves, card, player, power)

    @app.get("/api/heroes", summary="The heroes a game may be played with")
    async def get_heroes() -> list[dict[str, str]]:
        return session.hero_list()

    @app.get("/api/questions", summary="What the camera could not decide")
    async def get_questions() -> list[dict[str, Any]]:
        return await locked(session.pending)

    @app.get("/api/games", summary="Every game kept in the data folder, newest first")
    async def get_games() -> list[dict[str, Any]]:
        return await locked(session.games)

    @app.get("/api/games/{game}/log.jsonl", summary="A kept game's event log",
             response_class=PlainTextResponse)
    async def get_game_log(game: str) -> PlainTextResponse:
        if game not in folder.game_ids():
            raise Refused(404, f"there is no game {game[:100]!r} in the data folder")
        try:
            return _jsonl(game, folder.read(game).events)
        except StoreError as error:
            raise Refused(409, f"the log of game {game!r} cannot be read: {error}") from None

    # --- writing -------------------------------------------------------------------------
    @app.post("/api/events", dependencies=writes,
              summary="Add one event of the log; answers the new state and the alerts the "
                      "event raised")
    async def post_event(event: Annotated[Event, Body()]) -> Response:
        if event.source is None:
            event = event.model_copy(update={"source": "phone"})
        if camera_keeps_the_game(event):
            return answer([])
        return answer(await locked(session.add, event))

    @app.post("/api/undo", dependencies=writes, summary="Remove the last event")
    async def post_undo() -> Response:
        if app.state.feed:
            raise Refused(409, "the camera keeps this game: take the card back on the table, "
                               "or answer its question")
        await locked(session.undo)
        return answer([])

    def camera_keeps_the_game(event: Event) -> bool:
        """With a live source the phone's inputs go to the camera's tracker (the state
        follows within a frame); anything else is the camera's to see."""
        if not app.state.feed:
            return False
        if event.type not in PHONE_EVENTS:
            raise Refused(409, f"the camera keeps this game: a {event.type} is read from the "
                               "table; the phone gives only new game, end of turn and concede")
        if isinstance(event, NewGame):  # refused here: the camera's thread cannot answer
            try:
                Game().apply(event)
            except EngineError as error:
                raise Refused(422, str(error)) from None
        app.state.feed.phone(event)
        return True

    @app.post("/api/new-game", dependencies=writes,
              summary="Start a new game (the last one is kept)")
    async def post_new_game(request: NewGameRequest) -> Response:
        try:
            event = parse_event({"type": "new_game", "source": "phone",
                                 **request.model_dump(exclude_none=True)})
        except LogError as error:
            raise Refused(422, str(error)) from None
        assert isinstance(event, NewGame)
        if camera_keeps_the_game(event):
            return answer([])
        return answer(await locked(session.new_game, event))

    @app.post("/api/questions/{question}", dependencies=writes,
              summary="Answer an open question")
    async def post_answer(question: int, choice: Answer) -> Response:
        if app.state.feed:
            asked = session.questions.get(question)
            if asked is None:
                raise Refused(404, f"there is no open question {question}")
            if choice.option >= len(asked.options):
                raise Refused(422, f"question {question} has {len(asked.options)} options")
            app.state.feed.answer(question, choice.option)
            return answer([])
        return answer(await locked(session.answer, question, choice))

    # --- live ----------------------------------------------------------------------------
    @app.websocket("/ws")
    async def socket(websocket: WebSocket) -> None:
        await hub.serve(websocket)

    @app.get("/stream.mjpg", include_in_schema=False)
    async def stream() -> Response:
        if not app.state.feed:
            raise Refused(404, "no camera is connected: start the server with `run --source`")
        return StreamingResponse(_mjpeg(app.state.feed),
                                 media_type="multipart/x-mixed-replace; boundary=frame")

    # --- pages ---------------------------------------------------------------------------
    for route, page in (("/", "phone.html"), ("/overlay", "overlay.html"),
                        ("/watch", "watch.html")):
        app.add_api_route(route, _page(page), include_in_schema=False)
    app.mount("/static", _Static(directory=PAGES / "static"), name="static")
    return app


async def _mjpeg(feed: Any) -> AsyncIterator[bytes]:
    """The camera's latest annotated frame, a few times a second, as an MJPEG stream."""
    from .feed import STREAM_FPS

    while True:
        if feed.jpeg:
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                   + str(len(feed.jpeg)).encode() + b"\r\n\r\n" + feed.jpeg + b"\r\n")
        await asyncio.sleep(1.0 / STREAM_FPS)


class _Static(StaticFiles):
    """The pages' scripts and styles, checked at each load: a phone never keeps old code
    after an upgrade (the files are small, and a 304 costs nothing)."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


def _page(name: str) -> Callable[[], Any]:
    async def page() -> FileResponse:
        return FileResponse(PAGES / name, media_type="text/html",
                            headers={"Cache-Control": "no-cache",
                                     "Content-Security-Policy": PAGE_POLICY})
    return page


def _jsonl(game: str | None, events: list[Event]) -> PlainTextResponse:
    name = f"hearthtop-{game or 'empty'}.jsonl"
    return PlainTextResponse("".join(e.to_json() + "\n" for e in events),
                             media_type="application/x-ndjson",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})
