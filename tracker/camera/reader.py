"""One frame at a time, from the camera's picture to the game: frames → cards → stable
views → events.

Each frame: the calibration follows the table's markers (`calibration.LiveCalibration`,
which takes a bumped camera as a moved table, not a new one), the recogniser names the
cards (`vision.Recognizer`, with its video memory), their centres go to table millimetres
and zones, the stabilizer says when a changed view holds, and the live tracker explains it
with events. A picture that shows nothing of the table (frozen, dark, missing) is told
apart first, and not looked through.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration import Layout, LiveCalibration, TableCalibration, default_layout
from tracker.rules.events import Event
from vision.deck import Deck
from vision.hero import find_hero_card
from vision.motion import MIN_CELLS, MotionMask
from vision.observation import SIDEWAYS, Observation

from .live import LiveTracker
from .stabilize import HERO, Sighting, Stabilizer

if TYPE_CHECKING:
    from vision.pipeline import Recognizer

DECIDE_FRAMES = 15  # still frames after which provisional events are final
SAMPLE_PX = 8  # frame px between the pixels compared to tell a frozen or dark picture
FROZEN_FRAMES = 8  # the same picture this many times running: the camera has stalled
DARK_LEVEL = 24.0  # a mean grey under this: nothing of the table shows
MISSING_FRAMES = 8  # frames missing in a row that make a blind spell
HIDDEN_SHARE, HIDDEN_FRAMES = 0.4, 8  # this share of the cards unseen this long: covered
HERO_PX_MM = 2.0  # the hero zone's picture, px a table mm
HERO_MARGIN_MM = 10.0  # around the zone: a card turned on its corner reaches past it
UNSETTLED = ("moved", "covered")  # the camera's conditions in which no table is flushed


def sightings(obs: Observation, to_table, layout: Layout) -> list[Sighting]:
    """The recogniser's cards in table millimetres, with their zones."""
    if not len(obs):
        return []
    centres = to_table(obs.quads.mean(axis=1))
    guesses = obs.extra.get("best", [None] * len(obs))
    return [Sighting(str(card), float(conf), float(x), float(y), zone,
                     orient == SIDEWAYS, None if guess is None else str(guess))
            for card, guess, conf, (x, y), zone, orient in zip(
                obs.cards, guesses, obs.confidence, centres, layout.zones_at(centres),
                obs.orientation, strict=True)]


