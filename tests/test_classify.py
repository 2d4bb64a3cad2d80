"""The shipped card classifier, run by onnxruntime on cards of rendered table scenes."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from cards import RANKS
from simulator.layout import random_scene
from simulator.render import render
from vision.classify import (
    BACK,
    EXPERTS,
    MODEL,
    NO_CARD,
    UNKNOWN,
    VIEW_SCALES,
    CardClassifier,
    ModelError,
    Prediction,
)
from vision.pipeline import Recognizer

REPORT = json.loads(MODEL.with_suffix(".json").read_text())


@pytest.fixture(scope="module")
def classifier() -> CardClassifier:
    return CardClassifier()


def _scene_cards(design: str, size: tuple[int, int], wanted: int = 12):
    """Rendered scenes of `design` until `wanted` fully visible cards: (image, card) pairs."""
    found = []
    for seed in range(11, 30):
        scene = random_scene(np.random.default_rng(seed), designs=[design], image_size=size,
                             hand_chance=0.0)
        result = render(scene)
        found += [(result.image, c) for c in result.cards if c.visible >= 0.97]
        if len(found) >= wanted:
            break
    return found


@pytest.mark.parametrize("design", REPORT["held_out_designs"][::4])
def test_held_out_design_is_never_confidently_wrong_and_mostly_named(classifier, design):
    cards = _scene_cards(design, (1920, 1080))
    assert len(cards) >= 12
    predictions = [classifier.classify_quads(image, [np.float32(c.quad)])[0]
                   for image, c in cards]
    truth = [c.card for _, c in cards]
    wrong = [(p.card, t) for p, t in zip(predictions, truth, strict=True)
             if p.card not in (UNKNOWN, t)]
    assert wrong == []  # an answer given with confidence is right
    best = sum(p.best == t for p, t in zip(predictions, truth, strict=True))
    assert best >= 0.75 * len(cards), f"{best} of {len(cards)}"


def test_noise_is_never_named_a_card_face(classifier):
    # BACK is "no index here": noise may read as one, and it is the detector's score that
    # keeps what is no card unnamed (`min_back_score`, and the frame test below)
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (16, *reversed(classifier.input_px), 3), dtype=np.uint8)
    grey = np.full((4, *reversed(classifier.input_px), 3), 128, np.uint8)
    predictions = classifier.predict(np.concatenate([noise, grey]))
    assert all(p.card in (UNKNOWN, BACK) for p in predictions)
    unsure = classifier.predict(np.concatenate([noise, grey]),
                                score=np.full(20, classifier.min_back_score - 0.01))
    assert all(p.card == UNKNOWN for p in unsure)


def test_a_frame_of_noise_or_a_bare_table_names_no_card():
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8),
              np.full((720, 1280, 3), 128, np.uint8),
              rng.integers(0, 256, (90, 160, 3), dtype=np.uint8).repeat(8, 0).repeat(8, 1)]
    recognizer = Recognizer()
    assert all(set(recognizer.observe(f).cards) <= {UNKNOWN} for f in frames)


def test_the_report_matches_the_model(classifier):
    assert classifier.classes == REPORT["classes"] and len(classifier.classes) == 54
    assert 0.5 <= classifier.threshold < 1  # faces in clear view are named
    assert classifier.covered_threshold >= classifier.threshold
    assert classifier.back_threshold < 1
    # each suit's own, fitted on the detector's cuts; spades' the strictest (clubs pass for it)
    suits = classifier.suit_thresholds
    assert set(suits) == set("SHDC") and all(0.5 <= t < 1 for t in suits.values())
    assert suits["S"] == max(suits.values()) and min(suits.values()) < classifier.threshold
    # and for sharp faces, where the fit found a sharpness from which they are surer (behind
    # both index experts it found none: no face is sharp, and every one has its suit's)
    sharp = classifier.sharp_suit_thresholds
    if sharp:
        assert 0 < classifier.min_sharpness < 1 and set(sharp) == set("SHDC")
        assert all(0.9 <= t < 1 for t in sharp.values())
        assert sum(sharp.values()) < sum(suits.values())
    else:
        assert classifier.min_sharpness == np.inf and "min_sharpness" not in REPORT
    assert 0 < classifier.min_score < 1 and 0 < classifier.min_back_score < 1


def test_a_face_in_clear_view_needs_its_suits_threshold(monkeypatch):
    # blurred clubs pass for spades: a spade needs a surer reading than a heart
    classifier = CardClassifier()
    monkeypatch.setattr(classifier, "suit_thresholds", {"S": 0.9998, "H": 0.96})
    monkeypatch.setattr(classifier, "threshold", 0.999)
    cards = ["AS", "AH", "AD", "JK"]
    rows = np.zeros((len(cards), len(classifier.classes)), np.float32)
    for i, card in enumerate(cards):
        rows[i, classifier.classes.index(card)] = 0.995
        rows[i, classifier.classes.index(BACK)] = 0.005
    monkeypatch.setattr(classifier, "probabilities", lambda crops: rows[:len(crops)])
    crops = np.zeros((len(cards), *reversed(classifier.input_px), 3), np.uint8)
    named = [p.card for p in classifier.predict(crops)]
    assert named == [UNKNOWN, "AH", UNKNOWN, UNKNOWN]  # D has none of its own: the pooled one
    covered = classifier.predict(crops, clear=np.zeros(len(cards), bool))
    assert all(p.card == UNKNOWN for p in covered)  # out of clear view, the covered threshold
    assert classifier.face_threshold("10H") == 0.96 and classifier.face_threshold("JK") == 0.999


def test_a_photos_faces_need_the_photo_threshold_and_the_photo_experts_read_them(classifier):
    # a phone photo of another deck is not a drawn table: its own experts (which also learnt
    # real corners) and one threshold, chosen on real photographs (training.real_threshold)
    photo = REPORT["photo"]
    assert 0.5 <= classifier.photo_threshold < classifier.face_threshold("9S") < 1
    assert photo["fit"]["split"] == "valid" and photo["fit"]["wrong"] == 0
    assert photo["fit"]["surest_wrong"] < classifier.photo_threshold
    fresh = CardClassifier()
    assert "photo_experts" not in vars(fresh)  # loaded at the first photo, never for video
    assert set(fresh.photo_experts) == set(EXPERTS)
    assert all(fresh.photo_experts[name] is not fresh.experts[name] for name in photo["experts"])
    rows = np.zeros((2, len(classifier.classes)), np.float32)
    between = (classifier.photo_threshold + classifier.face_threshold("9S")) / 2
    for row, card in zip(rows, ("9S", BACK), strict=True):
        row[classifier.classes.index(card)] = between
        row[classifier.classes.index("9C")] = 1 - between
    on_a_table = [p.card for p in classifier.decide(rows)]
    in_a_photo = [p.card for p in classifier.decide(rows, photo=True)]
    assert on_a_table[0] == UNKNOWN and in_a_photo[0] == "9S"
    assert in_a_photo[1] == on_a_table[1]  # a back keeps its own threshold


def test_the_photo_experts_read_a_photos_cards_and_the_tables_experts_a_table_view(classifier):
    result, quads = _cards_in_full_view((1920, 1080))
    sharpness, table = classifier.fine_look(result.image, quads, every_card=True)
    _, photo = classifier.fine_look(result.image, quads, every_card=True, photo=True)
    for name in EXPERTS:
        assert table[name].shape == photo[name].shape
        assert not np.allclose(table[name], photo[name])  # other weights read them
    assert len(sharpness) == len(quads)


def test_a_sharp_face_needs_its_suits_sharp_threshold(monkeypatch):
    # the confident misreadings are of blurred cards: a sharp spade may be named surer
    classifier = CardClassifier()
    monkeypatch.setattr(classifier, "suit_thresholds", {"S": 0.9998, "H": 0.96})
    monkeypatch.setattr(classifier, "sharp_suit_thresholds", {"S": 0.99, "H": 0.95})
    monkeypatch.setattr(classifier, "min_sharpness", 0.3)
    rows = np.zeros((3, len(classifier.classes)), np.float32)
    for i, card in enumerate(["AS", "AS", "AS"]):
        rows[i, classifier.classes.index(card)] = 0.995
        rows[i, classifier.classes.index(BACK)] = 0.005
    named = classifier.decide(rows, sharpness=np.float32([0.1, 0.3, 0.6]))
    assert [p.card for p in named] == [UNKNOWN, "AS", "AS"]
    assert classifier.decide(rows)[2].card == UNKNOWN  # no sharpness given: none is sharp
    covered = classifier.decide(rows, clear=np.zeros(3, bool), sharpness=np.full(3, 0.6))
    assert all(p.card == UNKNOWN for p in covered)  # out of clear view it does not count
    assert classifier.face_threshold("KH", sharp=True) == 0.95


def _cards_in_full_view(size: tuple[int, int]):
    """A rendered scene of the first held-out design, and the quads of its cards in full
    view."""
    scene = random_scene(np.random.default_rng(5), designs=REPORT["held_out_designs"][:1],
                         image_size=size, hand_chance=0.0)
    result = render(scene)
    return result, np.float32([c.quad for c in result.cards if c.visible >= 0.97])


def test_sharpness_falls_with_blur_and_with_a_smaller_card(classifier):
    result, quads = _cards_in_full_view((1920, 1080))
    sharp = classifier.sharpness(result.image, quads)
    blurred = classifier.sharpness(cv2.GaussianBlur(result.image, (0, 0), 2.0), quads)
    assert len(quads) >= 5 and (blurred < 0.8 * sharp).all()
    half = cv2.resize(result.image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    assert np.median(classifier.sharpness(half, quads / 2)) < np.median(sharp)


def test_a_back_needs_its_own_detector_score(monkeypatch):
    # what is no card passes for a back, not a face: a back may need a surer detection
    classifier = CardClassifier()
    monkeypatch.setattr(classifier, "min_score", 0.3)
    monkeypatch.setattr(classifier, "min_back_score", 0.6)
    rows = np.zeros((2, len(classifier.classes)), np.float32)
    rows[0, 0] = rows[1, classifier.classes.index(BACK)] = 1.0
    monkeypatch.setattr(classifier, "probabilities", lambda cards: rows[:len(cards)])
    crops = np.zeros((2, *reversed(classifier.input_px), 3), np.uint8)
    face, back = classifier.predict(crops, score=np.full(2, 0.5))
    assert face.card == classifier.classes[0] and back.card == UNKNOWN and back.best == BACK
    assert [p.card for p in classifier.predict(crops, score=np.full(2, 0.6))] == [
        classifier.classes[0], BACK]


def test_a_face_not_in_clear_view_needs_the_covered_threshold(classifier):
    cards = _scene_cards(REPORT["held_out_designs"][1], (1920, 1080))
    crops = np.stack([classifier.rectify_quads(image, c.quad[None])[0] for image, c in cards])
    clear = classifier.predict(crops, clear=np.ones(len(crops), bool))
    covered = classifier.predict(crops, clear=np.zeros(len(crops), bool))
    faces = [(a, b) for a, b in zip(clear, covered, strict=True) if a.best != BACK]
    assert any(a.card != UNKNOWN for a, _ in faces)
    for a, b in faces:
        assert b.best == a.best and b.confidence == a.confidence
        assert b.card == (a.card if a.confidence >= classifier.covered_threshold else UNKNOWN)


def test_a_face_is_read_at_three_cuts_and_a_back_at_one(classifier):
    result, quads = _cards_in_full_view((1280, 720))
    read = classifier.read_quads(result.image, quads)
    once = classifier.probabilities(classifier.rectify_quads(result.image, quads))
    centres = quads.mean(axis=1, keepdims=True)
    cuts = [once] + [classifier.probabilities(classifier.rectify_quads(
        result.image, centres + (quads - centres) * s)) for s in VIEW_SCALES]
    face = np.array([classifier.classes[k] != BACK for k in once.argmax(axis=1)])
    assert face.any() and (~face).any()
    np.testing.assert_allclose(read[face], np.mean(cuts, axis=0)[face], atol=1e-6)
    np.testing.assert_allclose(read[~face], once[~face], atol=1e-6)
    sharpness, readings = classifier.fine_look(result.image, quads)
    assert [p.card for p in classifier.classify_quads(result.image, list(quads))] == [
        p.card for p in classifier.decide(read, sharpness=sharpness, experts=readings)]


def test_the_detectors_face_up_opinion_is_a_second_expert(classifier):
    cards = _scene_cards(REPORT["held_out_designs"][0], (1920, 1080))
    crops = np.stack([classifier.rectify_quads(image, c.quad[None])[0] for image, c in cards])
    truth = [c.card for _, c in cards]
    alone = classifier.predict(crops)
    face_up = np.float32([c.face_up for _, c in cards])
    agreed = classifier.predict(crops, np.where(face_up, 0.999, 0.001))
    disputed = classifier.predict(crops, np.where(face_up, 0.001, 0.999))
    for a, y, n, t in zip(alone, agreed, disputed, truth, strict=True):
        assert y.card in (UNKNOWN, t)  # two experts that agree are still never wrong
        if a.best == t:  # agreeing makes the right answer surer, disputing less sure
            assert y.best == t and y.confidence >= a.confidence - 1e-6
            assert n.card in (UNKNOWN, t) and n.confidence <= a.confidence + 1e-6
    named = [y.card != UNKNOWN for y in agreed]
    assert sum(named) >= sum(a.card != UNKNOWN for a in alone)


def test_off_clear_view_the_detectors_side_weighs_more(classifier):
    # a card not in clear view is read whole by the classifier, which then sees the card on
    # top; the detector sees what shows, so its face-up opinion counts for more there
    cards = _scene_cards(REPORT["held_out_designs"][2], (1920, 1080))
    crops = np.stack([classifier.rectify_quads(image, c.quad[None])[0] for image, c in cards])
    disputed = np.float32([0.001 if c.face_up else 0.999 for _, c in cards])
    in_view = classifier.predict(crops, disputed, clear=np.ones(len(crops), bool))
    covered = classifier.predict(crops, disputed, clear=np.zeros(len(crops), bool))
    weaker = 0
    for v, c, (_, card) in zip(in_view, covered, cards, strict=True):
        if c.best == card.card:  # the classifier still wins, by less
            assert v.best == card.card and c.confidence <= v.confidence + 1e-9
            weaker += c.confidence < v.confidence - 1e-6
        else:
            weaker += 1
    assert weaker >= len(cards) // 2


def test_what_a_model_with_the_no_card_class_is_sure_of_is_dropped(monkeypatch):
    # no shipped model has the class yet (docs/vision.md, Next 6): the shipped network's
    # outputs are given a NONE column, so the decision is what is tested, not the model
    classifier = CardClassifier()
    classes = [*classifier.classes, NO_CARD]
    rows = np.zeros((4, len(classes)), np.float32)
    rows[0, classes.index(NO_CARD)] = 0.995  # sure it is no card: dropped
    rows[0, classes.index(BACK)] = 0.005
    rows[1, classes.index(NO_CARD)], rows[1, classes.index(BACK)] = 0.7, 0.3  # unsure
    rows[2, classes.index(BACK)] = 1.0
    rows[3, 0] = 1.0
    monkeypatch.setattr(classifier, "classes", classes)
    monkeypatch.setattr(classifier, "no_card_threshold", 0.99)
    monkeypatch.setattr(classifier, "probabilities", lambda cards: rows[:len(cards)])
    crops = np.zeros((4, *reversed(classifier.input_px), 3), np.uint8)
    found = classifier.predict(crops, score=np.ones(4))
    assert [p.card for p in found] == [NO_CARD, UNKNOWN, BACK, classes[0]]
    assert found[1].best == NO_CARD
    # the detector's side opinion leaves "no card" where it was against the side it favours
    down = classifier.predict(crops, face_up=np.full(4, 0.001), score=np.ones(4))
    assert down[0].card == NO_CARD and down[0].confidence == pytest.approx(0.995, abs=1e-3)
    # a model without the class, or not fitted for it, never says no card
    assert CardClassifier().no_card_threshold == np.inf


def test_the_recognizer_leaves_out_what_is_called_no_card(monkeypatch):
    scene = random_scene(np.random.default_rng(3), designs=REPORT["held_out_designs"][:1],
                         image_size=(1280, 720))
    image = render(scene).image
    recognizer = Recognizer()
    assert len(recognizer.observe(image)) >= 10
    original = recognizer.classifier.decide

    def no_cards(probabilities, *args, **kwargs):
        return [Prediction(NO_CARD, 0.999, NO_CARD)
                for _ in original(probabilities, *args, **kwargs)]

    monkeypatch.setattr(recognizer.classifier, "decide", no_cards)
    assert len(recognizer.observe(image)) == 0


def test_the_suit_expert_shares_the_faces_probability_out_anew(classifier):
    # a product of experts among the faces: the suit the expert reads gains, the faces keep
    # their share, and a card it did not see (NaN) stays as the classifier read it
    rows = np.zeros((3, len(classifier.classes)))
    rows[:, classifier.classes.index("AS")] = 0.6
    rows[:, classifier.classes.index("AC")] = 0.3
    rows[:, classifier.classes.index(BACK)] = 0.1
    suits = {"suit": np.array([[0.9, 0.02, 0.02, 0.06], [0.02, 0.02, 0.02, 0.94],
                               [np.nan] * 4])}
    spade, club, unseen = classifier.decide(rows, experts=suits)
    assert spade.best == "AS" and spade.confidence == pytest.approx(0.9 * 0.54 / 0.558)
    assert club.best == "AC" and club.confidence == pytest.approx(0.9 * 0.282 / 0.294)
    assert unseen.best == "AS" and unseen.confidence == pytest.approx(0.6)
    # a blurred card has no fine detail for the expert: the classifier's reading stands
    least = EXPERTS["suit"].min_sharpness
    sharpness = np.float32([least - 0.01, least, 0.9])
    blurred, sharp, _ = classifier.decide(rows, sharpness=sharpness, experts=suits)
    assert blurred.confidence == pytest.approx(0.6)
    assert sharp.best == "AC" and sharp.confidence == pytest.approx(club.confidence)
    backs = np.zeros((1, len(classifier.classes)))
    backs[0, classifier.classes.index(BACK)] = 1.0
    first = {"suit": suits["suit"][:1]}
    assert classifier.decide(backs, experts=first)[0].confidence == pytest.approx(1.0)


def test_the_rank_and_suit_experts_multiply_in_together(classifier):
    # a queen whose art the classifier takes for a king's, whose corner prints a Q: the rank
    # expert's reading and the suit expert's both weigh each face
    rows = np.zeros((1, len(classifier.classes)))
    for card, p in (("KS", 0.6), ("QS", 0.3), ("QC", 0.05), ("JK", 0.05)):
        rows[0, classifier.classes.index(card)] = p
    ranks = np.full((1, len(RANKS)), 0.01)
    ranks[0, RANKS.index("Q")] = 1 - 0.01 * (len(RANKS) - 1)
    suits = np.float64([[0.8, 0.05, 0.05, 0.1]])
    (queen,) = classifier.decide(rows, experts={"rank": ranks, "suit": suits})
    weights = {"KS": 0.6 * 0.01 * 0.8, "QS": 0.3 * 0.88 * 0.8, "QC": 0.05 * 0.88 * 0.1}
    assert queen.best == "QS"
    assert queen.confidence == pytest.approx(0.95 * weights["QS"] / sum(weights.values()))


def test_the_experts_are_asked_only_where_they_could_change_the_answer(classifier):
    # where a back, no card or the joker outweighs the deck's faces together (as the
    # detector's side weighs them), the experts only share the faces' part out anew: the
    # name, the likeliest class and the confidence are the same without their readings
    rng = np.random.default_rng(4)
    n, classes = 2000, len(classifier.classes)
    rows = rng.dirichlet(np.full(classes, 0.05), n)
    rows[: n // 2, classifier.classes.index(BACK)] += rng.uniform(0, 3, n // 2)
    rows /= rows.sum(axis=1, keepdims=True)
    face_up, clear = rng.uniform(0, 1, n), rng.uniform(0, 1, n) < 0.7
    score, sharpness = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    readings = {name: rng.dirichlet(np.full(len(kind.classes), 0.3), n)
                for name, kind in EXPERTS.items()}
    matter = classifier.experts_matter(rows, face_up, clear)
    assert 0.2 < matter.mean() < 0.8
    unasked = {name: np.where(matter[:, None], r, np.nan) for name, r in readings.items()}
    asked = classifier.decide(rows, face_up, clear, score, sharpness, readings)
    alone = classifier.decide(rows, face_up, clear, score, np.where(matter, sharpness, np.nan),
                              unasked)
    assert [(p.card, p.best) for p in asked] == [(p.card, p.best) for p in alone]
    assert [p.confidence for p in asked] == pytest.approx([p.confidence for p in alone],
                                                          rel=1e-9)
    # where they may matter they do: without them some of those cards read otherwise
    plain = classifier.decide(rows, face_up, clear, score, sharpness)
    assert any(a.best != b.best for a, b, m in zip(asked, plain, matter, strict=True) if m)


@pytest.mark.parametrize(("name", "design"), [("suit", REPORT["held_out_designs"][0]),
                                              ("rank", "kde-penguins")])
def test_an_index_expert_reads_held_out_faces(classifier, name, design):
    # the shipped expert, on the index corners of cards of a design it never saw, cut out
    # at twice the classifier's resolution (what `fine_look` gives it); the penguins' courts
    # are what the classifier alone reads as kings, their art being new to it
    assert name in classifier.experts and REPORT[f"{name}_expert"] == f"{name}_expert.onnx"
    kind = EXPERTS[name]
    faces = [(image, c) for image, c in _scene_cards(design, (1920, 1080), wanted=24)
             if c.face_up and c.card != "JK"]
    read = np.concatenate([classifier.fine_look(image, c.quad[None], every_card=True)[1][name]
                           for image, c in faces])
    right = [kind.classes[k] == kind.of_face(c.card)
             for k, (_, c) in zip(read.argmax(axis=1), faces, strict=True)]
    assert len(faces) >= 8 and sum(right) >= 0.9 * len(faces), f"{sum(right)} of {len(faces)}"
    np.testing.assert_allclose(read.sum(axis=1), 1.0, atol=1e-5)


def test_the_rank_expert_reads_blurred_cards_and_the_suit_expert_only_sharp_ones(classifier):
    result, quads = _cards_in_full_view((1920, 1080))
    blurred = cv2.GaussianBlur(result.image, (0, 0), 6)
    for image in (result.image, blurred):
        sharpness, readings = classifier.fine_look(image, quads)
        for name, reading in readings.items():
            np.testing.assert_array_equal(~np.isnan(reading).any(axis=1),
                                          sharpness >= EXPERTS[name].min_sharpness)
    assert (sharpness < EXPERTS["suit"].min_sharpness).all()  # the blurred image's
    assert not np.isnan(readings["rank"]).any()


@pytest.mark.parametrize("name", sorted(EXPERTS))
def test_a_classifier_whose_expert_is_missing_does_not_load(tmp_path, name):
    # its thresholds were fitted behind the expert: without it they would not hold
    model = tmp_path / MODEL.name
    model.write_bytes(MODEL.read_bytes())
    for other in EXPERTS:  # the other experts are there
        for suffix in (".onnx", ".json"):
            shipped = (MODEL.parent / REPORT[f"{other}_expert"]).with_suffix(suffix)
            (tmp_path / shipped.name).write_bytes(shipped.read_bytes())
    model.with_suffix(".json").write_text(json.dumps({**REPORT, f"{name}_expert": "gone.onnx"}))
    with pytest.raises(ModelError, match=f"{name} expert") as error:
        CardClassifier(model)
    assert "\n" not in str(error.value)
