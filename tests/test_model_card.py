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
