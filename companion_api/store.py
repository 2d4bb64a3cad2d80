"""The data folder: the table's write token and every game's event log, kept so that a
server killed at any moment starts again with nothing lost.

    DATA/token              the write token (made on first start, owner-readable only)
    DATA/games/ID.jsonl     one game's event log (the contract's JSON Lines; `replay` reads it)
    DATA/current            the id of the game in progress

An accepted event is appended and fsynced before the server answers, so what a client was
told is on disk. A line torn by a kill mid-write was never acknowledged: it is dropped on
reading. An undo, or a camera that explained the table again, rewrites the log to a new file
and renames it over the old one, so a kill leaves either the old log or the new one, never a
mix.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tracker.rules import Event, LogError, parse_event

_TOKEN_BYTES = 18  # 24 url-safe characters
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,200}")  # what secrets.token_urlsafe makes
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # no path leaves the games folder


class StoreError(ValueError):
    """A data folder that cannot be used, or a stored log that cannot be read."""


@dataclass(frozen=True)
class StoredLog:
    game: str
    events: list[Event]
    torn: bool  # a partial last line (a kill mid-write) was dropped


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not text"
        raise StoreError(f"{path}: cannot read ({reason})") from None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str) -> None:
    spare = path.with_name(path.name + ".tmp")
    try:
        with open(spare, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(spare, path)
    except OSError:  # a full disk: the half-written spare would only take more room
        spare.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


class DataFolder:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.games = self.root / "games"
        try:
            self.games.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"{self.root}: cannot make the data folder ({error.strerror})"
                             ) from None
        if not os.access(self.root, os.W_OK) or not os.access(self.games, os.W_OK):
            raise StoreError(f"{self.root}: the data folder is not writable")
        self._file = None  # the open log of the current game, appended to

    # --- the token ---------------------------------------------------------------------
    def token(self) -> str:
        """The table's write token, made on first start and kept."""
        path = self.root / "token"
        if path.exists():
            token = _read_text(path).strip()
            if token and TOKEN.fullmatch(token):
                return token
            if token:
                raise StoreError(f"{path}: not a token; delete the file and a new one is made "
                                 "(phones then need the new address)")
        token = secrets.token_urlsafe(_TOKEN_BYTES)
        _write_atomic(path, token + "\n")
        path.chmod(0o600)
        return token

    # --- games -------------------------------------------------------------------------
    def log_path(self, game: str) -> Path:
        """A game's log; StoreError for an id that is not one (no path leaves the folder)."""
        if not GAME_ID.fullmatch(game):
            raise StoreError(f"{game[:100]!r}: not a game id (letters, digits, '-', '_', '.')")
        return self.games / f"{game}.jsonl"

    def current(self) -> StoredLog | None:
        """The game in progress as stored, or None when there is none."""
        pointer = self.root / "current"
        if not pointer.exists():
            return None
        game = _read_text(pointer).strip()
        if not game or not self.log_path(game).exists():
            return None
        return self.read(game)

    def read(self, game: str) -> StoredLog:
        path = self.log_path(game)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise StoreError(f"{path}: cannot read ({error.strerror})") from None
        torn = bool(data) and not data.endswith(b"\n")
        if torn:  # never acknowledged: the answer goes out only after the newline is synced
            data = data[:data.rfind(b"\n") + 1]
        events = []
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if line.strip():
                try:
                    events.append(parse_event(line))
                except LogError as error:
                    raise StoreError(f"{path}:{number}: {error}") from None
        return StoredLog(game, events, torn)

    @staticmethod
    def new_id() -> str:
        """A new game's id: when it began, and a few random letters."""
        return f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"

    def save(self, game: str, events: list[Event]) -> None:
        """A game's log written whole, and the game made the current one; OSError (a full
        disk) leaves what was stored as it was."""
        self.rewrite(game, events)
        _write_atomic(self.root / "current", game + "\n")

    def append(self, game: str, events: list[Event]) -> None:
        """Add events to a game's log, in one write; on disk when this returns."""
        if self._file is None or self._file.name != str(self.log_path(game)):
            self.close()
            self._file = open(self.log_path(game), "a", encoding="utf-8")  # noqa: SIM115
        end = self._file.tell()
        try:
            self._file.write("".join(event.to_json() + "\n" for event in events))
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError:  # a disk full: no half line may stay for the next event to follow
            self.close()
            with open(self.log_path(game), "r+b") as log:
                log.truncate(end)
            raise

    def rewrite(self, game: str, events: list[Event]) -> None:
        """Replace a game's log as a whole (an undo, a torn line dropped)."""
        self.close()
        _write_atomic(self.log_path(game), "".join(e.to_json() + "\n" for e in events))

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def game_ids(self) -> list[str]:
        """Every stored game, newest first."""
        return sorted((p.stem for p in self.games.glob("*.jsonl")), reverse=True)
