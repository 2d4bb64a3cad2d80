"""From a frame to an `Observation`: detect every card, outline it exactly, then name it.

The models load once; `observe` runs them on a frame. Calibration and zones are not
vision's business: a caller that has a table homography passes it for orientation, and fills
`zones` from its layout. For live video, a card that has neither moved nor changed since an
earlier frame keeps the outline and name it was given then (`vision.memory`), so a frame
costs the detector and the cards that changed; a frame in which nothing changed costs
neither.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from cards import DECK

from .classify import MODEL as CLASSIFIER
from .classify import NO_CARD, UNKNOWN, CardClassifier, Prediction
from .corners import CLAIM, FACE_UP, CornerCheck, corner_odds
from .corners import MODEL as CORNER_CHECK
from .deck import Deck, DeckCheck, templates
from .detect import MODEL as DETECTOR
from .detect import PHOTO_MODEL as PHOTO_DETECTOR
from .detect import PILE_MODEL, CardDetector, orientations
from .memory import CardMemory, StillFrames, thumbnails
from .observation import Columns, Observation
from .refine import MODEL as REFINER
from .refine import CardRefiner

# a photograph's neighbouring pixels are alike (a lens blurs, a sensor's colours are
# interpolated): a card in a real photo correlates 0.55 or more pixel to pixel, pure noise 0
PHOTO_CORRELATION = 0.3
NOISE = Prediction(NO_CARD, 1.0, NO_CARD)  # what was outlined is noise, no card: dropped


def _noise(frame: np.ndarray, quad: np.ndarray) -> bool:
    """Whether the pixels around `quad` are noise: no more alike side by side than chance."""
    height, width = frame.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int).clip(0, (width, height))
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int).clip(0, (width, height))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return False  # (almost) out of the frame: too little to tell
    gray = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    left, right = gray[:, :-1].ravel(), gray[:, 1:].ravel()
    if left.std() == 0 or right.std() == 0:
        return False  # flat: not noise
    return float(np.corrcoef(left, right)[0, 1]) < PHOTO_CORRELATION


class Recognizer:
    def __init__(self, detector: Path = DETECTOR, classifier: Path = CLASSIFIER,
                 refiner: Path = REFINER, *, piles: Path | None = PILE_MODEL,
                 photo_detector: Path | None = PHOTO_DETECTOR,
                 corner_check: Path | None = CORNER_CHECK, threads: int = 1,
                 video: bool = False, deck: Deck | None = None) -> None:
        """`piles`: the detector's second look at piles (`vision.piles`), None for none;
        `photo_detector`: the detector for photos of any framing (several zooms), loaded
        when the first is looked at; None: `detector` looks at them too; `corner_check`:
        what names a covered face from an index corner that shows (`vision.corners`),
        loaded when the first covered face is looked at; None: covered faces stay unnamed;
        `video`: frames come from one camera in order, and still cards and piles keep what
        was found in them; otherwise every frame stands alone (photos). `deck`: the players'
        registered deck (`vision.deck`), which reads the cards while the frames show it
        (`deck_in_use`: photos too are taken to show one table)."""
        self.detector = CardDetector(detector, threads=threads, piles=piles, video=video)
        self._photo_model = photo_detector
        self._corner_model = corner_check
        self._threads = threads
        self.refiner = CardRefiner(refiner, threads=threads)
        self.classifier = CardClassifier(classifier, threads=threads)
        self.memory = CardMemory() if video else None
        self.still = StillFrames() if video else None
        self.deck = deck
        self.deck_check = DeckCheck()
        self._last: tuple[tuple[float, ...], Observation] | None = None  # zooms, found
        self.looked = False  # whether the last `observe` ran the models

    @cached_property
    def photo_detector(self) -> CardDetector:
        """The detector for photos of any framing (`PHOTO_ZOOMS`), loaded at first use."""
        if self._photo_model is None:
            return self.detector
        return CardDetector(self._photo_model, threads=self._threads, piles=None)

    @cached_property
    def corner_check(self) -> CornerCheck | None:
        """What names covered faces from a corner (`vision.corners`), loaded at first use."""
        if self._corner_model is None:
            return None
        return CornerCheck(self._corner_model, threads=self._threads)

    def forget(self) -> None:
        """Start afresh on another recording, the models kept loaded: nothing remembered of
        the frames before (loading them again for each of a looped recording's games left
        ~20 MB more in the allocators the first few times)."""
        if self.memory is not None:
            self.memory.forget()
            self.still = StillFrames()
        self.deck_check = DeckCheck()
        self._last = None

    def observe(self, frame: np.ndarray, table_from_image: np.ndarray | None = None,
                timestamp: float = 0.0, zooms: tuple[float, ...] = (1.0,)) -> Observation:
        """Every card in `frame`: its quad, name (or UNKNOWN) and calibrated confidence; the
        extra column `best` holds the likeliest class even where the name is UNKNOWN. What
        the detector found and the classifier is sure is no card (a hero card, a hand) is
        left out. In video, a frame that shows what the last one looked at showed
        (`StillFrames`) gives what was found in that one, oriented by `table_from_image`.
        `zooms`: see `CardDetector.detect` (`PHOTO_ZOOMS` for photos of any framing)."""
        self.looked = True
        if self.still is None:
            return self._look(frame, table_from_image, timestamp, zooms)
        cells = self.still.cells(frame)
        if self._last is not None and self._last[0] == zooms and self.still.same(cells):
            self.looked = False
            return self._as_looked(table_from_image, timestamp)
        obs = self._look(frame, table_from_image, timestamp, zooms)
        self.still.looked, self._last = cells, (zooms, obs.copy())
        return obs

    def _as_looked(self, table_from_image: np.ndarray | None,
                   timestamp: float) -> Observation:
        """What was found in the frame last looked at, in arrays of its own (a caller may
        fill them in), at `timestamp`, oriented by `table_from_image` (which may have moved
        since)."""
        obs = replace(self._last[1].copy(), timestamp=timestamp)
        obs.orientation[:] = orientations(obs.quads, table_from_image)
        return obs

    def _look(self, frame: np.ndarray, table_from_image: np.ndarray | None,
              timestamp: float, zooms: tuple[float, ...]) -> Observation:
        """`observe` with the models, each card not recalled named afresh."""
        photo = len(zooms) > 1  # a photo of any framing, not a table view
        detector = self.photo_detector if photo else self.detector
        obs = detector.detect(frame, table_from_image, timestamp, zooms)
        recalled, thumbs = self._recall(frame, obs.quads)
        fresh = [i for i, j in enumerate(recalled) if j < 0]
        outlines = self.refiner.refine(frame, obs.quads[fresh])
        seen = obs[fresh].extra  # the detector's opinions of the cards to name
        probabilities = self.classifier.read_quads(frame, outlines)
        look = seen["clear"] & self.classifier.experts_matter(probabilities, seen["face_up"],
                                                              seen["clear"])
        sharpness, readings = self._fine_look(frame, outlines, look, photo)
        opinions = (probabilities, seen["face_up"], seen["clear"], seen["score"], sharpness,
                    readings)
        predictions = self.classifier.decide(*opinions, photo=photo)
        if self.deck is not None and len(outlines):
            predictions = self._deck_decides(frame, outlines, opinions, predictions, photo)
        predictions = self._corner_look(frame, outlines, seen, predictions, photo, recalled)
        predictions = [NOISE if p.card == UNKNOWN and _noise(frame, outline) else p
                       for outline, p in zip(outlines, predictions, strict=True)]
        named = iter(zip(outlines, predictions, strict=True))
        found = [self.memory.names[j] if j >= 0 else next(named) for j in recalled]
        if self.memory is not None:
            self.memory.remember(obs.quads, thumbs, found, recalled)
        if found:
            obs.quads = np.float32([outline for outline, _ in found])
        obs.orientation[:] = orientations(obs.quads, table_from_image)
        obs.extra["best"] = np.empty(len(obs), dtype=object)
        for i, (_, prediction) in enumerate(found):
            obs.cards[i] = prediction.card
            obs.confidence[i] = prediction.confidence
            obs.extra["best"][i] = prediction.best
        return obs[obs.cards != NO_CARD]

    @property
    def deck_in_use(self) -> bool:
        """Whether the registered deck reads the cards: one is registered and it agrees
        with the faces the general recogniser named of late (`DeckCheck`); else the
        general recogniser reads them."""
        return self.deck is not None and self.deck_check.on

    def _deck_decides(self, frame: np.ndarray, outlines: np.ndarray, opinions: tuple,
                      general: list[Prediction], photo: bool = False) -> list[Prediction]:
        """The registered deck's names for the cards (`decide` with each card's likeness to
        its templates) where it names them, else the general recogniser's, which also reads
        every card while the table shows another deck: the cards the general recogniser
        names are the check (`Deck.agrees`, `DeckCheck`)."""
        likeness = self.deck.likeness(
            templates(self.classifier.rectify_quads(frame, outlines)), self.classifier.classes)
        self.deck_check.update(self.deck.agrees([p.card for p in general], likeness,
                                                self.classifier.classes))
        if not self.deck_check.on:
            return general
        # what the deck does not name stays as the general recogniser read it: the tracker
        # weighs an unnamed card's best guess by its confidence, which the deck's likeness
        # would make surer than the guess is (a card under another, say)
        ours = self.classifier.decide(*opinions, (self.deck, likeness), photo=photo)
        return [mine if mine.card != UNKNOWN else theirs
                for mine, theirs in zip(ours, general, strict=True)]

    def _corner_look(self, frame: np.ndarray, outlines: np.ndarray, seen: Columns,
                     predictions: list[Prediction], photo: bool,
                     recalled: list[int]) -> list[Prediction]:
        """`predictions` with the covered faces left unnamed named from an index corner that
        shows, where `CornerCheck.name` names them: the cards not in clear view that the
        detector takes for a face (`FACE_UP`) and scores as a card. A deck has each card
        once, so a corner that reads a card named elsewhere in the frame (the cards the
        memory kept, `recalled` as `_recall` gives it, and `predictions`) shows that card lying over
        this one, and names nothing; and a card that two covered cards claim
        (`CornerCheck.claims`) is the corner of one lying over the other, their outlines
        nearly one (a minion on a face-down card the detector took for a face), and names
        neither."""
        covered = [k for k, p in enumerate(predictions)
                   if p.card == UNKNOWN and not seen["clear"][k]
                   and seen["face_up"][k] >= FACE_UP
                   and seen["score"][k] >= self.classifier.min_score]
        if not covered or self.corner_check is None:
            return predictions
        shows = self.corner_check.shows(frame, outlines[covered])
        # a corner that does not show can neither name its card nor claim one, and most do
        # not: the experts read the others
        odds = corner_odds(self.classifier, frame, outlines[covered], shows >= CLAIM, photo)
        kept = [self.memory.names[j][1].card for j in recalled if j >= 0]
        elsewhere = np.isin(DECK, [*kept, *(p.card for p in predictions)])
        named = {k: self.corner_check.name(card_shows, np.where(elsewhere, 0.0, card_odds))
                 for k, card_shows, card_odds in zip(covered, shows, odds, strict=True)}
        claims = Counter(card for card_shows, card_odds in zip(shows, odds, strict=True)
                         for card in self.corner_check.claims(card_shows, card_odds))
        predictions = list(predictions)
        for k, read in named.items():
            if read is not None and claims[read[0]] == 1:
                card = DECK[read[0]]
                predictions[k] = Prediction(card, read[1], card)
        return predictions

    def _fine_look(self, frame: np.ndarray, outlines: np.ndarray, look: np.ndarray,
                   photo: bool = False) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """`CardClassifier.fine_look` at the cards `look` says: in clear view (the only ones
        whose sharpness and index experts decide anything) and maybe faces
        (`CardClassifier.experts_matter`); NaN for the others (never sharp, and not seen by
        the experts)."""
        sharpness = np.full(len(outlines), np.nan, np.float32)
        sharpness[look], seen = self.classifier.fine_look(frame, outlines[look], photo=photo)
        readings = {}
        for name, reading in seen.items():
            readings[name] = np.full((len(outlines), reading.shape[1]), np.nan, np.float32)
            readings[name][look] = reading
        return sharpness, readings

    def _recall(self, frame: np.ndarray, quads: np.ndarray) -> tuple[list[int], np.ndarray]:
        """For each detected card, the remembered card it still is or -1 (photos: all -1),
        and the miniatures of the cards as detected (the memory compares detector quads)."""
        if self.memory is None:
            return [-1] * len(quads), np.zeros(0)
        thumbs = thumbnails(self.classifier.rectify_quads(frame, quads))
        return self.memory.recall(quads, thumbs), thumbs
