"""The data folder: the table's write token and every game's event log, kept so that a
server killed at any moment starts again with nothing lost.

    DATA/token              the write token (made on first start)
    DATA/games/ID.jsonl     one game's event log (the contract's JSON Lines; `replay` reads it)
    DATA/current            the id of the game in progress

All of it is its owner's alone: folders 0700 and files 0600 from the moment they are made
(whatever the umask), and an older folder, its token and its pointer set so at start.

An accepted event is appended and fsynced before the server answers, so what a client was
told is on disk. A line torn by a kill mid-write was never acknowledged: it is dropped on
reading. An undo, or a camera that explained the table again, rewrites the log to a new file
and renames it over the old one, so a kill leaves either the old log or the new one, never a
mix.

A stray file harms nothing: only ID.jsonl names are games, a link is never followed out of
the folder, a FIFO or a device is refused without waiting on it, and what a client is told
of a log that cannot be read (`StoreError.reason`) names a line, never a path or what the
file holds."""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tracker.rules import MAX_LOG_BYTES, Event, LogError, parse_event

_TOKEN_BYTES = 18  # 24 url-safe characters
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,200}")  # what secrets.token_urlsafe makes
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # no path leaves the games folder
LOG_SUFFIX = ".jsonl"
_SMALL = 4096  # bytes the token or the current-game pointer may be

# Opened neither through a link (out of the folder) nor waiting on a FIFO or a device
_READ = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
    | getattr(os, "O_CLOEXEC", 0)
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) \
    | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
FOLDER_MODE, FILE_MODE = 0o700, 0o600  # the owner's alone: the token gives the table


