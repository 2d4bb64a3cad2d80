"""The card classifier at run time: onnxruntime on the shipped model, nothing else.

The model names a rectified card as one of the 52 cards, the joker or a card back, or says
it is no card at all (NO_CARD: a hero card, a hand, the table, that the detector outlined),
with a calibrated probability (temperature scaling, fitted in training). In the recognizer
the detector's face-up probability is a second opinion on the side (see `decide`), and a
face is read at three cuts (`read_quads`). Below the threshold the answer is UNKNOWN, never
a guess: `python -m training.threshold` fits one for backs, one for faces in clear view of
each suit, one for faces partly covered and one for no card, on the shipped detector's cuts
of calibration-design scenes, so that fewer than 1 in 1000 confident answers are wrong. A
suit has its own because the model's confusions are not alike: a blurred club passes for a
spade, while a heart is seldom anything else. And a sharp face has its own for each suit
(`sharpness`): the confident misreadings are of blurred cards, so a sharp one is surer.
Where the classifier's report names index experts (`training.expert_train`: a card's suit, or
its rank, from its index corners at twice the classifier's resolution), their opinions are
multiplied into the classifier's for the faces in clear view, the suit expert's for sharp ones
only (`EXPERTS`, `fine_look`, `decide`). A photograph of any framing is not a table: where the
report has a `photo` section, its index experts (which also learnt real photographs' corners)
read a photo's cards and its faces are held to one threshold of their own, chosen on real
photographs behind those experts (`photo_experts`, `photo_threshold`,
`training.real_threshold`); the table's video keeps the experts and thresholds above.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from cards import BACK, DECK, JOKER, RANKS, SUITS

from .deck import Deck
from .rectify import portrait_orders, rectify
from .runtime import ModelError, load_model, shipped

__all__ = ["BACK", "CLASSES", "MODEL", "NO_CARD", "UNKNOWN", "CardClassifier", "ModelError",
           "Prediction"]

UNKNOWN = "UNKNOWN"
NO_CARD = "NONE"  # what the detector outlined is no card (a hero card, a hand): dropped
# The classifier's classes in the order of its outputs: the shipped models' output indices
# mean these (a model taught no card has NO_CARD after them). Training labels by them too.
CLASSES: tuple[str, ...] = (*DECK, JOKER, BACK)
MODEL = shipped("card_classifier.onnx")
# The detector's face-up probability is held to odds of at most 1:SIDE_ODDS either way, so
# that neither expert alone can make a confident answer out of the other's doubt. On a card
# not in clear view the detector, which sees what shows, is trusted further: the classifier
# sees the whole quad and reads the card on top.
SIDE_ODDS = 100
COVERED_SIDE_ODDS = 1000
# A card read as a face is read again cut a shade smaller and a shade larger about its centre,
# and the three readings averaged: a confident misreading (a blurred club as a spade) seldom
# holds at all three cuts, where a right reading does.
VIEW_SCALES = (0.96, 1.04)
# Sharpness is measured on the card cut out at this many times the model's input, finer than
# the model sees, so that it tells a sharp card from a smooth one of the same size
SHARPNESS_SCALE = 2


@dataclass(frozen=True)
class ExpertKind:
    """What an index expert (`training.expert_train`) reads of a face, and from what sharpness."""

    classes: tuple[str, ...]
    of_face: Callable[[str], str]  # which of the classes a face (one of DECK) is
    min_sharpness: float  # a card less sharp is left to the classifier alone


# The index experts a classifier's report may name (its key is the name and "_expert"). The
# suit expert reads the fine detail of the suit sign, which a blurred card has not; a rank's
# letters and figures outlast blur, so the rank expert reads every card (docs/vision.md,
# "A suit expert at twice the resolution", "A rank expert beside it").
EXPERTS = {"suit": ExpertKind(SUITS, lambda face: face[-1], 0.3),
           "rank": ExpertKind(RANKS, lambda face: face[:-1], 0.0)}


@dataclass(frozen=True)
class Prediction:
    card: str  # a card id, JK, BACK, UNKNOWN, or NO_CARD (what was outlined is no card)
    confidence: float  # the calibrated probability of the best class
    best: str  # the best class even when not confident


class CardClassifier:
    def __init__(self, model: Path = MODEL, *, threads: int = 1) -> None:
        def read(report: dict) -> tuple:
            face = float(report["threshold"])
            # a model without the class, or not yet fitted for it, never says no card
            thresholds = (face, float(report.get("covered_threshold", face)),
                          float(report.get("back_threshold", face)),
                          float(report.get("no_card_threshold", np.inf)))
            min_score = float(report.get("min_detector_score", 0.0))
            scores = (min_score, float(report.get("min_back_score", min_score)))
            suits = {suit: float(t) for suit, t in report.get("suit_thresholds", {}).items()}
            sharp = {suit: float(t) for suit, t in report.get("sharp_suit_thresholds", {}).items()}
            sharp_from = float(report.get("min_sharpness", np.inf))  # absent: none is sharp
            photo = report.get("photo") or {}  # absent: photos are read as tables are
            photo_threshold = photo.get("threshold")
            experts = {name: report[f"{name}_expert"] for name in EXPERTS
                       if report.get(f"{name}_expert")}
            return (report["classes"], (*thresholds, suits, sharp, sharp_from,
                                        None if photo_threshold is None
                                        else float(photo_threshold)),
                    tuple(report["input_px"]), scores, experts,
                    {name: photo["experts"][name] for name in EXPERTS
                     if photo.get("experts", {}).get(name)})

        self.session, (self.classes, thresholds, self.input_px, scores, experts,
                       self._photo_expert_files) = load_model(
            model, "card classifier", read, threads=threads)
        self._folder, self._threads = Path(model).parent, threads
        # the thresholds were fitted behind the experts the report names, so they must load
        self.experts = self._load_experts(experts)
        # the size `sharpness` and the experts cut a card out at, width × height
        self._fine_px = (SHARPNESS_SCALE * self.input_px[0], SHARPNESS_SCALE * self.input_px[1])
        # for each expert, each class's own class in the expert's eyes (its suit, its rank),
        # -1 for the joker, a back and no card
        self.expert_class_of = {
            name: np.array([kind.classes.index(kind.of_face(c)) if c in DECK else -1
                            for c in self.classes])
            for name, kind in EXPERTS.items()}
        # the detector's score a face needs to be named, and a back (what is no card, a hero
        # card or a hand, passes for a back, not a face)
        self.min_score, self.min_back_score = scores
        # faces in clear view (or outlined by the caller), faces partly covered, backs, and
        # what is no card
        (self.threshold, self.covered_threshold, self.back_threshold,
         self.no_card_threshold, self.suit_thresholds, self.sharp_suit_thresholds,
         self.min_sharpness, self.photo_threshold) = thresholds

    def _load_experts(self, files: dict[str, str]) -> dict:
        """Sessions on the index experts `files` names (by expert), beside the classifier."""
        return {name: load_model(self._folder / file, f"{name} expert", lambda r: None,
                                 threads=self._threads)[0]
                for name, file in files.items()}

    @cached_property
    def photo_experts(self) -> dict:
        """The index experts that read photographs (the report's `photo` section: experts
        that also learnt real photographs' corners), loaded at first use; else the table's."""
        if not self._photo_expert_files:
            return self.experts
        return {**self.experts, **self._load_experts(self._photo_expert_files)}

    def face_threshold(self, card: str, sharp: bool = False) -> float:
        """The confidence a face in clear view needs: its suit's own, where one was fitted
        (by the id's last letter; `sharp_suit_thresholds` for a face with a `sharpness` of
        `min_sharpness` or more, else `suit_thresholds`), else `threshold` (the joker too)."""
        if card == JOKER:
            return self.threshold
        suits = self.sharp_suit_thresholds if sharp else self.suit_thresholds
        return suits.get(card[-1], self.threshold)

    def probabilities(self, cards: np.ndarray) -> np.ndarray:
        """Class probabilities for rectified cards (N, H, W, 3 BGR uint8 at input_px)."""
        if len(cards) == 0:
            return np.zeros((0, len(self.classes)), np.float32)
        x = np.ascontiguousarray(cards.transpose(0, 3, 1, 2), dtype=np.float32)
        return self.session.run(None, {"cards": x})[0]

    def read_quads(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """Class probabilities of each card quadrilateral of `image`, (N, classes): for a
        card read as a face, the mean of its readings at the quad and at the quad scaled by
        each of VIEW_SCALES about its centre."""
        quads = np.float32(quads).reshape(-1, 4, 2)
        probabilities = self.probabilities(self.rectify_quads(image, quads))
        others = [self.classes.index(c) for c in (BACK, NO_CARD) if c in self.classes]
        faces = np.nonzero(~np.isin(probabilities.argmax(axis=1), others))[0]
        if len(faces):
            centres = quads[faces].mean(axis=1, keepdims=True)
            views = np.concatenate([centres + (quads[faces] - centres) * s
                                    for s in VIEW_SCALES])
            again = self.probabilities(self.rectify_quads(image, views))
            probabilities[faces] = (probabilities[faces] + again.reshape(
                len(VIEW_SCALES), len(faces), -1).sum(axis=0)) / (1 + len(VIEW_SCALES))
        return probabilities

    def sharpness(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """How much fine detail each card quadrilateral of `image` shows for its size: the
        spread of the Laplacian over that of the grey levels, on the card cut out at
        SHARPNESS_SCALE times the model's input. Blur, motion and a card too small for the
        camera lower it; the confident misreadings are of such cards."""
        return cut_sharpness(self.rectify_quads(image, quads, self._fine_px))

    def fine_look(self, image: np.ndarray, quads: np.ndarray, every_card: bool = False,
                  photo: bool = False) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Each card quadrilateral of `image` cut out at SHARPNESS_SCALE times the model's
        input, once for all: its `sharpness`, and each index expert's probabilities by its
        name ((N, 4) for the suits in SUITS' order, (N, 13) for the ranks in RANKS'), for the
        cards as sharp as the expert needs (EXPERTS; NaN for the others, which `decide` would
        not use), or for all with `every_card`; `photo`: by the `photo_experts`."""
        cards = self.rectify_quads(image, quads, self._fine_px)
        sharpness = cut_sharpness(cards)
        return sharpness, self.expert_readings(cards, None if every_card else sharpness, photo)

    def expert_readings(self, cards: np.ndarray, sharpness: np.ndarray | None = None,
                        photo: bool = False) -> dict[str, np.ndarray]:
        """Each index expert's probabilities by its name for cards cut out at SHARPNESS_SCALE
        times the model's input (N, H, W, 3 BGR uint8), at the cards whose `sharpness` is
        what the expert needs (EXPERTS), NaN at the others; at all if none is given.
        `photo`: the `photo_experts` read them."""
        readings = {}
        for name, expert in (self.photo_experts if photo else self.experts).items():
            kind = EXPERTS[name]
            read = (np.ones(len(cards), bool) if sharpness is None
                    else sharpness >= kind.min_sharpness)
            readings[name] = np.full((len(cards), len(kind.classes)), np.nan, np.float32)
            if read.any():
                x = np.ascontiguousarray(cards[read].transpose(0, 3, 1, 2), dtype=np.float32)
                readings[name][read] = expert.run(None, {"cards": x})[0]
        return readings

    def weighed_probabilities(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """Class probabilities of each card quadrilateral of `image` (`read_quads`), with the
        index experts' opinions weighed in as `decide` weighs them (`fine_look`)."""
        quads = np.float32(quads).reshape(-1, 4, 2)
        probabilities = np.asarray(self.read_quads(image, quads), np.float64)
        if len(quads):
            sharpness, readings = self.fine_look(image, quads)
            self._weigh(probabilities, readings, sharpness)
        return probabilities

    def predict(self, cards: np.ndarray, face_up: np.ndarray | None = None,
                clear: np.ndarray | None = None,
                score: np.ndarray | None = None) -> list[Prediction]:
        """Name rectified cards (`decide` on their probabilities)."""
        return self.decide(self.probabilities(cards), face_up, clear, score)

    def decide(self, probabilities: np.ndarray, face_up: np.ndarray | None = None,
               clear: np.ndarray | None = None, score: np.ndarray | None = None,
               sharpness: np.ndarray | None = None,
               experts: dict[str, np.ndarray] | None = None,
               deck: tuple[Deck, np.ndarray] | None = None, *,
               photo: bool = False) -> list[Prediction]:
        """Name cards from their class probabilities (`probabilities`, `read_quads`).
        `face_up`, the detector's probability that each card shows its face, if given, is a
        second opinion on face up or down, combined with the
        classifier's as a product of experts: the detector sees what shows of a card, the
        classifier the whole quad (and on a card mostly covered reads the card on top).
        `clear`, if given, says which cards are in clear view (`vision.detect.in_clear_view`):
        a face elsewhere needs `covered_threshold`, as the card on top may pass for it.
        `score`, the detector's, if given: below `min_score` no face is named and below
        `min_back_score` no back, as what is there may be no card (a hero card, a hand) and
        pass for a back. `sharpness`, if given (`sharpness`): a face in clear view from
        `min_sharpness` up is held to its suit's sharp threshold. `experts`, the index
        experts' readings (`fine_look`; rows of NaN for cards they did not see): for a card
        seen as sharp as the expert needs (EXPERTS; any, if no sharpness is given), the
        faces' share of the probability is shared out anew between them in proportion to the
        classifier's opinion times each expert's of their suit or rank. `photo`: the cards
        are in a photograph of any framing, not a table view (`experts` then the
        `photo_experts`' readings), and a face needs the `photo_threshold` fitted on real
        photographs behind them (`training.real_threshold`) where the report has one.
        Whatever the score, what the classifier is sure is no card is NO_CARD (the caller
        drops it)."""
        probabilities = np.asarray(probabilities, np.float64).copy()
        n = len(probabilities)
        if experts and n:
            self._weigh(probabilities, experts, sharpness)
        clear = np.ones(n, bool) if clear is None else np.asarray(clear, bool)
        if face_up is not None and n:
            probabilities *= self._sides(face_up, clear)
            probabilities /= probabilities.sum(axis=1, keepdims=True)
        if deck is not None and n:
            probabilities = deck[0].weigh(probabilities, deck[1], self.classes)
        found = []
        score = np.ones(n) if score is None else np.asarray(score)
        sharp = np.zeros(n, bool) if sharpness is None else (
            np.asarray(sharpness) >= self.min_sharpness)
        for k, (row, in_view, detector_score, is_sharp) in enumerate(
                zip(probabilities, clear, score, sharp, strict=True)):
            best = int(row.argmax())
            confidence = float(row[best])
            kind = self.classes[best]
            if kind == NO_CARD:
                card = NO_CARD if confidence >= self.no_card_threshold else UNKNOWN
            else:
                sure = (self.back_threshold if kind == BACK
                        else self.photo_threshold if photo and self.photo_threshold is not None
                        else self.face_threshold(kind, is_sharp) if in_view
                        else self.covered_threshold)
                if deck is not None:
                    sure = deck[0].threshold(kind, in_view, float(deck[1][k, best]), sure)
                card_there = detector_score >= (self.min_back_score if kind == BACK
                                                else self.min_score)
                card = kind if card_there and confidence >= sure else UNKNOWN
            found.append(Prediction(card, confidence, kind))
        return found

    def _sides(self, face_up: np.ndarray, clear: np.ndarray) -> np.ndarray:
        """`decide`'s second opinion on face up or down, (N, classes): what each class's
        probability is multiplied by, the detector's face-up odds held to SIDE_ODDS."""
        least = 1 / (1 + np.where(clear, SIDE_ODDS, COVERED_SIDE_ODDS))
        up = np.clip(np.asarray(face_up, np.float64), least, 1 - least)[:, None]
        side = np.where(np.arange(len(self.classes)) == self.classes.index(BACK), 1 - up, up)
        if NO_CARD in self.classes:  # face up or down says nothing of whether it is a card
            side[:, self.classes.index(NO_CARD)] = np.maximum(up, 1 - up)[:, 0]
        return side

    def experts_matter(self, probabilities: np.ndarray, face_up: np.ndarray | None = None,
                       clear: np.ndarray | None = None) -> np.ndarray:
        """Which cards the index experts (and sharpness) could name otherwise in `decide`,
        given the same arguments: those where the faces of the deck together, weighed face
        up or down as `decide` weighs them, are at least as likely as the likeliest other
        class (a back, no card, the joker). The experts only share the faces' probability out
        anew between them, and sharpness only sets a face's threshold, so elsewhere that
        class is the answer and its confidence the same whatever they say."""
        p = np.asarray(probabilities, np.float64)
        if face_up is not None and len(p):
            clear = np.ones(len(p), bool) if clear is None else np.asarray(clear, bool)
            p = p * self._sides(face_up, clear)
        faces = np.isin(self.classes, DECK)
        return p[:, ~faces].max(axis=1, initial=0.0) <= p[:, faces].sum(axis=1)

    def _weigh(self, probabilities: np.ndarray, experts: dict[str, np.ndarray],
               sharpness: np.ndarray | None) -> None:
        """`decide`'s product with the index experts, in place: a product of experts among
        the faces, whose share of the probability stays what the classifier gave them; the
        cards an expert did not see (NaN), or less sharp than it needs, keep the reading."""
        for name, reading in experts.items():
            faces = self.expert_class_of[name] >= 0
            reading = np.asarray(reading, np.float64)
            seen = ~np.isnan(reading).any(axis=1)
            if sharpness is not None:
                seen &= np.asarray(sharpness) >= EXPERTS[name].min_sharpness
            if not seen.any() or not faces.any():
                continue
            rows = probabilities[np.ix_(seen, faces)]
            weighted = rows * reading[np.ix_(seen, self.expert_class_of[name][faces])]
            share = rows.sum(axis=1, keepdims=True)
            total = np.maximum(weighted.sum(axis=1, keepdims=True), 1e-300)
            probabilities[np.ix_(seen, faces)] = weighted / total * share

    def rectify_quads(self, image: np.ndarray, quads: np.ndarray,
                      size: tuple[int, int] | None = None) -> np.ndarray:
        """Each card quadrilateral of `image` cut out as the model's input (or at `size`,
        width × height), (N, H, W, 3)."""
        size = size or self.input_px
        quads = portrait_orders(np.float32(quads).reshape(-1, 4, 2))
        out = np.empty((len(quads), size[1], size[0], 3), np.uint8)
        for i, quad in enumerate(quads):
            out[i] = rectify(image, quad, size, ordered=True)
        return out

    def classify_quads(self, image: np.ndarray, quads: list[np.ndarray]) -> list[Prediction]:
        """Read each card quadrilateral of `image` (`read_quads`) and name it, each taken as
        in clear view."""
        quads = np.float32(quads).reshape(-1, 4, 2)
        sharpness, readings = self.fine_look(image, quads)
        return self.decide(self.read_quads(image, quads), sharpness=sharpness,
                           experts=readings)


def cut_sharpness(cards: np.ndarray) -> np.ndarray:
    """`CardClassifier.sharpness` of cards cut out (N, H, W, 3 BGR)."""
    out = np.empty(len(cards), np.float32)
    for i, card in enumerate(cards):
        grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
        out[i] = cv2.Laplacian(grey, cv2.CV_32F).std() / (grey.std() + 1)
    return out
