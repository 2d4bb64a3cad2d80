"""Write the model card (models/README.md) from the training reports and a speed measurement.

    python -m training.model_card   # after any of training.classifier_train, detect_train,
                                  # pile_train, refine_train, expert_train

The card is generated so that its figures are always the shipped model's own.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from vision.classify import EXPERTS, NO_CARD, VIEW_SCALES

from .data import MODELS


def _speed(model: Path, input_px: list[int], name: str = "cards",
           cards: int = 20) -> tuple[float, float]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).uniform(0, 255, (cards, 3, input_px[1], input_px[0]))
    x = x.astype(np.float32)
    for _ in range(5):
        session.run(None, {name: x})
    times = []
    for _ in range(50):
        started = time.perf_counter()
        session.run(None, {name: x})
        times.append(time.perf_counter() - started)
    return float(np.median(times) * 1000), float(np.percentile(times, 95) * 1000)


def _row(name: str, figures: dict) -> str:
    return (f"| {name} | {figures['n']} | {figures['top1']:.1%} | {figures['answered']:.1%} "
            f"| {figures['confident_wrong']:.2%} |")


def _cuts(report: dict) -> str:
    cuts = report.get("detector_cuts")
    if not cuts:
        return ""
    t = cuts["thresholds"]
    return f"""
**In the recognizer** the detector's face-up probability is a second expert on the side
(`CardClassifier.decide`), a card read as a face is read at three cuts, the quad and the quad
scaled by {' and '.join(map(str, VIEW_SCALES))}, and the readings averaged
(`CardClassifier.read_quads`), and the thresholds are fitted on what the shipped detector and
refiner cut out of {cuts['scenes']} table scenes of the calibration designs (`python -m
training.threshold`): {t['face']:.4f} for a face in clear view (`vision.detect.in_clear_view`),
{_threshold(t['covered_face'])} for a face partly covered, {t['back']:.4f} for a back; and
no face is named where the detector's score is under {cuts['min_detector_score']}, no back
under {cuts.get('min_back_score', cuts['min_detector_score'])}: the
{cuts['on_no_card']} detections on no card at all (hero cards, hands) count as wrong answers,
and what is no card can read as a back.{_back_cuts(cuts)}{_no_card_cuts(cuts)}{_suit_cuts(cuts)}
On those
{cuts['cards']} cards
found, the best class is right for {cuts['top1']:.1%};
{cuts['answered_face']:.1%} of the {cuts['faces_in_clear_view']} faces in clear view,
{cuts['answered_covered_face']:.1%} of the other faces and {cuts['answered_back']:.1%} of
backs are answered, {cuts['wrong_among_answered']} answer(s) wrong. A card mostly covered
by another is read as the card on top, with confidence (the cards of a pile share an
outline), so a covered face needs a surer reading than any the model gives.
"""


def _back_cuts(cuts: dict) -> str:
    if "backs_named" not in cuts:
        return ""
    return (f" The backs' score and threshold are fitted on {cuts['suit_scenes']} scenes (on"
            " 400, what is no card is too rare to show): they name"
            f" {cuts['backs_named']} backs there, {cuts['backs_wrong']} answer(s) wrong,"
            f" {cuts['backs_on_no_card']} of them on no card.")


def _suit_cuts(cuts: dict) -> str:
    suits = cuts.get("suit_thresholds")
    if not suits:
        return ""
    return (" A face in clear view needs its suit's own threshold, fitted the same way on "
            f"{cuts['suit_scenes']} scenes but counting one wrong answer more than seen where"
            " it goes under the pooled one (blurred clubs pass for spades, and hold back"
            " every heart under one threshold): "
            + ", ".join(f"{suit} {t:.4f}" for suit, t in suits.items())
            + _sharp_cuts(cuts)
            + f"; {cuts['suit_answered']:.1%} of their {cuts['suit_faces_in_clear_view']} faces"
            f" in clear view are answered, {cuts['suit_wrong_among_answered']} wrong.")


def _sharp_cuts(cuts: dict) -> str:
    if cuts.get("min_sharpness") is None:
        return ""
    return (f"; a sharp face (`CardClassifier.sharpness` {cuts['min_sharpness']} or more:"
            f" {cuts['sharp_faces_in_clear_view']} of them; those misreadings are of blurred"
            " cards) has its own: "
            + ", ".join(f"{suit} {t:.4f}" for suit, t in cuts["sharp_suit_thresholds"].items()))


def _no_card_cuts(cuts: dict) -> str:
    if "no_card_threshold" not in cuts:
        return ""
    return (f" What the classifier calls no card at {_threshold(cuts['no_card_threshold'])}"
            f" or more is dropped: {cuts['dropped_on_no_card']} of the detections on no card"
            f" and {cuts['cards_dropped']} card(s); {cuts['named_on_no_card']} on no card"
            " named.")


def _no_card_class(report: dict) -> str:
    if NO_CARD not in report["classes"]:
        return ""
    return (", or as no card at all (`NONE`: what the detector outlined is a hero card, a"
            " hand, the table)")


def _no_card_data(report: dict) -> str:
    figures = report.get("no_card")
    if not report.get("no_card_share") or not figures:
        return ""
    return (f" A share of {report['no_card_share']:.0%} of the samples are no card at all"
            " (`classifier_data.no_card`: a hero card, a phone, a notepad, a coin, a hand, bare"
            " table),"
            f" class `NONE`; on {figures['n']} new ones, {figures['called_no_card']:.1%} are"
            f" called so and {figures['named_a_card']:.1%} named a card or a back.")


def _threshold(value: float) -> str:
    return "never (none keeps 1 in 1000)" if value > 1 else f"{value:.4f}"


def render_card(report: dict, speed: tuple[float, float], size_bytes: int) -> str:
    head = ("| set | samples | top-1 | answered | wrong among answered |\n"
            "| --- | --- | --- | --- | --- |")
    held = "\n".join(_row(name, f) for name, f in report["held_out"].items())
    by_design = "\n".join(_row(name, f) for name, f in report["held_out_by_design"].items())
    confusions = ", ".join(f"{a}→{b} ({n})" for a, b, n in report["confusions"][:10])
    return f"""# Card classifier: model card

