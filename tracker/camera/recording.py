"""Recordings of a game: a video file or a folder of frames, with the phone's inputs that
came with it (`phone.jsonl`, as `simulate` writes it: no camera sees a new game, a mulligan
or the end of a turn), read frame by frame; `track`, the whole camera path over one, as fast
as it can, with no server (the command of that name); and `Reading`, what the recogniser
read of each frame of a game, kept to be played again through the stabilizer and the
tracker."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration import Layout
from tracker.rules.events import Event, LogError, NewGame, parse_event, read_text
from tracker.rules.heroes import HeroError, get_hero
from vision.image import ImageError, read_image

from .live import PHONE_INPUTS, LiveTracker
from .reader import TableReader
from .stabilize import Sighting

if TYPE_CHECKING:
    from vision.deck import Deck

IMAGES = (".jpg", ".jpeg", ".png", ".bmp")
DEFAULT_FPS = 15.0  # a recording that does not say its own (simulate's default)
# FFmpeg prints its own lines for a file it cannot read ("moov atom not found"); the
# one-line error says it for the user (a user's own setting stands)
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


class TrackError(ValueError):
    """A recording or phone file that cannot be used, in one line."""


def frames_of(source: Path) -> Iterator[tuple[int, np.ndarray | None]]:
    """(index, frame) of a folder of images (by name) or a video file; None for a frame
    that cannot be read (it is skipped, the game goes on). Images named by number are
    indexed by it, and a number missing is a None frame: the camera gave no picture then
    (`simulate` names them so), and the phone's inputs at that frame still count."""
    if source.is_dir():
        paths = sorted(p for p in source.iterdir() if p.suffix.lower() in IMAGES)
        if not paths:
            raise TrackError(f"{source}: no images in the folder")
        numbered = {int(p.stem): p for p in paths if p.stem.isdigit()}
        if len(numbered) < len(paths) or max(numbered) - min(numbered) >= 4 * len(paths):
            for index, path in enumerate(paths):  # not a camera's numbered frames
                yield index, _frame(path)
            return
        for index in range(min(numbered), max(numbered) + 1):
            yield index, _frame(numbered[index]) if index in numbered else None
        return
    capture = cv2.VideoCapture(str(source))
    # FFmpeg opens any file named as a picture (.jpg: text, noise) and reads no frame of it
    ok, frame = capture.read() if capture.isOpened() else (False, None)
    if not ok:
        capture.release()
        raise TrackError(f"{source}: not a picture, a video or an image folder that can be "
                         "read")
    index = 0
    try:
        while ok:
            yield index, frame
            index += 1
            ok, frame = capture.read()
    finally:
        capture.release()


def _frame(path: Path) -> np.ndarray | None:
    try:
        return read_image(path)
    except ImageError:
        return None


