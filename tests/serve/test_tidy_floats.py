"""Floats without binary noise: fifteen significant digits, as `%.15g` writes them, NaN as null."""

import math

import numpy as np

from serve.respond import tidy_columns, tidy_float, tidy_floats


def test_binary_noise_is_gone_and_the_rest_kept():
    assert tidy_float(0.1 + 0.2) == 0.3 and tidy_float(0.053399999999999996) == 0.0534
    assert tidy_float(9.999999999999999e14) == 1e15 and tidy_float(1e-9) == 1e-9
    assert tidy_float(123.456) == 123.456 and tidy_float(5e-324) == 5e-324  # already tidy: as it was
    assert math.isinf(tidy_float(math.inf)) and math.isnan(tidy_float(math.nan))


def test_a_column_is_each_value_tidied_and_nan_is_null():
    got = tidy_floats(np.array([0.30000000000000004, np.nan, -0.0, 2.5e-7 * 3, np.inf]))
    assert got[0] == 0.3 and got[1] is None and got[4] == math.inf
    assert got[2] == 0.0 and math.copysign(1, got[2]) == -1  # the sign of zero kept
    assert got[3] == 7.5e-7


def test_several_columns_keep_their_names_and_order():
    tidied = tidy_columns({"spot_cost": [0.1 + 0.2], "kappa": [1.25]})
    assert tidied == {"spot_cost": [0.3], "kappa": [1.25]} and list(tidied) == ["spot_cost", "kappa"]
