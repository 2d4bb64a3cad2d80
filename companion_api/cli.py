"""The `hearthtop-companion` command line.

Every user mistake (a bad log line, an unknown hero, a missing file) is one line on stderr
and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import vision  # noqa: F401  (sets OpenCV's pixel limit, before any command loads OpenCV)
from tracker.rules import Alert, EngineError, Event, Game, LogError, dump_log, iter_log

EXIT_USAGE = 2
MAX_DEMO_PACE = 100.0  # past this, nearly every frame is dropped: nothing to follow
ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")  # a browser's Origin header
HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?"
                       r"(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?")  # or an IPv4


def replay_log(path: Path, *, on_event: Callable[[Game, Event, list[Alert]], None] | None = None,
               ) -> Game:
    """Fold the engine over a log; LogError names the line of a bad or impossible event."""
    game = Game()
    for number, event in iter_log(path):
        try:
            alerts = game.apply(event)
        except EngineError as error:
            raise LogError(f"{path}:{number}: {error}") from None
        if on_event:
            on_event(game, event, alerts)
    if game.table is None:
        raise LogError(f"{path}: the log holds no events")
    return game


def _replay(args: argparse.Namespace) -> int:
    game = replay_log(Path(args.log))
    if args.json:
        print(json.dumps(game.state().model_dump(mode="json"), indent=2))
    else:
        print(game)
    return 0


def _run(args: argparse.Namespace) -> int:
    # Imported here: the server's packages are not needed, nor loaded, to replay a log.
    from .server import Network, ServerError, default_data_folder, serve
    from .store import StoreError

    if args.source is not None and not (
            args.source.isdigit() or "://" in args.source or Path(args.source).exists()):
        raise LogError(f"--source {args.source}: not a camera index, a stream URL, a video "
                       "file or a folder of frames")
    if not 0 < args.port < 65536:
        raise LogError(f"--port {args.port}: a port is a number from 1 to 65535")
    if not 0.1 <= args.demo_pace <= MAX_DEMO_PACE:
        raise LogError(f"--demo-pace {args.demo_pace:g}: give a speed from 0.1 to "
                       f"{MAX_DEMO_PACE:g} (1 is real time)")
    if args.demo and args.source is not None:
        raise LogError("--demo: the demo plays its own recording; give --demo or --source")
    for origin in args.allow_origin:
        if not ORIGIN.fullmatch(origin):
            raise LogError(f"--allow-origin {origin}: give scheme://host[:port], e.g. "
                           "https://obs.example.com")
    for name in args.allow_host:
        if not HOST_NAME.fullmatch(name) and not _is_address(name):
            raise LogError(f"--allow-host {name[:100]}: give a host name or an address the "
                           "phones use, e.g. table.example.com")
    if (args.certfile is None) != (args.keyfile is None):
        raise LogError("--certfile and --keyfile go together: give both, or neither")
    from vision import DeckError

    try:  # the demo's recording shows a deck of its own: a registered one only if named
        deck = (None if args.source is None and not (args.demo and args.deck)
                else _chosen_deck(args))
    except DeckError as error:
        raise LogError(str(error)) from None
    network = Network(allow_hosts=tuple(args.allow_host),
                      allow_origins=tuple(args.allow_origin),
                      certfile=args.certfile and Path(args.certfile),
                      keyfile=args.keyfile and Path(args.keyfile),
                      behind_proxy=args.behind_proxy)
    options = {"host": args.host, "port": args.port, "qr": not args.no_qr,
               "source": args.source, "deck": deck, "network": network,
               "overlay_secrets": args.overlay_secrets}
    try:
        if args.demo:  # the demo's games are shown, not kept: a folder of their own
            with tempfile.TemporaryDirectory(prefix="hearthtop-demo-") as data:
                serve(data=Path(data), demo=True, speed=args.demo_pace, **options)
        else:
            serve(data=Path(args.data) if args.data else default_data_folder(), **options)
    except (ServerError, StoreError) as error:
        raise LogError(str(error)) from None
    return 0


def _is_address(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return False
    return True


def _track(args: argparse.Namespace) -> int:
    from calibration import LayoutError, load_layout
    from tracker.camera import TrackError, track
    from vision import DeckError, ModelError

    try:
        layout = load_layout(args.layout) if args.layout else None
        deck = _chosen_deck(args)
        phone = Path(args.phone) if args.phone else None
        result = track(Path(args.recording), phone, layout, deck)
    except (TrackError, LayoutError, ModelError, DeckError) as error:
        raise LogError(str(error)) from None
    if deck is not None:
        print(f"hearthtop-companion: {_deck_note(deck, result.deck_in_use)}", file=sys.stderr)
    tracker = result.tracker
    if tracker.game.table is None:
        raise LogError(f"{args.phone or args.recording}: the phone never started a game "
                       "(no new_game)")
    if args.events:
        dump_log(tracker.events, Path(args.events))
    state = tracker.game.state().model_dump(mode="json")
    state["questions"] = [
        {"event": choice.index, "answered": choice.chosen,
         "options": [[e.model_dump(mode="json", exclude_none=True) for e in option]
                     for option in choice.options]}
        for choice in tracker.asked()]
    state["frames"], state["unexplained"] = result.frames, tracker.unexplained
    if deck is not None:
        state["registered_deck"] = {"name": deck.name, "in_use": result.deck_in_use}
    print(json.dumps(state, indent=2) if args.json else tracker.game)
    return 0


def _print_markers(args: argparse.Namespace) -> int:
    # Imported here: OpenCV is not needed, nor loaded, to replay a log.
    from calibration import SheetError, print_markers

    try:
        path = print_markers(args.out)
    except SheetError as error:
        raise LogError(str(error)) from None
    print(f"wrote {path}: the four table markers on one A4 page; print it at 100% scale")
    return 0


def _recognize(args: argparse.Namespace) -> int:
    """Cards in photos, whatever their number: with --json one JSON line an image,
    `{"image": PATH, "cards": [...]}`; without, the same in words, a block an image."""
    from calibration import CalibrationError, LayoutError, TableCalibration, load_layout
    from vision import PHOTO_ZOOMS, DeckError, ImageError, ModelError, Recognizer, read_image

    try:
        layout = load_layout(args.layout) if args.layout else None
        deck = _chosen_deck(args)
        recognizer = Recognizer(deck=deck)
    except (LayoutError, ModelError, DeckError) as error:
        raise LogError(str(error)) from None
    failed = False
    for path in args.images:
        try:
            frame = read_image(path)
        except ImageError as error:
            print(f"hearthtop-companion: error: {error}", file=sys.stderr)
            failed = True
            continue
        calibration = None
        if layout is not None:
            try:
                calibration = TableCalibration.from_markers(frame, layout.table_mm)
            except CalibrationError as error:
                print(f"hearthtop-companion: warning: {path}: {error}; zones left empty",
                      file=sys.stderr)
        # a table view (markers found) shows cards at the trained size; any other photo may
        # be a close-up, so the photo detector looks at it at several scales
        try:  # the photo detector and experts load at the first photo
            obs = recognizer.observe(frame, calibration.image_to_table if calibration else None,
                                     zooms=(1.0,) if calibration else PHOTO_ZOOMS)
        except ModelError as error:
            raise LogError(str(error)) from None
        if calibration is not None:
            centres = calibration.to_table(obs.quads.mean(axis=1))
            obs.zones[:] = [layout.zone_at(c) for c in centres]
        if deck is not None:
            print(f"hearthtop-companion: {path}: {_deck_note(deck, recognizer.deck_in_use)}",
                  file=sys.stderr)
        cards = obs.to_json()
        print(json.dumps({"image": path, "cards": cards}) if args.json
              else _card_lines(path, cards), flush=True)
    return EXIT_USAGE if failed else 0


IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def _data_folder(args: argparse.Namespace) -> Path:
    from .server import default_data_folder

    return Path(args.data) if getattr(args, "data", None) else default_data_folder()


def _chosen_deck(args: argparse.Namespace):  # -> vision.Deck | None (lazy import)
    """The deck `--deck` names, none with `--no-deck`, else the most recent one."""
    from .decks import DeckStore

    if args.no_deck:
        return None
    return DeckStore(_data_folder(args)).load(args.deck)


def _deck_note(deck, in_use: bool) -> str:  # deck: vision.Deck
    return (f"read with deck {deck.name}" if in_use else
            f"the cards do not look like deck {deck.name}: read by the general recogniser")


def _photos(paths: Sequence[str]) -> list[tuple[str, object]]:
    """Each photo given, a folder's images in name order: (name, BGR image)."""
    files: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            inside = sorted(p for p in given.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not inside:
                raise LogError(f"{given}: no images in the folder")
            files += inside
        elif given.is_file():
            files.append(given)
        else:
            raise LogError(f"{given}: no such file or folder")
    from vision import ImageError, read_image

    try:
        return [(str(path), read_image(path)) for path in files]
    except ImageError as error:
        raise LogError(str(error)) from None


def _deck(args: argparse.Namespace) -> int:
    from vision import DeckError

    from .decks import DeckStore

    store = DeckStore(_data_folder(args))
    try:
        if args.deck_command == "add":
            return _deck_add(args, store)
        if args.deck_command == "remove":
            store.remove(args.name)
            print(f"removed deck {args.name}")
            return 0
        entries = store.entries()
        for n, entry in enumerate(entries):
            print(f"{entry.name:20} {entry.cards:2d} cards{', its back' if entry.backs else ''}"
                  f", registered {entry.registered:%Y-%m-%d %H:%M} UTC"
                  f"{'  (the default)' if n == 0 else ''}")
        if not entries:
            print("no deck registered: `hearthtop-companion deck add NAME PHOTO...`")
        return 0
    except DeckError as error:
        raise LogError(str(error)) from None


def _deck_add(args: argparse.Namespace, store) -> int:  # store: decks.DeckStore
    import time

    from vision import CountError, ModelError, Recognizer, find_cards, name_cards

    store.path(args.name)  # a bad name is refused before the photos are read
    cards = None if args.cards is None else [c for c in args.cards.split(",") if c.strip()]
    photos = _photos(args.photos)
    started = time.perf_counter()
    try:
        recognizer = Recognizer()
        shots = find_cards(recognizer, photos)
        registration = name_cards(args.name, shots, recognizer.classifier.classes, cards)
    except ModelError as error:
        raise LogError(str(error)) from None
    except CountError as error:
        raise LogError(f"{error}; the cards found are numbered in "
                       f"{_numbered(photos, shots, args.name)}") from None
    path = store.add(registration.deck)
    deck = registration.deck
    print(f"registered deck {deck.name}: {len(deck.cards)} card"
          f"{'s' if len(deck.cards) != 1 else ''}"
          f"{' and its back' if len(deck.backs) else ''} from {len(photos)} photo"
          f"{'s' if len(photos) > 1 else ''} in {time.perf_counter() - started:.1f} s "
          f"({path})")
    if cards is None:
        unsure = [r for r in registration.readings if r.unsure]
        for r in unsure:
            print(f"  check: {r.photo} card {r.position}: {r.card} ({r.check})")
        if registration.missing:
            print(f"  not found in the photos (they will not be read): "
                  f"{', '.join(registration.missing)}")
        if unsure or registration.missing:
            print("  to correct, run again naming every card in reading order (rows top to "
                  "bottom, left to right; BACK for one face down):\n  --cards "
                  + ",".join(r.card for r in registration.readings))
    return 0


def _numbered(photos: list, shots: list, name: str) -> str:
    """Each registration photo with the cards found numbered in reading order, written to
    the temporary folder (for a user whose --cards list does not match); their paths."""
    import cv2
    import numpy as np

    folder = Path(tempfile.gettempdir())
    written = []
    for k, ((_, image), shot) in enumerate(zip(photos, shots, strict=True), 1):
        picture = image.copy()
        thick = max(2, image.shape[1] // 600)
        for n, quad in enumerate(shot.quads, 1):
            cv2.polylines(picture, [np.int32(quad)], True, (0, 200, 0), thick)
            cv2.putText(picture, str(n), tuple(np.int32(quad.mean(axis=0))),
                        cv2.FONT_HERSHEY_SIMPLEX, thick / 2, (0, 0, 255), thick)
        path = folder / f"hearthtop-deck-{name}-{k}.jpg"
        cv2.imwrite(str(path), picture)
        written.append(str(path))
    return ", ".join(written)


def _card_lines(image: str, cards: list[dict]) -> str:
    """One image's cards in words: a line naming the image, then a card a line (its id,
    confidence, orientation and zone, if any)."""
    if not cards:
        return f"{image}: no cards found"
    return "\n".join([f"{image}: {len(cards)} card{'s' if len(cards) != 1 else ''}"] + [
        f"  {c['card']:>7} {c['confidence']:.3f} {c['orientation']:>8} {c['zone'] or ''}"
        .rstrip() for c in cards])


def _deck_options(command: argparse.ArgumentParser, *, data: bool = True) -> None:
    """--deck and --no-deck (and --data, where the command has none of its own)."""
    which = command.add_mutually_exclusive_group()
    which.add_argument("--deck", help="read the cards with this registered deck (default: "
                                      "the most recent one; see `deck list`)")
    which.add_argument("--no-deck", action="store_true",
                       help="read with the general recogniser, no registered deck")
    if data:
        command.add_argument("--data", help="the data folder the decks are in (default: "
                                            "~/.local/share/hearthtop-companion)")


class _Parser(argparse.ArgumentParser):
    """A command line it cannot parse is one line too, naming the command's --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"hearthtop-companion: error: {message} "
                              f"(`{self.prog} --help` lists what it takes)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="hearthtop-companion",
        description="Score keeper for Hearthtop, the tabletop Hearthstone played with a normal "
                    "deck.")
    commands = parser.add_subparsers(dest="command", required=True)
    replay = commands.add_parser("replay", help="replay an event log and print the game state")
    replay.add_argument("log", help="event log, one JSON event a line")
    replay.add_argument("--json", action="store_true", help="print the state as JSON")
    replay.set_defaults(handler=_replay)
    recognize = commands.add_parser("recognize", help="the cards in one or more photos")
    recognize.add_argument("images", nargs="+", help="image files")
    recognize.add_argument("--json", action="store_true", help="print JSON")
    recognize.add_argument("--layout", help="zone layout JSON (the table markers must show)")
    _deck_options(recognize)
    recognize.set_defaults(handler=_recognize)
    run = commands.add_parser(
        "run", help="run the companion server: the phone keeps the score; --demo plays the "
                    "bundled demo game")
    run.add_argument("--source", help="camera index, stream URL, or a recording: a video "
                                      "file or a folder of frames (or the folder `simulate` "
                                      "wrote), played in real time with the phone.jsonl "
                                      "beside it")
    run.add_argument("--host", default="0.0.0.0",
                     help="address to listen on (default: every interface, so phones on the "
                          "local network can reach it)")
    run.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    run.add_argument("--data", help="folder for the token and the games (default: "
                                    "~/.local/share/hearthtop-companion)")
    run.add_argument("--demo", action="store_true",
                     help="play the bundled demo recording through the camera pipeline, as "
                          "a live game, again and again (its games are not kept)")
    run.add_argument("--demo-pace", type=float, default=1.0, metavar="FACTOR",
                     help="the demo's speed: 1 is real time (default), 2 twice as fast; "
                          "frames the machine cannot read in time are dropped")
    run.add_argument("--overlay-secrets", action="store_true",
                     help="the overlay shows the secrets set, face up: only for a stream "
                          "with a delay (anyone on the network may then read them)")
    run.add_argument("--no-qr", action="store_true", help="print no QR code")
    run.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                     help="a web page elsewhere (scheme://host[:port]) that may call the API "
                          "from a browser (CORS); repeat for more; none by default")
    run.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                     help="a name the phones reach this server by, besides its addresses, "
                          "'localhost' and this machine's name (a request for any other is "
                          "refused: a web page cannot read the game by DNS tricks); repeat "
                          "for more")
    run.add_argument("--certfile", help="serve HTTPS with this certificate (PEM); with "
                                        "--keyfile (docs/tls.md)")
    run.add_argument("--keyfile", help="the certificate's private key (PEM)")
    run.add_argument("--behind-proxy", action="store_true",
                     help="a reverse proxy on this machine forwards the phones' requests: "
                          "believe its X-Forwarded-For and X-Forwarded-Proto (docs/tls.md)")
    _deck_options(run, data=False)
    run.set_defaults(handler=_run)
    tracked = commands.add_parser(
        "track", help="run the camera pipeline over a recording and print the game's state")
    tracked.add_argument("recording", help="a video file, a folder of frames, or the folder "
                                           "`simulate` wrote (its phone.jsonl is read)")
    tracked.add_argument("--phone", help="the phone's inputs, JSON lines of {frame, event} "
                                         "(default: the phone.jsonl that came with the "
                                         "recording)")
    tracked.add_argument("--layout", help="zone layout JSON (default: the bundled one)")
    tracked.add_argument("--json", action="store_true", help="print the state as JSON")
    tracked.add_argument("--events", help="write the recovered event log here")
    _deck_options(tracked)
    tracked.set_defaults(handler=_track)
    decks = commands.add_parser(
        "deck", help="register the players' own deck from photos, so that its cards are read "
                     "near-perfectly; list or remove registered decks")
    deck_commands = decks.add_subparsers(dest="deck_command", required=True)
    add = deck_commands.add_parser(
        "add", help="register a deck from photos of its cards laid out apart, face up (and "
                    "its back face down), on a plain table, taken from above")
    add.add_argument("name", help="the deck's name (letters, digits, - _ .)")
    add.add_argument("photos", nargs="+", help="photos, or folders of them")
    add.add_argument("--cards", help="what the cards are, in reading order over the photos "
                                     "(rows top to bottom, left to right): 7H,10S,QD,JK,BACK,"
                                     "...; without it they are read, each card once")
    listed = deck_commands.add_parser("list", help="the registered decks, the default first")
    removed = deck_commands.add_parser("remove", help="forget a registered deck")
    removed.add_argument("name")
    for command in (add, listed, removed):
        command.add_argument("--data", help="the data folder (default: "
                                            "~/.local/share/hearthtop-companion)")
    decks.set_defaults(handler=_deck)
    markers = commands.add_parser(
        "print-markers", help="write the printable A4 sheet of table markers (.pdf or .png)")
    markers.add_argument("out", help="output file; its extension (.pdf or .png) picks the format")
    markers.set_defaults(handler=_print_markers)
    _add_plugged_commands(commands)
    return parser


COMMANDS = "hearthtop_companion.commands"  # the entry points of commands from outside


def _add_plugged_commands(commands: argparse._SubParsersAction) -> None:
    """Commands that tools outside the product add (the simulator's `simulate`): each entry
    point names a function that adds its command. One whose tool is not installed (a wheel
    has no simulator) is still listed, and says so in one line when run."""
    from importlib.metadata import entry_points

    for point in entry_points(group=COMMANDS):
        try:
            point.load()(commands)
        except ImportError:
            missing = commands.add_parser(point.name, help="(not installed: from a checkout, "
                                                           "pip install -e '.[sim]')")
            missing.add_argument("given", nargs=argparse.REMAINDER)
            missing.set_defaults(handler=_not_installed(point.name))


def _not_installed(name: str) -> Callable[[argparse.Namespace], int]:
    def refuse(args: argparse.Namespace) -> int:
        raise LogError(f"{name}: not part of this installation; it runs from a checkout of "
                       "the project (pip install -e '.[sim]')")
    return refuse


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except LogError as error:
        print(f"hearthtop-companion: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