`card_classifier.onnx` names a rectified card image (`{report['input_px'][0]} × \
{report['input_px'][1]}` px, BGR, as `vision.rectify` cuts it out of a frame) as one of the 52
cards, the joker (`JK`) or a card back (`BACK`){_no_card_class(report)}, with a calibrated
probability. Below the
threshold the answer is `UNKNOWN`. Run by onnxruntime (`vision.classify.CardClassifier`);
this card is written by `python -m training.model_card` from `card_classifier.json`, the training
report.

**Model.** Two views of the card: the whole card at half resolution and its two index
corners (top-left, and bottom-right turned half round) at full resolution (a card larger
than that is shrunk by area averaging, `vision.rectify.warp_area`), the corners through
shared weights and max-pooled, so a half-turned card reads the same and one covered corner is
not fatal. {size_bytes / 1024:.0f} KB. Temperature {report['temperature']:.3f}; threshold
{report.get('threshold_trained', report['threshold']):.4f} on clean samples (the "answered"
columns below).
{_cuts(report)}{_photo_section(report)}
**Data.** Synthetic{'' if report.get('real_photos') else ' only'} \
(`training/classifier_data.py`): the real card art of Debian's
`gnome-cards-data` and `kdegames-card-data-kf5` (`simulator.cardart`), each card drawn
{_widths(report)} px wide in perspective on a random table, with uneven light (a washed-out
camera, a vivid one), glare, blur, motion blur, noise, JPEG, sometimes another card or a
hand over it, cut out along a slightly wrong outline.{_no_card_data(report)}{_real_data(report)}
{report['train_samples']} synthetic training samples, {report['epochs']} epochs {_where(report)}
({report['train_seconds']} s), seed {report['seed']} (`python -m training.classifier_train --seed
{report['seed']} --train {report['train_samples']} --epochs {report['epochs']}{_init(report)}\
{_real_option(report)}`).
{_earlier(report.get('continued_from'))}
**Designs.** Whole design families are kept apart (a family shares its art under several
names):
- training: {', '.join(report['train_designs'])};
- calibration (temperature and threshold, never trained on): \
{', '.join(report.get('calibration_designs', []))};
- held out for the test: {', '.join(report['held_out_designs'])}.

