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

A deck is made from photos of it (`vision.register`, `from_cuts`) and kept as a small .npz
file (`save`, `load`); the data folder holds it (companion_api), never git.
"""

from __future__ import annotations

import io
import zipfile
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from cards import BACK, DECK, JOKER

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
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
            raise DeckError(f"{path}: not a registered deck, or a damaged one; remove it "
                            "and register the deck again") from None
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
        rows, cards, starts = self._grouped
        if not len(templates) or not len(rows):
            return out
        best = np.maximum.reduceat(templates @ rows.T, starts, axis=1)
        known = [k for k, card in enumerate(cards) if card in classes]
        out[:, [list(classes).index(cards[k]) for k in known]] = best[:, known]
        return out

    @cached_property
    def _grouped(self) -> tuple[np.ndarray, list[str], np.ndarray]:
        """Every template, the faces' and the back's, each card's side by side; the cards
        in that order; and where each card's begin (for `likeness`, made once)."""
        labels = np.array([*self.labels, *(BACK,) * len(self.backs)])
        order = np.argsort(labels, kind="stable")
        rows = np.concatenate([self.faces, self.backs]).astype(np.float32)[order]
        labels = labels[order]
        starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]]) if len(labels) \
            else np.zeros(0, np.int64)
        return rows, [str(card) for card in labels[starts]], starts

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


def from_cuts(name: str, cuts: np.ndarray, cards: Sequence[str]) -> Deck:
    """A deck from its cards cut out (rectified, N × H × W × 3 BGR) and what each is (a card
    id, JK or BACK): the templates of each, either way up. The deck holds the cards named."""
    faces = np.array([card != BACK for card in cards], bool)
    labels = tuple(c for c in cards if c != BACK)
    if not labels:
        raise DeckError("no face-up card in the photos: lay the deck face up")
    return Deck(name, tuple(c for c in STANDARD if c in labels), _either_way(cuts[faces]),
                labels * 2, _either_way(cuts[~faces]))


def _either_way(cuts: np.ndarray) -> np.ndarray:
    """The templates of cards as cut, then of the same turned half round."""
    return np.concatenate([templates(cuts), templates(turned(cuts))])


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
