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

from vision.detect import CHANNELS, STRIDE
from vision.piles import CARD_PX, CORE_MARGIN, CROWDED_IOU, INPUT_PX

from .common import (
    CALIBRATION_FAMILIES,
    HELD_OUT_FAMILIES,
    earlier_run,
    run_arguments,
    start_training,
)
from .detect_data import MIN_VISIBLE
from .detect_train import MATCH_IOU, MODELS, calibrate_and_test, fit, gmacs, write_model
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
    run_arguments(parser, MODELS / "pile_detector.onnx")
    args = parser.parse_args()
    train_designs, calibration_designs, held_designs = start_training(args)
    model, train_seconds, crops = fit(make_pile_data, args, train_designs)
    figures = calibrate_and_test(make_pile_data, model, args, calibration_designs,
                                 held_designs)
    test_images = figures.pop("test_images")
    report: dict = {
        "seed": args.seed, "scenes": args.scenes, "crops": crops, "share_1080": args.share_1080,
        "epochs": args.epochs, "train_seconds": round(train_seconds), "lr": args.lr,
        "init": str(args.init) if args.init else None,
        "continued_from": earlier_run(args.init),
        "input_px": INPUT_PX, "card_px": CARD_PX, "core_margin": CORE_MARGIN,
        "crowded_iou": CROWDED_IOU, "stride": STRIDE, "channels": list(CHANNELS),
        "min_visible": MIN_VISIBLE, "match_iou": MATCH_IOU,
        "score_threshold": figures["score_threshold"], "nms_iou": figures["nms_iou"],
        "gmac_224x224": round(gmacs(model, (INPUT_PX, INPUT_PX)), 3),
        "parameters": sum(p.numel() for p in model.parameters()),
        "train_designs": train_designs, "calibration_designs": calibration_designs,
        "held_out_designs": held_designs, "held_out_families": list(HELD_OUT_FAMILIES),
        "calibration_families": list(CALIBRATION_FAMILIES),
        "calibration": figures["calibration"], "held_out": figures["held_out"]}
    write_model(model, report, test_images, args.out)


if __name__ == "__main__":
    main()