## Accuracy on held-out designs, by card width in the frame

A card is about 130 px wide in a 1080p view of the table, 85 px at 720p.

{head}
{_row('training designs (validation)', report['held_in_validation'])}
{_row('calibration designs', report['calibration']) if 'calibration' in report else ''}
{held}

## Accuracy per held-out design (card widths {_widths(report)} px)

{head}
{by_design}

**Most frequent confusions** (held out): {confusions}.

## Speed

{speed[0]:.1f} ms median, {speed[1]:.1f} ms p95 for a batch of 20 cards on one CPU core
(onnxruntime, one thread).

## Limits

Trained on synthetic images{' and one real deck' if report.get('real_photos') else ' only'};
the real photographs of `shared/data/real_photos_dev` (another deck, another camera)
measure the gap (`python -m bench.real_photos`) and are never trained on. Court cards are
read from their corner letters, which some designs print differently (B D K, V D R, В Д К).
"""


REAL_CREDIT = ("the Roboflow-100 \"poker-cards\" set (v2, CC BY 4.0, "
               "https://creativecommons.org/licenses/by/4.0/; as kept in the public "
               "repository Quentin0312/poker-cards-yolo and exported by "
               "`../shared/tools/real_photos_train.py`)")


def _real_data(report: dict) -> str:
    real = report.get("real_photos")
    if not real:
        return ""
    valid = real["valid"]
    return f"""
And real photographs: {REAL_CREDIT}, its `train` split (964 phone photos of one
standard deck, 3 to 5 cards each, often overlapping, on tables, sofas and cloths). Each
labelled box is turned into the card's outline (`training.real_photos`: the card-shaped
rectangle that fits the box with its sides on the photo's edges, then the shipped refiner),
and each card whose index corner shows gives {real['per_card']} samples at widths of 35–250 px,
under other light, cut along a slightly wrong outline: {real['train_samples']} samples. Its
`valid` split (cut the same way, one sample a card, never trained on): top-1
{valid['top1']:.1%}, answered {valid['answered']:.1%} at the clean-sample threshold,
{valid['confident_wrong']:.2%} of those wrong. The set's `test` split is never used."""


def _real_option(report: dict) -> str:
    real = report.get("real_photos")
    return f" --real DIR --real-per-card {real['per_card']}" if real else ""


def _raised(report: dict) -> str:
    best = report.get("score_threshold_best_f1")
    if best is None or best == report["score_threshold"]:
        return ""
    return (f" (the best F1 on the calibration designs is at {best}, where the figures below "
            "are taken; raised by hand to keep the precision on drawn tables: `python -m "
            "bench.recognize` gives the figures at it)")


def _real_flag(report: dict) -> str:
    return f" --real DIR --real-rounds {report.get('real_rounds', 1)}" \
        if report.get("real_photos") else ""


