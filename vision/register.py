"""Registering the players' own deck from photos of it laid out (`deck add`).

The cards lie face up in rows, a finger's width apart, with a card or two face down for the
back, photographed from above (one photo or several). The general recogniser's detector and
refiner find them (`find_cards`), in reading order along the rows as the cards lie; they are
named from the user's list in that order, or by one assignment over all the photos, each
card of a standard deck once, with what the user should check (`name_cards`); their
templates make the deck (`vision.deck.from_cuts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from cards import BACK

from .deck import STANDARD, Deck, DeckError, from_cuts
from .detect import PHOTO_ZOOMS
from .pipeline import Recognizer
from .rectify import portrait_orders


class CountError(DeckError):
    """The user's list names more or fewer cards than the photos show."""


SURE_READ = 0.999  # a card the assignment names with less is for the user to check
MIN_CARD_SCORE = 0.3  # a detection weaker than this in a registration photo is not a card
APART = 0.1  # the share of a card's area others laid for registration may cover
SIZES = 1.5  # the cards of a registration photo are this much of the typical size, or less


@dataclass(frozen=True)
class Reading:
    """One card registration found: which photo, where in reading order, and what it is."""

    photo: str
    position: int  # 1-based, in the photo's reading order (rows top to bottom, left to right)
    card: str  # a card id, JK or BACK
    confidence: float  # the general recogniser's probability of `card` (1 when given)
    check: str = ""  # why the user should check it (a back, a reading under SURE_READ, ...)

    @property
    def unsure(self) -> bool:
        return bool(self.check)


@dataclass(frozen=True)
class Registration:
    deck: Deck
    readings: list[Reading]

    @property
    def missing(self) -> list[str]:
        """The cards of a standard deck not registered (a deck registered without --cards)."""
        return [card for card in STANDARD if card not in self.deck.cards]


@dataclass(frozen=True)
class Shot:
    """The cards found in one registration photo, in reading order (`find_cards`)."""

    photo: str
    quads: np.ndarray  # (n, 4, 2) in the photo's pixels
    cuts: np.ndarray  # (n, H, W, 3) rectified at the classifier's input
    probabilities: np.ndarray  # (n, classes): the general classifier's, after its experts


def register(recognizer: Recognizer, name: str, photos: Sequence[tuple[str, np.ndarray]],
             cards: Sequence[str] | None = None) -> Registration:
    """Register a deck from `photos` ((name, BGR image) each) of its cards laid out, face up
    or down (`find_cards`, then `name_cards`)."""
    return name_cards(name, find_cards(recognizer, photos), recognizer.classifier.classes,
                      cards)


def find_cards(recognizer: Recognizer, photos: Sequence[tuple[str, np.ndarray]]) -> list[Shot]:
    """The cards in each registration photo ((name, BGR image) each), in reading order; a
    DeckError names a photo with no cards."""
    return [_cards_in(recognizer, photo, image) for photo, image in photos]


def name_cards(name: str, shots: list[Shot], classes: Sequence[str],
               cards: Sequence[str] | None = None) -> Registration:
    """The deck `name` of the cards found (`find_cards`; `classes`: the order of the
    probabilities' columns). `cards`: what they are, in reading order over all the photos
    (BACK for one face down); without it each face is named by one assignment over all of
    them, each card of a standard deck at most once, and backs by the general recogniser. A
    DeckError names a list of the wrong length, a card id that does not exist, or a card
    twice in one photo."""
    if cards is None:
        named = _assign(shots, classes)
    else:
        named = _given(shots, [c.strip().upper() for c in cards])
    readings = [Reading(shot.photo, position, card, confidence, check)
                for shot, shot_named in zip(shots, named, strict=True)
                for position, (card, confidence, check) in enumerate(shot_named, 1)]
    cuts = np.concatenate([shot.cuts for shot in shots])
    return Registration(from_cuts(name, cuts, [r.card for r in readings]), readings)


def _cards_in(recognizer: Recognizer, photo: str, image: np.ndarray) -> Shot:
    """The cards the general recogniser finds in a registration photo, in reading order."""
    obs = recognizer.observe(image, zooms=PHOTO_ZOOMS)
    kinds = np.isin(obs.extra["best"].astype(str), [*STANDARD, BACK])
    obs = obs[kinds & (obs.extra["score"] >= MIN_CARD_SCORE)]
    if len(obs):
        # the cards lie apart, each of a size: a box on a card's pips is smaller, one
        # across cards larger (the detector learnt piles), one across two overlaps better
        # ones
        areas = np.array([abs(cv2.contourArea(q)) for q in obs.quads])
        typical = np.median(areas[obs.extra["score"] >= np.median(obs.extra["score"])])
        obs = obs[(areas > typical / SIZES) & (areas < typical * SIZES)]
        obs = obs[_apart(obs.quads, obs.extra["score"])]
    if not len(obs):
        raise DeckError(f"{photo}: no cards found; lay the cards flat on a plain table, "
                        "apart, and take the photo from above")
    quads = obs.quads[reading_order(obs.quads)]
    classifier = recognizer.classifier
    return Shot(photo, quads, classifier.rectify_quads(image, quads),
                 classifier.weighed_probabilities(image, quads))


