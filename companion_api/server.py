"""Running the server for people: the address a phone can reach, the QR code that carries
the table's token, the bundled demo recording played as a live game, a clean stop on
Ctrl-C."""

from __future__ import annotations

import os
import socket
import ssl
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

from calibration import Layout

from .app import create_app
from .connections import ConnectionLimits, guarded_protocol
from .dependencies import CameraSource
from .store import DataFolder

if TYPE_CHECKING:
    from vision import Deck

# A simulated game as the webcam above the table records it, with the phone's inputs
# beside it (`python -m simulator.demo_recording` makes it, from a checkout; docs/table.md).
DEMO_RECORDING = Path(__file__).with_name("demo") / "table.mp4"


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


def welcome(url: str, token: str, data: Path, *, qr: bool, demo: bool,
            stream: bool = False) -> str:
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
              f"OBS overlay:        {url}/overlay  (browser source, 1920x1080)"]
    if stream:
        lines += [f"Camera setup:       {url}/setup  (markers, card size, tilt, light, focus)",
                  f"Table camera:       {url}/stream.mjpg  (the cards as they are read)"]
    lines += [f"API:                {url}/docs",
              "The demo's games are not kept; it starts again after each game." if demo
              else f"Games are kept in   {data}",
              "Ctrl-C stops the server" + ("." if demo else "; the game is saved as it goes.")]
    return "\n".join(lines)


def live_source(source: str, *, demo: bool = False, speed: float = 1.0,
                layout: Layout | None = None, deck: Deck | None = None) -> CameraSource:
    """What makes the camera feed: a camera index or stream URL, or a recording (a video
    file or a folder of frames, with the phone inputs that came with it) played at its
    frame rate times `speed`; the demo's again and again. ServerError when a recording's
    phone file cannot be used."""
    from tracker.camera import CameraFeed, Recording, TrackError

    live: str | Recording = source
    if Path(source).exists():
        try:
            live = Recording.at(Path(source))
        except TrackError as error:
            raise ServerError(str(error)) from None

    def camera(subscriber: Callable) -> CameraFeed:
        return CameraFeed(live, subscriber, layout=layout, speed=speed, loop=demo, deck=deck)
    return camera


@dataclass(frozen=True)
class Network:
    """How the server meets its network: the names it answers to besides its own addresses
    (`--allow-host`), the pages elsewhere that may call it (`--allow-origin`), TLS
    (`--certfile/--keyfile`), a reverse proxy in front (`--behind-proxy`: its
    `X-Forwarded-For` is believed, and its one address holds every client's connections),
    and the bounds on connections."""

    allow_hosts: tuple[str, ...] = ()
    allow_origins: tuple[str, ...] = ()
    certfile: Path | None = None
    keyfile: Path | None = None
    behind_proxy: bool = False
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)

    @property
    def scheme(self) -> str:
        return "https" if self.certfile else "http"

    def check_tls(self) -> None:
        """ServerError, in one line, for a certificate and key TLS cannot use."""
        if self.certfile is None:
            return
        try:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(self.certfile, self.keyfile)
        except ssl.SSLError:  # OpenSSL says only "PEM lib (_ssl.c:3905)"
            raise ServerError(f"--certfile {self.certfile}: cannot serve TLS with it and its "
                              "key (not a PEM certificate, not a PEM key, or not its "
                              "key)") from None
        except OSError as error:
            reason = error.strerror or error
            raise ServerError(f"--certfile {self.certfile}: cannot serve TLS with it and "
                              f"its key ({reason})") from None

    def uvicorn_config(self, app: object, **where: object) -> uvicorn.Config:
        """How uvicorn serves `app` (`where`: its host and port, when not handed a
        socket)."""
        limits = self.connections
        if self.behind_proxy:  # every client comes from the proxy's address
            limits = replace(limits, per_address=None)
        return uvicorn.Config(
            app, log_level="warning", access_log=False, ws_max_size=64 * 1024,
            timeout_graceful_shutdown=3, http=guarded_protocol(limits),
            timeout_keep_alive=limits.keep_alive_s,
            limit_concurrency=limits.max_connections,
            proxy_headers=self.behind_proxy, server_header=False,
            ssl_certfile=self.certfile, ssl_keyfile=self.keyfile, **where)


def serve(*, host: str, port: int, data: Path, qr: bool = True, source: str | None = None,
          demo: bool = False, speed: float = 1.0, layout: Layout | None = None,
          deck: Deck | None = None, network: Network = Network(),
          overlay_secrets: bool = False) -> None:
    """Run the server until Ctrl-C; with a source (the demo: the bundled recording), the
    camera keeps the game, reading the cards with `deck` (`vision.deck`) if one is given.
    `overlay_secrets`: the overlay shows the secrets set (a stream with a delay)."""
    network.check_tls()
    if demo and not DEMO_RECORDING.is_file():
        raise ServerError(f"{DEMO_RECORDING}: the demo recording is not installed; "
                          "reinstall the package")
    source = str(DEMO_RECORDING) if demo else source
    camera = None if source is None else live_source(source, demo=demo, speed=speed,
                                                     layout=layout, deck=deck)
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    folder = DataFolder(data)
    app = create_app(folder, camera=camera, allow_origins=network.allow_origins,
                     allow_hosts=(shown, *network.allow_hosts), overlay_secrets=overlay_secrets)
    table = app.state.table
    sock = _bind(host, port)
    shown = f"[{shown}]" if ":" in shown else shown
    print(welcome(f"{network.scheme}://{shown}:{port}", table.token, folder.root, qr=qr,
                  demo=demo, stream=camera is not None), flush=True)
    if table.session.resumed_torn:
        print(f"hearthtop-companion: warning: {folder.log_path(table.session.game_id)}: "
              "the last line was cut off by a stop mid-write (a power cut?); it was never "
              "confirmed to any phone and is dropped, the rest kept", file=sys.stderr,
              flush=True)
    if table.session.unreadable:
        print(f"hearthtop-companion: warning: {table.session.unreadable}", file=sys.stderr,
              flush=True)
    try:
        uvicorn.Server(network.uvicorn_config(app)).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops cleanly, then passes Ctrl-C on
        pass
    finally:
        sock.close()
    print("stopped." + ("" if demo else f" The game is saved in {folder.root}."),
          file=sys.stdout, flush=True)
