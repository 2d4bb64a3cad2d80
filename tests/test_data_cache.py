"""The trainings' data cache (`models.common.kept`): data made once, read back the same."""

import numpy as np

from models.common import kept


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
