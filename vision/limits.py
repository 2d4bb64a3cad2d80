"""The most pixels an image file may have (a 108-MP phone photo is 12,000 × 9,000): a PNG of a
few hundred KB may say it is 30,000 pixels square and decode to gigabytes. OpenCV checks it
from the header, before decoding, and reads the setting when it loads: so it is set here,
where no OpenCV is loaded, and `vision` imports this first (the CLI imports `vision` first)."""

import os

MAX_PIXELS = 100_000_000
os.environ["OPENCV_IO_MAX_IMAGE_PIXELS"] = str(MAX_PIXELS)
