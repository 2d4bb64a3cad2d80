"""Train the pile network (`vision.piles`) on crops of rendered table scenes; export ONNX.

    pip install -e '.[train]'
    python -m training.pile_train --scenes 5000 --epochs 8 --init models/card_detector.pt
                                  # writes models/pile_detector.onnx and its .json report

The detector's network and targets (`training.scene_training`, `training.detect_data`) on square
crops around piles (`training.pile_data`), where a card's short side is `vision.piles.CARD_PX`
px: about the frame's own pixels at 720p, two and a half times what the detector sees. It
starts from the detector's weights. Designs are split as for the detector: the score
threshold and NMS overlap are chosen on crops of the calibration families, the figures are
on crops of the held-out families at 720p and 1080p. Reproducible from the seed.
"""

from __future__ import annotations

from vision.piles import CARD_PX, CORE_MARGIN, CROWDED_IOU, INPUT_PX

from .data import MODELS
from .pile_data import make_pile_data
from .scene_training import gmacs, scene_training_arguments, train_on_scenes, write_model


def main() -> None:
    args = scene_training_arguments(
        __doc__.splitlines()[0], MODELS / "pile_detector.onnx", scenes=5000,
        scenes_help="training scenes (about four crops each)", epochs=8, share_1080=0.4,
        eval_scenes=150, lr=6e-4, lr_help="peak learning rate")
    model, crops, report, test_images = train_on_scenes(make_pile_data, args)
    report = {**report, "crops": crops, "input_px": INPUT_PX, "card_px": CARD_PX,
              "core_margin": CORE_MARGIN, "crowded_iou": CROWDED_IOU,
              "gmac_224x224": round(gmacs(model, (INPUT_PX, INPUT_PX)), 3)}
    write_model(model, report, test_images, args.out)


if __name__ == "__main__":
    main()
