"""The published line backtest of the small universe: each case's outcome is the price history's,
flat's scores are worked by hand, and the `accuracy` table's rows of scope `line` are the
scorecard of the published cases."""

import numpy as np
import pandas as pd
import pytest

from pipelines.line_backtest import LINE_SCOPE, line_accuracy


@pytest.fixture(scope="module")
def published(store):
    return store.read_table("line_backtest"), store.read_table("accuracy"), store.read_table("price_history")


def test_each_outcome_is_the_sync_price_of_the_model_the_line_offered(published):
    cases, _, history = published
    assert len(cases) and cases["arrived"].any() and not cases["arrived"].all()
    sync = history[history["mode"] == "sync"].set_index(["ticker", "date"])["output"]
    for case in cases.itertuples():
        assert case.realised == sync[(case.successor, case.target_date)]
        assert case.arrived == (case.successor != case.current)
        assert case.target_date > case.anchor


def test_flat_scores_by_hand(published):
    cases, _, _ = published
    flat = cases[cases["method"] == "flat"]
    ratio = flat["realised"] / flat["spot"]
    # All the mass at the spot: CRPS |x − 1|, in the band exactly when the price did not move.
    assert np.allclose(flat["crps"], (ratio - 1).abs(), rtol=1e-12, atol=1e-15)
    assert np.allclose(flat["rel_error"], 1 - ratio, atol=1e-15)
    assert (flat["forecast"] == flat["spot"]).all() and (flat["p_successor"] == 0).all()
    moved = (ratio - 1).abs() > 1e-9
    assert (flat.loc[moved, "covered"] == 0).all() and (flat.loc[~moved, "covered"] > 0).all()


def test_the_accuracy_table_publishes_the_line_scorecard(published):
    cases, accuracy, _ = published
    rows = accuracy[accuracy["scope"] == LINE_SCOPE].reset_index(drop=True)
    assert list(rows["tenor"]) == sorted(cases["tenor"].unique(), key=["1M", "3M", "6M"].index)
    pd.testing.assert_frame_equal(rows, line_accuracy(cases), check_dtype=False)
    one = rows.iloc[0]
    at = cases[(cases["tenor"] == one["tenor"]) & (cases["method"] == "line")]
    assert one["n"] == len(at) and one["blocks"] == at["line"].nunique()
    assert one["crps"] == pytest.approx(at["crps"].mean())
    # The other scopes have no fixed-model baseline; lines have no single exponential.
    assert accuracy.loc[accuracy["scope"] != LINE_SCOPE, "crps_fixed"].isna().all()
    assert rows["crps_single_exp"].isna().all() and rows["crps_fixed"].notna().all()