def read_phone(path: Path) -> dict[int, list[Event]]:
    """The phone's inputs by frame: lines of `{"frame": N, "event": {...}}`."""
    try:
        lines = read_text(path, kind="phone file").splitlines()
    except LogError as error:
        raise TrackError(str(error)) from None
    inputs: dict[int, list[Event]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            frame, event = int(entry["frame"]), parse_event(entry["event"])
        except (ValueError, KeyError, TypeError, LogError, RecursionError) as error:
            reason = "nested too deeply" if isinstance(error, RecursionError) else error
            raise TrackError(f"{path}:{number}: not a phone input ({reason})") from None
        if event.type not in PHONE_INPUTS:
            raise TrackError(f"{path}:{number}: {event.type} is not a phone input "
                             f"(only {', '.join(PHONE_INPUTS)})")
        if isinstance(event, NewGame):
            try:
                for hero in event.heroes.values():
                    get_hero(hero)
            except HeroError as error:
                raise TrackError(f"{path}:{number}: {error}") from None
        inputs.setdefault(frame, []).append(event)
    return inputs


@dataclass(frozen=True)
class Recording:
    """A recorded game to play as if it were live: its frames (a video file or a folder of
    images), their rate, and the phone's inputs by frame (`phone.jsonl` beside the frames,
    as `simulate` writes it: no camera sees a new game or the end of a turn)."""

    frames: Path
    fps: float = DEFAULT_FPS
    inputs: dict[int, list[Event]] = field(default_factory=dict)
    phone: Path | None = None  # the file the inputs came from

    @classmethod
    def at(cls, path: Path) -> Recording:
        """The recording at `path`: a video file, a folder of frames, or the folder that
        `simulate` wrote (`frames/`, `phone.jsonl`, `meta.json`). TrackError when its
        frames or its phone file cannot be used."""
        frames = path / "frames" if (path / "frames").is_dir() else path
        first = frames_of(frames)
        try:
            next(first, None)  # a folder with no images, a file that is no video: refused
        finally:
            first.close()
        phone = _beside(frames, "phone.jsonl")
        return cls(frames, _fps(frames), read_phone(phone) if phone else {}, phone)


def _beside(frames: Path, name: str) -> Path | None:
    """A file that came with the frames: in their folder, or in the folder holding them."""
    places = ([frames] if frames.is_dir() else []) + [frames.parent]
    return next((p / name for p in places if (p / name).is_file()), None)


def _fps(frames: Path) -> float:
    meta = _beside(frames, "meta.json")
    if meta is not None:
        try:
            return float(json.loads(meta.read_text())["fps"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    if frames.is_file():
        capture = cv2.VideoCapture(str(frames))
        fps = capture.get(cv2.CAP_PROP_FPS)
        capture.release()
        if 1 <= fps <= 240:  # a file with no rate says 0 (or nonsense)
            return fps
    return DEFAULT_FPS


# One frame of a reading: the cards seen in table mm and the zones where something moved;
# None where the table was not looked at (no picture, no calibration, a blind camera)
ReadFrame = tuple[list[Sighting], frozenset[str]] | None


@dataclass(frozen=True)
class Reading:
    """What the recogniser read of a recorded game, frame by frame (`TableReader.sighted`
    and `.moving`), at the recording's rate, with the phone's inputs by frame. Played again
    (`TableReader.take`), it gives the stabilizer and the tracker what the camera read, with
    no pixels: to study them offline on a game read once, and to drive the server."""

    frames: list[ReadFrame]
    fps: float = DEFAULT_FPS
    inputs: dict[int, list[Event]] = field(default_factory=dict)

    def save(self, path: Path) -> None:
        """As gzipped JSON lines: the rate and the phone's inputs, then a line a frame."""
        head = {"fps": self.fps, "inputs": [{"frame": frame, "event": event.model_dump(
            mode="json", exclude_none=True)} for frame, events in sorted(self.inputs.items())
            for event in events]}
        with gzip.open(path, "wt", encoding="utf-8") as out:
            out.write(json.dumps(head) + "\n")
            for frame in self.frames:
                out.write(json.dumps(None if frame is None else {
                    "cards": [_plain(s) for s in frame[0]], "moving": sorted(frame[1])}) + "\n")

    @classmethod
    def load(cls, path: Path) -> Reading:
        """A reading `save` wrote; TrackError when it cannot be read."""
        try:
            with gzip.open(path, "rt", encoding="utf-8") as lines:
                head = json.loads(next(lines))
                frames = [None if f is None else ([Sighting(*s) for s in f["cards"]],
                                                  frozenset(f["moving"]))
                          for f in map(json.loads, lines)]
            inputs: dict[int, list[Event]] = {}
            for entry in head["inputs"]:
                inputs.setdefault(int(entry["frame"]), []).append(parse_event(entry["event"]))
            return cls(frames, float(head["fps"]), inputs)
        except (OSError, EOFError, zlib.error, StopIteration, ValueError, KeyError, TypeError,
                LogError) as error:
            raise TrackError(f"{path}: not a reading ({error})") from None


def _plain(s: Sighting) -> list:
    """A sighting as JSON (a hero card's figures may be numpy's)."""
    return [s.card, float(s.confidence), float(s.x), float(s.y), s.zone, bool(s.sideways),
            s.guess, bool(s.tilted)]


@dataclass
class TrackResult:
    tracker: LiveTracker
    frames: int
    unread: int  # frames that could not be read, or had no calibration
    deck_in_use: bool  # a registered deck read the cards at the end (not: another deck)


def track(source: Path, phone: Path | None = None, layout: Layout | None = None,
          deck: Deck | None = None) -> TrackResult:
    """The whole camera path over a recording, frame by frame as fast as it can, with no
    server; the live tracker holds the game. `source` is what `Recording.at` takes (`run
    --source` takes the same); the phone's inputs are read from `phone`, else from the
    `phone.jsonl` that came with the recording. TrackError when there are none."""
    recording = Recording.at(source)
    if phone is None and recording.phone is None:
        raise TrackError(f"{source}: no phone.jsonl came with the recording (the new game and "
                         "the ends of turns, which no camera sees): give --phone FILE")
    given = read_phone(phone) if phone is not None else recording.inputs
    inputs = {frame: list(events) for frame, events in given.items()}
    reader = TableReader(LiveTracker(), layout, deck)
    frames = unread = 0
    for _, frame in reader.read(frames_of(recording.frames), inputs):
        frames += 1
        unread += frame is None or reader.seen is None
    reader.settle(frames)  # the recording ended: what waits is decided
    for frame_inputs in inputs.values():  # inputs after the last frame
        for event in frame_inputs:
            reader.tracker.phone(event)
    return TrackResult(reader.tracker, frames, unread, reader.recognizer.deck_in_use)
