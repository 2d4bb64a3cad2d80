"""The game simulator: an event log rendered as the video a webcam above the table records
while two people play it with real cards (`hearthtop-companion simulate`, docs/table.md).

The log is replayed with the rules engine; after each event the rules' view of the table
(`tracker.camera.view.expected_view`) is what the table must show, and `simulator.game_motion`
moves the cards there the way players do, with their hands. One game has one held-out card
design, one table, one webcam (slightly off vertical, bumped once), light that drifts,
noise and blur, and now and then a dropped frame. Out: `frames/NNNNNN.jpg` (frame N is at
N / fps seconds; a missing number is a frame the camera dropped), `phone.jsonl` (the
phone's inputs: new game without the deck's order, ends of turn, concessions),
`truth.jsonl` (every event with the frame at which the table shows it complete) and
`meta.json`.
"""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration import default_layout
from cards import JOKER
from simulator import cardart
from simulator.game_events import Players
from simulator.game_faults import Fault, parse_faults
from simulator.game_frames import FrameRenderer, bumped, light_plan, marker_tiles, webcam
from simulator.game_motion import PLAYERS, Identities
from simulator.game_table import Geometry, Piece
from simulator.hands import SKIN_TONES, Hand
from simulator.layout import hero_card, surface
from simulator.scene import Scene, card_size_mm
from tracker.camera.live import PHONE_EVENTS
from tracker.camera.view import expected_view
from tracker.rules.engine import EngineError, Game
from tracker.rules.events import Event, LogError, NewGame, iter_log

# The test families of `training.designs` (simulator stands below models, so it cannot ask
# it; tests/test_simulate.py checks that the two agree).
HELD_OUT_FAMILIES = ("paris", "tigullio", "penguins", "simplistic")
JPEG_QUALITY = 90
DROP_RATE = 1 / 600  # each of: a frame skipped, a frame repeated
SIZES = ((160, 90), (3840, 2160))
PROGRESS_S = 3.0
SECONDS_AN_EVENT = 3.5  # about, in the video: where random faults may fall


def held_out_designs() -> list[str]:
    return [d for d in cardart.list_designs()
            if cardart.get_design(d).family in HELD_OUT_FAMILIES]


@dataclass
class Summary:
    out: Path
    design: str
    size: tuple[int, int]
    fps: float
    seed: int
    events: int
    frames: int
    written: int
    render_s: float
    meta: dict = field(repr=False, default_factory=dict)

    def line(self) -> str:
        w, h = self.size
        seconds = self.frames / self.fps
        return (f"wrote {self.written} frames of {self.events} events ({seconds:.1f} s "
                f"of {w}x{h} video at {self.fps:g} fps, design {self.design}, seed {self.seed}) "
                f"to {self.out} in {self.render_s:.1f} s "
                f"({self.frames / max(self.render_s, 1e-9):.1f} frames/s)")


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise LogError(f"--size {text}: give WIDTHxHEIGHT, e.g. 1280x720") from None
    (w0, h0), (w1, h1) = SIZES
    if not (w0 <= w <= w1 and h0 <= h <= h1):
        raise LogError(f"--size {text}: from {w0}x{h0} to {w1}x{h1}")
    return w, h


def _read(log: Path) -> list[Event]:
    """The log's events, checked by replaying them: a bad line is a one-line LogError."""
    events, game = [], Game()
    for number, event in iter_log(log):
        try:
            game.apply(event)
        except EngineError as error:
            raise LogError(f"{log}:{number}: {error}") from None
        events.append(event)
    if not events:
        raise LogError(f"{log}: the log holds no events")
    return events


def _prepare(out: Path) -> Path:
    frames = out / "frames"
    try:
        frames.mkdir(parents=True, exist_ok=True)
        for old in frames.glob("[0-9]*.jpg"):
            old.unlink()
        (out / "meta.json").write_text("{}\n", encoding="utf-8")
    except OSError as error:
        raise LogError(f"--out {out}: cannot write there ({error.strerror or error})") from None
    return frames