def _real_views(report: dict) -> str:
    if not report.get("real_photos"):
        return ""
    rounds = report.get("real_rounds", 1)
    return f""" And {report['real_views']} views of real photographs: {REAL_CREDIT}, its `train`
split, each photo {3 * rounds} times ({rounds} of each kind: whole, turned and placed at
random; a close-up of one of its
cards filling 45–100 % of the frame's height; far off, a card 4–12 % of its width), on a
plain blotchy table (a fifth of the time black, as a shrunk photo is padded) where the photo
does not reach, under other light, sometimes blurred,
taken at 300 px or JPEG-damaged (`training.real_photos.photo_view`). Each card's outline
comes from its labelled box (`training.real_photos.box_quad`, then the shipped refiner),
what shows of it from the stacking order its sides tell (`stacking_order`)."""


def _detector_row(name: str, m: dict) -> str:
    return (f"| {name} | {m['scenes']} | {m['cards']} | {m['recall']:.1%} | {m['precision']:.1%} "
            f"| {m['recall_by_role'].get('minion', 0):.1%} | {m['marker_fans_exact']:.1%} |")


def _init(report: dict) -> str:
    """The options a run took beyond its data, epochs and seed: where it started from, its
    learning rate, and the network's width and the device where not the default."""
    flags = f" --init {report['init']}" if report.get("init") else ""
    flags += f" --lr {report['lr']}"
    if report.get("width", 1.0) != 1.0:
        flags += f" --width {report['width']}"
    if report.get("own_backs"):
        flags += f" --own-backs {report['own_backs']}"
    if report.get("no_card_share"):
        flags += f" --no-card {report['no_card_share']}"
    if report.get("device", "cpu") != "cpu":
        flags += f" --batch {report['batch']} --device {report['device']}"
    return flags


def _widths(report: dict) -> str:
    """The card widths in the frame a run drew (runs before the report kept it: 30–170)."""
    low, high = report.get("width_range", (30, 170))
    return f"{low:.0f}–{high:.0f}"


def _where(report: dict) -> str:
    return "on the CPU" if report.get("device", "cpu") == "cpu" else "on one GPU"


def _earlier(run: dict | None) -> str:
    """The runs a warm-started model continues, oldest last."""
    text = ""
    while run:
        data = (f"{run['scenes']} scenes" if "scenes" in run
                else f"{run['train_samples']} samples")
        if run.get("real_views"):
            data += f" and {run['real_views']} views of real photographs"
        text += (f"It continues a run of {run['epochs']} epochs on {data} "
                 f"(seed {run['seed']}, {run['train_seconds']} s). ")
        run = run.get("continued_from")
    return text


PHOTO_ROLE = """`photo_detector.onnx` is the card detector's network continued on real
photographs as well as drawn tables. It looks at photos of any framing (`deck add`,
`recognize` of a photo that is no table view; `vision.detect.PHOTO_ZOOMS`), where it names
far more cards (`python -m bench.real_photos --recognize`; docs/vision.md, "Real
photographs"); table views and live video keep `card_detector.onnx`, behind which the
classifier's thresholds were fitted and the tracker measured (`python -m bench.track
--camera video`). It finds every card in a frame"""


def _real_figures(report: dict) -> str:
    """The photo detector's figures on real photographs, before and after, if measured."""
    real = report.get("real_figures")
    if not real:
        return ""
    rows = "\n".join(f"| {figure} | `{command}` | {before} | {after} |"
                     for figure, command, before, after in real["rows"])
    return f"""
**On real photographs** (before: {real['before']}; after: {real['after']}; REAL is the
export of `../shared/tools/real_photos_train.py`):

| figure | command | before | after |
| --- | --- | --- | --- |
{rows}
"""


