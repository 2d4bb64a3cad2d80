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

`vision.synth` only makes data: the Debian card art and the table renderer that training
samples, the tests' scenes and the end-to-end game videos (DESIGN.md's `simulate`) are drawn
with. No runtime module imports it, nor torch, nor `models` (`tests/test_layering.py`).

The public names below are imported on first use, so that `import vision` loads no model and
no OpenCV, and `python -m vision.detect` runs its module once.
"""

from __future__ import annotations

import os
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public names, for type checkers and editors
    from .classify import UNKNOWN, CardClassifier
    from .detect import PHOTO_ZOOMS, CardDetector
    from .observation import Observation
    from .pipeline import Recognizer
    from .refine import CardRefiner
    from .runtime import ModelError

__all__ = ["FRAME_SIZES", "PHOTO_ZOOMS", "UNKNOWN", "CardClassifier", "CardDetector",
           "CardRefiner", "ModelError", "Observation", "Recognizer"]

# the webcam frame sizes (width, height) the companion is built and measured for
FRAME_SIZES: dict[str, tuple[int, int]] = {"720p": (1280, 720), "1080p": (1920, 1080)}

# the most pixels an image file may have (a 108-MP phone photo is 12,000 × 9,000): a PNG of a
# few hundred KB may say it is 30,000 pixels square and decode to gigabytes. OpenCV checks it
# from the header, before decoding, and reads the setting when it loads: so here, where no
# module has loaded it (`vision.image.read_image` names it; the CLI imports this first)
MAX_PIXELS = 100_000_000
os.environ["OPENCV_IO_MAX_IMAGE_PIXELS"] = str(MAX_PIXELS)

_HOME = {"Recognizer": "pipeline", "Observation": "observation", "CardDetector": "detect",
         "PHOTO_ZOOMS": "detect", "CardRefiner": "refine", "CardClassifier": "classify",
         "UNKNOWN": "classify", "ModelError": "runtime"}


def __getattr__(name: str) -> object:
    """A public name from its module, imported now (PEP 562)."""
    if name not in _HOME:
        raise AttributeError(f"module 'vision' has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOME[name]}"), name)
