"""A live source behind the server: frames in, the game's log kept in step with the session.

`CameraFeed` runs in a thread of its own: it reads frames (a camera index, a stream URL, a
video file, or a folder of frames played at its frame rate), runs the recogniser, the
stabilizer and the live tracker on them (`companion_api.track`), and after every change
hands the tracker's log to the session, which keeps the log on disk and pushes the state.
The phone's inputs (new game, end of turn, concession) go to the tracker at the frame they
arrive. It also keeps the latest frame, annotated with the cards read, for `/stream.mjpg`,
and says how the camera is doing (`ok`, `lost`, `moved`) in the state's `camera`.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from calibration import Layout, default_layout
from tracker.engine import EngineError
from tracker.events import Event
from tracker.live import LiveTracker

from .track import TableReader, TrackError, frames_of

LOST_AFTER_S = 2.0  # no frame for this long: the camera is lost
RETRY_S = 1.0  # between attempts to open a lost camera again
STREAM_FPS = 8.0  # the annotated stream is for people: a few frames a second


def _open(source: str) -> cv2.VideoCapture:
    return cv2.VideoCapture(int(source) if source.isdigit() else source)


class CameraFeed:
    def __init__(self, source: str, publish: Callable[[LiveTracker, str], None], *,
                 layout: Layout | None = None, fps: float | None = None) -> None:
        """`publish(tracker, camera_status)` is called from the feed's thread after a
        change; it reads the tracker's log and open choices there and then."""
        self.source, self.publish = source, publish
        self.layout = layout or default_layout()
        self.fps = fps or self._folder_fps()
        self.tracker = LiveTracker()
        self.status = "lost"
        self.jpeg: bytes | None = None  # the latest annotated frame
        self._inputs: list[Event] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self.frame = 0

    def _folder_fps(self) -> float:
        meta = Path(self.source) / "meta.json"
        try:
            return float(json.loads(meta.read_text())["fps"])
        except (OSError, ValueError, KeyError, TypeError):
            return 15.0

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

    # --- the loop ----------------------------------------------------------------------------
    def _frames(self):
        """Frames as they come: a folder at its frame rate, a camera or stream as it gives
        them (opened again when lost)."""
        path = Path(self.source)
        if path.exists():  # a recording: a folder of frames or a video file, to its end
            try:
                yield from (frame for _, frame in frames_of(path))
            except TrackError as error:
                print(f"hearthtop-companion: warning: {error}", file=sys.stderr)
            return
        capture = _open(self.source)
        while not self._stop.is_set():
            ok, frame = capture.read() if capture.isOpened() else (False, None)
            if ok:
                yield frame
                continue
            yield None
            capture.release()
            time.sleep(RETRY_S)
            capture = _open(self.source)
        capture.release()

    def _run(self) -> None:
        reader = TableReader(self.tracker, self.layout)  # the models load in this thread
        period = 1.0 / self.fps if Path(self.source).is_dir() else 0.0
        last_frame = time.monotonic()
        shown = 0.0
        for frame in self._frames():
            if self._stop.is_set():
                break
            started = time.monotonic()
            changed = self._take_inputs()
            status = self.status
            if frame is None:
                status = "lost" if started - last_frame > LOST_AFTER_S else status
            else:
                last_frame = started
                try:
                    changed |= reader.look(self.frame, frame)
                except Exception as error:  # one bad frame must not stop the game
                    print(f"hearthtop-companion: warning: frame {self.frame} skipped "
                          f"({type(error).__name__}: {error})", file=sys.stderr)
                status = reader.status
                if started - shown >= 1.0 / STREAM_FPS:
                    self.jpeg, shown = _annotated(frame, reader.seen), started
                self.frame += 1
            if changed or status != self.status:
                self.status = status
                self._publish()
            if period:
                time.sleep(max(0.0, period - (time.monotonic() - started)))
        self._idle()

    def _idle(self) -> None:
        self.status = "lost"  # the recording ended: the phone's inputs still count
        self._publish()
        while not self._stop.wait(0.1):
            if self._take_inputs():
                self._publish()

    def _publish(self) -> None:
        try:
            self.publish(self.tracker, self.status)
        except Exception as error:  # the server is stopping, or refused: the next change
            print(f"hearthtop-companion: warning: the state was not updated "
                  f"({type(error).__name__}: {error})", file=sys.stderr)

    def _take_inputs(self) -> bool:
        with self._lock:
            inputs, self._inputs = self._inputs, []
        for item in inputs:
            try:
                if isinstance(item, tuple):
                    choice = next((c for c in self.tracker.choices if c.id == item[0]), None)
                    if choice is not None and item[1] < len(choice.options):
                        self.tracker.answer(choice, item[1])
                else:
                    self.tracker.phone(item)
            except EngineError as error:  # checked before it came; never stop the camera
                print(f"hearthtop-companion: warning: {error}", file=sys.stderr)
        return bool(inputs)


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