class TableReader:
    """One frame at a time to the game: the calibration follows the markers, the recogniser
    names the cards, the stabilizer says when a changed view holds, the tracker explains
    it. `status` is the camera's condition at the last frame (`ok`, `lost`, `frozen`,
    `covered`, `moved`: the state's `camera`); `seen` its cards (None when the table was
    not looked at).

    A camera that shows nothing of the table (frozen, dark, or no frames for a while: a
    blind spell) is not looked through: the stabilizer keeps the table as it last held, and
    the tracker is told (`LiveTracker.blind`), so that the first view after it may be
    explained by the several events that happened meanwhile. A frame of another size (the
    camera changed its mode) finds the markers afresh."""

    def __init__(self, tracker: LiveTracker, layout: Layout | None = None,
                 deck: Deck | None = None, recognizer: Recognizer | None = None) -> None:
        """`deck`: the players' registered deck (`vision.deck`), None for none;
        `recognizer`: one already loaded (a video one, with `deck`), to start afresh with;
        else the models load with the first frame looked at (a reading needs none)."""
        self.tracker, self.layout, self.deck = tracker, layout or default_layout(), deck
        if recognizer is not None:
            recognizer.forget()
        self._recognizer = recognizer
        self.calibrations = LiveCalibration(tuple(self.layout.table_mm))
        self.stabilizer = Stabilizer()
        self.motion = MotionMask()
        self._zones: tuple[bytes, np.ndarray, list[str]] | None = None  # per calibration
        self._hero_zones = {zone: outline for zone, outline in self.layout.zones.items()
                            if zone.endswith(".hero")}
        self._heroes: dict[str, tuple] = {}  # zone: (the calibration it was found in, card)
        self.status, self.seen = "lost", None
        self.sighted: list[Sighting] = []  # the last frame's cards, in table mm
        self.moving: frozenset[str] = frozenset()  # and the zones where something moved
        self._last: tuple[int, np.ndarray] | None = None  # the last frame's index, sample
        self._repeats = 0  # frames running that repeat the one before exactly
        self._hidden = 0  # frames running in which most cards on the table went unseen

    @property
    def recognizer(self) -> Recognizer:
        """The recogniser, loaded on first use (the models: a second or two)."""
        if self._recognizer is None:
            from vision.pipeline import Recognizer

            self._recognizer = Recognizer(video=True, deck=self.deck)
        return self._recognizer

    @property
    def loaded_recognizer(self) -> Recognizer | None:
        """The recogniser if it was loaded, for the next reader to start afresh with."""
        return self._recognizer

    @property
    def deck_in_use(self) -> bool:
        """The registered deck read the cards at the last frame (not: another deck)."""
        return self._recognizer is not None and self._recognizer.deck_in_use

    def look(self, index: int, frame: np.ndarray) -> bool:
        """Take one frame; True when the game's log may have changed."""
        self.seen, self.sighted, self.moving = None, [], frozenset()
        self.status = self._condition(index, frame)
        if self.status != "ok":
            self.tracker.blind()
            return False
        update = self.calibrations.update(frame)
        calibration = update.calibration
        self.status = {"moved": "moved", "held": "covered", "stale": "covered"}.get(
            update.status, "ok" if calibration is not None else "lost")
        moved = self.motion.update(frame)
        if calibration is None:
            return False
        self.seen = self.recognizer.observe(frame, calibration.image_to_table, index)
        self.moving = self.moving_zones(moved, calibration, frame.shape)
        self.sighted = sightings(self.seen, calibration.to_table, self.layout) + \
            self.hero_cards(frame, calibration)
        changed = self.take(index, self.sighted, self.moving)
        self._hidden = self._hidden + 1 if self.stabilizer.unseen(index) >= HIDDEN_SHARE else 0
        if self._hidden >= HIDDEN_FRAMES and self.status == "ok":
            self.status = "covered"  # a towel, an arm across: the cards under it are kept
        return changed

    def _condition(self, index: int, frame: np.ndarray) -> str:
        """`ok`, or why the camera shows nothing of the table: `frozen` (the same picture,
        exactly, frame after frame: a live camera's noise makes no two alike), `covered` (a
        dark picture: the lens covered), `lost` (frames missing for a while before this)."""
        sample = frame[::SAMPLE_PX, ::SAMPLE_PX]
        last, self._last = self._last, (index, sample)
        if last is not None and last[1].shape != sample.shape:  # another mode: start afresh
            self.calibrations = LiveCalibration(tuple(self.layout.table_mm))
            self.motion, self._heroes, last = MotionMask(), {}, None
        self._repeats = self._repeats + 1 if (
            last is not None and np.array_equal(last[1], sample)) else 0
        if self._repeats >= FROZEN_FRAMES:
            return "frozen"
        if sample.mean() < DARK_LEVEL:
            return "covered"
        if last is not None and index - last[0] > MISSING_FRAMES:
            self.tracker.blind()  # frames missing: the table went on without the camera
        return "ok"

    def take(self, index: int, sighted: list[Sighting], moving: frozenset[str]) -> bool:
        """A frame's cards and moving zones to the stabilizer, and a stable change to the
        tracker; True when the game's log may have changed."""
        change = self.stabilizer.update(index, sighted, moving)
        if change is not None:
            self.tracker.seen(change.view, change.hints)
            return True
        if self.tracker.provisional and self.stabilizer.still_for >= DECIDE_FRAMES:
            return self.settle()  # no better view is coming: the table stays as it is
        return False

    def settle(self, index: int | None = None) -> bool:
        """Explain the table as it lies now, and decide what waits for a better view (a
        turn ends, the recording ends, the table has stayed still); True when the log may
        have changed."""
        change = self.stabilizer.flush(index) if index is not None else None
        if change is not None:
            self.tracker.seen(change.view, change.hints, now=True)
            return True
        if self.tracker.provisional:
            self.tracker.seen(self.stabilizer.view, now=True)
            return True
        return False

    def moving_zones(self, moved: np.ndarray, calibration: TableCalibration,
                     frame_shape: tuple[int, ...]) -> frozenset[str]:
        """The layout's zones where the picture changed: a hand, an arm, a card moving."""
        key = calibration.table_to_image.tobytes()
        if self._zones is None or self._zones[0] != key:
            scale = self.motion.scale(frame_shape)
            labels, names = self.layout.zone_map(
                lambda mm: calibration.to_image(mm) * scale, moved.shape)
            self._zones = key, labels, names
        _, labels, names = self._zones
        counts = np.bincount(labels[moved], minlength=len(names) + 1)[1:]
        return frozenset(names[k] for k in np.nonzero(counts >= MIN_CELLS)[0])

    def hero_cards(self, frame: np.ndarray, calibration: TableCalibration) -> list[Sighting]:
        """Each hero's reference card where it is found in its zone, upright or sideways
        (`vision.hero`); looked for again only where something moved."""
        found, key = [], calibration.table_to_image.tobytes()
        for zone, outline in self._hero_zones.items():
            if zone in self.moving or self._heroes.get(zone, (None,))[0] != key:
                self._heroes[zone] = key, _hero_card(frame, calibration, zone, outline)
            sighting = self._heroes[zone][1]
            found += [sighting] if sighting is not None else []
        return found

    def phone(self, index: int, event: Event) -> None:
        """An input from the phone at frame `index`: what the table shows is explained
        first, as it lies (an end of turn closes what happened in the turn); but not a
        picture the camera does not see the table in as it was (just knocked, covered):
        its cards are settling into their places again, and some would seem gone."""
        self.settle(None if self.status in UNSETTLED else index)
        self.tracker.phone(event)

    def read(self, frames: Iterable[tuple[int, np.ndarray | tuple | None]],
             inputs: dict[int, list[Event]]) -> Iterator[tuple[int, object]]:
        """A recording as fast as it can be read: each frame (a picture looked at, a
        reading's cards taken as they were read, None passed over), then the phone's
        inputs at it, taken out of `inputs` (what is left came after the last frame);
        yields each (index, frame) once it is done."""
        for index, frame in frames:
            if isinstance(frame, tuple):
                self.take(index, *frame)
            elif frame is not None:
                self.look(index, frame)
            for event in inputs.pop(index, []):
                self.phone(index, event)
            yield index, frame


def _hero_card(frame: np.ndarray, calibration: TableCalibration, zone: str,
               outline: np.ndarray) -> Sighting | None:
    """The hero card in `zone` (its `outline`, table mm), seen from straight above, as a
    sighting in table mm."""
    (x0, y0), (x1, y1) = outline.min(axis=0) - HERO_MARGIN_MM, outline.max(axis=0) + HERO_MARGIN_MM
    k = HERO_PX_MM
    to_view = np.array([[k, 0, -x0 * k], [0, k, -y0 * k], [0, 0, 1]]) @ \
        np.linalg.inv(calibration.table_to_image)
    view = cv2.warpPerspective(frame, to_view, (round((x1 - x0) * k), round((y1 - y0) * k)))
    card = find_hero_card(view, k)
    if card is None:
        return None
    return Sighting(HERO, 1.0, x0 + card.x / k, y0 + card.y / k, zone, card.sideways,
                    tilted=card.tilted)