def render_detector(report: dict, photos: bool = False) -> str:
    rows = "\n".join([_detector_row("calibration designs, 720p", report["calibration"])]
                     + [_detector_row(f"held out, {name}", m)
                        for name, m in report["held_out"].items()])
    role = PHOTO_ROLE if photos else "`card_detector.onnx` finds every card in a frame"
    return f"""
# {'Photo' if photos else 'Card'} detector: model card

{role} (`vision.detect.CardDetector`): a
CenterNet-style network on the frame scaled to {report['input_long_side']} px on its long
side, an anchor heatmap every {report['stride']} input px on the visible part of each card
(at the middle of the ridge of its distance transform, `training.detect_data.ridge_middle`;
the runs before seed 4 took any deepest pixel), and at each anchor the whole card's rotated
box and face-up probability; from the run of seed 8 on, at every cell on a card, a vote for
its anchor, so that cells voting for one anchor are one card (`vision.detect.decode`).
{report['parameters']:,} parameters, {report['gmac_512x288']} GMAC at 512 × 288,
{report['onnx_bytes'] / 1024:.0f} KB, {report['onnx']['ms_one_thread']} ms a frame on one
thread. Score threshold {report['score_threshold']}{_raised(report)}, rotated-box NMS at IoU
{report['nms_iou']} (above 1: none; stacked markers overlap).

**Data.** {report['scenes']} rendered table scenes (`simulator.render`, `simulator.layout`;
{report['share_1080']:.0%} at 1080p, the rest 720p; a third of them close-ups that fill the
frame with a few cards).{_real_views(report)} {report['epochs']} epochs {_where(report)}
({report['train_seconds']} s), seed {report['seed']} (`python -m training.detect_train --scenes
{report['scenes']} --epochs {report['epochs']} --seed {report['seed']} --eval \
{report['calibration']['scenes']}{_init(report)}{_real_flag(report)}\
{' --out models/photo_detector.onnx' if photos else ''}`).
{_earlier(report.get('continued_from'))}The same design families as the classifier are held out.

**Figures** (test scenes include close-ups; a detection is right at IoU ≥
{report['match_iou']}; every card with ≥ {report['min_visible']:.0%} showing is a target; the
whole recognizer on table scenes: `python -m bench.recognize`):

| set | scenes | cards | recall | precision | minions found | marker fans counted exactly |
| --- | --- | --- | --- | --- | --- | --- |
{rows}
{_real_figures(report)}"""


def render_piles(report: dict) -> str:
    rows = "\n".join([_detector_row("calibration designs, 720p", report["calibration"])]
                     + [_detector_row(f"held out, {name}", m)
                        for name, m in report["held_out"].items()])
    return f"""
# Pile detector: model card

`pile_detector.onnx` looks again at each pile the card detector finds (boxes overlapping by
{report['crowded_iou']} or more; `vision.piles`, `vision.detect.CardDetector.look_again`): a
{report['input_px']} × {report['input_px']} px crop of the full frame in which a card's short
side is {report['card_px']:.0f} px (about the frame's own pixels at 720p; the card detector
sees it at about 34), given to the card detector's network{_wider(report)}, trained on
such crops. Its
detections in the crop's core ({report['core_margin']} card widths in from the edges) take
the place of the first pass's boxes they overlap. {report['parameters']:,} parameters,
{report['gmac_224x224']} GMAC a crop, {report['onnx_bytes'] / 1024:.0f} KB,
{report['onnx']['ms_one_thread']} ms a crop on one thread. Score threshold
{report['score_threshold']}, rotated-box NMS at IoU {report['nms_iou']}.

**Data.** {report['crops']} crops of {report['scenes']} rendered table scenes
(`training.pile_data`: around each of the three most crowded piles of a scene and one card at
random, with the first pass's jitter in the middle and the card size;
{report['share_1080']:.0%} of the scenes at 1080p, the rest 720p), {report['epochs']} epochs
{_where(report)} ({report['train_seconds']} s), seed {report['seed']}
(`python -m training.pile_train --scenes {report['scenes']} --epochs {report['epochs']}
--seed {report['seed']}{_init(report)}`).
{_earlier(report.get('continued_from'))}The same design families as the classifier are held out.

**Figures** on crops (a card is a target by the part of it inside the crop; the whole
detector on table scenes, first pass and second look together: `python -m bench.recognize`):

| set | crops | cards | recall | precision | minions found | marker fans counted exactly |
| --- | --- | --- | --- | --- | --- | --- |
{rows}
"""


