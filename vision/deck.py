"""A registered deck: the players' own cards, shown to the camera once, then read by likeness.

The general classifier names cards of designs it has never seen; a group plays with one
physical deck week after week. Registered, that deck is known two ways at once:

- which cards it holds: the classifier's probability is shared out among those alone (a
  pinochle deck has no 2, a deck with no joker no JK);
- what each card looks like: a small colour template of each registered card (Lab, mean
  taken out, unit length; each shot and each shot turned half round), whose likeness to a
  card on the table (the cosine) weighs each card's probability by exp(LIKENESS_WEIGHT ×
  likeness). The cards of one deck differ in their art where a classifier of every design
  must read the index alone: a blurred club that passes for a spade is still unlike the
  spade's template.

The general recogniser keeps watch (`DeckCheck`): the deck reads the table once a court or a
back the general recogniser named (it names only when sure) is like the deck's, their art
being each design's own, and while no more than a few faces it names are cards the deck does
not hold or courts unlike the deck's. Else the table shows another deck, and the caller falls
back to the general recogniser and says so.

Registration (`register`) cuts the cards out of photos of the deck laid face up (any number
a photo) with the general recogniser's detector and refiner, names them from `--cards` in
reading order or by one assignment over all the photos (each card once), and keeps their
templates, and the templates of face-down cards as the deck's back. A deck is a small .npz
file (`save`, `load`); the data folder holds it (companion_api), never git.
"""

from __future__ import annotations

import io
import zipfile
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from cards import BACK, DECK, JOKER

from .rectify import portrait_orders

if TYPE_CHECKING:
    from .pipeline import Recognizer

TEMPLATE_PX = (36, 50)  # a template's size, width × height: the art's shapes and colours
# A template's likeness (a cosine) weighs a card's probability by exp(weight × likeness):
# 0.1 of likeness is a factor of e² ≈ 7.4
LIKENESS_WEIGHT = 20.0
# A face partly covered is named only as a card whose template it is this much like (a card
# in full view comes to 0.6–0.95): what shows of it may be the card on top. A back this much
# like the deck's own needs only BACK_THRESHOLD
SHOWS_ITS_ART = 0.75
# The deck's probability a face needs to be named, and a back like the deck's: the lowest
# that named nothing wrong on 12 table scenes of each held-out design (seeds 7000-7011;
# `bench/deck.py` measures on others)
FACE_THRESHOLD = 0.97
BACK_THRESHOLD = 0.9
# A court the general recogniser named is this like its template in the deck on the table
# (held-out designs 0.67–0.96, median 0.9; real photos median 0.8, 10 % under 0.5), and
# less in another design's deck (0.23–0.49); so is a back in full view (a back in a pile,
# less in any deck): the deck check's evidence (`Deck.agrees`)
COURT_LIKENESS = 0.5
COURTS = ("J", "Q", "K")
STANDARD = (*DECK, JOKER)  # the cards of a deck registered without --cards: each once
FORMAT = 1  # the file's layout; a deck of another is refused with a one-line error


class DeckError(ValueError):
    """A deck that cannot be registered, saved or read (one line)."""