def _apart(quads: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Indices of the quads kept, best first: each overlaps those kept before it by less than
    APART of its area in all."""
    quads = np.float32(quads)
    kept: list[int] = []
    for i in np.argsort(-np.asarray(scores), kind="stable"):
        area = abs(cv2.contourArea(quads[i]))
        covered = sum(cv2.intersectConvexConvex(quads[i], quads[j])[0] for j in kept)
        if covered < APART * area:
            kept.append(int(i))
    return np.array(kept, np.int64)


def reading_order(quads: np.ndarray) -> np.ndarray:
    """Indices of card quads (N, 4, 2) in reading order: rows top to bottom, each left to
    right, along the rows as the cards lie (a photo taken a little turned slants them). A
    card whose centre is more than half a card's height below its row's starts a new row."""
    if not len(quads):
        return np.zeros(0, np.int64)
    edges = portrait_orders(quads)
    sides = np.concatenate([edges[:, 1] - edges[:, 0], edges[:, 2] - edges[:, 1]])
    angles = np.arctan2(sides[:, 1], sides[:, 0])
    angles = (angles + np.pi / 2) % np.pi - np.pi / 2  # either way along a side
    slant = float(np.median(angles[np.abs(angles) <= np.pi / 4]))  # the sides nearest across
    turn = np.array([[np.cos(slant), np.sin(slant)], [-np.sin(slant), np.cos(slant)]])
    centres = quads.mean(axis=1) @ turn.T  # rows run along x
    height = float(np.median(np.linalg.norm(edges[:, 2] - edges[:, 1], axis=1)))
    rows: list[list[int]] = []
    for i in np.argsort(centres[:, 1], kind="stable"):
        if not rows or centres[i, 1] - np.mean(centres[rows[-1], 1]) > height / 2:
            rows.append([])
        rows[-1].append(int(i))
    return np.array([i for row in rows for i in sorted(row, key=lambda j: centres[j, 0])])


def _given(shots: list[Shot], cards: list[str]) -> list[list[tuple[str, float, str]]]:
    """The cards as the user named them, checked against what the photos show."""
    found = sum(len(shot.cuts) for shot in shots)
    if len(cards) != found:
        where = ", ".join(f"{shot.photo}: {len(shot.cuts)}" for shot in shots)
        raise CountError(f"--cards names {len(cards)} cards, the photos show {found} ({where})")
    wrong = [card for card in cards if card not in (*STANDARD, BACK)]
    if wrong:
        raise DeckError(f"--cards: {wrong[0]!r} is not a card id (e.g. 7H, 10S, QD, JK, BACK)")
    named, start = [], 0
    for shot in shots:
        mine = cards[start:start + len(shot.cuts)]
        start += len(mine)
        twice = [c for c in dict.fromkeys(mine) if c != BACK and mine.count(c) > 1]
        if twice:
            raise DeckError(f"--cards: {twice[0]} is named twice in {shot.photo}; a deck "
                            "holds each card once")
        named.append([(card, 1.0, "") for card in mine])
    return named


def _assign(shots: list[Shot], classes: Sequence[str]) -> list[list[tuple[str, float, str]]]:
    """Name every face in the photos at once: the assignment of the standard deck's cards
    to the faces, each card at most once, that is likeliest under the general classifier
    (its probabilities among the faces); what it reads as a back is a back. Each with why
    the user should check it, if they should."""
    from scipy.optimize import linear_sum_assignment

    columns, back_column = [list(classes).index(c) for c in STANDARD], list(classes).index(BACK)
    p = np.concatenate([shot.probabilities for shot in shots])
    back = p[:, back_column] > p[:, columns].sum(axis=1)
    faces = np.flatnonzero(~back)
    if len(faces) > len(STANDARD):
        raise DeckError(f"the photos show {len(faces)} faces; a deck has {len(STANDARD)}: "
                        "give each card once, or name them with --cards")
    among = p[np.ix_(faces, columns)]
    among = among / np.maximum(among.sum(axis=1, keepdims=True), 1e-12)
    chosen = linear_sum_assignment(-np.log(np.maximum(among, 1e-12)))[1]  # a card a face
    face_of = {k: n for n, k in enumerate(faces)}
    shot_of = [s for s, shot in enumerate(shots) for _ in shot.cuts]
    named: list[list[tuple[str, float, str]]] = [[] for _ in shots]
    for k, s in enumerate(shot_of):
        if back[k]:  # a joker may pass for a back: the user checks each (a deck lays few)
            named[s].append((BACK, float(p[k, back_column]), "a back"))
            continue
        row = among[face_of[k]]
        j, best = chosen[face_of[k]], int(row.argmax())
        check = (f"read as {STANDARD[best]}, which another card is more like" if best != j
                 else f"only {row[j]:.2%} sure" if row[j] < SURE_READ else "")
        named[s].append((STANDARD[j], float(row[j]), check))
    return named