class FrameWriter:
    """Frames to JPEG files, encoded on a second thread; the camera's dropped frames and
    the faults asked for."""

    def __init__(self, folder: Path, renderer: FrameRenderer, rng: np.random.Generator,
                 faults: list[Fault], table_mm: tuple[float, float]) -> None:
        self.folder, self.renderer, self.rng = folder, renderer, rng
        self.faults, self.table_mm = faults, table_mm
        self.skipped: list[int] = []
        self.repeated: list[int] = []
        self.written = 0
        self._last: Future | None = None
        self._pool = ThreadPoolExecutor(1)
        self._pending: deque[Future] = deque()

    def __call__(self, n: int, still: list[Piece], moving: list[Piece],
                 hands: list[Hand]) -> None:
        faults = [f for f in self.faults if f.covers(n)]
        kinds = {f.kind for f in faults}
        for fault in faults:
            if fault.kind == "bump" and n == fault.first:
                self.renderer.bump(n, bumped(self.rng, self.renderer.camera(n), self.table_mm,
                                             scale=3.0))
        r = self.rng.random()
        if "dropout" in kinds:
            return
        if n > 10 and r < DROP_RATE and not kinds:
            self.skipped.append(n)  # no picture for this moment
            return
        if ("freeze" in kinds or (n > 10 and r < 2 * DROP_RATE and not kinds)) \
                and self._last is not None:
            if not kinds:
                self.repeated.append(n)  # the camera gave the last picture again
            data = self._last
        else:
            if "black" in kinds:
                image = self._dark(n)
            else:
                gain = float(np.prod([f.strength for f in faults if f.kind == "light"]))
                hands = hands + [self._leaning(f) for f in faults if f.kind == "occlude"]
                image = self.renderer.draw(n, still, moving, hands, gain)
            for fault in (f for f in faults if f.kind == "resize"):
                image = cv2.resize(image, None, fx=fault.strength, fy=fault.strength,
                                   interpolation=cv2.INTER_AREA)
            data = self._pool.submit(_encode, image)
        self._last = data
        self._pending.append(self._pool.submit(_write, self.folder / f"{n:06d}.jpg", data))
        self.written += 1
        while len(self._pending) > 4:
            self._pending.popleft().result()

    def _dark(self, n: int) -> np.ndarray:
        w, h = self.renderer.camera(n).size
        dark = np.full((h, w, 3), 6, np.uint8)
        return cv2.add(dark, self.renderer.noise(n), dtype=cv2.CV_8U)

    def _leaning(self, fault: Fault) -> Hand:
        """Someone leaning over the table: a big arm from one end, close to the camera."""
        w, h = self.table_mm
        rng = np.random.default_rng([fault.first, 17])
        side = fault.strength
        entry = (w / 2 + side * 1400.0, h / 2 + float(rng.normal(0, 120)))
        tip = (w / 2 + side * float(rng.uniform(-60, 160)), h / 2 + float(rng.normal(0, 80)))
        return Hand(entry, tip, SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], 105.0, 0.3,
                    1, (60, 60, 70), 90.0, scale=1.9, shadow=0.45)

    def close(self) -> None:
        while self._pending:
            self._pending.popleft().result()
        self._pool.shutdown()


