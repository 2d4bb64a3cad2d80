"""Train the card detector on rendered table scenes and export it to ONNX.

    pip install -e '.[train]'                                  # PyTorch, CPU build
    python -m training.detect_train --scenes 8000 --epochs 25 --seed 0
                                  # writes models/card_detector.onnx and its .json report
    python -m training.detect_train --init models/card_detector.onnx --lr 6e-4 --seed 1
                                  # continues from the shipped model, on new scenes

The network and its training are `training.scene_training`'s, on whole frames (targets:
`training.detect_data`). Whole design families are held out as for the classifier
(`training.classifier_train`): the score threshold and the NMS overlap are chosen on the
calibration families, the figures are on the test families, at 720p and 1080p: recall and
precision of cards (a detection is right at IoU ≥ 0.5 of its rotated box with the card's
quad) and how often a fan of markers is counted exactly. Reproducible from the seed.
"""

from __future__ import annotations

from vision.detect import LONG_SIDE, MULTIPLE

from .data import MODELS
from .detect_data import MARKER_ROLES, make_detector_data
from .scene_training import gmacs, scene_training_arguments, train_on_scenes, write_model


def main() -> None:
    args = scene_training_arguments(
        __doc__.splitlines()[0], MODELS / "card_detector.onnx", scenes=8000,
        scenes_help="training scenes", epochs=25, share_1080=0.25, eval_scenes=200, lr=2e-3,
        lr_help="peak learning rate (lower to continue a run)")
    model, _, report, test_images = train_on_scenes(make_detector_data, args)
    report = {**report, "input_long_side": LONG_SIDE, "pad_multiple": MULTIPLE,
              "gmac_512x288": round(gmacs(model), 3), "marker_roles": list(MARKER_ROLES)}
    write_model(model, report, test_images, args.out)


if __name__ == "__main__":
    main()
