"""Fit the classifier's confidence threshold on cards as the detector cuts them out.

Training fits the threshold on clean samples of the calibration designs, outlined about as
well as a good detector would. At run time the classifier sees the shipped detector's quads:
looser, sometimes a few degrees off, some on partly covered cards, so the same confidence is
worth less. This renders table scenes of the calibration designs (never the held-out ones),
runs the whole recognizer on them, and sets the threshold to the lowest one under which
fewer than 1 in 1000 confident answers on the cards it found are wrong: one for backs, one
for faces in clear view (`vision.detect.in_clear_view`), one for the other faces (the card
on top can pass for a covered one), and one for "no card" (wrong on a card the detector
found: the card is then dropped). None is set lower than training's, so they only get
safer; but a face in clear view also gets one for its suit (`fit_suits`), fitted on more
scenes (`--suit-scenes`), as the model's confusions are not alike: blurred clubs pass for
spades, so the pooled threshold is spades' and holds back every heart. Training's pooled
threshold is no floor for a suit's, or it would undo that. Those misreadings are of blurred
cards, so sharp faces (`CardClassifier.sharpness`) get each suit's own too (`fit_sharpness`).
Backs, whose wrong answers are what is no card read as one, get their detector score and
threshold on the same scenes (`fit_backs`).

    python -m training.threshold [--scenes 400] [--suit-scenes 10000] [--seed 11]
                               [--model C.onnx] [--detector D.onnx] [--real DIR]

`--real` holds them on real photographs too: the `valid` split of the export of
`../shared/tools/real_photos_train.py` (`hold_on_photos`: each threshold raised until fewer
than 1 in 1000 of its names there are wrong, the faces' detector score until none is named
on no card; never lowered).

`--model` is the classifier whose .json gets the thresholds; `--detector` a candidate
detector to fit them behind (the thresholds hold for the detector they were fitted with).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from cards import BACK, DECK, SUITS
from simulator.layout import random_scene
from simulator.render import RenderResult, render
from vision import FRAME_SIZES
from vision.classify import MODEL as CLASSIFIER
from vision.classify import NO_CARD
from vision.detect import MODEL as DETECTOR
from vision.geometry import iou_matrix
from vision.observation import Observation
from vision.pipeline import Recognizer

from .data import in_chunks
from .designs import split_designs
from .evaluate import MAX_CONFIDENT_ERRORS, STRAY_IOU, match_found, pick_threshold
from .real_photos import box_overlap, load, recognized, training_export

SIZES = tuple(FRAME_SIZES.values())  # alternating, scene by scene
CHUNK = 10  # scenes a parallel job
# the detector's score a name needs (one for faces, one for backs) is one of these
SCORE_GRID = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
# A suit's threshold never goes under this: below it the model itself says one name in ten is
# wrong, and a design unlike the calibration ones could make that so
SUIT_FLOOR = 0.9
# the sharpness from which a face counts as sharp is one of these (or none)
SHARPNESS_GRID = (0.2, 0.25, 0.3, 0.35, 0.4)


def scene_found(recognizer: Recognizer, designs: list[str], seed: int, k: int
                ) -> tuple[RenderResult, Observation, list[int], np.ndarray, np.ndarray]:
    """Scene `k` of `seed` (SIZES in turn) rendered from `designs` and read by `recognizer`
    with its table homography: the render, what was found, the indices of the cards that
    show, the detections' IoU with those cards, and the card each detection found
    (`match_found`: a position in the indices, -1 for none)."""
    rng = np.random.default_rng(seed * 1000 + k)
    result = render(random_scene(rng, designs=designs, image_size=SIZES[k % 2]))
    obs = recognizer.observe(result.image, np.linalg.inv(result.homography))
    index = [i for i, c in enumerate(result.cards) if c.visible > 0]
    overlaps = iou_matrix(obs.quads, np.float32(
        [result.cards[i].quad for i in index]).reshape(-1, 4, 2))
    return result, obs, index, overlaps, match_found(obs, result, index, overlaps)


def detector_cuts(seed: int, count: int, designs: list[str], classifier: str,
                  detector: str = str(DETECTOR)) -> np.ndarray:
    """(confidence, best class right, best class is BACK, in clear view, on no card, detector
    score, best class is NO_CARD, the best class's suit: its index in SUITS, -1 for none,
    sharpness) of every target card the recognizer found in `count` rendered scenes, and of
    every detection that lies on no card at all (a hero card, a hand: right only if called no
    card): an (n, 9) array. A second box on a card already found is
    the detector's error, not the classifier's, and is left out."""
    recognizer = Recognizer(Path(detector), Path(classifier))
    recognizer.classifier.no_card_threshold = np.inf  # keep what it calls no card, to fit
    rows = []
    for k in range(count):
        result, obs, index, overlaps, took = scene_found(recognizer, designs, seed, k)
        cards = [result.cards[i] for i in index]
        sharpness = recognizer.classifier.sharpness(result.image, obs.quads)
        for d in np.nonzero(took >= 0)[0]:
            best = obs.extra["best"][d]
            rows.append((obs.confidence[d], best == cards[took[d]].card, best == BACK,
                         obs.extra["clear"][d], False, obs.extra["score"][d], best == NO_CARD,
                         suit_index(best), sharpness[d]))
        for d in np.nonzero(overlaps.max(axis=1, initial=0.0) < STRAY_IOU)[0]:
            best = obs.extra["best"][d]
            rows.append((obs.confidence[d], best == NO_CARD, best == BACK,
                         obs.extra["clear"][d], True, obs.extra["score"][d], best == NO_CARD,
                         suit_index(best), sharpness[d]))
    return np.array(rows, np.float64).reshape(-1, 9)


def photo_cuts(data: Path, split: str, classifier: str, detector: str = str(DETECTOR)
               ) -> np.ndarray:
    """`detector_cuts`' rows on real photographs (`training.real_photos`' export, one
    split), read as `recognize` reads a photo (`PHOTO_ZOOMS`): each labelled card the
    recognizer found (by its box), and each detection that overlaps no labelled card."""
    import cv2

    recognizer = Recognizer(Path(detector), Path(classifier))
    recognizer.classifier.no_card_threshold = np.inf
    rows = []
    for photo in load(data, split):
        image = cv2.imread(str(photo.file))
        if image is None:
            continue
        obs, found = recognized(recognizer, photo, image)
        sharpness = recognizer.classifier.sharpness(image, obs.quads)
        for card, d in zip(photo.cards, found, strict=True):
            if d < 0:
                continue
            best = obs.extra["best"][d]
            rows.append((obs.confidence[d], best == card.card, best == BACK,
                         obs.extra["clear"][d], False, obs.extra["score"][d], best == NO_CARD,
                         suit_index(best), sharpness[d]))
        boxes = np.float32([card.box for card in photo.cards]).reshape(-1, 4)
        for d in range(len(obs)):
            if d in found or any(box_overlap(obs.quads[d], box) > STRAY_IOU for box in boxes):
                continue
            best = obs.extra["best"][d]
            rows.append((obs.confidence[d], best == NO_CARD, best == BACK,
                         obs.extra["clear"][d], True, obs.extra["score"][d], best == NO_CARD,
                         suit_index(best), sharpness[d]))
    return np.array(rows, np.float64).reshape(-1, 9)


def hold_on_photos(report: dict, rows: np.ndarray) -> dict:
    """Raise the fitted thresholds (in `report`) until, on real photographs' rows
    (`photo_cuts`), fewer than 1 in 1000 of each kind's names are wrong: a face in clear view
    of each suit (sharp or not), a covered face, a back; and the faces' detector score until
    none is named on no card. Never lowers one: the drawn tables hold them too. The
    figures on the photos, at the thresholds it leaves."""
    confidence, right, back, clear, stray, score = (rows[:, k] for k in range(6))
    right, back, clear, stray = (v.astype(bool) for v in (right, back, clear, stray))
    suit = rows[:, 7]
    faces = ~back & (suit >= 0)
    for k, name in enumerate(SUITS):
        mine = faces & clear & ~stray & (suit == k) & (score >= report["min_detector_score"])
        needed = pick_threshold(confidence[mine], right[mine]) if mine.any() else 0.0
        for key in ("suit_thresholds", "sharp_suit_thresholds"):
            if name in report.get(key, {}):
                report[key][name] = max(report[key][name], needed)
    covered = faces & ~clear & ~stray & (score >= report["min_detector_score"])
    if covered.any():
        report["covered_threshold"] = max(report["covered_threshold"],
                                          pick_threshold(confidence[covered], right[covered]))
    if (back & ~stray).any():
        report["back_threshold"] = max(report["back_threshold"], pick_threshold(
            confidence[back & ~stray], right[back & ~stray]))
    named = _named(report, rows)
    for gate_score in (report["min_detector_score"], *SCORE_GRID):
        if gate_score >= report["min_detector_score"] and not (
                named & faces & stray & (score >= gate_score)).any():
            report["min_detector_score"] = gate_score
            break
    named = _named(report, rows)
    return {"cards": int((~stray).sum()), "on_no_card": int(stray.sum()),
            "top1": round(float(right[~stray].mean()), 4) if (~stray).any() else None,
            "answered": round(float(named[~stray].mean()), 4) if (~stray).any() else None,
            "wrong_among_answered": int((named & ~right & ~stray).sum()),
            "named_on_no_card": int((named & stray).sum())}


def _named(report: dict, rows: np.ndarray) -> np.ndarray:
    """Which rows the report's thresholds name (a face, a back), as `CardClassifier.decide`
    would: by kind, suit, sharpness and detector score."""
    confidence, back, clear, score, no_card, suit, sharp = (
        rows[:, 0], rows[:, 2].astype(bool), rows[:, 3].astype(bool), rows[:, 5],
        rows[:, 6].astype(bool), rows[:, 7], rows[:, 8])
    sharp_from = report.get("min_sharpness", np.inf)
    need = np.full(len(rows), float(report["covered_threshold"]))
    for k, name in enumerate(SUITS):
        for is_sharp, key in ((False, "suit_thresholds"), (True, "sharp_suit_thresholds")):
            mine = clear & (suit == k) & ((sharp >= sharp_from) == is_sharp)
            need[mine] = report.get(key, {}).get(name, report["suit_thresholds"].get(
                name, report["threshold"]))
    need[clear & (suit < 0)] = report["threshold"]
    need[back] = report["back_threshold"]
    gate = np.where(back, report["min_back_score"], report["min_detector_score"])
    return ~no_card & (confidence >= need) & (score >= gate)


def suit_index(card: str) -> int:
    """A face's suit as its index in SUITS; -1 for the joker, a back or no card."""
    return SUITS.index(card[-1]) if card in DECK else -1