def _wider(report: dict) -> str:
    width = report.get("width", 1.0)
    return f" with {width:g} times its channels" if width != 1.0 else ""


def render_refiner(report: dict, speed: tuple[float, float]) -> str:
    held = report["held_out"]
    names = [name for name in held if isinstance(held[name], dict)]
    rows = "\n".join(
        f"| {name} | {m['corner_error_median']:.3f} | {m['corner_error_p90']:.3f} "
        f"| {m['iou_median']:.3f} | {m['iou_p10']:.3f} | {m['full_view_faces_top1']:.1%} |"
        for name, m in ((n, held[n]) for n in names))
    return f"""
# Card refiner: model card

`card_refiner.onnx` puts each card's corners where they are (`vision.refine.CardRefiner`):
the detector's quad grown {report['margin']}× is cut out of the full frame at
{report['crop_px'][0]} × {report['crop_px'][1]} px, and a small CNN regresses the four
corners' offsets from the detected ones, in card widths; {report['passes']} passes at run
time. {report['parameters']:,} parameters, {report['onnx_bytes'] / 1024:.0f} KB, 20 cards in
{speed[0]:.1f} ms (median; p95 {speed[1]:.1f} ms) a pass on one thread.

**Data.** {report['samples']:,} cut-outs from {report['scenes']} rendered table scenes of the
training designs: around the shipped detector's own quads (the errors it must undo), and as
many around the true outline moved at random ({report['jitter'][0]}–{report['jitter'][1]}
card widths a corner, for a second pass). {report['epochs']} epochs on the CPU
({report['train_seconds']} s), seed {report['seed']} (`python -m training.refine_train
--scenes {report['scenes']} --epochs {report['epochs']} --seed {report['seed']}`).

**Figures** on {held['cards']} cards found in table scenes of the held-out designs (corner
error: a corner's mean distance from the true one, in card widths; top-1: the classifier's
best class on the {held['full_view_faces']} face-up cards in full view, read through each
outline):

| outline | corner error, median | p90 | IoU with the card, median | p10 | top-1 |
| --- | --- | --- | --- | --- | --- |
{rows}
"""


def render_corner_check(report: dict, speed: tuple[float, float]) -> str:
    test, fit = report["test"], report["fit"]
    return f"""
# Corner check: model card

`corner_check.onnx` says whether an index corner of a card not in clear view shows, unhidden
(`vision.corners`): each corner is cut out with a margin of table around it at
{report['patch_px'][0]} × {report['patch_px'][1]} px, the bottom-right one turned half round,
and a small CNN gives the probability that it is the card's own. A covered face is then read
by the index experts from that corner alone and named where the corner shows from
{report['visible']} and the experts are sure from {_threshold(report['threshold'])}; two
corners that show and disagree name nothing, nor does a corner that reads a card named
elsewhere in the frame or claimed by another covered card (a deck has each card once: it is
that card's corner lying over this one). {report['onnx_bytes'] / 1024:.0f} KB, 20 corners
in {speed[0]:.1f} ms (median; p95 {speed[1]:.1f} ms) on one thread.

**Data.** The covered faces the shipped recogniser found in {report['train_scenes']:,}
rendered table scenes of the training designs, as the table is read:
{report['train_corners']:,} corners whose share that is the card's own in the renderer's owner
map is 0.9 or more (shows) or under 0.6 (hidden). {report['epochs']} epochs on the CPU
({report['train_seconds']} s; the data {report['data_seconds']} s), seed {report['seed']}
(`python -m training.corner_train --scenes {report['train_scenes']} --fit-scenes
{fit['scenes']} --test-scenes {test['scenes']} --seed {report['seed']}`). The thresholds name
the most covered faces with none wrong on {fit['scenes']} scenes of the calibration designs
({fit['named']} of {fit['covered_faces']}).

**Figures** on {test['scenes']} scenes of the held-out designs: of {test['covered_faces']}
covered faces found, {test['with_a_corner_that_shows']} show a corner, {test['named']} are
named from one, {test['named_wrong']} wrong; the check is right on
{test['corner_accuracy']:.1%} of the corners it was taught on. Without it the table names no
covered face (its classifier's threshold for them is over 1).
"""


