"""Train the card detector on rendered table scenes and export it to ONNX.

    pip install -e '.[train]'                                  # PyTorch, CPU build
    python -m training.detect_train --scenes 8000 --epochs 25 --seed 0
                                  # writes models/card_detector.onnx and its .json report
    python -m training.detect_train --init models/card_detector.onnx --lr 6e-4 --seed 1
                                  # continues from the shipped model, on new scenes
    python -m training.detect_train --real /work/data/real_photos_train \
        --init models/photo_detector.pt --out models/photo_detector.onnx ...
                                  # the photo detector: on views of real photographs too
                                  # (training.real_photos; vision.detect.PHOTO_MODEL)

The network and its training are `training.scene_training`'s, on whole frames (targets:
`training.detect_data`). Whole design families are held out as for the classifier
(`training.classifier_train`): the score threshold and the NMS overlap are chosen on the
calibration families, the figures are on the test families, at 720p and 1080p: recall and
precision of cards (a detection is right at IoU ≥ 0.5 of its rotated box with the card's
quad) and how often a fan of markers is counted exactly. Reproducible from the seed.
"""

from __future__ import annotations

import argparse

from vision.detect import LONG_SIDE, MULTIPLE

from .data import MODELS
from .detect_data import MARKER_ROLES, make_detector_data
from .real_photos import make_real_detector_data, training_export
from .scene_training import gmacs, scene_training_arguments, train_on_scenes, write_model


def _real_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--real", type=training_export,
                        help="also train on the `train` photos of this "
                        "export of ../shared/tools/real_photos_train.py (training.real_photos)")
    parser.add_argument("--real-rounds", type=int, default=1,
                        help="views of each kind (whole, close, far) a real photo")


def main() -> None:
    args = scene_training_arguments(
        __doc__.splitlines()[0], MODELS / "card_detector.onnx", scenes=8000,
        scenes_help="training scenes", epochs=25, share_1080=0.25, eval_scenes=200, lr=2e-3,
        lr_help="peak learning rate (lower to continue a run)", more=_real_arguments)
    real = None
    if args.real is not None:
        real = make_real_detector_data(args.real, "train", args.seed, args.real_rounds,
                                       args.workers)
        print(f"{len(real[0])} views of the real photographs of {args.real}")
    model, _, report, test_images = train_on_scenes(make_detector_data, args, real)
    report = {**report, "real_photos": str(args.real) if args.real else None,
              "real_views": 0 if real is None else len(real[0]),
              "real_rounds": args.real_rounds,
              "input_long_side": LONG_SIDE, "pad_multiple": MULTIPLE,
              "gmac_512x288": round(gmacs(model), 3), "marker_roles": list(MARKER_ROLES)}
    write_model(model, report, test_images, args.out)


if __name__ == "__main__":
    main()
