"""The model card (`training.model_card`) tells what the shipped reports hold."""

from __future__ import annotations

import json

from training.model_card import _expert_cards, _photo_section
from vision.classify import MODEL

REPORT = json.loads(MODEL.with_suffix(".json").read_text())


def test_the_card_says_how_photos_are_read_and_how_the_threshold_was_chosen():
    text = _photo_section(REPORT)
    assert f"confidence of\n{REPORT['photo']['threshold']}" in text
    assert "python -m training.real_threshold --real REAL" in text
    for file in REPORT["photo"]["experts"].values():
        assert f"`{file}`" in text
    for figure, command, before, after in REPORT["photo"]["figures"]:
        assert f"| {figure} | `{command}` | {before} | {after} |" in text
    assert _photo_section({**REPORT, "photo": {"experts": {}}}) == ""  # not fitted: nothing


def test_each_photo_expert_has_a_card_with_its_command_and_its_real_figure():
    cards = _expert_cards(REPORT)
    for name, file in REPORT["photo"]["experts"].items():
        expert = json.loads((MODEL.parent / file).with_suffix(".json").read_text())
        assert f"# Photo {name} expert: model card" in cards
        assert f"--reads {name} --init {expert['init']}" in cards
        assert f"--out models/{file}`" in cards
        assert f"{expert['real_photos']['valid']['top1']:.1%}" in cards
    assert cards.index("# Suit expert") < cards.index("# Photo suit expert")


def test_the_corner_check_has_a_card_with_its_thresholds_command_and_figures():
    from training.model_card import render_corner_check
    from vision.corners import MODEL as CORNERS

    report = json.loads(CORNERS.with_suffix(".json").read_text())
    text = " ".join(render_corner_check(report, (3.0, 3.2)).split())
    assert "# Corner check: model card" in text
    assert f"shows from {report['visible']}" in text
    assert (f"--scenes {report['train_scenes']} --fit-scenes {report['fit']['scenes']} "
            f"--test-scenes {report['test']['scenes']}") in text
    test = report["test"]
    assert (f"of {test['covered_faces']} covered faces found, "
            f"{test['with_a_corner_that_shows']} show a corner, {test['named']} are named "
            f"from one, {test['named_wrong']} wrong") in text
