"""Train the pile network (`vision.piles`) on crops of rendered table scenes; export ONNX.

    pip install -e '.[train]'
    python -m models.pile_train --scenes 5000 --epochs 8 --init models/card_detector.pt
                                  # writes models/pile_detector.onnx and its .json report

The detector's network and targets (`models.detect_train`, `models.detect_data`) on square
crops around piles (`models.pile_data`), where a card's short side is `vision.piles.CARD_PX`
px: about the frame's own pixels at 720p, two and a half times what the detector sees. It
starts from the detector's weights. Designs are split as for the detector: the score
threshold and NMS overlap are chosen on crops of the calibration families, the figures are
on crops of the held-out families at 720p and 1080p. Reproducible from the seed.
"""

from __future__ import annotations

import argparse

from vision.piles import CARD_PX, CORE_MARGIN, CROWDED_IOU, INPUT_PX

from .common import own_backs_argument, run_arguments, start_training, width_argument
from .detect_train import (
    BATCH,
    MODELS,
    calibrate_and_test,
    fit,
    gmacs,
    run_report,
    write_model,
)
from .pile_data import make_pile_data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=5000, help="training scenes (about four "
                        "crops each)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--share-1080", type=float, default=0.4,
                        help="share of the training scenes rendered at 1080p (rest 720p)")
    parser.add_argument("--eval", type=int, default=150, help="scenes a test set")
    parser.add_argument("--lr", type=float, default=6e-4, help="peak learning rate")
    width_argument(parser)
    own_backs_argument(parser)
    run_arguments(parser, MODELS / "pile_detector.onnx", BATCH)
    args = parser.parse_args()
    designs = start_training(args)  # training, calibration, held out
    model, train_seconds, crops = fit(make_pile_data, args, designs[0])
    figures = calibrate_and_test(make_pile_data, model, args, *designs[1:])
    test_images = figures.pop("test_images")
    report = {**run_report(args, model, train_seconds, figures, designs),
              "crops": crops, "input_px": INPUT_PX, "card_px": CARD_PX,
              "core_margin": CORE_MARGIN, "crowded_iou": CROWDED_IOU,
              "gmac_224x224": round(gmacs(model, (INPUT_PX, INPUT_PX)), 3)}
    write_model(model, report, test_images, args.out)


if __name__ == "__main__":
    main()