def fit(rows: np.ndarray, trained: float) -> tuple[dict[str, float], np.ndarray]:
    """Thresholds for each kind of name, and which rows they name. The kinds fail
    differently (a covered face is read as the card on top; a back is a back; a hero card
    or a hand passes for a back), so each gets its own threshold, under which fewer than 1 in
    1000 of its names are wrong; none lower than training's. "No card" names nothing: see
    `fit_no_card`."""
    confidence = rows[:, 0]
    right, back, clear, no_card = (rows[:, k].astype(bool) for k in (1, 2, 3, 6))
    card = ~no_card
    kinds = {"face": card & ~back & clear, "covered_face": card & ~back & ~clear,
             "back": back}
    thresholds = {kind: max(trained, pick_threshold(confidence[m], right[m]))
                  for kind, m in kinds.items()}
    answered = np.zeros(len(rows), bool)
    for kind, m in kinds.items():
        answered |= m & (confidence >= thresholds[kind])
    return thresholds, answered


def fit_suits(rows: np.ndarray, pooled: float,
              among: np.ndarray | None = None) -> tuple[dict[str, float], np.ndarray]:
    """A threshold for the faces in clear view of each suit (by the best class's suit), among
    the rows `among` (all if None), and which rows they name. Under `pooled` only where
    fewer than 1 in 1000 of the suit's names would be wrong with one wrong more than seen
    (`pick_threshold`'s `unseen_errors`: a few hundred answers with none wrong say little),
    and never under SUIT_FLOOR; over it where the suit's names are wrong more often than that
    at `pooled`."""
    confidence, right, clear, suit = (rows[:, k] for k in (0, 1, 3, 7))
    among = np.ones(len(rows), bool) if among is None else among
    thresholds, answered = {}, np.zeros(len(rows), bool)
    for k, name in enumerate(SUITS):  # a suit is a face's: backs, no card and the joker have -1
        mine = among & clear.astype(bool) & (suit == k)
        seen = confidence[mine], right[mine].astype(bool)
        threshold = pick_threshold(*seen, unseen_errors=1)
        if threshold >= pooled:
            threshold = max(pooled, pick_threshold(*seen))
        thresholds[name] = threshold = max(SUIT_FLOOR, threshold)
        answered |= mine & (confidence >= threshold)
    return thresholds, answered