class StoreError(ValueError):
    """A data folder that cannot be used, or a stored log that cannot be read. `reason`,
    when given, is what any client may be told: no path, nothing a stored file holds (the
    message itself names the file and may quote it: for the server's own output)."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class StoredLog:
    game: str
    events: list[Event]
    torn: bool  # a partial last line (a kill mid-write) was dropped
    lines: list[int] = field(default_factory=list)  # each event's line in the file


_LINK = "a symbolic link, not a file"


def _why(error: OSError) -> str:
    if error.errno == errno.ELOOP:  # O_NOFOLLOW met a link
        return _LINK
    return error.strerror or type(error).__name__


def _private(fd: int, mode: int = FILE_MODE) -> None:
    """The open file's mode set to `mode` whatever the umask (best effort: a file system
    without Unix modes, such as FAT, keeps its own)."""
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != mode:
            os.fchmod(fd, mode)
    except OSError:
        pass


def private_folder(path: Path) -> None:
    """`path` a folder only its owner may open: made 0700 (the umask aside), or set so.
    OSError when it cannot be made; NotADirectoryError for a file in its place."""
    try:
        os.mkdir(path, FOLDER_MODE)
    except FileExistsError:
        if not path.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(path)) from None
    try:
        if stat.S_IMODE(path.stat().st_mode) != FOLDER_MODE:
            os.chmod(path, FOLDER_MODE)
    except OSError:  # not its owner, or a file system without Unix modes
        pass


def _read_file(path: Path, limit: int = MAX_LOG_BYTES, *, fix_mode: bool = False
               ) -> bytes | None:
    """A regular file's bytes, None when there is none. Never through a symbolic link,
    never waiting on a FIFO or a device (refused: a StoreError, as is a file larger than
    `limit`). `fix_mode`: a file others may read is made the owner's alone."""
    try:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode):
            raise StoreError(f"{path}: cannot read ({_LINK})", f"cannot be opened ({_LINK})")
        if not stat.S_ISREG(found.st_mode):  # a FIFO or a device is not even opened
            raise StoreError(f"{path}: not a regular file", "not a regular file")
        fd = os.open(path, _READ)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise StoreError(f"{path}: cannot read ({_why(error)})",
                         f"cannot be opened ({_why(error)})") from None
    try:
        found = os.fstat(fd)  # what was opened, whatever was there a moment before
        if not stat.S_ISREG(found.st_mode):
            raise StoreError(f"{path}: not a regular file", "not a regular file")
        if found.st_size > limit:
            size = (f"{found.st_size / 2**20:.1f} MB, more than {limit // 2**20} MB"
                    if limit >= 2**20 else f"{found.st_size:,} bytes, more than {limit:,}")
            raise StoreError(f"{path}: {size}", size)
        if fix_mode:
            _private(fd)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # grew while read
            raise StoreError(f"{path}: more than {limit:,} bytes",
                             f"more than {limit:,} bytes")
        return b"".join(chunks)
    except OSError as error:
        raise StoreError(f"{path}: cannot read ({_why(error)})",
                         f"cannot be read ({_why(error)})") from None
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _create(path: Path) -> int:
    """A new file only its owner may read, from the start (never a moment open to
    others, whatever the umask); a spare left by a kill is replaced."""
    try:
        fd = os.open(path, _CREATE, FILE_MODE)
    except FileExistsError:
        path.unlink()  # a link is removed, never followed
        fd = os.open(path, _CREATE, FILE_MODE)
    _private(fd)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_atomic(path: Path, text: str) -> None:
    spare = path.with_name(path.name + ".tmp")
    fd = _create(spare)
    try:
        try:
            _write_all(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(spare, path)
    except OSError:  # a full disk: the half-written spare would only take more room
        spare.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


class DataFolder:
    """The folder and everything in it the owner's alone (0700 folders, 0600 files): made
    so, and set so at start where an older version left them open to others."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.games = self.root / "games"
        try:
            self.root.parent.mkdir(parents=True, exist_ok=True)
            for folder in (self.root, self.games):
                private_folder(folder)
            if (self.root / "decks").is_dir():
                private_folder(self.root / "decks")
        except OSError as error:
            raise StoreError(f"{self.root}: cannot make the data folder "
                             f"({error.strerror or error})") from None
        if not os.access(self.root, os.W_OK) or not os.access(self.games, os.W_OK):
            raise StoreError(f"{self.root}: the data folder is not writable")
        self._log: int | None = None  # the open log of the current game, appended to
        self._log_game: str | None = None

    # --- the token ---------------------------------------------------------------------
    def token(self) -> str:
        """The table's write token, made on first start and kept (its file made the
        owner's alone if it was not)."""
        path = self.root / "token"
        data = _read_file(path, _SMALL, fix_mode=True)
        if data is not None:
            token = data.decode("utf-8", "replace").strip()
            if token and TOKEN.fullmatch(token):
                return token
            if token:
                raise StoreError(f"{path}: not a token; delete the file and a new one is made "
                                 "(phones then need the new address)")
        token = secrets.token_urlsafe(_TOKEN_BYTES)
        _write_atomic(path, token + "\n")
        return token

    # --- games -------------------------------------------------------------------------
    def log_path(self, game: str) -> Path:
        """A game's log; StoreError for an id that is not one (no path leaves the folder)."""
        if not GAME_ID.fullmatch(game):
            raise StoreError(f"{game[:100]!r}: not a game id (letters, digits, '-', '_', '.')")
        return self.games / f"{game}{LOG_SUFFIX}"

    def current_id(self) -> str | None:
        """The id of the game in progress, None when there is none (no pointer, or one to
        a log that is gone); StoreError for a pointer that cannot be read or names no
        game."""
        pointer = self.root / "current"
        data = _read_file(pointer, _SMALL, fix_mode=True)
        if data is None:
            return None
        game = data.decode("utf-8", "replace").strip()
        if not game:
            return None
        if not GAME_ID.fullmatch(game):
            raise StoreError(f"{pointer}: {game[:100]!r} is not a game id (letters, digits, "
                             "'-', '_', '.')")
        return game if os.path.lexists(self.log_path(game)) else None

    def current(self) -> StoredLog | None:
        """The game in progress as stored, or None when there is none."""
        game = self.current_id()
        return None if game is None else self.read(game)

    def read(self, game: str) -> StoredLog:
        """A stored game's events; StoreError names the file and line (its `reason` says
        what is wrong without quoting the file)."""
        path = self.log_path(game)
        data = _read_file(path)
        if data is None:
            raise StoreError(f"{path}: cannot read (no such file)", "no such file")
        torn = bool(data) and not data.endswith(b"\n")
        if torn:  # never acknowledged: the answer goes out only after the newline is synced
            data = data[:data.rfind(b"\n") + 1]
        events, lines = [], []
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if line.strip():
                try:
                    events.append(parse_event(line))
                except LogError as error:
                    raise StoreError(f"{path}:{number}: {error}",
                                     f"line {number} is not an event") from None
                lines.append(number)
        return StoredLog(game, events, torn, lines)

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
        if self._log is None or self._log_game != game:
            self.close()
            self._log = os.open(self.log_path(game), _APPEND, FILE_MODE)
            self._log_game = game
            found = os.fstat(self._log)
            if not stat.S_ISREG(found.st_mode):
                self.close()
                raise OSError(errno.EINVAL, "the game's log is not a regular file")
            _private(self._log)
        end = os.lseek(self._log, 0, os.SEEK_END)
        try:
            _write_all(self._log, "".join(e.to_json() + "\n" for e in events).encode())
            os.fsync(self._log)
        except OSError:  # a disk full: no half line may stay for the next event to follow
            try:
                os.ftruncate(self._log, end)
            finally:
                self.close()
            raise

    def rewrite(self, game: str, events: list[Event]) -> None:
        """Replace a game's log as a whole (an undo, a torn line dropped)."""
        self.close()
        _write_atomic(self.log_path(game), "".join(e.to_json() + "\n" for e in events))

    def close(self) -> None:
        if self._log is not None:
            os.close(self._log)
            self._log = self._log_game = None

    def game_ids(self) -> list[str]:
        """Every stored game, newest first: each ID.jsonl in the games folder (a valid id;
        never a link, which leads out of the folder, nor a spare `.tmp`). One that is no
        regular file is listed, and `read` refuses it."""
        try:
            with os.scandir(self.games) as entries:
                found = [e.name[:-len(LOG_SUFFIX)] for e in entries
                         if e.name.endswith(LOG_SUFFIX) and not e.is_symlink()]
        except OSError:  # the folder gone: no games
            return []
        return sorted((game for game in found if GAME_ID.fullmatch(game)), reverse=True)
