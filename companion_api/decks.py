"""The registered decks in the data folder: one small file a deck, never in git.

    DATA/decks/NAME.npz     a deck's templates (`vision.deck.Deck`), 0600 in a 0700 folder

`run`, `track` and `recognize` read with the most recently registered deck unless told
otherwise (`--deck NAME`, `--no-deck`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from vision import Deck, DeckError

from .store import FILE_MODE, private_folder

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


@dataclass(frozen=True)
class DeckEntry:
    name: str
    cards: int
    backs: bool
    registered: datetime


class DeckStore:
    def __init__(self, data: Path) -> None:
        self.folder = Path(data) / "decks"

    def path(self, name: str) -> Path:
        """Where the deck `name` lives; a DeckError for a name that is not a plain one (it
        is a file name: no path may leave the folder)."""
        if not NAME.fullmatch(name):
            raise DeckError(f"{name!r}: a deck's name is 1 to 40 letters, digits, '-', '_' "
                            "or '.', starting with a letter or digit")
        return self.folder / f"{name}.npz"

    def add(self, deck: Deck) -> Path:
        """Keep `deck` under its name (replacing one of that name), in a file only its
        owner may read (0600, in folders 0700, as the rest of the data folder): written in
        a folder of its own no one else may open, then moved into place."""
        path = self.path(deck.name)
        try:
            self.folder.parent.parent.mkdir(parents=True, exist_ok=True)
            private_folder(self.folder.parent)
            private_folder(self.folder)
            work = Path(tempfile.mkdtemp(prefix=".saving-", dir=self.folder))  # 0700
            try:
                saved = work / path.name
                deck.save(saved)
                with contextlib.suppress(OSError):  # a file system without Unix modes
                    os.chmod(saved, FILE_MODE)
                os.replace(saved, path)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        except OSError as error:
            raise DeckError(f"cannot save the deck in {self.folder}: "
                            f"{error.strerror or error}") from None
        return path

    def names(self) -> list[str]:
        """The registered decks' names, the most recent first."""
        if not self.folder.is_dir():
            return []
        files = [p for p in self.folder.glob("*.npz") if NAME.fullmatch(p.stem)]
        return [p.stem for p in sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)]

    def entries(self) -> list[DeckEntry]:
        """Each registered deck, the most recent first (a damaged file: a DeckError)."""
        out = []
        for name in self.names():
            path = self.path(name)
            deck = Deck.load(path)
            out.append(DeckEntry(name, len(deck.cards), len(deck.backs) > 0,
                                 datetime.fromtimestamp(path.stat().st_mtime, UTC)))
        return out

    def load(self, name: str | None = None) -> Deck | None:
        """The deck `name`, or the most recent one (None when none is registered)."""
        if name is None:
            names = self.names()
            if not names:
                return None
            name = names[0]
        path = self.path(name)
        if not path.is_file():
            known = ", ".join(self.names()) or "none is registered"
            raise DeckError(f"no deck named {name!r} ({known}); register it with "
                            f"`hearthtop-companion deck add {name} PHOTO...`")
        return Deck.load(path)

    def remove(self, name: str) -> None:
        path = self.path(name)
        if not path.is_file():
            raise DeckError(f"no deck named {name!r}")
        path.unlink()
