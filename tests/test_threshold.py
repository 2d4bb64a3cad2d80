"""The classifier's threshold fit on detector cuts: the real pipeline on calibration scenes."""

from __future__ import annotations

import numpy as np
import pytest

from training.designs import held_out_designs, split_designs
from training.threshold import (
    SHARPNESS_GRID,
    SUIT_FLOOR,
    detector_cuts,
    fit,
    fit_backs,
    fit_no_card,
    fit_sharpness,
    fit_suits,
    gate,
    hold_on_photos,
)
from vision.classify import MODEL


def test_benchmarks_leave_out_held_out_designs_by_name() -> None:
    held = split_designs()[2]
    assert held_out_designs() == held
    assert held_out_designs([held[0]]) == held[1:]
    with pytest.raises(ValueError, match="not a held-out design: bicycle"):
        held_out_designs(["bicycle"])
    train = split_designs()[0][0]  # nor is a training design left out of nothing in silence
    with pytest.raises(ValueError, match=train):
        held_out_designs([train])


def test_detector_cuts_score_the_cards_the_recognizer_found() -> None:
    _, calibration, _ = split_designs()
    rows = detector_cuts(3, 2, calibration, str(MODEL))
    confidence, right, suit = rows[:, 0], rows[:, 1], rows[:, 7]
    assert len(rows) >= 20 and rows.shape[1] == 9  # two table scenes, a score of cards each
    assert (rows[:, 8] > 0).all()  # every card shows some detail
    assert set(np.unique(suit)) <= {-1, 0, 1, 2, 3} and (suit[rows[:, 2] == 1] == -1).all()
    assert (suit >= 0).sum() >= 5  # faces have a suit, backs none
    assert np.all((confidence > 0) & (confidence <= 1))
    assert set(np.unique(right)) <= {0.0, 1.0}
    # cards the classifier is most sure of are the ones it reads right
    sure = confidence >= np.quantile(confidence, 0.75)
    assert right[sure].mean() > right[~sure].mean()
    assert right[sure].mean() >= 0.8


def test_each_kind_of_answer_gets_its_own_threshold() -> None:
    rng = np.random.default_rng(0)
    n = 3000
    confidence = rng.uniform(0.9, 1.0, n)
    back = np.arange(n) % 3 == 0
    clear = np.arange(n) % 3 == 1
    right = np.ones(n, bool)
    covered = ~back & ~clear
    right[covered & (confidence > 0.99)] = False  # covered faces: the surest are wrong
    rows = np.stack([confidence, right, back, clear, np.zeros(n), np.ones(n), np.zeros(n)],
                    axis=1)
    thresholds, answered = fit(rows, trained=0.95)
    assert thresholds["back"] == thresholds["face"] == 0.95  # never below training's
    assert thresholds["covered_face"] > 1  # nothing keeps them under 1 in 1000 wrong
    assert not answered[covered].any() and answered[back & (confidence >= 0.95)].all()


def test_a_suit_goes_under_the_pooled_threshold_only_on_enough_answers() -> None:
    rng = np.random.default_rng(2)
    suit = np.repeat([0, 1, 2, 3], [3000, 3000, 3000, 300])  # S H D C: clubs are few
    confidence = rng.uniform(0.9, 1.0, len(suit))
    right = np.ones(len(suit), bool)
    right[(suit == 0) & (confidence > 0.9990) & (confidence < 0.9993)] = False  # spades
    right[(suit == 2) & (confidence < 0.95)] = False  # diamonds: sure ones right
    rows = np.stack([confidence, right, np.zeros(len(suit)), np.ones(len(suit)),
                     np.zeros(len(suit)), np.ones(len(suit)), np.zeros(len(suit)), suit], axis=1)
    thresholds, answered = fit_suits(rows, pooled=0.999)
    assert thresholds["S"] > 0.999  # above the pooled one whatever the count: errors showed
    assert thresholds["H"] == SUIT_FLOOR  # no wrong answer among thousands: as low as may be
    assert 0.95 <= thresholds["D"] < 0.952
    assert thresholds["C"] == 0.999  # a few hundred say too little to go lower
    assert (answered[suit == 1]).all() and ((suit == 1) & answered).sum() >= 1000
    assert not (answered & ~right).any()
    covered = rows.copy()
    covered[:, 3] = 0  # faces out of clear view are not this fit's
    assert not fit_suits(covered, pooled=0.999)[1].any()


def test_sharp_faces_get_their_own_thresholds_where_blur_is_what_misleads() -> None:
    rng = np.random.default_rng(4)
    n = 6000
    confidence = rng.uniform(0.9, 1.0, n)
    sharpness = np.where(np.arange(n) % 2 == 0, 0.1, 0.5)
    suit = np.zeros(n)  # spades
    right = ~((sharpness < 0.2) & (confidence > 0.995) & (confidence < 0.9993))  # blurred
    rows = np.stack([confidence, right, np.zeros(n), np.ones(n), np.zeros(n), np.ones(n),
                     np.zeros(n), suit, sharpness], axis=1)
    cut, blurred, sharp, answered = fit_sharpness(rows, pooled=0.999)
    assert cut in SHARPNESS_GRID and 0.1 < cut <= 0.5
    assert sharp["S"] == SUIT_FLOOR and blurred["S"] > 0.999
    assert answered[sharpness >= cut].all() and not (answered & ~right).any()
    assert answered.sum() > fit_suits(rows, pooled=0.999)[1].sum()  # one for all names fewer


