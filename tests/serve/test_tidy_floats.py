"""`tidy_floats`, a column at a time, gives exactly what `tidy_float` gives one float at a time."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from serve.respond import tidy_columns, tidy_float, tidy_floats


def _one_at_a_time(values) -> list:
    return [tidy_float(v) if v == v else None for v in np.asarray(values, dtype=float).tolist()]


def _same(got: list, want: list) -> bool:
    return all((g is None and w is None) or (g == w and math.copysign(1, g) == math.copysign(1, w))
               for g, w in zip(got, want, strict=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50))
def test_any_floats(values):
    assert _same(tidy_floats(values), _one_at_a_time(values))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(*[st.floats(allow_nan=True, allow_infinity=True)] * 3), max_size=30))
def test_several_columns_at_once_are_each_column_alone(rows):
    columns = {name: [row[i] for row in rows] for i, name in enumerate(("spot_cost", "kappa", "theta"))}
    tidied = tidy_columns(columns)
    assert list(tidied) == list(columns)
    assert all(_same(tidied[name], _one_at_a_time(values)) for name, values in columns.items())


def test_prices_and_costs_with_binary_noise():
    rng = np.random.default_rng(7)
    rates = rng.integers(1, 10**6, 200_000) / 1e6  # $/M prices to the micro-dollar
    tokens = rng.integers(1, 10**6, 200_000)
    values = np.concatenate([rates * tokens * 1e-6, rates * 3 + rates / 7, rng.lognormal(-3, 5, 200_000),
                             [0.1 + 0.2, 0.053399999999999996, 1e15, 1e-8, 1e-9, 0.0, -0.0, 5e-324, 1e308, np.nan,
                              np.inf, -np.inf, 9.999999999999999e14, 0.30000000000000004]])
    got = tidy_floats(values)
    assert _same(got, _one_at_a_time(values))
    assert got[-1] == 0.3 and got[-14] == 0.3  # the noise is gone


def test_values_next_to_a_half_in_the_sixteenth_digit():
    """The nearest double to a decimal with 16 significant digits ending in 5 lies within a
    rounding error of a half at the fifteenth digit: the case decided by the product's exact error."""
    rng = np.random.default_rng(11)
    mantissas = rng.integers(10**14, 10**15, 100_000) * 10 + 5
    exponents = rng.integers(-24, -1, 100_000)
    values = np.array([float(f"{m}e{e}") for m, e in zip(mantissas.tolist(), exponents.tolist(), strict=True)])
    values = np.concatenate([values, -values, np.nextafter(values, 0), np.nextafter(values, np.inf)])
    assert _same(tidy_floats(values), _one_at_a_time(values))