def _expert_cards(classifier: dict) -> str:
    """The cards of the index experts the classifier's report names, if any: the table's,
    then the photos' (its `photo` section)."""
    cards = []
    photo = (classifier.get("photo") or {}).get("experts", {})
    for names, photos in (({n: classifier.get(f"{n}_expert") for n in EXPERTS}, False),
                          (photo, True)):
        for name in EXPERTS:
            if names.get(name):
                expert = MODELS / names[name]
                report = json.loads(expert.with_suffix(".json").read_text())
                cards.append(render_expert(name, report, _speed(expert, report["input_px"]),
                                           photos))
    return "".join(cards)


def _photo_section(report: dict) -> str:
    """How the classifier reads photographs of any framing (its report's `photo` section)."""
    photo = report.get("photo")
    if not photo or "threshold" not in photo:
        return ""
    fit = photo["fit"]
    experts = ", ".join(f"`{file}`" for file in photo.get("experts", {}).values()) or \
        "the table's"
    rows = "\n".join(f"| {figure} | `{command}` | {before} | {after} |"
                      for figure, command, before, after in photo.get("figures", []))
    table = (f"""
Before ({photo.get('figures_before', 'before')}) → after, REAL the export of
`../shared/tools/real_photos_train.py`:

| figure | command | before | after |
| --- | --- | --- | --- |
{rows}
""" if rows else "")
    return f"""
**Photographs.** A photo of any framing (`deck add`, `recognize` of a photo that is no table
view) is not a drawn table: its cards are read by index experts that also learnt real
photographs' corners ({experts}), and a face is named from a confidence of
{photo['threshold']} (`python -m training.real_threshold --real REAL`): the smallest step of
{fit['grid']} above the surest wrong name on the `valid` photos of {fit['data']}, read through
`{fit['detector']}` ({fit['surest_wrong']}; there {fit['answered']} of the
{fit['named_at_any_confidence']} cards named at any confidence are answered, {fit['wrong']}
wrong). Table views and video keep the thresholds above.
{table}"""


# why each expert is there
_EXPERT_WHY = {
    "suit": "at the classifier's own a suit sign is a few pixels tall, and a blurred club "
            "passes for a spade",
    "rank": "at the classifier's own a court's letter is a few pixels tall, and a queen "
            "whose art the classifier has not seen passes for a king though her corner "
            "prints a Q",
}


# which faces an expert reads (`vision.classify.EXPERTS`), and why
_EXPERT_WHEN = {
    "suit": f" with a sharpness of {EXPERTS['suit'].min_sharpness} or more (on a blurred card "
            "there is no detail for it, and it reads the calibration designs' blurred clubs "
            "as spades as surely as the classifier)",
    "rank": ", blurred ones too (a rank's letters and figures outlast blur)",
}


def _photo_expert_data(name: str, report: dict) -> str:
    """What a photo expert learnt beyond the table's, and its figure on real photos."""
    real = report["real_photos"]
    return (f". It continues `{Path(report['init']).name}` with the index corners of the "
            f"real photographs' cards as well: {real['train_samples']} pairs, {real['per_card']} "
            f"cuts of each card of the `train` photos of {REAL_CREDIT} whose index shows, cut "
            f"along the outlines `{Path(real['detector']).name}` finds "
            f"(`python -m training.expert_train --reads {name} --init {report['init']} "
            f"--train {report['train_samples']} --epochs {report['epochs']} --lr {report['lr']} "
            f"--real REAL --out models/photo_{name}_expert.onnx`). On the real `valid` "
            f"photos (never trained on) it reads {real['valid']['top1']:.1%} of "
            f"{real['valid']['n']} cards' {name}s.")


