"""Running the server for people: the address a phone can reach, the QR code that carries
the table's token, the bundled demo game played turn by turn, a clean stop on Ctrl-C."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import uvicorn

from calibration import Layout
from tracker.events import Event, read_log

from .app import create_app
from .store import DataFolder

DEMO_PACE_S = 1.5  # between two events of the demo, so that a newcomer can follow
DEMO_REST_S = 10.0  # on the final board, before the demo starts again

Add = Callable[[Event], Awaitable[list]]


class ServerError(ValueError):
    """Why the server cannot start, in one line."""


def default_data_folder() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "hearthtop-companion"


def lan_address() -> str:
    """This machine's address on the local network (the one a phone can reach)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # UDP: nothing is sent
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def demo_player(log: Path, pace_s: float = DEMO_PACE_S) -> Callable[[Add], Awaitable[None]]:
    """Play a log's events one by one, again and again, at a pace people can follow."""
    events = read_log(log)

    async def play(add: Add) -> None:
        while True:
            for event in events:
                await add(event)
                await asyncio.sleep(pace_s * (2 if event.type == "end_turn" else 1))
            await asyncio.sleep(max(DEMO_REST_S * pace_s / DEMO_PACE_S, 0.5))
    return play


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        reason = "is in use: choose another with --port" if error.errno == 98 else (
            error.strerror or str(error))
        raise ServerError(f"{host}:{port}: {reason}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def welcome(url: str, token: str, data: Path, *, qr: bool, demo: bool) -> str:
    """What `run` prints: where to point the phone (with the token), the other pages."""
    phone = f"{url}/?token={token}"
    lines = ["Hearthtop Companion is running" + (" the demo game" if demo else "") + ".",
             "Open this address on the phone that keeps the score (it carries the table's "
             "token):", "", phone, ""]
    if qr:
        import io

        import segno
        out = io.StringIO()
        segno.make(phone, error="l").terminal(out, compact=True)
        lines += [out.getvalue()]
    lines += [f"Watch (read-only):  {url}/watch",
              f"OBS overlay:        {url}/overlay  (browser source, 1920x1080)",
              f"API:                {url}/docs",
              f"Games are kept in   {data}",
              "Ctrl-C stops the server; the game is saved as it goes."]
    return "\n".join(lines)


def serve(*, host: str, port: int, data: Path, demo_log: Path | None = None,
          demo_pace_s: float = DEMO_PACE_S, qr: bool = True, source: str | None = None,
          layout: Layout | None = None) -> None:
    """Run the server until Ctrl-C; with a source, the camera keeps the game."""
    folder = DataFolder(data)
    demo = demo_player(demo_log, demo_pace_s) if demo_log else None
    feed = None
    if source is not None:
        from .feed import CameraFeed

        def feed(publish: Callable) -> CameraFeed:
            return CameraFeed(source, publish, layout=layout)
    app = create_app(folder, demo=demo, feed=feed)
    sock = _bind(host, port)
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    print(welcome(f"http://{shown}:{port}", app.state.token, folder.root, qr=qr,
                  demo=demo is not None), flush=True)
    if app.state.session.resumed_torn:
        print("note: the last event of the stored game was cut off by a stop mid-write; it "
              "was never confirmed to any phone and is dropped", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False,
                            ws_max_size=64 * 1024, timeout_graceful_shutdown=3)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops cleanly, then passes Ctrl-C on
        pass
    finally:
        sock.close()
    print("stopped." + ("" if demo else f" The game is saved in {folder.root}."),
          file=sys.stdout, flush=True)
