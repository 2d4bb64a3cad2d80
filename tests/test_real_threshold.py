"""Choosing the abstention for photographs (`training.real_threshold`): its rule and its errors."""

from __future__ import annotations

import argparse

import pytest

from training.real_threshold import GRID, choose, expert_file


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
