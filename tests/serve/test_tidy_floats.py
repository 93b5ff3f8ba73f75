"""Computed numbers are sent with fifteen significant digits: binary noise gone, nothing a price
or a cost can mean changed, NaN as null."""

import math

import numpy as np
import pytest

from serve.respond import tidy, tidy_columns, tidy_float, tidy_floats


@pytest.mark.parametrize(("value", "tidied"), [
    (0.1 + 0.2, 0.3),
    (0.053399999999999996, 0.0534),
    (1.1 * 3, 3.3),  # 3.3000000000000003
    (9.999999999999999e14, 1e15),
    (1 / 3, 0.333333333333333),
    (2 / 3, 0.666666666666667),  # the fifteenth digit rounded up
    (1e-9, 1e-9),
    (5e-324, 5e-324),
    (0.0, 0.0),
])
def test_fifteen_significant_digits(value, tidied):
    assert tidy_float(value) == tidied
    assert tidy_float(-value) == -tidied


def test_a_column_is_tidied_as_each_of_its_numbers_and_nan_is_null():
    assert tidy_floats(np.array([0.1 + 0.2, np.nan, np.inf, -np.inf, 2.0])) == [0.3, None, math.inf, -math.inf, 2.0]
    assert tidy_columns({"a": [0.1 + 0.2], "b": [1 / 3]}) == {"a": [0.3], "b": [0.333333333333333]}


def test_an_answer_is_tidied_through_its_lists_and_mappings():
    assert tidy({"cost": 0.1 + 0.2, "rows": [{"x": 2 / 3, "name": "O3", "n": 3, "ok": True, "none": None}]}) == \
        {"cost": 0.3, "rows": [{"x": 0.666666666666667, "name": "O3", "n": 3, "ok": True, "none": None}]}


def test_no_number_moves_by_more_than_its_fifteenth_digit():
    rng = np.random.default_rng(7)
    values = np.concatenate([rng.integers(1, 10**6, 20_000) / 1e6 * rng.integers(1, 10**6, 20_000) * 1e-6,
                             rng.lognormal(-3, 5, 20_000)])
    tidied = np.array(tidy_floats(values))
    assert np.all(np.abs(tidied - values) <= 5e-15 * np.abs(values))
