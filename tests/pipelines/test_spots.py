"""Spots built from the real snapshot of the bundled sources (as of 2026-11-22)."""

import math
from datetime import date

import pandas as pd
import pytest

from pipelines.evidence import compared, spot_evidence
from pipelines.pricing import Rates, spot_costs, task_cost
from pipelines.spots import SPOT_COLUMNS, build_spots, rate_columns

AS_OF = date(2026, 11, 22)


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: this module's checks are about every model."""
    return full_store


@pytest.fixture(scope="module")
def history(store) -> pd.DataFrame:
    return store.read_table("price_history")


@pytest.fixture(scope="module")
def models(store) -> pd.DataFrame:
    return store.read_table("models")


@pytest.fixture(scope="module")
def evidence(store, history, models) -> pd.DataFrame:
    return spot_evidence(compared(store.read_table("price_observations"), history, AS_OF), models["ticker"], AS_OF)


@pytest.fixture(scope="module")
def spots(history, models, evidence) -> pd.DataFrame:
    return build_spots(history, models, AS_OF, evidence).set_index("ticker", drop=False)


def history_row(history, ticker, mode):
    rows = history[(history["ticker"] == ticker) & (history["mode"] == mode) & (history["date"] == AS_OF)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_one_row_per_model_ticker_in_column_order(spots, models):
    assert list(spots.columns) == SPOT_COLUMNS
    assert sorted(spots["ticker"]) == sorted(models["ticker"])
    assert spots["ticker"].is_unique


@pytest.mark.parametrize(
    ("ticker", "field", "expected"),
    [
        ("SONNET-4", "beta_sync", 15.0),
        ("SONNET-4", "input_sync", 3.0),
        ("SONNET-4", "cache_read_sync", 0.3),
        ("SONNET-4", "r_in", 0.2),
        ("SONNET-4", "r_cache", 0.02),
        ("SONNET-4", "r_think", 1.0),
        ("SONNET-4", "model_id", "claude-sonnet-4-20250514"),
        ("SONNET-4", "ticker_batch", "SONNET-4.B"),
        ("O3", "beta_sync", 8.0),
        ("O3", "input_sync", 2.0),
        ("O3", "r_in", 0.25),
        ("SONAR-DEEP-RESEARCH", "r_think", 3.0 / 8.0),  # its own reasoning price, 3 $/M against 8 $/M output
    ],
)
def test_known_spots(spots, ticker, field, expected):
    value = spots.loc[ticker, field]
    assert value == (pytest.approx(expected, abs=1e-12) if isinstance(expected, float) else expected)


@pytest.mark.parametrize(("ticker", "beta_sync", "beta_batch"), [("O3", 8.0, 4.0), ("GROK-4.3", 2.5, 2.0)])
def test_r_batch_is_batch_over_sync_output(spots, history, ticker, beta_sync, beta_batch):
    sync, batch = history_row(history, ticker, "sync"), history_row(history, ticker, "batch")
    assert (sync["output"], batch["output"]) == (beta_sync, beta_batch)
    row = spots.loc[ticker]
    assert (row["beta_sync"], row["beta_batch"], row["input_batch"]) == (beta_sync, beta_batch, batch["input"])
    assert row["r_batch"] == pytest.approx(beta_batch / beta_sync, abs=1e-12)


def test_without_a_batch_series_the_batch_columns_are_empty(spots, history):
    ticker = "SONAR-DEEP-RESEARCH"
    assert history[(history["ticker"] == ticker) & (history["mode"] == "batch")].empty
    row = spots.loc[ticker]
    assert math.isnan(row["beta_batch"]) and math.isnan(row["r_batch"]) and math.isnan(row["cache_read_batch"])
    assert pd.isna(row["source_batch"])


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_prices_and_provenance_match_the_history_row_on_as_of(spots, history, mode):
    today = history[(history["date"] == AS_OF) & (history["mode"] == mode)].set_index("ticker")
    assert len(today) > 100
    fields = {"source": "source", "source_version": "source_version", "provenance": "provenance",
              "observed_on": "observed_on", "source_url": "source_url", "output": "beta", "input": "input",
              "cache_read": "cache_read", "tiers": "tiers"}
    for theirs, ours in fields.items():
        expected = today[theirs]
        actual = spots.loc[expected.index, f"{ours}_{mode}"]
        assert actual.isna().tolist() == expected.isna().tolist(), theirs
        assert actual.dropna().tolist() == expected.dropna().tolist(), theirs
    # Carried-forward prices name the day they were last observed, not as_of.
    carried = today[today["provenance"] == "carried_forward"]
    assert (carried["observed_on"] < AS_OF).all()


def test_tiers_come_through_and_price_a_long_prompt(spots):
    row = spots.loc["GEMINI-2.5-PRO"]
    assert row["tiers_sync"] == '[{"above":200000,"cache_read":0.25,"input":2.5,"output":15.0}]'
    rates = Rates.from_row(row, rate_columns("sync"))
    assert task_cost(rates, 200_001, 1000).beta_used == 15.0
    # (2.5*200001 + 15*1000)e-6, every token at the tier's rates
    assert task_cost(rates, 200_001, 1000).spot_cost == pytest.approx(0.5150025, abs=1e-12)


def test_spot_costs_rank_the_spots_frame_like_task_cost(spots):
    profile = (250_000, 2000, 0.5, 1000)
    for mode in ("sync", "batch"):
        costs = spot_costs(spots, *profile, columns=rate_columns(mode))
        priced = spots[f"beta_{mode}"].notna().to_numpy()
        expected = [task_cost(Rates.from_row(row, rate_columns(mode)), *profile).spot_cost
                    for _, row in spots[priced].iterrows()]
        assert costs[priced].tolist() == expected
        assert pd.isna(costs[~priced]).all()


def test_duplicated_history_rows_are_refused(history, models, evidence):
    today = history[history["date"] == AS_OF]
    doubled = pd.concat([history, today[today["ticker"] == "O3"]])
    with pytest.raises(ValueError, match="O3"):
        build_spots(doubled, models, AS_OF, evidence)