def fit_sharpness(rows: np.ndarray, pooled: float) -> tuple[
        float, dict[str, float], dict[str, float], np.ndarray]:
    """The sharpness from which a face in clear view is sharp, each suit's thresholds for the
    other faces and for sharp ones (`fit_suits` on each side), and which rows they name: of
    SHARPNESS_GRID, the cut that names the most (inf, and no sharp thresholds, where none
    names more than one threshold for each suit)."""
    thresholds, named = fit_suits(rows, pooled)
    best = (np.inf, thresholds, {}, named)
    for cut in SHARPNESS_GRID:
        sharp = rows[:, 8] >= cut
        blurred, named_blurred = fit_suits(rows, pooled, ~sharp)
        crisp, named_crisp = fit_suits(rows, pooled, sharp)
        if (named_blurred | named_crisp).sum() > best[3].sum():
            best = (cut, blurred, crisp, named_blurred | named_crisp)
    return best


def fit_no_card(rows: np.ndarray, trained: float) -> tuple[float, np.ndarray]:
    """The threshold over which a detection called no card is dropped, whatever the
    detector's score: fewer than 1 in 1000 of those dropped are cards; and which rows it
    drops."""
    confidence, right, no_card = rows[:, 0], rows[:, 1].astype(bool), rows[:, 6].astype(bool)
    threshold = max(trained, pick_threshold(confidence[no_card], right[no_card]))
    return threshold, no_card & (confidence >= threshold)


