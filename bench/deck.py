"""Benchmark: a registered deck (`vision.deck`) against the general recogniser.

Synthetic, for each held-out design (no model trained on it): the deck is registered from
one rendered layout of it (`simulator.layout.deck_scene`: 52 faces, the joker where the
design has one and two backs, 1920×1080), once with the cards named (`--cards`, timed; the
photo taken again if the cards found do not match the list, as a user would) and once by
the assignment (how many it names right, and how many wrong it does not ask to check).
Then table scenes of that design (`random_scene`, 1280×720, the table homography given) are
read with the deck and without it: faces in full view (90 % or more showing), faces any part
in view, and backs: named right, named wrong, and UNKNOWN. Last, each design's scenes are
read with another family's deck registered: what it names wrongly, and the share of frames
the recogniser keeps the deck in use for (it should fall back at once).

Real (`--real`): ../shared/data/real_photos_dev, a Bicycle pinochle deck (24 cards, two of
each). The deck is registered as a user holding cards up to the webcam would: for each card,
the first two photos in file order where it is the only labelled card, cut to its labelled
box grown by a tenth of its size on each side, named with --cards. The other photos are read whole
(`recognize`'s path, PHOTO_ZOOMS) with and without the deck. A labelled card is found when a
detection's box overlaps its box by IoU 0.5 (as `bench/real_photos.py --recognize`).

    python -m bench.deck [--scenes N] [--seed S] [--designs D ...] [--real]
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from bench.real_photos import DATA
from cards import BACK
from simulator.cardart import get_design
from simulator.layout import deck_scene, random_scene
from simulator.render import render
from training.designs import held_out_designs
from training.evaluate import match_found
from training.real_photos import labelled_detections
from vision.classify import UNKNOWN
from vision.deck import Deck, DeckError, from_cuts
from vision.detect import PHOTO_ZOOMS
from vision.geometry import iou_matrix
from vision.pipeline import Recognizer
from vision.register import Registration, register

FULL_VIEW = 0.9
KINDS = ("faces in full view", "faces, any part in view", "backs")
RETAKES = 2  # a registration photo whose cards do not match the list is taken again


def registered(design: str, seed: int, back_variant: int = 0,
               ) -> tuple[Registration, np.ndarray, list[str], float, int]:
    """The deck of `design` registered from one rendered layout with its cards named, as
    its players would: the photo taken again (another light, another lie) while the cards
    found do not match the list, at most RETAKES times. The registration, the photo, its
    cards, the seconds it took and the photos taken again."""
    recognizer = Recognizer()
    for retake in range(RETAKES + 1):
        scene, cards = deck_scene(np.random.default_rng([seed, 31, retake]), design,
                                  back_variant=back_variant)
        image = render(scene).image
        started = time.perf_counter()
        try:
            registration = register(recognizer, design, [("layout", image)], cards)
        except DeckError:
            if retake == RETAKES:
                raise
            continue
        return registration, image, cards, time.perf_counter() - started, retake
    raise AssertionError("unreachable")


def registration_line(design: str, seed: int) -> tuple[Deck, str]:
    """`registered`, and a line of figures: with the cards named, and by the assignment."""
    registration, image, cards, seconds, retakes = registered(design, seed)
    guessed = register(Recognizer(), design, [("layout", image)]).readings
    right = sum(r.card == c for r, c in zip(guessed, cards, strict=False))
    unflagged = sum(r.card != c and not r.unsure for r, c in zip(guessed, cards, strict=False))
    line = (f"{design:28} registered {len(registration.readings)} cards in {seconds:.1f} s"
            f"{f' ({retakes} photo taken again)' if retakes else ''}; by assignment "
            f"{right} / {len(cards)} right, {sum(r.unsure for r in guessed)} to check, "
            f"{unflagged} wrong not among them")
    return registration.deck, line


def read_scenes(recognizer: Recognizer, design: str, scenes: int, seed: int,
                tally: dict[str, Counter]) -> None:
    """Read `scenes` table scenes of `design` and count, by kind of card, what was named."""
    for k in range(scenes):
        scene = random_scene(np.random.default_rng(seed * 1000 + k), designs=[design])
        scene.back_variant = 0  # one physical deck: the back registered (deck_scene's)
        result = render(scene)
        obs = recognizer.observe(result.image, np.linalg.inv(result.homography))
        index = [i for i, c in enumerate(result.cards) if c.visible > 0]
        labels = np.float32([result.cards[i].quad for i in index]).reshape(-1, 4, 2)
        took = match_found(obs, result, index, iou_matrix(obs.quads, labels))
        for d in np.nonzero(took >= 0)[0]:
            card = result.cards[index[took[d]]]
            named = obs.cards[d]
            outcome = ("unknown" if named == UNKNOWN else
                       "right" if named == (card.card if card.face_up else BACK) else "wrong")
            kinds = (([KINDS[0]] if card.visible >= FULL_VIEW else []) + [KINDS[1]]
                     if card.face_up else [KINDS[2]])
            for kind in kinds:
                tally[kind][outcome] += 1
        tally["frames"]["deck in use"] += recognizer.deck_in_use
        tally["frames"]["all"] += 1


def table(name: str, tally: dict[str, Counter]) -> None:
    print(f"  {name}")
    for kind in KINDS:
        counts = tally[kind]
        total = max(1, sum(counts.values()))
        print(f"    {kind:26} {sum(counts.values()):5d}  right {counts['right'] / total:6.1%}  "
              f"wrong {counts['wrong']:3d} ({counts['wrong'] / total:.2%})  "
              f"unknown {counts['unknown'] / total:6.1%}")


def synthetic(designs: list[str], scenes: int, seed: int) -> None:
    decks = {}
    for design in designs:
        decks[design], line = registration_line(design, seed)
        print(line)
    general, with_deck, wrong_deck = ({kind: Counter() for kind in (*KINDS, "frames")}
                                      for _ in range(3))
    for n, design in enumerate(designs):
        other = next(d for d in designs[n + 1:] + designs[:n]
                     if get_design(d).family != get_design(design).family)
        read_scenes(Recognizer(), design, scenes, seed, general)
        read_scenes(Recognizer(deck=decks[design]), design, scenes, seed, with_deck)
        read_scenes(Recognizer(deck=decks[other]), design, scenes, seed, wrong_deck)
    print(f"table scenes, 1280×720, {scenes} a design, seed {seed}:")
    table("general recogniser", general)
    table("the deck registered", with_deck)
    table("another family's deck registered", wrong_deck)
    frames = wrong_deck["frames"]
    print(f"    the deck kept in use in {frames['deck in use']} of {frames['all']} frames "
          "of another deck")


def real(data: Path) -> None:
    rows = list(csv.DictReader((data / "labels.csv").open()))
    by_file: dict[str, list[dict]] = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row)
    general = Recognizer()
    cuts, cards, shots = [], [], set()
    for file, labels in by_file.items():
        card = labels[0]["rank"] + labels[0]["suit"]
        if len(labels) > 1 or cards.count(card) == 2:
            continue
        image = cv2.imread(str(data / file))
        obs = general.observe(image, zooms=PHOTO_ZOOMS)
        found = labelled_detections(obs.quads, image.shape, labels)[0]
        if found >= 0:
            cuts.append(general.classifier.rectify_quads(image, obs.quads[found:found + 1])[0])
            cards.append(card)
            shots.add(file)
    started = time.perf_counter()
    deck = from_cuts("pinochle", np.array(cuts), cards)
    print(f"real photos: registered {len(deck.cards)} cards from {len(cuts)} shots in "
          f"{time.perf_counter() - started:.2f} s")
    test = {file: labels for file, labels in by_file.items() if file not in shots}
    for name, recognizer in (("general recogniser", Recognizer()),
                             ("the deck registered", Recognizer(deck=deck))):
        outcome = Counter()
        for file, labels in test.items():
            image = cv2.imread(str(data / file))
            obs = recognizer.observe(image, zooms=PHOTO_ZOOMS)
            taken = labelled_detections(obs.quads, image.shape, labels)
            for label, best in zip(labels, taken, strict=True):
                if best < 0:
                    outcome["not found"] += 1
                    continue
                truth = label["rank"] + label["suit"]
                outcome["unknown" if obs.cards[best] == UNKNOWN else
                        "right" if obs.cards[best] == truth else "wrong"] += 1
            outcome["named off the labels"] += sum(
                1 for i, c in enumerate(obs.cards) if i not in taken and c != UNKNOWN)
        total = sum(outcome[k] for k in ("right", "wrong", "unknown", "not found"))
        found = total - outcome["not found"]
        print(f"  {name}: {total} labelled cards in {len(test)} photos; of the {found} found: "
              f"right {outcome['right'] / found:.1%}, wrong {outcome['wrong']} "
              f"({outcome['wrong'] / found:.2%}), unknown {outcome['unknown'] / found:.1%}; "
              f"not found {outcome['not found']}; other detections named "
              f"{outcome['named off the labels']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=20, help="table scenes a design")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--designs", nargs="+", default=held_out_designs())
    parser.add_argument("--real", action="store_true", help="the real photos only")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if args.real:
        real(args.data)
    else:
        synthetic(args.designs, args.scenes, args.seed)


if __name__ == "__main__":
    main()
