"""Forward curves and the Greek sheet, on small hand-made processes and change laws."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.change_panel import Histories
from pipelines.forwards import FORWARD_COLUMNS, TENORS, build_forward_curves, forward_ticker
from pipelines.greeks import PROCESS_FIELDS, build_greeks, process_fields
from pipelines.registry import Rules
from pipelines.scheduled import SCHEDULED_COLUMNS

EXACT = 1e-12
NAN = float("nan")
AS_OF = date(2026, 11, 22)
K = np.arange(1, 13)
ROSE, NEVER = "family_rose", "family_never_rose"

# A change: 0.5 (w 0.25) or 0.8 (0.75), mean 0.725, ln-mean 0.25·ln 0.5 + 0.75·ln 0.8; prior weight 0.4.
# Or 0.8 or 1.25 at even odds, mean 1.025, ln-mean 0; prior weight 0.7.
LAWS = pd.DataFrame({"change_law": [NEVER, NEVER, ROSE, ROSE], "ratio": [0.5, 0.8, 0.8, 1.25],
                     "weight": [0.25, 0.75, 0.5, 0.5], "prior_weight": [0.4, 0.4, 0.7, 0.7]})
A_SYNC = 1 - 0.9**K  # a constant hazard: P(h) = 1 − 0.9^h
A_BATCH = 1 - 0.8**K  # P(h) = 1 − 0.8^h
B_SYNC = np.array([0.1, 0.16, 0.3, 0.3, 0.3, 0.4, 0.4, 0.4, 0.5, 0.5, 0.5, 0.6])


def process(ticker, mode, by_month, law, rise=""):
    return pd.DataFrame({"ticker": ticker, "mode": mode, "months": K.astype(float), "p_change": by_month,
                         "change_law": law, "rise_evidence": rise})


PROCESSES = pd.concat([
    process("B", "sync", B_SYNC, ROSE, "C on 2026-10-01"),  # its family rose: C's increase
    process("A", "sync", A_SYNC, NEVER).iloc[::-1],  # in any order: read back by month
    process("A", "batch", A_BATCH, NEVER),
    process("ZERO", "sync", A_SYNC, NEVER),  # a spot of 0: no curve
    process("GONE", "sync", A_SYNC, NEVER),  # no spot at all
    process("B", "batch", A_BATCH, NEVER),  # no batch price
], ignore_index=True)
SPOTS = pd.DataFrame({"ticker": ["A", "B", "C", "ZERO"], "beta_sync": [10.0, 2.0, 4.0, 0.0],
                      "beta_batch": [5.0, NAN, 2.0, NAN]})
# A's sync output price goes from 10 to 20 on 2027-02-01: after the 2M date (+61 days, 2027-01-22) and on
# or before the 3M date (+91 days, 2027-02-21).
SCHEDULED = pd.DataFrame([{
    "ticker": "A", "mode": "sync", "effective_date": date(2027, 2, 1), "field": "output", "before": 10.0,
    "after": 20.0, "pct_change": 1.0, "source": "maker", "source_version": "1", "source_url": None,
    "announced_on": date(2026, 11, 1)}], columns=SCHEDULED_COLUMNS)


def curve(curves, ticker, mode):
    return curves[(curves["ticker"] == ticker) & (curves["mode"] == mode)].set_index("tenor")


@pytest.mark.parametrize(("ticker", "mode", "tenor", "expected"), [
    ("SONNET-4", "sync", "3M", "SONNET-4-3M"),
    ("SONNET-4", "batch", "3M", "SONNET-4.B-3M"),
    ("GPT-4O-MINI", "sync", "12M", "GPT-4O-MINI-12M"),
    ("GPT-4O-MINI", "batch", "1M", "GPT-4O-MINI.B-1M"),
])
def test_forward_ticker(ticker, mode, tenor, expected):
    assert forward_ticker(ticker, mode, tenor) == expected


def test_build_forward_curves_keeps_positive_spots_and_orders_tenors():
    curves = build_forward_curves(PROCESSES, LAWS, SPOTS, SCHEDULED, AS_OF)
    assert list(curves.columns) == FORWARD_COLUMNS
    assert len(curves) == 3 * 6
    assert list(dict.fromkeys(zip(curves["ticker"], curves["mode"]))) == [("A", "batch"), ("A", "sync"),
                                                                          ("B", "sync")]
    order = ["1M", "2M", "3M", "6M", "9M", "12M"]
    assert list(TENORS) == order
    for _, rows in curves.groupby(["ticker", "mode"]):
        assert rows["tenor"].tolist() == order
        assert rows["months"].tolist() == [1.0, 2.0, 3.0, 6.0, 9.0, 12.0]
    assert curve(curves, "A", "batch")["ticker_forward"].tolist() == [f"A.B-{t}" for t in order]
    assert curve(curves, "A", "sync")["ticker_forward"].tolist() == [f"A-{t}" for t in order]
    assert curve(curves, "A", "batch")["spot"].tolist() == [5.0] * 6


def test_each_curve_says_what_evidence_moves_it():
    curves = build_forward_curves(PROCESSES, LAWS, SPOTS, SCHEDULED, AS_OF)
    # A sync: a falling law, and the announced price from its 3M date on.
    assert curve(curves, "A", "sync")["evidence"].tolist() == ["no_rise_evidence"] * 2 + ["announced"] * 4
    assert curve(curves, "A", "batch")["evidence"].tolist() == ["no_rise_evidence"] * 6
    assert curve(curves, "B", "sync")["evidence"].tolist() == ["maker_increase: C on 2026-10-01"] * 6
    both = SCHEDULED.assign(ticker="B", before=2.0, after=3.0)
    assert curve(build_forward_curves(PROCESSES, LAWS, SPOTS, both, AS_OF), "B", "sync")["evidence"].tolist()[2:] \
        == ["announced; maker_increase: C on 2026-10-01"] * 4


def test_the_curve_of_a_falling_law_with_an_announced_price_by_hand():
    a = curve(build_forward_curves(PROCESSES, LAWS, SPOTS, SCHEDULED, AS_OF), "A", "sync")
    # The announced 20 from 2027-02-01: 1M (2026-12-22) and 2M (2027-01-22) before it, 3M (2027-02-21) on.
    assert a["scheduled"].tolist() == [10.0, 10.0, 20.0, 20.0, 20.0, 20.0]
    assert a["spot"].tolist() == [10.0] * 6
    # 2M: P = 1 − 0.81 = 0.19; E[R] = 1 − 0.19·(1 − 0.725) = 0.94775. R is 0.5 (0.25·0.19 = 0.0475), 0.8
    # (0.1425) or 1 (0.81), cumulative 0.0475, 0.19, 1: quantiles 0.8, 1, 1 of the scheduled 10.
    two = a.loc["2M"]
    assert two["p_change"] == pytest.approx(0.19, abs=EXACT)
    assert two["decay_factor"] == pytest.approx(0.94775, abs=EXACT)
    assert two["beta_forward"] == pytest.approx(9.4775, abs=EXACT)
    assert (two["p05"], two["beta_median"], two["p95"]) == pytest.approx((8.0, 10.0, 10.0), abs=EXACT)
    # 6M: P = 1 − 0.531441 = 0.468559; E[R] = 1 − 0.468559·0.275 = 0.871146275. R is 0.5 (0.11713975), 0.8
    # (0.35141925) or 1 (0.531441), cumulative 0.117, 0.469, 1: quantiles 0.5, 1, 1 of the scheduled 20.
    six = a.loc["6M"]
    assert six["p_change"] == pytest.approx(0.468559, abs=EXACT)
    assert six["decay_factor"] == pytest.approx(0.871146275, abs=EXACT)
    assert six["beta_forward"] == pytest.approx(17.4229255, abs=EXACT)  # 20·0.871146275
    assert (six["p05"], six["beta_median"], six["p95"]) == pytest.approx((10.0, 20.0, 20.0), abs=EXACT)
    # 12M: P = 1 − 0.9^12 = 0.7175704635; the 0.8 atom's cumulative 0.7176 passes 50%: the median is 0.8·20.
    assert a.loc["12M", "p_change"] == pytest.approx(0.717570463519, abs=EXACT)
    assert a.loc["12M", "beta_median"] == pytest.approx(16.0, abs=EXACT)
    # The change law: mean 0.725; cumulative 0.25 at 0.5, 1 at 0.8.
    for tenor in ("2M", "6M"):
        assert a.loc[tenor, ["change_mean", "change_p05", "change_p50", "change_p95"]].tolist() == pytest.approx(
            [0.725, 0.5, 0.8, 0.8], abs=EXACT)
    # Batch has no announcement: its level stays the batch spot, 5. 1M: P = 0.2, E[R] = 1 − 0.2·0.275 = 0.945;
    # 6M: P = 1 − 0.8^6 = 0.737856, E[R] = 1 − 0.737856·0.275 = 0.7970896.
    batch = curve(build_forward_curves(PROCESSES, LAWS, SPOTS, SCHEDULED, AS_OF), "A", "batch")
    assert batch["scheduled"].tolist() == [5.0] * 6
    assert batch.loc[["1M", "6M"], "beta_forward"].tolist() == pytest.approx([4.725, 3.985448], abs=EXACT)


def test_the_curve_of_a_rising_law_by_hand():
    b = curve(build_forward_curves(PROCESSES, LAWS, SPOTS, SCHEDULED, AS_OF), "B", "sync")
    assert b["scheduled"].tolist() == [2.0] * 6
    assert b["p_change"].tolist() == pytest.approx([0.1, 0.16, 0.3, 0.4, 0.5, 0.6], abs=EXACT)
    # 2M: P = 0.16, E[R] = 1 + 0.16·0.025 = 1.004; R is 0.8 (0.08), 1 (0.84) or 1.25 (0.08), cumulative 0.08,
    # 0.92, 1: quantiles 0.8, 1, 1.25 of 2.
    two = b.loc["2M"]
    assert (two["decay_factor"], two["beta_forward"]) == pytest.approx((1.004, 2.008), abs=EXACT)
    assert (two["p05"], two["beta_median"], two["p95"]) == pytest.approx((1.6, 2.0, 2.5), abs=EXACT)
    # 9M: P = 0.5, E[R] = 1.0125; R is 0.8 (0.25), 1 (0.5) or 1.25 (0.25): quantiles 0.8, 1, 1.25.
    nine = b.loc["9M"]
    assert (nine["decay_factor"], nine["beta_forward"]) == pytest.approx((1.0125, 2.025), abs=EXACT)
    assert (nine["p05"], nine["beta_median"], nine["p95"]) == pytest.approx((1.6, 2.0, 2.5), abs=EXACT)
    # The change law: mean 1.025; cumulative 0.5 at 0.8 (so its median), 1 at 1.25.
    assert nine[["change_mean", "change_p05", "change_p50", "change_p95"]].tolist() == pytest.approx(
        [1.025, 0.8, 0.8, 1.25], abs=EXACT)


def test_without_a_schedule_the_level_is_the_spot():
    for scheduled in (None, SCHEDULED.iloc[:0]):
        a = curve(build_forward_curves(PROCESSES, LAWS, SPOTS, scheduled, AS_OF), "A", "sync")
        assert a["scheduled"].tolist() == [10.0] * 6
        assert a.loc["6M", "beta_forward"] == pytest.approx(8.71146275, abs=EXACT)  # 10·0.871146275


def test_every_band_holds_its_median_and_no_curve_rises_without_evidence():
    for curves in (build_forward_curves(PROCESSES, LAWS, SPOTS, SCHEDULED, AS_OF),
                   build_forward_curves(PROCESSES, LAWS, SPOTS)):
        assert (curves["p05"] <= curves["beta_median"]).all() and (curves["beta_median"] <= curves["p95"]).all()
        assert (curves["beta_forward"] == curves["scheduled"] * curves["decay_factor"]).all()
    plain = build_forward_curves(PROCESSES, LAWS, SPOTS)
    for (ticker, mode), rows in plain.groupby(["ticker", "mode"]):
        forward = rows["beta_forward"].to_numpy()
        if rows["change_mean"].iloc[0] <= 1:  # A sync and batch: never above the spot, never rising
            assert (forward <= rows["spot"].to_numpy()).all() and (np.diff(forward) <= 0).all(), (ticker, mode)
        else:  # B: a law that rises on average lifts the curve
            assert (forward > rows["spot"].to_numpy()).all() and (np.diff(forward) >= 0).all()


# The histories the Greek sheet reads its exposure and changes from (revisions and later changes left out).
CHANGES = pd.DataFrame([
    ("A", date(2025, 11, 22), 20.0, NAN, "first"),
    ("A", date(2026, 3, 1), 10.0, 0.5, "change"),
    ("A", date(2026, 6, 1), 10.5, 1.05, "switch"),
    ("A", date(2026, 7, 1), 12.0, NAN, "slip"),
    ("A", date(2026, 7, 20), 10.5, NAN, "slip"),
    ("A", date(2026, 8, 1), 10.0, 10.0 / 10.5, "change"),
    ("A", date(2026, 12, 15), 9.0, 0.9, "change"),  # after as_of
    ("B", date(2026, 5, 22), 1.6, NAN, "first"),
    ("B", date(2026, 9, 1), 2.0, 1.25, "change"),
], columns=["ticker", "date", "price", "ratio", "kind"])
MODELS = pd.DataFrame({"ticker": ["A", "B"], "provider": ["lab", "lab"], "model_id": ["alpha-1", "beta-2"],
                       "family": ["lab/alpha", "lab/beta"], "is_reasoning": [False, True]})
RULES = Rules.from_frame(pd.DataFrame(columns=["kind", "pattern", "value"]))
SHEET = PROCESSES[PROCESSES["ticker"].isin(["A", "B"]) & ~((PROCESSES["ticker"] == "B")
                                                            & (PROCESSES["mode"] == "batch"))]


def test_process_fields_by_hand():
    fields = process_fields(SHEET, LAWS, Histories(CHANGES, MODELS, RULES), AS_OF).set_index(["ticker", "mode"])
    assert fields.index.tolist() == [("A", "batch"), ("A", "sync"), ("B", "sync")]
    assert set(PROCESS_FIELDS) <= set(fields.columns)
    # theta = −ln(E[R_12])/12: A sync 1 − 0.275·(1 − 0.9^12) = 0.802668122532; A batch 1 − 0.275·(1 − 0.8^12)
    # = 0.743897856102; B 1 + 0.6·0.025 = 1.015 (negative: expected to rise).
    assert fields["theta"].tolist() == pytest.approx(
        [-math.log(0.743897856102) / 12, -math.log(0.802668122532) / 12, -math.log(1.015) / 12], abs=1e-12)
    assert fields.loc[("A", "sync"), "theta"] == pytest.approx(0.01831783, abs=1e-8)
    assert fields["sigma"].tolist() == [0.0, 0.0, 0.0]
    # jump_rate = −ln(1 − P(1)): −ln 0.8, −ln 0.9, −ln 0.9.
    assert fields["jump_rate"].tolist() == pytest.approx([0.2231435513, 0.1053605157, 0.1053605157], abs=1e-10)
    # ln of a change: 0.25·ln 0.5 + 0.75·ln 0.8 = −0.1732868 − 0.1673577 = −0.3406445;
    # sd √(0.25·0.75)·ln(0.8/0.5) = 0.4330127·0.4700036 = 0.2035175. Under the other law ±ln 1.25 at even
    # odds: mean 0, sd ln 1.25 = 0.2231436.
    assert fields["jump_mean"].tolist() == pytest.approx([-0.3406445, -0.3406445, 0.0], abs=1e-7)
    assert fields["jump_std"].tolist() == pytest.approx([0.2035175, 0.2035175, 0.2231436], abs=1e-7)
    assert fields["prior_weight"].tolist() == [0.4, 0.4, 0.7]
    assert fields["pool"].tolist() == [NEVER, NEVER, ROSE]
    # A's first price a year (365 days) before as_of, B's 184 days before; A changed twice by as_of (the
    # switch, the slips and the December change left out), B once.
    assert fields["exposure_months"].tolist() == pytest.approx([365 / 30.4375, 365 / 30.4375, 184 / 30.4375],
                                                               abs=EXACT)
    assert fields["n_jumps"].tolist() == [2, 2, 1]


def test_build_greeks():
    fields = process_fields(SHEET, LAWS, Histories(CHANGES, MODELS, RULES), AS_OF)
    greeks = build_greeks(SPOTS, fields)
    assert greeks["ticker"].tolist() == ["A", "B", "C", "ZERO"]
    assert set(PROCESS_FIELDS) | {f"{f}_batch" for f in PROCESS_FIELDS} <= set(greeks.columns)
    assert greeks["beta_sync"].tolist() == [10.0, 2.0, 4.0, 0.0]
    assert greeks["theta"].tolist()[:2] == pytest.approx(
        [-math.log(0.802668122532) / 12, -math.log(1.015) / 12], abs=1e-12)
    assert greeks["theta"].iloc[2:].isna().all()  # C and ZERO have no law
    assert greeks["theta_batch"].iloc[0] == pytest.approx(-math.log(0.743897856102) / 12, abs=1e-12)
    assert greeks["theta_batch"].iloc[1:].isna().all()
    assert greeks["pool"].tolist()[:2] == [NEVER, ROSE] and greeks["pool_batch"].iloc[0] == NEVER
    assert greeks["jump_rate_batch"].iloc[0] == pytest.approx(-math.log(0.8), abs=EXACT)
    assert greeks["n_jumps"].tolist()[:2] == [2, 1]


def test_no_batch_process_at_all():
    sync_only = SHEET[SHEET["mode"] == "sync"]
    greeks = build_greeks(SPOTS, process_fields(sync_only, LAWS, Histories(CHANGES, MODELS, RULES), AS_OF))
    assert greeks["theta"].notna().tolist() == [True, True, False, False]
    assert greeks["theta_batch"].isna().all() and greeks["n_jumps_batch"].isna().all()