def fit_backs(rows: np.ndarray, trained: float) -> tuple[float, float, np.ndarray]:
    """The detector's score and the confidence a back needs, and which rows they name. What
    is no card (a hero card, a hand, bare table) passes for a back, so a BACK there is a
    wrong answer like any other: of SCORE_GRID, the score whose threshold (fewer than 1 in
    1000 wrong, counting one more than seen; none under `trained`) names the most backs."""
    confidence, score = rows[:, 0], rows[:, 5]
    right, back = rows[:, 1].astype(bool), rows[:, 2].astype(bool)
    best = (max(SCORE_GRID), 1.01, np.zeros(len(rows), bool))
    for gate_score in SCORE_GRID:
        mine = back & (score >= gate_score)
        threshold = max(trained, pick_threshold(confidence[mine], right[mine], unseen_errors=1))
        named = mine & (confidence >= threshold)
        if named.sum() > best[2].sum():
            best = (gate_score, threshold, named)
    return best


def gate(named: dict[float, np.ndarray], stray: np.ndarray, kind: np.ndarray) -> float:
    """The detector's score a name of one `kind` (faces) needs: of those under which no name
    of that kind lies on no card, the one that names the most cards (the highest of the grid
    if none is clean)."""
    clean = [s for s in named if not (named[s] & kind & stray).any()] or [max(named)]
    return max(clean, key=lambda s: (named[s] & kind & ~stray).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=400,
                        help="scenes for the faces' detector-score gate and the pooled thresholds")
    parser.add_argument("--suit-scenes", type=int, default=10000,
                        help="scenes for each suit's thresholds and the backs' (the first --scenes"
                        " among them)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--model", type=Path, default=CLASSIFIER)
    parser.add_argument("--detector", type=Path, default=DETECTOR)
    parser.add_argument("--real", type=training_export,
                        help="also hold the thresholds on the `valid` "
                        "photos of this export of ../shared/tools/real_photos_train.py")
    args = parser.parse_args()

    report_path = args.model.with_suffix(".json")
    report = json.loads(report_path.read_text())
    _, calibration, _ = split_designs(announce=True)
    parts = in_chunks(detector_cuts, args.seed, max(args.scenes, args.suit_scenes), CHUNK,
                      {"designs": calibration, "classifier": str(args.model),
                       "detector": str(args.detector)},
                      args.workers, "scenes")
    rows = np.concatenate(parts[:-(-args.scenes // CHUNK)])  # chunks do not depend on count
    every = np.concatenate(parts)
    if not len(rows):
        sys.exit("no cards found in the scenes: is the detector shipped?")
    trained = float(report.get("threshold_trained", report["threshold"]))
    # a face is named only where the detector is sure of a card: the score that leaves the
    # most faces answered and names none on no card (a hero card lies there all game: named
    # once, named every frame). Backs get their own (`fit_backs`): what is no card passes
    # for a back, not a face
    fits = {score: fit(rows[rows[:, 5] >= score], trained) for score in SCORE_GRID}
    named = {score: np.zeros(len(rows), bool) for score in SCORE_GRID}
    for score, (_, answered) in fits.items():
        named[score][rows[:, 5] >= score] = answered
    right, back, clear, stray = (rows[:, k].astype(bool) for k in (1, 2, 3, 4))
    score = gate(named, stray, ~back)
    # backs on no card are too rare for 400 scenes to show (docs/vision.md, Next 6): backs
    # are fitted on every scene
    back_score, back_threshold, backs_named = fit_backs(every, trained)
    thresholds = {**fits[score][0], "back": back_threshold}
    answered = (named[score] & ~back) | backs_named[:len(rows)]  # rows: every's first chunks
    gated = every[every[:, 5] >= score]
    min_sharpness, suit_thresholds, sharp_thresholds, by_suit = fit_sharpness(
        gated, thresholds["face"])
    suit_faces = (gated[:, 7] >= 0) & gated[:, 3].astype(bool)
    kinds = {"face": ~back & clear & ~stray, "covered_face": ~back & ~clear & ~stray,
             "back": back & ~stray}
    summary = {
        "scenes": args.scenes, "seed": args.seed, "cards": int((~stray).sum()),
        "top1": round(float(right[~stray].mean()), 4), "on_no_card": int(stray.sum()),
        "min_detector_score": score, "min_back_score": back_score, "thresholds": thresholds,
        "answered": round(float(answered[~stray].mean()), 4),
        **{f"answered_{kind}": round(float(answered[m].mean()), 4) if m.any() else None
           for kind, m in kinds.items()},
        "faces_in_clear_view": int(kinds["face"].sum()),
        "wrong_among_answered": int((answered & ~right).sum()),
        "named_on_no_card": int((answered & stray).sum()),
        "max_confident_errors": MAX_CONFIDENT_ERRORS,
        "suit_scenes": args.suit_scenes,
        "backs_named": int((backs_named & ~every[:, 4].astype(bool)).sum()),
        "backs_wrong": int((backs_named & ~every[:, 1].astype(bool)).sum()),
        "backs_on_no_card": int((backs_named & every[:, 4].astype(bool)).sum()),
        "suit_thresholds": suit_thresholds,
        "min_sharpness": min_sharpness if np.isfinite(min_sharpness) else None,
        "sharp_suit_thresholds": sharp_thresholds,
        "sharp_faces_in_clear_view": int((suit_faces & (gated[:, 8] >= min_sharpness)).sum()),
        "suit_faces_in_clear_view": int(suit_faces.sum()),
        "suit_answered": round(float(by_suit[suit_faces].mean()), 4),
        "suit_wrong_among_answered": int((by_suit & ~gated[:, 1].astype(bool)).sum())}
    report.update(threshold_trained=trained, threshold=thresholds["face"],
                  covered_threshold=thresholds["covered_face"],
                  back_threshold=thresholds["back"], suit_thresholds=suit_thresholds,
                  sharp_suit_thresholds=sharp_thresholds, min_detector_score=score,
                  min_back_score=back_score, detector_cuts=summary)
    report.pop("min_sharpness", None)  # JSON has no infinity: absent, no face is sharp
    if np.isfinite(min_sharpness):
        report.update(min_sharpness=min_sharpness)
    if NO_CARD in report["classes"]:
        no_card_threshold, dropped = fit_no_card(rows, trained)
        summary.update(no_card_threshold=no_card_threshold,
                       dropped_on_no_card=int((dropped & stray).sum()),
                       cards_dropped=int((dropped & ~stray).sum()))
        report.update(no_card_threshold=no_card_threshold)
    if args.real is not None:
        real_rows = photo_cuts(args.real, "valid", str(args.model), str(args.detector))
        summary["real_photos"] = {"data": str(args.real), "split": "valid",
                                  **hold_on_photos(report, real_rows)}
    report_path.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
