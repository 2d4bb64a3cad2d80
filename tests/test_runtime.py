"""Loading a shipped model: a missing or corrupt file is a one-line ModelError."""

from __future__ import annotations

import pytest

from vision import classify, detect, refine
from vision.runtime import ModelError

MODELS = pytest.mark.parametrize("load, shipped", [
    (classify.CardClassifier, classify.MODEL), (detect.CardDetector, detect.MODEL),
    (refine.CardRefiner, refine.MODEL)], ids=["classifier", "detector", "refiner"])


@MODELS
def test_missing_model_is_a_one_line_error(tmp_path, load, shipped):
    with pytest.raises(ModelError) as error:
        load(tmp_path / "nope.onnx")
    assert "nope.onnx" in str(error.value) and "\n" not in str(error.value)


@MODELS
def test_corrupt_model_is_a_one_line_error(tmp_path, load, shipped):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    bad.with_suffix(".json").write_text(shipped.with_suffix(".json").read_text())
    with pytest.raises(ModelError) as error:
        load(bad)
    assert "bad.onnx" in str(error.value) and "\n" not in str(error.value)
