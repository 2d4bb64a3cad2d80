"""The companion server: the game state for phones, the overlay and other tools, and the
phone's actions back into the event log.

REST under `/api` (OpenAPI at `/docs`), the WebSocket `/ws`, and the pages, each concern a
router of its own (`routers/`). Anyone on the network may watch; writing needs the table's
token (`Authorization: Bearer TOKEN` or `?token=TOKEN`). A bad request is a 4xx with one
sentence in `{"detail": …}` and changes nothing. `create_app` only wires the parts together.
"""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from . import errors
from .dependencies import CameraSource, ServerLimits, Table
from .routers import docs, events, fixes, games, live, pages, questions, setup, state
from .security import HIDE_TOKEN, BodyLimit, Headers, HostCheck, own_names
from .session import Limits, Session
from .store import DataFolder

API_VERSION = "1"

__all__ = ["ServerLimits", "create_app"]


def create_app(data: Path | DataFolder, *, limits: ServerLimits | None = None,
               game_limits: Limits | None = None, camera: CameraSource | None = None,
               allow_origins: tuple[str, ...] = (),
               allow_hosts: tuple[str, ...] = (), overlay_secrets: bool = False) -> FastAPI:
    """The server for one table, keeping its games in `data`. `camera`, if given, makes the
    live source (`tracker.camera.CameraFeed`: a camera or a recording such as the demo's)
    from the function it hands its updates to; the camera then keeps the game, and the phone
    gives what no camera sees (new game, end of turn, concession) and what it missed.
    `allow_origins`: the web pages elsewhere that may call the API from a browser (CORS);
    none unless asked for. `allow_hosts`: names besides this machine's own that it answers
    to (`HostCheck`). `overlay_secrets`: `GET /api/overlay/secrets` shows the secrets set,
    face up, to the overlay (a stream with a delay); else it is a 404."""
    folder = data if isinstance(data, DataFolder) else DataFolder(Path(data))
    limits = limits or ServerLimits()
    table = Table(folder, Session(folder, game_limits or Limits()), limits, camera)
    app = FastAPI(title="Hearthtop Companion", version=API_VERSION, lifespan=table.lifespan,
                  docs_url=None, redoc_url=None,  # routers/docs.py: under a policy
                  description="The live state of a Hearthtop table, and the phone's "
                              "scorekeeping. Writes need the table's token.")
    app.state.table = table
    app.state.overlay_secrets = overlay_secrets
    app.add_middleware(BodyLimit, limit=limits.max_body)
    if allow_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(allow_origins),
                           allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(HostCheck, names=own_names() | set(allow_hosts),
                       origins=allow_origins)
    app.add_middleware(Headers)
    logging.getLogger("uvicorn.access").addFilter(HIDE_TOKEN)  # once: filters are a set
    errors.add_handlers(app)
    for router in (state.router, events.router, questions.router, fixes.router, games.router,
                   live.router, setup.router, pages.router, docs.router):
        app.include_router(router)
    app.mount("/static", pages.static_files(), name="static")
    return app
