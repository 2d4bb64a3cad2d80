"""The camera behind the server: frames in, the game as the camera keeps it out.

`CameraFeed` runs in a thread of its own: it reads frames (a camera index, a stream URL, or
a `Recording`: a video file or a folder of frames played at its frame rate, with the phone's
inputs that came with it; or a `Reading`: the cards read of each frame of one), runs
`TableReader` on them (the calibration, the recogniser, the
stabilizer, the live tracker), and after every change hands its subscriber a
`CameraUpdate`: a snapshot of the tracker's game (the one engine that applies the camera's
events), the camera's condition, the questions it could not decide and what a person may
put in place of each view's events (`fixes`). The phone's inputs (new game, end of turn,
concession), answers and fixes go to the tracker before the next frame. It
also keeps the latest frame, annotated with the cards read, for `/stream.mjpg`, and says
whether the players' registered deck reads the cards (`registered_deck`: its name, and
false for `in_use` while the table shows another deck). `setup()` checks the latest frame
for a player setting the camera up (`setup.check_setup`).
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration import Layout, default_layout
from tracker.rules.engine import EngineError, Game
from tracker.rules.events import Event, NewGame

from .live import Fixes, LiveTracker
from .questions import Question
from .reader import TableReader
from .recording import ReadFrame, Reading, Recording, TrackError, frames_of
from .setup import SetupCheck, check_setup, draw_setup

if TYPE_CHECKING:
    from vision.deck import Deck

LOST_AFTER_S = 1.0  # no frame for this long: the camera is lost
RETRY_S = 0.5  # the first wait before opening a lost camera again, doubled each time …
MAX_RETRY_S = 5.0  # … up to this: a camera plugged back in is found within seconds
STREAM_TIMEOUT_MS = 1500  # a stream that answers nothing this long is lost, not waited on
STREAM_FPS = 8.0  # the annotated stream is for people: a few frames a second
REST_S = 8.0  # on a looped recording's last frame (at real time), before it starts again


@dataclass(frozen=True)
class CameraUpdate:
    """The game as the camera keeps it, after a change.

    `game` is a copy of the tracker's (`Game.copy`: the positions are copied, the events
    shared), so the subscriber reads it while the camera goes on; no event is applied twice.
    `game_number` counts the new games the phone started, so that one with the same heroes
    is still a new game; `deck` is the registered deck's name and whether it reads the
    cards (None: no deck); `fixes` what a person may put in place of each view's events
    (`LiveTracker.fixes`)."""

    game: Game
    camera: str  # ok, lost, frozen, covered, moved
    questions: list[Question]
    game_number: int
    deck: dict | None = None
    fixes: tuple[Fixes, ...] = ()


@dataclass(frozen=True)
class Fix:
    """A person's fix of the camera's event `index`, as the server saw it: applied only if
    the log's event there is still `expected` (the camera may have changed it meanwhile).
    Either `events` in place of the view's, or the play's `card` named by hand (with its
    `target` and `choice`, if given; else the camera's, where the card takes them), or an
    event the camera `missed`, right after event `index` (None: after the last, whatever
    it is by then)."""

    index: int | None
    expected: Event | None
    events: tuple[Event, ...] = ()
    card: str | None = None
    target: str | list[str] | None = None
    choice: int | None = None
    missed: Event | None = None


Subscriber = Callable[[CameraUpdate], None]


def _open(source: str) -> cv2.VideoCapture:
    if source.isdigit():
        return cv2.VideoCapture(int(source))
    # FFmpeg waits 30 s by default for a stream that went quiet
    return cv2.VideoCapture(source, cv2.CAP_ANY, [
        cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
        cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS])


class CameraFeed:
    def __init__(self, source: str | Recording | Reading, subscriber: Subscriber, *,
                 layout: Layout | None = None, speed: float | None = 1.0, loop: bool = False,
                 deck: Deck | None = None) -> None:
        """`source`: a camera index or stream URL, or a recording (or a reading of one),
        played at its frame rate times `speed` (frames whose time has passed are dropped,
        so the game is never behind by more than a frame; None: every frame, as fast as
        they are read, as `track` reads them), its phone inputs applied at their frames
        as if a phone had sent them, from the start again after the end when `loop`.
        `subscriber(update)` is called from the feed's thread after each change; it should
        return quickly (the server hands the update to its event loop)."""
        self.source, self.subscriber, self.deck = source, subscriber, deck
        self.deck_in_use = False  # until the deck is seen on the table (vision.deck)
        self.layout = layout or default_layout()
        self.speed, self.loop = speed, loop
        self.tracker = LiveTracker()
        self.games = 0
        self.status = "lost"
        self.ended = False  # the recording was played to its end (not looped again)
        self.jpeg: bytes | None = None  # the latest annotated frame
        self.picture: np.ndarray | None = None  # the latest frame, as the camera gave it
        self.pictured_at = 0.0  # when (time.monotonic)
        self._pictures = 0  # pictures taken: what a setup check is of
        self.frame = 0  # frames looked at
        self._setup: tuple[int, SetupCheck, bytes] | None = None  # of picture N
        self._setup_lock = threading.Lock()
        self._shown = 0.0  # when the stream's frame was made
        self._inputs: list[Event | tuple[int, int] | Fix] = []
        self._fixing = False  # a fix waits to be applied: another is refused meanwhile
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    # --- control ---------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def phone(self, event: Event) -> None:
        """An input from the phone, applied before the next frame."""
        with self._lock:
            self._inputs.append(event)

    def answer(self, choice: int, option: int) -> None:
        """A person's answer to one of the tracker's choices, applied before the next frame."""
        with self._lock:
            self._inputs.append((choice, option))

    def fix(self, fix: Fix) -> bool:
        """A person's fix of a camera event, applied before the next frame; False (nothing
        queued) while the last one waits, so that each is made on the log it was meant for."""
        with self._lock:
            if self._fixing:
                return False
            self._fixing = True
            self._inputs.append(fix)
        return True

    def setup(self) -> tuple[SetupCheck, bytes] | None:
        """The camera setup check of the latest frame, and that frame with the check drawn
        on it (JPEG); None before the first frame. Made once a picture, whoever asks, in the
        asker's thread: the game's frames are not slowed by it."""
        with self._setup_lock:
            picture, number = self.picture, self._pictures
            if picture is None:
                return None
            if self._setup is None or self._setup[0] != number:
                check, calibration = check_setup(picture, self.layout)
                drawn = draw_setup(picture, check, calibration, self.layout)
                ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
                self._setup = (number, check, jpeg.tobytes() if ok else b"")
            return self._setup[1], self._setup[2]

    # --- the loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        recognizer = None  # the models load in this thread, once
        while not self._stop.is_set():
            reader = TableReader(self.tracker, self.layout, self.deck, recognizer)
            if isinstance(self.source, str):
                self._watch(reader, self.source)
            elif not self._play(reader, self.source) or not self.loop:
                break
            else:  # the final board stays a while, then the recording's game begins again
                self._wait(REST_S / (self.speed or math.inf))
                # a tracker with no game until the recording's new game: the table at the
                # start is never explained as a change to the last game (a misread one
                # may not have ended)
                self.tracker = LiveTracker()
            recognizer = reader.loaded_recognizer
        self._idle()

    def _watch(self, reader: TableReader, source: str) -> None:
        """A camera or stream, frames as it gives them; one that stops is opened again,
        waiting longer each time it fails (`RETRY_S` doubling to `MAX_RETRY_S`), and the
        game goes on when it is back. The phone's inputs count meanwhile."""
        capture = _open(source)
        last_frame, wait = time.monotonic(), RETRY_S
        while not self._stop.is_set():
            ok, frame = capture.read() if capture.isOpened() else (False, None)
            if ok and frame is not None and frame.size:
                last_frame, wait = time.monotonic(), RETRY_S
                self._step(reader, self.frame, frame)
                continue
            lost = time.monotonic() - last_frame > LOST_AFTER_S
            if lost:
                reader.tracker.blind()  # the table goes on without the camera
            self._update(self._take_inputs(), "lost" if lost else self.status)
            capture.release()
            self._wait(wait)
            wait = min(2 * wait, MAX_RETRY_S)
            capture = _open(source)
        capture.release()

    def _play(self, reader: TableReader, recording: Recording | Reading) -> bool:
        """A recording by the wall clock: frame N at N / fps (over `speed`) seconds. A
        frame whose time has passed while the last was read is dropped (its phone inputs
        still count); with no `speed`, none is. False when stopped or the recording cannot
        be read."""
        period = 1.0 / (recording.fps * self.speed) if self.speed else 0.0
        start = time.monotonic()
        frames = (enumerate(recording.frames) if isinstance(recording, Reading)
                  else frames_of(recording.frames))
        try:
            for index, frame in frames:
                late = time.monotonic() - (start + index * period)
                if late < 0:
                    self._stop.wait(-late)
                if self._stop.is_set():
                    return False
                dropped = period and late >= period
                self._step(reader, index, None if dropped else frame,
                           recording.inputs.get(index, ()))
        except TrackError as error:
            print(f"hearthtop-companion: warning: {error}", file=sys.stderr)
            return False
        self._update(reader.settle(), self.status)  # the end: what waits is decided
        return True

    def _step(self, reader: TableReader, index: int, frame: np.ndarray | ReadFrame,
              inputs: Sequence[Event] = ()) -> None:
        """One frame (None: dropped or unreadable, nothing looked at; a reading's frame:
        the cards as they were read), then the phone's inputs: the recording's at this
        frame and those that came meanwhile."""
        changed, status = False, self.status
        if frame is not None:
            read = isinstance(frame, tuple)
            if not read:  # for the setup page, before the look (the models load at the first)
                self.picture, self.pictured_at = frame, time.monotonic()
                self._pictures += 1
            try:
                changed = reader.take(index, *frame) if read else reader.look(index, frame)
            except Exception as error:  # one bad frame must not stop the game
                print(f"hearthtop-companion: warning: frame {index} skipped "
                      f"({type(error).__name__}: {error})", file=sys.stderr)
            self.frame += 1
            status = "ok" if read else reader.status
            if not read:
                changed |= reader.deck_in_use != self.deck_in_use
                self.deck_in_use = reader.deck_in_use
                now = time.monotonic()
                if now - self._shown >= 1.0 / STREAM_FPS:
                    self.jpeg, self._shown = _annotated(frame, reader.seen), now
        for event in inputs:
            self.phone(event)
        self._update(self._take_inputs(reader, index) or changed, status)

    def _update(self, changed: bool, status: str) -> None:
        if changed or status != self.status:
            self.status = status
            self._publish()

    def _wait(self, seconds: float) -> None:
        """Let time pass on the table as it is; the phone's inputs still count."""
        end = time.monotonic() + seconds
        while not self._stop.wait(min(0.1, max(0.0, end - time.monotonic()))):
            self._update(self._take_inputs(), self.status)
            if time.monotonic() >= end:
                return

    def _idle(self) -> None:
        self.status, self.ended = "lost", True  # the phone's inputs still count
        self._publish()
        while not self._stop.wait(0.1):
            if self._take_inputs():
                self._publish()

    def _publish(self) -> None:
        deck = None if self.deck is None else {"name": self.deck.name,
                                               "in_use": self.deck_in_use}
        update = CameraUpdate(self.tracker.game.copy(), self.status, self.tracker.questions(),
                              self.games, deck, tuple(self.tracker.fixes()))
        try:
            self.subscriber(update)
        except Exception as error:  # the server is stopping, or refused: the next change
            print(f"hearthtop-companion: warning: the state was not updated "
                  f"({type(error).__name__}: {error})", file=sys.stderr)

    def _take_inputs(self, reader: TableReader | None = None, index: int = 0) -> bool:
        """The phone's inputs and answers that came; with the `reader` of frame `index`,
        what the table shows is explained first (an end of turn closes the turn)."""
        with self._lock:
            inputs, self._inputs = self._inputs, []
        for item in inputs:
            try:
                if isinstance(item, Fix):
                    self._apply_fix(item)
                elif isinstance(item, tuple):
                    choice = next((c for c in self.tracker.choices if c.id == item[0]), None)
                    if choice is not None and item[1] < len(choice.options):
                        self.tracker.answer(choice, item[1])
                else:
                    if reader is not None:
                        reader.phone(index, item)
                    else:
                        self.tracker.phone(item)
                    self.games += isinstance(item, NewGame)
            except EngineError as error:  # checked before it came; never stop the camera
                print(f"hearthtop-companion: warning: {error}", file=sys.stderr)
        return bool(inputs)

    def _apply_fix(self, fix: Fix) -> None:
        """A fix, if the event it was made for is still where it was; else it is dropped
        (the camera explained that view again meanwhile), with a line saying so."""
        try:
            events = self.tracker.events
            if fix.index is not None and (fix.index >= len(events)
                                          or events[fix.index] != fix.expected):
                print(f"hearthtop-companion: warning: the fix of event {fix.index} was "
                      "dropped: the camera changed that event meanwhile", file=sys.stderr)
            elif fix.missed is not None:
                self.tracker.missed(fix.missed, fix.index)
            elif fix.card is not None:
                self.tracker.name_card(fix.index, fix.card, fix.target, fix.choice)
            else:
                self.tracker.fix(fix.index, list(fix.events))
        finally:
            with self._lock:
                self._fixing = False


def _annotated(frame: np.ndarray, obs) -> bytes:
    """The frame with each card's outline and name (green: named, amber: not sure); with
    no calibration (`obs` None), a line saying the table's markers are not in view."""
    canvas = frame.copy()
    if obs is None:
        cv2.putText(canvas, "table markers not found", (12, 28), cv2.FONT_HERSHEY_SIMPLEX,
                    0.8, (40, 170, 255), 2, cv2.LINE_AA)
    for quad, card in zip(obs.quads if obs is not None else [],
                          obs.cards if obs is not None else [], strict=True):
        colour = (80, 200, 80) if card != "UNKNOWN" else (40, 170, 255)
        points = quad.astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(canvas, [points], True, colour, 2, cv2.LINE_AA)
        x, y = quad.min(axis=0).astype(int)
        cv2.putText(canvas, str(card), (int(x), max(12, int(y) - 4)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 75])
    return data.tobytes() if ok else b""
