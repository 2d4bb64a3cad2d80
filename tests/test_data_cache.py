"""The trainings' data cache (`training.data.kept`): data made once, read back the same."""

import numpy as np

from training.data import code_version, kept


def test_data_is_made_once_and_read_back_the_same(tmp_path):
    made = []

    def make() -> dict[str, np.ndarray]:
        made.append(1)
        rng = np.random.default_rng(len(made))
        return {"images": rng.integers(0, 256, (5, 4, 3, 3), dtype=np.uint8),
                "labels": rng.integers(0, 54, 5)}

    first = kept(tmp_path, "cards", [0, ["paris"], 5], make)
    again = kept(tmp_path, "cards", [0, ["paris"], 5], make)
    assert len(made) == 1
    assert first.keys() == again.keys()
    for name in first:
        assert np.array_equal(first[name], again[name])
        assert first[name].dtype == again[name].dtype
    assert [p.name.count(".") for p in tmp_path.iterdir()] == [1]  # no partial file left


def test_other_arguments_make_other_data(tmp_path):
    made = []

    def make() -> dict[str, np.ndarray]:
        made.append(1)
        return {"labels": np.full(3, len(made))}

    one = kept(tmp_path, "cards", [0, ["paris"], 3], make)
    other = kept(tmp_path, "cards", [1, ["paris"], 3], make)
    assert len(made) == 2 and not np.array_equal(one["labels"], other["labels"])
    assert len(list(tmp_path.iterdir())) == 2


def test_without_a_cache_nothing_is_kept(tmp_path):
    made = []
    for _ in range(2):
        kept(None, "cards", [0], lambda: made.append(1) or {"labels": np.zeros(1)})
    assert len(made) == 2


def test_the_code_version_changes_with_the_renderer_the_card_ids_or_a_shipped_network(tmp_path):
    for folder, name in (("simulator", "layout.py"), ("cards", "__init__.py"),
                         ("training", "classifier_data.py"),
                         ("models", "card_detector.onnx")):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / name).write_bytes(b"one")
    before = code_version(tmp_path)
    assert code_version(tmp_path) == before
    for folder, name in (("simulator", "layout.py"), ("cards", "__init__.py"),
                         ("training", "classifier_data.py"), ("models", "card_detector.onnx")):
        (tmp_path / folder / name).write_bytes(b"two")
        assert code_version(tmp_path) != before
        before = code_version(tmp_path)
    (tmp_path / "models" / "README.md").write_text("notes")  # not what data is made with
    assert code_version(tmp_path) == before
