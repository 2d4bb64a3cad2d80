"""Choosing the abstention for photographs (`training.real_threshold`): its rule and its errors."""

from __future__ import annotations

import argparse
import sys

import pytest

from training.real_threshold import GRID, choose, expert_file, main
from vision.classify import MODEL


def test_the_threshold_is_the_smallest_step_above_the_surest_wrong_name():
    named = [("AS", 0.999, "AS"), ("2H", 0.93, "2H"), ("QD", 0.904, "QC"), ("7S", 0.6, "7C")]
    threshold, figures = choose(named)
    assert threshold == 0.95  # 0.9 would let the confident QC through
    assert figures == {"answered": 1, "wrong": 0, "named_at_any_confidence": 4,
                       "surest_wrong": 0.904}


def test_with_no_wrong_name_the_lowest_step_and_with_one_surer_than_every_step_none():
    assert choose([("AS", 0.97, "AS")])[0] == GRID[0]
    threshold, figures = choose([("AS", 0.99999, "AC"), ("2S", 0.99999, "2S")])
    assert threshold is None and figures["answered"] == 0 and figures["surest_wrong"] == 1.0
    assert choose([]) == (GRID[0], {"answered": 0, "wrong": 0, "named_at_any_confidence": 0,
                                    "surest_wrong": 0.0})


@pytest.mark.parametrize("value", ["rank", "colour=x.onnx", "suit=", "=x.onnx"])
def test_an_expert_is_name_equals_file_or_one_line_naming_why(value):
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        expert_file(value)
    assert "NAME=FILE" in str(refused.value) and "\n" not in str(refused.value)
    assert expert_file("rank=photo_rank_expert.onnx") == ("rank", "photo_rank_expert.onnx")


def test_a_photo_that_cannot_be_read_is_one_line_and_leaves_the_report_as_it_was(
        tmp_path, monkeypatch, capsys):
    export = tmp_path / "export"
    (export / "images").mkdir(parents=True)
    (export / "labels.csv").write_text("file,rank,suit,x1,y1,x2,y2,split\n"
                                       "images/a.jpg,A,S,1,2,30,40,train\n"
                                       "images/b.jpg,2,H,5,6,70,80,valid\n")
    (export / "images" / "b.jpg").write_bytes(b"not a jpeg")
    models = tmp_path / "models"
    models.mkdir()
    for file in MODEL.parent.glob("*"):
        if file.suffix in (".onnx", ".json") and ("classifier" in file.name
                                                   or "expert" in file.name):
            (models / file.name).write_bytes(file.read_bytes())
    report = models / "card_classifier.json"
    as_it_was = report.read_text()
    monkeypatch.setattr(sys, "argv", ["real_threshold", "--real", str(export), "--classifier",
                                      str(models / "card_classifier.onnx")])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "b.jpg: not an image" in error
    assert report.read_text() == as_it_was