@dataclass(frozen=True)
class Deck:
    """A registered deck: `cards` the ids it holds, and the templates of its faces (`faces`,
    one row a template, `labels` its card) and of its back (`backs`)."""

    name: str
    cards: tuple[str, ...]
    faces: np.ndarray  # (n, D) float32 unit templates
    labels: tuple[str, ...]  # the card each face template shows
    backs: np.ndarray = field(default_factory=lambda: np.zeros((0, template_size())))

    def save(self, path: Path) -> None:
        """Write the deck to `path` (.npz), whole or not at all."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, format=np.int64(FORMAT), name=np.str_(self.name),
                            cards=np.array(self.cards, str), labels=np.array(self.labels, str),
                            faces=self.faces.astype(np.float16),
                            backs=self.backs.astype(np.float16))
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(buffer.getvalue())
        partial.replace(path)

    @classmethod
    def load(cls, path: Path) -> Deck:
        """The deck saved at `path`; a DeckError names the file and what is wrong."""
        try:
            with np.load(path, allow_pickle=False) as data:
                if int(data["format"]) != FORMAT:
                    raise DeckError(f"{path}: a deck file of another version "
                                    f"({int(data['format'])}); register the deck again")
                deck = cls(str(data["name"]), tuple(str(c) for c in data["cards"]),
                           data["faces"].astype(np.float32),
                           tuple(str(c) for c in data["labels"]),
                           data["backs"].astype(np.float32))
        except DeckError:
            raise
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as error:
            raise DeckError(f"{path}: not a registered deck ({error})") from None
        _check(deck, path)
        return deck

    def agrees(self, named: Sequence[str], likeness: np.ndarray,
               classes: Sequence[str]) -> list[bool | None]:
        """What the cards the general recogniser named (`named`: a name, UNKNOWN or BACK
        each card) say of whether this deck is on the table: a card the deck does not hold
        says another deck is (None); a court (J, Q, K: the art a design has of its own) says
        yes when it is like the deck's (COURT_LIKENESS), no when it is not; a back says yes
        when it is like the deck's, nothing when not (a back in a pile shows little of
        itself). Number cards look alike in every design, and say nothing."""
        votes = []
        back = list(classes).index(BACK)
        for k, card in enumerate(named):
            if card == BACK and len(self.backs) and likeness[k, back] >= COURT_LIKENESS:
                votes.append(True)
            elif card in STANDARD and card not in self.cards:
                votes.append(None)
            elif card in self.cards and card[:-1] in COURTS:
                votes.append(bool(likeness[k, list(classes).index(card)] >= COURT_LIKENESS))
        return votes

    def threshold(self, card: str, in_view: bool, likeness: float, general: float) -> float:
        """The probability `card` needs to be named with the deck (`likeness`: the card's
        to its template), where the general recogniser needs `general`: a face needs
        FACE_THRESHOLD, in clear view or as like its template as SHOWS_ITS_ART (what shows
        of a card partly covered may be the card on top), else it is never named; a back
        like the deck's own needs BACK_THRESHOLD, another `general`."""
        if card != BACK:
            return FACE_THRESHOLD if in_view or likeness >= SHOWS_ITS_ART else np.inf
        return BACK_THRESHOLD if likeness >= SHOWS_ITS_ART else general

    def likeness(self, templates: np.ndarray, classes: Sequence[str]) -> np.ndarray:
        """Each card's best likeness (cosine) to each class's templates, (N, classes): the
        deck's faces and BACK (its back, if one was registered); NaN for a class the deck
        has no template of."""
        out = np.full((len(templates), len(classes)), np.nan, np.float32)
        if not len(templates):
            return out
        for rows, labels in ((self.faces, self.labels),
                             (self.backs, (BACK,) * len(self.backs))):
            if not len(rows):
                continue
            cosines = templates @ rows.T
            for card in dict.fromkeys(labels):
                if card in classes:
                    column = cosines[:, [label == card for label in labels]]
                    out[:, list(classes).index(card)] = column.max(axis=1)
        return out

    def weigh(self, probabilities: np.ndarray, likeness: np.ndarray,
              classes: Sequence[str]) -> np.ndarray:
        """The deck's probabilities, (N, classes). The classifier says whether a card is a
        face, the deck which: the share of every face (and of the joker) stays what the
        classifier gave, shared out anew among the deck's cards in proportion to the
        classifier's probability times exp(LIKENESS_WEIGHT × likeness). A back and no card
        keep theirs."""
        probabilities = np.asarray(probabilities, np.float64)
        faces = np.isin(classes, STANDARD)
        ours = np.isin(classes, self.cards)
        like = np.where(np.isnan(likeness[:, ours]), -1.0, likeness[:, ours])
        weighted = probabilities[:, ours] * np.exp(
            LIKENESS_WEIGHT * (like - like.max(axis=1, keepdims=True)))
        share = probabilities[:, faces].sum(axis=1, keepdims=True)
        total = weighted.sum(axis=1, keepdims=True)
        out = probabilities.copy()
        out[:, faces] = 0.0
        out[:, ours] = np.divide(weighted * share, total, out=np.zeros_like(weighted),
                                 where=total > 0)
        return out


def template_size() -> int:
    return TEMPLATE_PX[0] * TEMPLATE_PX[1] * 3


def templates(cuts: np.ndarray) -> np.ndarray:
    """Templates of rectified cards (N, H, W, 3 BGR uint8): each shrunk to TEMPLATE_PX,
    in Lab, each channel's mean taken out, of unit length, (N, D) float32."""
    out = np.empty((len(cuts), template_size()), np.float32)
    for i, cut in enumerate(cuts):
        small = cv2.resize(cut, TEMPLATE_PX, interpolation=cv2.INTER_AREA)
        lab = cv2.cvtColor(small.astype(np.float32) / 255, cv2.COLOR_BGR2Lab)
        lab -= lab.mean(axis=(0, 1))
        out[i] = lab.ravel() / (np.linalg.norm(lab) + 1e-6)
    return out


def turned(cuts: np.ndarray) -> np.ndarray:
    """Rectified cards turned half round: a card lies either way up on the table."""
    return np.ascontiguousarray(cuts[:, ::-1, ::-1])


