"""An image file read as a BGR frame, or one sentence saying why not.

Every picture the companion is given (a photo to `recognize` or `deck add`, a frame of a
folder to `track`) is read here, through OpenCV's pixel limit (`vision.MAX_PIXELS`), which
OpenCV checks from the file's header before decoding anything.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from .limits import MAX_PIXELS

MAX_BYTES = 200 * 2**20  # the largest photo as an uncompressed BMP is 300 MB: PNG or JPEG it


class ImageError(ValueError):
    """An image file that cannot be used, in one sentence naming it."""


def read_image(path: str | Path) -> np.ndarray:
    """The image at `path` as 8-bit BGR; ImageError when it cannot be read, is empty, is not
    an image, or has more than MAX_PIXELS pixels."""
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise ImageError(f"{path}: {size / 2**20:.0f} MB, more than the "
                             f"{MAX_BYTES // 2**20} MB an image may be")
        data = np.fromfile(path, np.uint8)
    except OSError as error:
        raise ImageError(f"{path}: cannot read ({error.strerror or error})") from None
    if not data.size:
        raise ImageError(f"{path}: an empty file, not an image")
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as error:
        if "MAX_IMAGE_PIXELS" in str(error):
            raise _too_big(path) from None
        image = None
    if image is None:
        raise ImageError(f"{path}: not an image that can be read")
    if image.shape[0] * image.shape[1] > MAX_PIXELS:  # OpenCV loaded before the limit was set
        raise _too_big(path)
    return image


def _too_big(path: str | Path) -> ImageError:
    return ImageError(f"{path}: more than {MAX_PIXELS // 1_000_000} megapixels, the most an "
                      "image may have; scale it down")
