"""What the routes of one table share, and get as FastAPI dependencies: the `Table` (its
session, the hub that pushes its state, the write token, the lock every change takes, the
camera when there is one) and the token check of every write."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Query, Request
from starlette.requests import HTTPConnection

from .hub import Hub
from .security import RateLimit, token_matches
from .session import Refused, Session
from .store import DataFolder

if TYPE_CHECKING:
    from tracker.camera import CameraFeed, CameraUpdate

T = TypeVar("T")
CameraSource = Callable[[Callable[["CameraUpdate"], None]], "CameraFeed"]


@dataclass(frozen=True)
class ServerLimits:
    max_body: int = 64 * 1024  # bytes of a request body; an event is well under 1 KiB
    writes_per_s: float = 20.0  # per client address, sustained …
    write_burst: int = 60  # … after a burst of this many
    resend_s: float = 5.0  # a full state to every socket at least this often
    send_timeout_s: float = 5.0  # a socket that takes longer to take a message is dropped
    max_sockets: int = 1000
    save_again_s: float = 2.0  # how often a game the disk could not keep is written again


class Table:
    """One table's server: every change to its game runs alone (`change`), in a worker
    thread so that the event loop keeps every socket fed meanwhile, and tells the hub."""

    def __init__(self, folder: DataFolder, session: Session, limits: ServerLimits,
                 camera: CameraSource | None = None) -> None:
        self.folder, self.session, self.limits = folder, session, limits
        self.token = folder.token()
        self.hub = Hub(lambda: session.message_json, resend_s=limits.resend_s,
                       send_timeout_s=limits.send_timeout_s, max_clients=limits.max_sockets)
        self.rate = RateLimit(limits.writes_per_s, limits.write_burst)
        self.lock = asyncio.Lock()
        self.feed: CameraFeed | None = None  # the live source, once the server runs
        self._camera = camera
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: list[CameraUpdate] = []  # the camera's, not yet followed
        self._waiting_lock = threading.Lock()

    async def change(self, change: Callable[..., T], *args: Any) -> T:
        """Run `change` alone, in a worker thread; tell every socket if the game moved."""
        async with self.lock:
            version = self.session.version
            try:
                return await asyncio.to_thread(change, *args)
            finally:
                if self.session.version != version:
                    self.hub.publish()

    # --- the camera: its updates, from its thread, followed in the event loop -------------
    def camera_changed(self, update: CameraUpdate) -> None:
        """The camera's subscriber (called in its thread): its updates are followed, in
        order, as soon as the game is free, so the camera never waits for the disk. Of
        updates that wait, one of the same game replaces the one before it (each holds
        the whole game); a new game's does not, so the last game's log is kept whole."""
        with self._waiting_lock:
            waiting = bool(self._waiting)
            if waiting and self._waiting[-1].game_number == update.game_number:
                self._waiting[-1] = update
            else:
                self._waiting.append(update)
        if not waiting and self._loop is not None:
            asyncio.run_coroutine_threadsafe(self._follow_waiting(), self._loop)

    async def _follow_waiting(self) -> None:
        with self._waiting_lock:
            updates, self._waiting = self._waiting, []
        try:
            await self.change(self._follow_all, updates)
        except Exception as error:  # nobody awaits this: say it, and follow the next ones
            print(f"hearthtop-companion: warning: the camera's change was not shown "
                  f"({type(error).__name__}: {error})", file=sys.stderr)

    def _follow_all(self, updates: list[CameraUpdate]) -> None:
        for update in updates:
            self.session.follow(update)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: FastAPI) -> AsyncIterator[None]:
        """The camera runs while the server does; a game the disk could not keep is written
        again now and then, until it can."""
        self._loop = asyncio.get_running_loop()
        self.feed = self._camera(self.camera_changed) if self._camera else None
        if self.feed:
            self.feed.start()
        saver = asyncio.create_task(self._save_again())
        try:
            yield
        finally:
            saver.cancel()
            if self.feed:
                await asyncio.to_thread(self.feed.stop)
            self.folder.close()

    async def _save_again(self) -> None:
        while True:
            await asyncio.sleep(self.limits.save_again_s)
            if self.session.unsaved is not None:
                try:
                    await self.change(self.session.save_again)
                except Exception as error:  # never let the saver die: it is the way back
                    print(f"hearthtop-companion: warning: the game was not saved again "
                          f"({type(error).__name__}: {error})", file=sys.stderr)


def get_table(connection: HTTPConnection) -> Table:
    return connection.app.state.table


TableDep = Annotated[Table, Depends(get_table)]


def _given_token(request: Request, token_param: str | None) -> str | None:
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else token_param


def holds_token(request: Request, table: TableDep,
                token_param: Annotated[str | None, Query(alias="token")] = None) -> bool:
    """Whether a read comes with the table's token: what only the table's phone is shown
    (the secrets a reveal may name) it is shown; anyone else reads the rest."""
    given = _given_token(request, token_param)
    return bool(given) and token_matches(given, table.token)


HoldsToken = Annotated[bool, Depends(holds_token)]


def writer(request: Request, table: TableDep,
           token_param: Annotated[str | None, Query(alias="token")] = None) -> None:
    """A write needs the table's token (`Authorization: Bearer TOKEN` or `?token=`), and
    comes no faster than the rate limit allows."""
    given = _given_token(request, token_param)
    if not given:
        raise Refused(401, "this needs the table's token: open the address that `run` "
                           "printed (or scan its QR code)")
    if not token_matches(given, table.token):
        raise Refused(403, "the token is wrong: open the address that `run` printed "
                           "(or scan its QR code)")
    client = request.client.host if request.client else "?"
    if not table.rate.allow(client):
        raise Refused(429, f"too many changes from this address (more than "
                           f"{table.limits.writes_per_s:g} a second); slow down")


WRITES = [Depends(writer)]


def camera_feed(table: TableDep) -> CameraFeed:
    """The live source's feed (its stream, its setup check); a 404 saying how to start one
    when the server runs without."""
    if table.feed is None:
        raise Refused(404, "no camera is connected: start the server with `run --source 0` "
                           "(the webcam)")
    return table.feed


FeedDep = Annotated["CameraFeed", Depends(camera_feed)]


def log_reader(request: Request, table: TableDep,
               token_param: Annotated[str | None, Query(alias="token")] = None) -> None:
    """The log of the game in progress names the secrets set face down: while one lies
    there, reading it takes the table's token, as the peek does; anyone may read it
    otherwise (watchers see the secret as "p1 sets a secret" in the state)."""
    if table.session.face_down:
        writer(request, table, token_param)


READS_LOG = [Depends(log_reader)]
