"""Vision: from a camera frame to the cards on the table. What runs live, module by module:

- `pipeline`: `Recognizer`, the shipped models loaded once; `observe(frame)` runs them
- `detect`: the card detector (onnxruntime): each card's full quad, face up or down
- `piles`: where the detector's boxes crowd, a second look at the frame's own pixels
- `refine`: each detected card's corners put right, at full resolution
- `rectify`: a card's quad cut out as an upright portrait card, and its index corners
- `classify`: the card classifier and its index experts: a card id, JK, BACK or UNKNOWN
- `deck`: the players' own deck, read by likeness while it is on the table
- `register`: that deck registered from photos of it laid out
- `memory`: live video: still cards keep their names, still piles what was found in them
- `observation`: `Observation`, one frame's cards as columns, from detection to the tracker
- `geometry`: card quads and rotated boxes: fitted boxes, overlaps, suppression
- `runtime`: a shipped ONNX model and its JSON report loaded, or a one-line error
- `image`: an image file read through the pixel limit, or a one-line error

The simulator (`simulator/`: the card art, the table renderer, the game videos) and the
training code (`training/`) stand on this package; it imports neither, nor torch
(`tests/test_layering.py`). The shipped models are found through the `models` package
(`runtime.shipped`), in a checkout and from a wheel alike.

The public names below are this package's front door (what the server uses of it), imported
on first use, so that `import vision` loads no model and
no OpenCV, and `python -m vision.detect` runs its module once.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .limits import MAX_PIXELS  # first: OpenCV's pixel limit, before OpenCV loads

if TYPE_CHECKING:  # the public names, for type checkers and editors
    from .classify import UNKNOWN, CardClassifier
    from .deck import Deck, DeckError
    from .detect import PHOTO_ZOOMS, CardDetector
    from .image import ImageError, read_image
    from .observation import Observation
    from .pipeline import Recognizer
    from .refine import CardRefiner
    from .register import CountError, find_cards, name_cards
    from .runtime import ModelError

__all__ = ["FRAME_SIZES", "MAX_PIXELS", "PHOTO_ZOOMS", "UNKNOWN", "CardClassifier", "CardDetector",
           "CardRefiner", "CountError", "Deck", "DeckError", "ImageError", "ModelError",
           "Observation", "Recognizer", "find_cards", "name_cards", "read_image"]

# the webcam frame sizes (width, height) the companion is built and measured for
FRAME_SIZES: dict[str, tuple[int, int]] = {"720p": (1280, 720), "1080p": (1920, 1080)}


_HOME = {"Recognizer": "pipeline", "Observation": "observation", "CardDetector": "detect",
         "PHOTO_ZOOMS": "detect", "CardRefiner": "refine", "CardClassifier": "classify",
         "UNKNOWN": "classify", "ModelError": "runtime", "Deck": "deck", "DeckError": "deck",
         "ImageError": "image", "read_image": "image", "CountError": "register",
         "find_cards": "register", "name_cards": "register"}


def __getattr__(name: str) -> object:
    """A public name from its module, imported now (PEP 562)."""
    if name not in _HOME:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
