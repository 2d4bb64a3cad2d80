"""The camera path: frames in, the game's events out. Module by module, from the frame up:

- `reader`: `TableReader`, one frame at a time: the calibration follows the table's markers
  (`calibration`), the recogniser names the cards (`vision`), their sightings go to table
  millimetres and zones, the camera's condition (frozen, covered, moved) is told
- `stabilize`: sightings over frames to stable views of the table, and the hints between
  them (an attacker's slide, cards turned over)
- `view`: the table as a camera sees it, in the rules' terms, and as the rules say it lies
- `reconcile`: the events that explain a change of view, nearest first
- `live`: `LiveTracker`, the views explained and applied by the rules' engine, with the
  phone's inputs; what it could not decide kept as choices (`questions`)
- `recording`: recordings (a video file, a folder of frames, with the phone's inputs) and
  `track`, the whole path over one as fast as it can
- `feed`: `CameraFeed`, the path live in a thread of its own behind the server, which
  subscribes to its `CameraUpdate`s

The names below are this room's front door (what the server uses of it), imported on first
use, so that importing one of them loads no OpenCV unless it needs it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public names, for type checkers and editors
    from .feed import STREAM_FPS, CameraFeed, CameraUpdate, Fix
    from .live import (
        MISSABLE,
        NOTHING,
        PHONE_EVENTS,
        PHONE_INPUTS,
        Fixes,
        LiveTracker,
        fix_options,
        in_words,
    )
    from .questions import Answer, Question
    from .reader import TableReader
    from .recording import Reading, Recording, TrackError, TrackResult, read_phone, track

__all__ = ["MISSABLE", "NOTHING", "PHONE_EVENTS", "PHONE_INPUTS", "STREAM_FPS", "Answer",
           "CameraFeed", "CameraUpdate", "Fix", "Fixes", "LiveTracker", "Question", "Reading",
           "Recording", "TableReader", "TrackError", "TrackResult", "fix_options", "in_words",
           "read_phone", "track"]

_HOME = {"CameraFeed": "feed", "CameraUpdate": "feed", "STREAM_FPS": "feed", "Fix": "feed",
         "LiveTracker": "live", "MISSABLE": "live", "PHONE_EVENTS": "live", "PHONE_INPUTS": "live",
         "NOTHING": "live",
         "Fixes": "live", "fix_options": "live", "in_words": "live", "Answer": "questions",
         "Question": "questions", "TableReader": "reader", "Recording": "recording",
         "Reading": "recording", "TrackError": "recording", "TrackResult": "recording",
         "read_phone": "recording", "track": "recording"}


def __getattr__(name: str) -> object:
    """A public name from its module, imported now (PEP 562)."""
    if name not in _HOME:
        raise AttributeError(f"module 'tracker.camera' has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
