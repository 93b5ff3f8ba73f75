"""Forward curves and the Greek sheet, on small hand-made processes."""

import math

import numpy as np
import pandas as pd
import pytest

from pipelines.forwards import FORWARD_COLUMNS, TENORS, build_forward_curves, forward_rows, forward_ticker
from pipelines.greeks import PROCESS_FIELDS, build_greeks, processes_from_greeks

EXACT = 1e-12
Z95 = 1.6448536269514722
NAN = float("nan")


def process(ticker, mode, spot, theta, sigma=0.1, jump_rate=0.0, jump_mean=0.0, jump_std=0.0):
    return dict(ticker=ticker, mode=mode, spot=spot, theta=theta, sigma=sigma, jump_rate=jump_rate,
                jump_mean=jump_mean, jump_std=jump_std)


PROCESSES = pd.DataFrame([
    process("SONNET-4", "sync", 15.0, 0.02),
    process("SONNET-4", "batch", 7.5, -0.01, sigma=0.05),
    process("HAIKU-3", "sync", 1.25, 0.0, sigma=0.0),
])


@pytest.mark.parametrize(("ticker", "mode", "tenor", "expected"), [
    ("SONNET-4", "sync", "3M", "SONNET-4-3M"),
    ("SONNET-4", "batch", "3M", "SONNET-4.B-3M"),
    ("GPT-4O-MINI", "sync", "12M", "GPT-4O-MINI-12M"),
    ("GPT-4O-MINI", "batch", "1M", "GPT-4O-MINI.B-1M"),
])
def test_forward_ticker(ticker, mode, tenor, expected):
    assert forward_ticker(ticker, mode, tenor) == expected


def test_forward_rows_by_hand():
    rows = forward_rows(PROCESSES, "3M", 3)
    assert list(rows.columns) == FORWARD_COLUMNS
    assert rows["ticker_forward"].tolist() == ["SONNET-4-3M", "SONNET-4.B-3M", "HAIKU-3-3M"]
    assert rows["tenor"].tolist() == ["3M"] * 3
    assert rows["months"].tolist() == [3.0] * 3
    assert rows["decay_factor"].tolist() == pytest.approx([math.exp(-0.06), math.exp(0.03), 1.0], abs=EXACT)
    assert rows["beta_forward"].tolist() == pytest.approx(
        [15.0 * math.exp(-0.06), 7.5 * math.exp(0.03), 1.25], abs=EXACT)
    assert rows["theta"].tolist() == [0.02, -0.01, 0.0]
    # No jumps: the band is the lognormal's 5% and 95% quantiles times the spot.
    for i, (spot, sigma) in enumerate([(15.0, 0.1), (7.5, 0.05), (1.25, 0.0)]):
        half, spread = -0.5 * sigma**2 * 3, Z95 * sigma * math.sqrt(3)
        assert rows["p05"].iloc[i] == pytest.approx(spot * math.exp(half - spread), abs=1e-9)
        assert rows["p95"].iloc[i] == pytest.approx(spot * math.exp(half + spread), abs=1e-9)
    assert rows["p05"].iloc[2] == rows["p95"].iloc[2] == 1.25


def test_build_forward_curves_keeps_positive_spots_and_orders_tenors():
    processes = pd.concat([PROCESSES, pd.DataFrame([
        process("ZERO", "sync", 0.0, 0.02), process("NEG", "sync", -1.0, 0.02), process("NONE", "sync", NAN, 0.02),
    ])], ignore_index=True)
    curves = build_forward_curves(processes)
    assert list(curves.columns) == FORWARD_COLUMNS
    assert len(curves) == 3 * 6
    assert sorted(set(curves["ticker"])) == ["HAIKU-3", "SONNET-4"]
    assert list(dict.fromkeys(zip(curves["ticker"], curves["mode"]))) == [
        ("HAIKU-3", "sync"), ("SONNET-4", "batch"), ("SONNET-4", "sync")]
    order = ["1M", "2M", "3M", "6M", "9M", "12M"]
    assert list(TENORS) == order
    for _, rows in curves.groupby(["ticker", "mode"]):
        assert rows["tenor"].tolist() == order
        assert rows["months"].tolist() == [1.0, 2.0, 3.0, 6.0, 9.0, 12.0]
    sonnet = curves[(curves["ticker"] == "SONNET-4") & (curves["mode"] == "sync")]
    assert sonnet["beta_forward"].tolist() == pytest.approx(
        [15.0 * math.exp(-0.02 * m) for m in (1, 2, 3, 6, 9, 12)], abs=EXACT)
    assert sonnet["ticker_forward"].tolist() == [f"SONNET-4-{t}" for t in order]


def params_row(ticker, mode, theta, sigma, jump_rate, jump_mean, jump_std, prior_weight):
    return dict(ticker=ticker, mode=mode, theta=theta, sigma=sigma, jump_rate=jump_rate, jump_mean=jump_mean,
                jump_std=jump_std, prior_weight=prior_weight, pool="family:f", exposure_months=10.0,
                n_jumps=1, n_moves=2)


PARAMS = pd.DataFrame([
    params_row("A", "sync", 0.02, 0.1, 0.3, -0.07, 0.02, 0.4),
    params_row("A", "batch", 0.01, 0.05, 0.2, -0.05, 0.01, 0.6),
    params_row("B", "sync", 0.03, 0.2, 0.5, -0.06, 0.03, 0.5),
])
SPOTS = pd.DataFrame({"ticker": ["A", "B", "C"], "beta_sync": [10.0, 2.0, 4.0], "beta_batch": [5.0, NAN, 2.0]})


def test_build_greeks():
    greeks = build_greeks(SPOTS, PARAMS)
    assert greeks["ticker"].tolist() == ["A", "B", "C"]
    assert set(PROCESS_FIELDS) | {f"{f}_batch" for f in PROCESS_FIELDS} <= set(greeks.columns)
    assert greeks["theta"].tolist()[:2] == [0.02, 0.03] and np.isnan(greeks["theta"].iloc[2])
    assert greeks["prior_weight"].tolist()[:2] == [0.4, 0.5]
    assert greeks["theta_batch"].iloc[0] == 0.01 and greeks["theta_batch"].iloc[1:].isna().all()
    assert greeks["jump_std_batch"].iloc[0] == 0.01
    assert greeks["beta_sync"].tolist() == [10.0, 2.0, 4.0]


def test_greeks_round_trip_to_processes():
    back = processes_from_greeks(build_greeks(SPOTS, PARAMS))
    # B has no batch price and C no fitted process: neither gives a row.
    assert list(zip(back["ticker"], back["mode"], back["spot"])) == [("A", "sync", 10.0), ("B", "sync", 2.0),
                                                                      ("A", "batch", 5.0)]
    fields = ["theta", "sigma", "jump_rate", "jump_mean", "jump_std"]
    expected = PARAMS.set_index(["ticker", "mode"])[fields]
    got = back.set_index(["ticker", "mode"])[fields]
    assert got.to_numpy().tolist() == expected.loc[got.index].to_numpy().tolist()
    # And the processes feed the forward curves straight away.
    curves = build_forward_curves(back)
    assert sorted(set(curves["ticker_forward"].str.rsplit("-", n=1).str[0])) == ["A", "A.B", "B"]


def test_no_batch_process_at_all():
    back = processes_from_greeks(build_greeks(SPOTS, PARAMS[PARAMS["mode"] == "sync"]))
    assert back["mode"].tolist() == ["sync", "sync"]
    assert back["ticker"].tolist() == ["A", "B"]