def test_what_is_called_no_card_is_dropped_only_where_that_is_safe() -> None:
    rng = np.random.default_rng(1)
    n = 4000
    confidence = rng.uniform(0.9, 1.0, n)
    no_card = np.arange(n) % 2 == 0
    stray = no_card & (confidence > 0.95)  # the surest "no card" calls are right
    right = np.where(no_card, stray, True)
    rows = np.stack([confidence, right, np.zeros(n), np.ones(n), stray, np.ones(n), no_card],
                    axis=1)
    threshold, dropped = fit_no_card(rows, trained=0.9)
    assert 0.95 <= threshold < 0.952  # the lowest at which every drop is no card
    assert not (dropped & ~stray).any() and dropped[stray & (confidence >= threshold)].all()
    # a call of "no card" is never a name: those rows get no face's threshold
    _, answered = fit(rows, trained=0.9)
    assert not answered[no_card].any() and answered[~no_card].all()


def test_faces_and_backs_each_get_the_lowest_score_that_names_nothing_on_no_card() -> None:
    scores = np.array([0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    back = np.array([False, False, True, True, True, True])
    stray = np.array([False, False, True, False, False, True])  # a back-like hero card
    # what each gate names: everything from its score up, but the hero card at 0.8 is
    # named only under the two lower gates (where the fit's back threshold is lower)
    named = {s: scores >= s for s in (0.3, 0.5, 0.6)}
    named[0.6][5] = False
    assert gate(named, stray, ~back) == 0.3  # faces: never on no card, the most named
    assert gate(named, stray, back) == 0.6
    named[0.6][5] = True  # no score is clean: the highest
    assert gate(named, stray, back) == 0.6


def test_backs_get_the_detector_score_under_which_what_is_no_card_is_rare_enough() -> None:
    # what is no card reads as a back at 0.9999 and more, at detector scores under 0.5
    rng = np.random.default_rng(6)
    n = 12000
    stray = np.arange(n) % 400 == 0  # 30 detections on no card, 11,970 backs
    score = np.where(stray, rng.uniform(0.3, 0.5, n), rng.uniform(0.3, 1.0, n))
    confidence = np.where(stray, 0.99995, rng.uniform(0.999, 1.0, n))
    rows = np.stack([confidence, ~stray, np.ones(n), np.ones(n), stray, score, np.zeros(n),
                     -np.ones(n), np.ones(n)], axis=1)
    gate_score, threshold, named = fit_backs(rows, trained=0.999)
    assert gate_score == 0.5 and threshold == 0.999  # every stray under the gate
    assert not (named & stray).any() and named.sum() == ((score >= 0.5) & ~stray).sum()
    rows[:, 5] = np.where(stray, 0.9, score)  # the detector is sure of them: the threshold
    gate_score, threshold, named = fit_backs(rows, trained=0.999)
    assert threshold > 0.99995 and not (named & stray).any()


def test_an_unseen_error_asks_for_a_thousand_answers_before_any_threshold() -> None:
    from training.evaluate import pick_threshold

    few, many = (np.random.default_rng(5).uniform(0.9, 1.0, n) for n in (500, 2000))
    assert pick_threshold(few, np.ones(500, bool)) == 0.5  # none wrong: anything goes
    assert pick_threshold(few, np.ones(500, bool), unseen_errors=1) > 1  # but 500 say little
    assert pick_threshold(many, np.ones(2000, bool), unseen_errors=1) == 0.5


def _photo_row(confidence: float, right: bool, suit: int, score: float = 0.8,
               stray: bool = False) -> tuple:
    # detector_cuts' columns: confidence, right, back, clear, stray, score, no card, suit,
    # sharpness
    return (confidence, right, False, True, stray, score, False, suit, 0.5)


def test_real_photos_raise_a_suits_threshold_and_the_faces_score_and_never_lower_them():
    report = {"threshold": 0.99, "covered_threshold": 1.01, "back_threshold": 0.99,
              "min_detector_score": 0.3, "min_back_score": 0.5,
              "suit_thresholds": {"S": 0.98, "H": 0.98, "D": 0.98, "C": 0.95},
              "sharp_suit_thresholds": {}}
    rows = [_photo_row(0.999, True, k) for k in range(4) for _ in range(50)]
    rows += [_photo_row(0.97, False, 3)]  # a club read wrong at 0.97: clubs' 0.95 is too low
    rows += [_photo_row(0.999, True, 0, score=0.32, stray=True)]  # a face on no card
    figures = hold_on_photos(report, np.array(rows, np.float64))
    assert 0.97 < report["suit_thresholds"]["C"] <= 0.999
    assert report["suit_thresholds"]["S"] == 0.98  # held on the photos: not lowered
    assert report["min_detector_score"] == 0.35  # the stray face's 0.32 no longer names it
    assert figures["wrong_among_answered"] == 0 and figures["named_on_no_card"] == 0
    assert figures["answered"] == pytest.approx(200 / 201, abs=1e-4)  # all but the club
