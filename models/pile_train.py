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
import json
import time

import numpy as np

from vision.camera import FRAME_SIZES
from vision.detect import CHANNELS, STRIDE
from vision.piles import CARD_PX, CORE_MARGIN, CROWDED_IOU, INPUT_PX

from .common import (
    CALIBRATION_FAMILIES,
    HELD_OUT_FAMILIES,
    earlier_run,
    load_weights,
    run_arguments,
    save_weights,
    start_training,
)
from .detect_data import MIN_VISIBLE
from .detect_train import (
    MATCH_IOU,
    MODELS,
    Scored,
    build_model,
    check_onnx,
    export,
    gmacs,
    outputs,
    pick_thresholds,
    train,
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
    run_arguments(parser, MODELS / "pile_detector.onnx")
    args = parser.parse_args()
    train_designs, calibration_designs, held_designs = start_training(args)
    n1080 = round(args.scenes * args.share_1080)
    parts = [make_pile_data(args.seed, train_designs, args.scenes - n1080, FRAME_SIZES["720p"],
                            args.workers)]
    if n1080:
        parts.append(make_pile_data(args.seed + 5, train_designs, n1080, FRAME_SIZES["1080p"],
                                    args.workers))
    images = np.concatenate([p[0] for p in parts])
    targets = {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]}
    del parts
    model = build_model()
    load_weights(model, args.init)
    started = time.perf_counter()
    train(model, images, targets, args.epochs, args.seed, args.lr,
          warm_start=args.init is not None)
    train_seconds = time.perf_counter() - started
    crops = len(images)
    del images, targets

    cal_images, cal_targets = make_pile_data(args.seed + 1, calibration_designs, args.eval,
                                             FRAME_SIZES["720p"], args.workers)
    calibration = Scored.from_outputs(*outputs(model, cal_images), cal_targets)
    threshold, nms_iou = pick_thresholds(calibration)
    report: dict = {
        "seed": args.seed, "scenes": args.scenes, "crops": crops, "share_1080": args.share_1080,
        "epochs": args.epochs, "train_seconds": round(train_seconds), "lr": args.lr,
        "init": str(args.init) if args.init else None,
        "continued_from": earlier_run(args.init),
        "input_px": INPUT_PX, "card_px": CARD_PX, "core_margin": CORE_MARGIN,
        "crowded_iou": CROWDED_IOU, "stride": STRIDE, "channels": list(CHANNELS),
        "min_visible": MIN_VISIBLE, "match_iou": MATCH_IOU,
        "score_threshold": threshold, "nms_iou": nms_iou,
        "gmac_224x224": round(gmacs(model, (INPUT_PX, INPUT_PX)), 3),
        "parameters": sum(p.numel() for p in model.parameters()),
        "train_designs": train_designs, "calibration_designs": calibration_designs,
        "held_out_designs": held_designs, "held_out_families": list(HELD_OUT_FAMILIES),
        "calibration_families": list(CALIBRATION_FAMILIES),
        "calibration": calibration.metrics(threshold, nms_iou), "held_out": {}}
    for k, (name, size) in enumerate(FRAME_SIZES.items()):
        test_images, test_targets = make_pile_data(args.seed + 2 + k, held_designs,
                                                   args.eval, size, args.workers)
        report["held_out"][name] = Scored.from_outputs(
            *outputs(model, test_images), test_targets).metrics(threshold, nms_iou)
    export(model, args.out)
    save_weights(model, args.out)
    report["onnx"] = check_onnx(model, args.out, test_images)
    report["onnx_bytes"] = args.out.stat().st_size
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: report[k] for k in ("score_threshold", "nms_iou", "calibration",
                                             "held_out", "onnx")}, indent=2))


if __name__ == "__main__":
    main()