def _encode(image: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise OSError("JPEG encoding failed")
    return buf.tobytes()


def _write(path: Path, data: Future) -> None:
    path.write_bytes(data.result())


def _as_json(event: Event) -> dict:
    return json.loads(event.to_json())


def simulate(log: Path, out: Path, *, seed: int = 0, size: str | tuple[int, int] = (1280, 720),
             fps: float = 15.0, design: str | None = None, faults: str | None = None,
             progress: bool = True) -> Summary:
    """Render the log's game as table video in `out`; LogError (one line) for what cannot be
    used."""
    size = parse_size(size) if isinstance(size, str) else size
    if not 1 <= fps <= 60:
        raise LogError(f"--fps {fps:g}: from 1 to 60 frames a second")
    events = _read(log)
    if not isinstance(events[0], NewGame):
        raise LogError(f"{log}: the log must begin with a new_game event")
    held, installed = held_out_designs(), cardart.list_designs()
    if design is not None and installed and design not in installed:
        raise LogError(f"--design {design}: not an installed card design (held out: "
                       f"{', '.join(held)})")
    rng = np.random.default_rng(seed)
    with_joker = [d for d in held if JOKER in cardart.card_elements(d)]
    if design is None and with_joker:
        design = str(with_joker[rng.integers(len(with_joker))])
    missing = cardart.missing_art([design] if design else [])
    if missing:  # no card art installed, or no renderer for the cards not drawn yet
        raise LogError(f"simulate: {missing}")
    folder = _prepare(out)
    layout = default_layout()
    table_mm = tuple(float(v) for v in layout.table_mm)
    geo = Geometry(layout, card_size_mm(design), seed,
                   {p: float(rng.uniform(1.0, 3.5)) for p in PLAYERS})
    table, surround = surface(rng, ())
    camera = webcam(rng, size, table_mm)
    knocked = bumped(rng, camera, table_mm)
    light = light_plan(rng, size)
    scene = Scene(design=design, table_size=table_mm, table=table, surround=surround,
                  camera=camera, decals=marker_tiles(table_mm),
                  back_variant=int(rng.integers(max(1, cardart.variants(design, "BACK")))))
    heroes = events[0].heroes
    decals = {f"hero:{p}": hero_card(rng, heroes[p]) for p in PLAYERS}
    renderer = FrameRenderer(design, scene, knocked, light, fps, seed, decals)
    injected = parse_faults(faults, np.random.default_rng([seed, 5]), fps,
                            SECONDS_AN_EVENT * len(events))
    writer = FrameWriter(folder, renderer, np.random.default_rng([seed, 7]), injected,
                         table_mm)
    stage = Players(geo, rng, fps, writer, Identities(events, rng))
    bump_at = int(rng.uniform(0.35, 0.65) * len(events))
    phone, truth, settled = [], [], []
    began = last_note = time.perf_counter()
    game = Game()
    try:
        for index, event in enumerate(events):
            before = game.copy()
            game.apply(event)
            view = expected_view(game)
            if index == 0:  # the table before the game: hero cards and the deck
                stage.pieces = {k: p for k, p in geo.arrange(view).items()
                                if k.startswith("hero:")}
                stage.wait(float(rng.uniform(0.8, 1.5)))
            if index == bump_at:
                renderer.bump(stage.frame + int(rng.integers(0, 8)))
            done, tapped = stage.event(event, before, game, view)
            truth.append({"frame": done, "event": _as_json(event)})
            settled.append(list(stage.settled))
            if event.type in PHONE_EVENTS:
                said = _as_json(NewGame(heroes=event.heroes) if isinstance(event, NewGame)
                                else event) | {"source": "phone"}
                phone.append({"frame": tapped, "event": said})
            now = time.perf_counter()
            if progress and now - last_note >= PROGRESS_S:
                last_note = now
                print(f"simulate: event {index + 1}/{len(events)}, frame {stage.frame}, "
                      f"{stage.frame / (now - began):.1f} frames/s", file=sys.stderr)
        stage.wait(1.0)
    finally:
        writer.close()
    elapsed = time.perf_counter() - began
    meta = {
        "log": str(log), "design": design, "size": list(size), "fps": fps, "seed": seed,
        "events": len(events), "frames": stage.frame, "written": writer.written,
        "seconds": round(stage.frame / fps, 3), "jpeg_quality": JPEG_QUALITY,
        "bump_frame": renderer.bump_frame,
        "dropped_frames": {"skipped": writer.skipped, "repeated": writer.repeated},
        "heroes": heroes, "table": table.kind, "back_variant": scene.back_variant,
        "settled": settled,  # per event: the first and last frames of the still table after it
        "camera": _camera_json(camera), "camera_after_bump": _camera_json(knocked),
        "layout": layout.model_dump(mode="json", exclude_none=True),
        "cards_snapped": stage.snaps, "render_seconds": round(elapsed, 2),
    }
    try:
        _lines(out / "phone.jsonl", phone)
        _lines(out / "truth.jsonl", truth)
        _lines(out / "faults.jsonl", [f.to_json() for f in injected if f.first < stage.frame])
        (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise LogError(f"--out {out}: cannot write there ({error.strerror or error})") from None
    return Summary(out, design, size, fps, seed, len(events), stage.frame, writer.written,
                   elapsed, meta)


def _camera_json(cam) -> dict:
    return {"target_mm": [round(v, 2) for v in cam.target], "distance_mm": round(cam.distance, 1),
            "tilt_deg": round(cam.tilt, 2), "yaw_deg": round(cam.yaw, 2),
            "roll_deg": round(cam.roll, 2), "hfov_deg": round(cam.hfov, 2)}


def _lines(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