def render_expert(name: str, report: dict, speed: tuple[float, float],
                  photos: bool = False) -> str:
    def confusions(m: dict) -> str:
        return ", ".join(f"{k} ({v})" for k, v in list(m["confused"].items())[:12]) or "none"

    rows = "\n".join(f"| {width} | {m['n']} | {m['top1']:.1%} | {confusions(m)} |"
                     for width, m in report["held_out"].items())
    relettered = report.get("relettered", 0.0)
    letters = (f" {relettered:.0%} of the courts and aces have their index redrawn with "
               "another deck's letter (V, B or F for the jack, D, R, 1 for the ace) or none "
               "at all (`training.classifier_data.reletter`), labelled with their own rank."
               if relettered else "")
    title, file = (f"Photo {name}", f"photo_{name}_expert") if photos else (
        name.capitalize(), f"{name}_expert")
    role = ("a photo's cards (the classifier report's `photo` section; table views and "
            "video keep the table's expert)" if photos else "the table's cards")
    fitted = ("the photo threshold is chosen" if photos
              else "the classifier's thresholds are fitted")
    made = _photo_expert_data(name, report) if photos else (
        f"\n(`python -m training.expert_train --reads {name} --seed {report['seed']} --train\n"
        f"{report['train_samples']} --epochs {report['epochs']}`).")
    return f"""
# {title} expert: model card

`{file}.onnx` reads {role}: a face's {name} from its two index corners
({report['corner_px'][0]} × {report['corner_px'][1]} px each) of the card cut out at
{report['input_px'][0]} × {report['input_px'][1]} px, twice the classifier's resolution
(`training.expert_train`): {_EXPERT_WHY[name]}. The recognizer multiplies its opinion into the
classifier's for the faces in clear view{_EXPERT_WHEN[name]}
(`vision.classify.CardClassifier.decide`), and {fitted} behind it.
{report["onnx_bytes"] / 1024:.0f} KB, 20 cards
in {speed[0]:.1f} ms (median; p95 {speed[1]:.1f} ms) on one thread. Temperature
{report['temperature']:.3f}.

**Data.** {report['train_samples']} faces of the training designs as
`training.classifier_data` draws them for the classifier.{letters} {report['epochs']} epochs on
the CPU ({report['train_seconds']} s), seed {report['seed']}{made} The same design families as the
classifier are held out.

**Figures** on held-out designs, by card width in the frame (calibration designs:
{report['calibration']['top1']:.1%}):

| width | samples | top-1 | confusions (most first) |
| --- | --- | --- | --- |
{rows}
"""


def _corner_card() -> str:
    model = MODELS / "corner_check.onnx"
    report = json.loads(model.with_suffix(".json").read_text())
    return render_corner_check(report, _speed(model, report["patch_px"], "patches"))


def main() -> None:
    model = MODELS / "card_classifier.onnx"
    report = json.loads(model.with_suffix(".json").read_text())
    speed = _speed(model, report["input_px"])
    detector = json.loads((MODELS / "card_detector.json").read_text())
    refiner = MODELS / "card_refiner.onnx"
    refiner_report = json.loads(refiner.with_suffix(".json").read_text())
    (MODELS / "README.md").write_text(
        render_card(report, speed, model.stat().st_size) + render_detector(detector)
        + render_detector(json.loads((MODELS / "photo_detector.json").read_text()), True)
        + render_piles(json.loads((MODELS / "pile_detector.json").read_text()))
        + render_refiner(refiner_report, _speed(refiner, refiner_report["crop_px"], "cuts"))
        + _expert_cards(report) + _corner_card())
    print(f"wrote {MODELS / 'README.md'}")


if __name__ == "__main__":
    main()
