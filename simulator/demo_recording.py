"""The demo recording that `hearthtop-companion run --demo` plays as a live game: a short
bot game rendered by the simulator (`game_video`) as the webcam above the table records it,
encoded as one small H.264 file, with the phone's inputs beside it.

    pip install -e '.[sim]'   # PyAV, whose FFmpeg has an H.264 encoder
    python -m simulator.demo_recording [--out companion_api/demo]

OpenCV's own writer makes MPEG-4 part 2 at a fixed quality (about 50 KB a frame at 720p:
90 MB for two minutes); x264 at CRF 30 makes about 3 MB, and the recogniser reads it as
well as the frames it was made from (docs/table.md). Any OpenCV reads it back: FFmpeg's
H.264 decoder is in every build. Out, in the folder: `table.mp4`; `phone.jsonl` (the new
game and the ends of turns by frame, as `simulate` writes them); `game.jsonl` (the bot's
log, with the deck's order: what the camera should find); `meta.json` (the frame rate, the
recipe and what it made). The same command makes the same files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import cv2

from simulator import game_video
from tracker.rules.bot import play_game
from tracker.rules.events import dump_log

OUT = Path(__file__).resolve().parents[1] / "companion_api" / "demo"
# Valeera v Thrall, seed 2: 28 events in two minutes, from the deal to Valeera's death:
# minions, a totem, The Coin, spells, attacks by minions and heroes, a weapon on each side.
HEROES = ("valeera", "thrall")
BOT_SEED = 2
RENDER_SEED = 1  # the simulator's: design, table, camera, light, hands
SIZE, FPS = "1280x720", 15
CRF = 30  # x264's quality: 28 doubles the size and reads no better (docs/table.md)
X264 = {"crf": str(CRF), "preset": "slow",
        "threads": "2"}  # x264's output depends on its thread count: fixed, for the same file


def encode(frames: Path, count: int, out: Path, fps: float) -> int:
    """The simulator's frames as one H.264 file at a constant rate: a frame the camera
    dropped is the one before again, so that frame N is at N / fps seconds, as the phone's
    inputs count them. The frames written."""
    try:
        import av
    except ImportError:
        raise SystemExit("demo_recording: the encoder needs PyAV: "
                         "pip install -e '.[sim]'") from None
    last = cv2.imread(str(min(frames.glob("*.jpg"))), cv2.IMREAD_COLOR)
    with av.open(str(out), "w") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height = last.shape[1], last.shape[0]
        stream.pix_fmt, stream.options = "yuv420p", X264
        for number in range(count):
            path = frames / f"{number:06d}.jpg"
            last = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.exists() else last
            for packet in stream.encode(av.VideoFrame.from_ndarray(last, format="bgr24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return count


def frames_read(video: Path) -> int:
    """The frames OpenCV reads from the file: what `run --demo` will see."""
    capture = cv2.VideoCapture(str(video))
    count = 0
    while capture.grab():
        count += 1
    capture.release()
    return count


def make(out: Path) -> dict:
    """Play the game, render it, encode it; the meta written."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "game.jsonl"
    dump_log(play_game(HEROES, seed=BOT_SEED, sensible=True).events, log)
    with tempfile.TemporaryDirectory(prefix="hearthtop-demo-") as work:
        summary = game_video.simulate(log, Path(work), seed=RENDER_SEED, size=SIZE, fps=FPS)
        print(summary.line(), file=sys.stderr)
        written = encode(Path(work) / "frames", summary.frames, out / "table.mp4", FPS)
        shutil.copy(Path(work) / "phone.jsonl", out / "phone.jsonl")
    read = frames_read(out / "table.mp4")
    if read != written:
        raise SystemExit(f"demo_recording: OpenCV reads {read} of the {written} frames")
    meta = {"fps": FPS, "frames": written, "seconds": round(written / FPS, 1), "size": SIZE,
            "codec": "h264", "x264": X264, "heroes": list(HEROES), "bot_seed": BOT_SEED,
            "seed": RENDER_SEED, "design": summary.design, "events": summary.events,
            "bytes": (out / "table.mp4").stat().st_size,
            "made_by": "python -m simulator.demo_recording"}
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulator.demo_recording",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT,
                        help="folder for table.mp4, phone.jsonl, game.jsonl and meta.json "
                             "(default: the package's companion_api/demo)")
    meta = make(parser.parse_args(argv).out)
    print(f"wrote {meta['frames']} frames ({meta['seconds']} s, {meta['bytes'] / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
