"""Choose how photographs are read, on real photographs: the classifier report's `photo` section.

    python -m training.real_threshold --real REAL \
        --experts rank=photo_rank_expert.onnx suit=photo_suit_expert.onnx

The thresholds `training.threshold` fits hold the table's answers to fewer than 1 wrong in
1,000 on drawn calibration scenes. A phone photo of another deck is not a drawn table: its
confidences spread otherwise. The section names the index experts that read photos (here
ones that also learnt real photographs' corners: `training.expert_train --real`; files beside
the classifier), and this reads the `valid` photos of the export
`../shared/tools/real_photos_train.py` made, as `recognize` reads a photo (the photo detector
at every zoom, the refiner, the classifier and those experts), with no face threshold;
matches each labelled card to what was found (`labelled_detections`), and takes the smallest
step of GRID above the surest wrong name there. That threshold, and what it does on `valid`,
go into the section, which `vision.classify` reads for photos (`decide(photo=)`).
`python -m bench.real_photos --recognize` on ../shared/data/real_photos_dev, another deck never
looked at here, says whether it holds.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from vision.classify import EXPERTS, UNKNOWN, ModelError
from vision.classify import MODEL as CLASSIFIER
from vision.detect import PHOTO_MODEL

from .real_photos import load, recognized, training_export

# the thresholds to choose from: a few steps, so that one photo's odd card moves it little
GRID = (0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999)


def named_cards(data: Path, split: str, classifier: Path, detector: Path
                ) -> list[tuple[str, float, str]]:
    """(truth, confidence, name) of each labelled card of `split` found and named with any
    confidence (the faces' thresholds at nought; backs and no card as the report holds them)."""
    from vision.pipeline import Recognizer

    recognizer = Recognizer(photo_detector=detector, classifier=classifier)
    recognizer.classifier.photo_threshold = 0.0
    named = []
    for photo in load(data, split):
        image = cv2.imread(str(photo.file))
        if image is None:
            raise OSError(f"{photo.file}: not an image")
        obs, found = recognized(recognizer, photo, image)
        named += [(card.card, float(obs.confidence[d]), str(obs.cards[d]))
                  for card, d in zip(photo.cards, found, strict=True)
                  if d >= 0 and obs.cards[d] != UNKNOWN]
    return named


def choose(named: list[tuple[str, float, str]]) -> tuple[float | None, dict]:
    """The smallest step of GRID above every wrong name's confidence (None where a wrong
    name is surer than every step), and the figures of the answers it lets through:
    answered, wrong, and the surest wrong name's confidence."""
    surest_wrong = max((conf for truth, conf, name in named if name != truth), default=0.0)
    threshold = next((t for t in GRID if t > surest_wrong), None)
    answered = [(truth, name) for truth, conf, name in named
                if threshold is not None and conf >= threshold]
    return threshold, {"answered": len(answered),
                       "wrong": sum(truth != name for truth, name in answered),
                       "named_at_any_confidence": len(named),
                       "surest_wrong": round(surest_wrong, 4)}


def expert_file(value: str) -> tuple[str, str]:
    """An argparse type: NAME=FILE, NAME one of the index experts (`EXPERTS`)."""
    name, _, file = value.partition("=")
    if name not in EXPERTS or not file:
        raise argparse.ArgumentTypeError(f"{value!r}: not NAME=FILE with NAME one of "
                                         f"{', '.join(EXPERTS)}")
    return name, file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=training_export, required=True,
                        help="the export of ../shared/tools/real_photos_train.py (its `valid` "
                        "photos are read)")
    parser.add_argument("--classifier", type=Path, default=CLASSIFIER,
                        help="the classifier whose report gets the threshold")
    parser.add_argument("--detector", type=Path, default=PHOTO_MODEL,
                        help="the detector photos are read with")
    parser.add_argument("--experts", nargs="+", type=expert_file, metavar="NAME=FILE",
                        help="the index experts that read photos, files beside the "
                        "classifier (default: those the section names, else the table's)")
    args = parser.parse_args()
    report_file = args.classifier.with_suffix(".json")
    try:
        as_it_was = report_file.read_text()
        report = json.loads(as_it_was)
    except (OSError, ValueError) as error:
        parser.error(f"{report_file}: not a classifier's report ({error})")
    photo = report.get("photo") or {}
    if args.experts:
        photo["experts"] = dict(args.experts)
    for name, file in photo.get("experts", {}).items():
        if not (args.classifier.parent / file).is_file():
            parser.error(f"the {name} expert {args.classifier.parent / file} does not exist")
    # the recogniser reads its photo experts from the report: the section, to be fitted
    report["photo"] = {"experts": photo.get("experts", {})}
    report_file.write_text(json.dumps(report, indent=2) + "\n")
    try:
        threshold, figures = choose(named_cards(args.real, "valid", args.classifier,
                                                args.detector))
        failure = None if threshold is not None else (
            f"no threshold of {GRID} holds: a wrong name at {figures['surest_wrong']} on "
            "the `valid` photos")
    except (ModelError, OSError) as error:  # a model or a photo that cannot be read
        failure = str(error)
    if failure:
        report_file.write_text(as_it_was)  # the report as it was, not half fitted
        parser.exit(2, f"training.real_threshold: error: {failure}\n")
    report["photo"].update(threshold=threshold, fit={
        "data": args.real.name, "split": "valid", "detector": args.detector.name,
        "grid": list(GRID), **figures})
    report_file.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({"threshold": threshold, **figures}, indent=2))


if __name__ == "__main__":
    main()