def _check(deck: Deck, path: Path | str) -> None:
    """A DeckError unless the deck's parts agree and name cards that exist."""
    unknown = sorted(set(deck.cards) - set(STANDARD))
    if unknown:
        raise DeckError(f"{path}: not a card: {', '.join(unknown)}")
    size = template_size()
    if (deck.faces.ndim != 2 or deck.faces.shape[1] != size or len(deck.labels) != len(deck.faces)
            or not set(deck.labels) <= set(deck.cards) or deck.backs.ndim != 2
            or (len(deck.backs) and deck.backs.shape[1] != size)):
        raise DeckError(f"{path}: a damaged deck file; register the deck again")


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


SURE_READ = 0.999  # a card the assignment names with less is for the user to check
MIN_CARD_SCORE = 0.3  # a detection weaker than this in a registration photo is not a card
APART = 0.1  # the share of a card's area others laid for registration may cover
SIZES = 1.5  # the cards of a registration photo are this much of the typical size, or less


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


def from_cuts(name: str, cuts: np.ndarray, cards: Sequence[str]) -> Deck:
    """A deck from its cards cut out (rectified, N × H × W × 3 BGR) and what each is (a card
    id, JK or BACK): the templates of each, either way up. The deck holds the cards named."""
    faces = np.array([card != BACK for card in cards], bool)
    both = lambda c: np.concatenate([templates(c), templates(turned(c))])  # noqa: E731
    labels = tuple(c for c in cards if c != BACK)
    if not labels:
        raise DeckError("no face-up card in the photos: lay the deck face up")
    return Deck(name, tuple(c for c in STANDARD if c in labels), both(cuts[faces]), labels * 2,
                both(cuts[~faces]))


def _cards_in(recognizer: Recognizer, photo: str, image: np.ndarray) -> Shot:
    """The cards the general recogniser finds in a registration photo, in reading order."""
    from .detect import PHOTO_ZOOMS

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
        raise DeckError(f"--cards names {len(cards)} cards, the photos show {found} ({where})")
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

    columns = [list(classes).index(c) for c in STANDARD]
    rows = [(s, i) for s, shot in enumerate(shots) for i in range(len(shot.cuts))]
    p = np.array([shots[s].probabilities[i] for s, i in rows]).reshape(len(rows), -1)
    back = p[:, list(classes).index(BACK)] > p[:, columns].sum(axis=1)
    faces = np.nonzero(~back)[0]
    if len(faces) > len(STANDARD):
        raise DeckError(f"the photos show {len(faces)} faces; a deck has {len(STANDARD)}: "
                        "give each card once, or name them with --cards")
    among = p[np.ix_(faces, columns)]
    among = among / np.maximum(among.sum(axis=1, keepdims=True), 1e-12)
    chosen = dict(zip(faces, linear_sum_assignment(-np.log(np.maximum(among, 1e-12)))[1],
                      strict=True))
    named: list[list[tuple[str, float, str]]] = [[] for _ in shots]
    for k, (s, _) in enumerate(rows):
        if back[k]:  # a joker may pass for a back: the user checks each (a deck lays few)
            named[s].append((BACK, float(p[k, list(classes).index(BACK)]), "a back"))
            continue
        row = among[list(faces).index(k)]
        j, best = chosen[k], int(row.argmax())
        check = (f"read as {STANDARD[best]}, which another card is more like" if best != j
                 else f"only {row[j]:.2%} sure" if row[j] < SURE_READ else "")
        named[s].append((STANDARD[j], float(row[j]), check))
    return named


class DeckCheck:
    """Whether the registered deck is the one on the table. The general recogniser names a
    card only when sure (fewer than 1 in 1000 wrong), so each card it names may test the
    deck (`Deck.agrees`): a court or a back like the deck's is its own, a court unlike the
    deck's another's, and a card the deck does not hold settles it (as WINDOW votes no). In
    use once one card has said yes, while at most MAX_DISAGREE of the last WINDOW votes are
    no."""

    WINDOW = 12
    MAX_DISAGREE = 1 / 3

    def __init__(self) -> None:
        self._votes: deque[bool] = deque(maxlen=self.WINDOW)
        self._seen_yes = False

    def update(self, votes: Sequence[bool | None]) -> None:
        for vote in votes:
            self._votes.extend([False] * self.WINDOW if vote is None else [vote])
        self._seen_yes |= any(votes)

    @property
    def on(self) -> bool:
        return self._seen_yes and self._votes.count(False) <= self.MAX_DISAGREE * len(
            self._votes)

    @property
    def share(self) -> float | None:
        """The share of the late votes that say the deck is on the table (None: none)."""
        return self._votes.count(True) / len(self._votes) if self._votes else None
