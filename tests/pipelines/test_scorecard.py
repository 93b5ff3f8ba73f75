"""The scorecard: summaries, block-bootstrap standard errors, the accuracy table, reliability and the words."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines import scorecard
from pipelines.scorecard import (
    ACCURACY_COLUMNS,
    SUMMARY_METRICS,
    accuracy_table,
    bootstrap_ses,
    headline,
    reliability_table,
    summarise,
)

EXACT = 1e-12
JAN, FEB = date(2025, 1, 1), date(2025, 2, 1)


def case(anchor, ticker, method, rel_error, crps, p_change, covered, changed=False, revision=None, fixed=True,
         tenor="1M", ape=0.0):
    """A scored case; `revision` the kind of the revision in its window, if one is."""
    return dict(anchor=anchor, ticker=ticker, family="f", tenor=tenor, method=method, fixed_name=fixed,
                revision=revision is not None, revision_kind=revision, changed=changed, rel_error=rel_error, log_error=math.log1p(rel_error), ape=ape,
                crps=crps, p_change=p_change, p_base=0.1, covered=covered)


def test_summarise_by_hand():
    frame = pd.DataFrame([
        case(JAN, "A", "oracle", 0.1, 0.02, 0.2, 0.9, changed=True, ape=10.0),
        case(JAN, "B", "oracle", -0.2, 0.05, 0.1, 1.0, ape=20.0),
        case(FEB, "A", "oracle", 0.05, 0.01, 0.3, 0.5, changed=True, ape=4.0),
        case(FEB, "B", "oracle", 5.0, 9.0, 0.9, 0.0, revision=True),  # left out
        case(JAN, "A", "flat", 0.3, 0.3, 0.0, 0.0, changed=True, ape=30.0),
    ])
    summary = summarise(frame, ["method"]).set_index("method")
    assert list(summary.columns) == SUMMARY_METRICS and summary["n"].tolist() == [1, 3]
    oracle = summary.loc["oracle"]
    assert oracle["changed_share"] == pytest.approx(2 / 3, abs=EXACT)
    assert oracle["rel_rmse"] == pytest.approx(math.sqrt((0.01 + 0.04 + 0.0025) / 3), abs=EXACT)
    logs = np.log1p([0.1, -0.2, 0.05])
    assert oracle["log_rmse"] == pytest.approx(math.sqrt(np.mean(logs**2)), abs=EXACT)
    assert (oracle["mape"], oracle["median_ape"]) == pytest.approx((34 / 3, 10.0), abs=EXACT)
    assert oracle["bias"] == pytest.approx(-0.05 / 3 * 100, abs=EXACT)
    assert oracle["crps"] == pytest.approx(0.08 / 3, abs=EXACT)
    assert oracle["brier"] == pytest.approx((0.8**2 + 0.1**2 + 0.7**2) / 3, abs=EXACT)
    assert oracle["coverage"] == pytest.approx(2.4 / 3, abs=EXACT)


def pair(anchor, ticker, oracle, flat, **rest):
    """An oracle case and the flat case beside it: (rel_error, crps, p_change, covered) each."""
    return [case(anchor, ticker, "oracle", *oracle, **rest), case(anchor, ticker, "flat", *flat, **rest),
            case(anchor, ticker, "single_exp", 0.5, 0.5, 1.0, 0.0, **rest)]


def test_bootstrap_ses():
    same = pd.DataFrame(pair(JAN, "A", (0.1, 0.02, 0.1, 0.9), (0.1, 0.02, 0.0, 0.9))
                        + pair(JAN, "B", (0.2, 0.03, 0.1, 0.9), (0.2, 0.03, 0.0, 0.9)))
    ses = bootstrap_ses(same)
    assert (ses["rel_rmse_gap_se"], ses["crps_gap_se"], ses["coverage_se"]) == pytest.approx((0, 0, 0), abs=1e-15)
    # Two tickers, one case each, CRPS gaps 0.02 and 0: resamples give 0.02, 0.01, 0 with probabilities
    # 1/4, 1/2, 1/4, whose standard deviation is √(1/2)·0.01.
    two = pd.DataFrame(pair(JAN, "A", (0.1, 0.04, 0.1, 0.9), (0.1, 0.02, 0.0, 0.9))
                       + pair(JAN, "B", (0.1, 0.02, 0.1, 0.9), (0.1, 0.02, 0.0, 0.9)))
    assert bootstrap_ses(two)["crps_gap_se"] == pytest.approx(math.sqrt(0.5) * 0.01, rel=0.1)
    # A ticker's cases move together: two anchors of one ticker are one unit, so one ticker has no spread.
    one = pd.DataFrame(pair(JAN, "A", (0.1, 0.04, 0.1, 0.9), (0.1, 0.02, 0.0, 0.9))
                       + pair(FEB, "A", (0.1, 0.02, 0.1, 0.9), (0.1, 0.02, 0.0, 0.9)))
    assert np.isnan(bootstrap_ses(one)["crps_gap_se"])


def test_bootstrap_drawn_in_chunks_is_the_same_as_drawn_at_once(monkeypatch):
    """Resamples are drawn a few at a time to bound memory; the generator's stream, and so every
    standard error, is the same as one draw of them all."""
    rng = np.random.default_rng(3)
    rows = pd.DataFrame([row for i in range(37) for anchor in (JAN, FEB) for row in pair(
        anchor, f"T{i}", tuple(rng.random(4)), (rng.random(), rng.random(), 0.0, rng.random()))])
    monkeypatch.setattr(scorecard, "BOOTSTRAP_CHUNK_CELLS", 10**9)
    at_once = bootstrap_ses(rows)
    monkeypatch.setattr(scorecard, "BOOTSTRAP_CHUNK_CELLS", 37 * 7)  # 7 resamples a chunk, 1000 not a multiple
    assert bootstrap_ses(rows) == at_once


def test_accuracy_table_by_hand():
    rows = (pair(JAN, "A", (0.1, 0.02, 0.3, 0.9), (0.2, 0.03, 0.0, 0.9), changed=True)
            + pair(JAN, "B", (0.0, 0.0, 0.05, 0.9), (0.0, 0.0, 0.0, 0.9), fixed=False)
            + pair(FEB, "A", (9.0, 9.0, 0.9, 0.0), (9.0, 9.0, 0.0, 0.0), revision="hosts_changed")
            + pair(FEB, "B", (9.0, 9.0, 0.9, 0.0), (9.0, 9.0, 0.0, 0.0), revision="slip", fixed=False)
            + pair(JAN, "A", (0.1, 0.1, 0.1, 0.8), (0.1, 0.1, 0.0, 0.9), tenor="6M"))
    table = accuracy_table(pd.DataFrame(rows))
    assert list(table.columns) == ACCURACY_COLUMNS
    assert list(zip(table["scope"], table["tenor"])) == [("all", "1M"), ("all", "6M"), ("fixed_name", "1M"),
                                                         ("fixed_name", "6M")]
    one = table.iloc[0]
    assert (one["n"], one["revisions_excluded"], one["changed_share"]) == (2, 2, 0.5)
    by_kind = [one[f"excluded_{kind}"] for kind in ("switch", "hosts_changed", "restated", "slip")]
    assert by_kind == [0, 1, 0, 1]
    assert one["rel_rmse"] == pytest.approx(math.sqrt(0.01 / 2), abs=EXACT)
    assert one["rel_rmse_flat"] == pytest.approx(math.sqrt(0.04 / 2), abs=EXACT)
    assert one["rel_rmse_single_exp"] == pytest.approx(0.5, abs=EXACT)
    assert (one["crps"], one["crps_flat"]) == pytest.approx((0.01, 0.015), abs=EXACT)
    # Brier: A changed (0.3 → 0.49), B did not (0.05 → 0.0025); the base rate 0.1 scores 0.81 and 0.01.
    assert one["brier"] == pytest.approx((0.49 + 0.0025) / 2, abs=EXACT)
    assert one["brier_base"] == pytest.approx((0.81 + 0.01) / 2, abs=EXACT)
    assert one["coverage"] == pytest.approx(0.9, abs=EXACT)
    assert one["verdict"].startswith("At 1M the forecast beats the flat forward as a distribution: CRPS 0.01000, "
                                     "below flat's 0.01500")
    # The 1M gap, −0.005, against its bootstrap standard error over the two tickers: resamples AA,
    # AB, BA, BB give gaps −0.01, −0.005, −0.005, 0, so the s.e. is about 0.0035, and the gap is beyond it.
    assert one["crps_gap_se"] == pytest.approx(0.0035, abs=0.0003)
    fixed = table.iloc[2]
    assert (fixed["n"], fixed["crps"], fixed["excluded_hosts_changed"], fixed["excluded_slip"]) \
        == (1, pytest.approx(0.02, abs=EXACT), 1, 0)
    six = table.iloc[1]  # one ticker: no standard error, so no win can be claimed
    assert six["verdict"].startswith("At 6M the forecast is level with the flat forward")


def test_the_verdict_says_beats_or_worse_only_beyond_one_standard_error():
    row = dict(tenor="1M", crps=0.0100, crps_flat=0.0102, crps_gap_se=0.0003, brier=0.1, brier_base=0.1,
               brier_gap_se=0.01, rel_rmse=0.1, rel_rmse_flat=0.1, rel_rmse_gap_se=0.01, coverage=0.9,
               coverage_flat=0.9)
    assert scorecard.verdict(row).startswith("At 1M the forecast is level with the flat forward")
    assert scorecard.verdict({**row, "crps_gap_se": 0.0001}).startswith("At 1M the forecast beats the flat forward")
    assert scorecard.verdict({**row, "crps": 0.0104, "crps_gap_se": 0.0001}).startswith(
        "At 1M the forecast does worse than the flat forward")


def test_with_no_standard_error_the_headline_claims_neither_a_win_nor_a_loss():
    table = pd.DataFrame([dict(scope="all", tenor="6M", crps=0.1, crps_flat=0.2, crps_gap_se=np.nan, brier=0.1,
                               brier_base=0.2, brier_gap_se=np.nan, rel_rmse=0.4, rel_rmse_flat=0.3,
                               rel_rmse_gap_se=np.nan, coverage=0.9)])
    text = headline(table)
    assert "(lower CRPS by more than one standard error) at no tenor" in text
    assert "flat's relative RMSE at 6M;" in text and "worse by more than" not in text


def test_reliability_by_hand():
    rows = [case(JAN, t, "oracle", 0, 0, p, 0.9, changed=c) for t, p, c in [
        ("A", 0.005, False), ("B", 0.015, True), ("C", 0.018, False), ("D", 0.3, True), ("E", 0.7, True),
        ("F", 0.3, False, )]]
    rows.append(case(JAN, "G", "oracle", 0, 0, 0.3, 0.9, changed=True, revision=True))  # left out
    table = reliability_table(pd.DataFrame(rows))
    assert table[["low", "high", "n"]].values.tolist() == [[0.0, 0.01, 1], [0.01, 0.02, 2], [0.2, 0.5, 2],
                                                          [0.5, 1.0, 1]]
    assert table["predicted"].tolist() == pytest.approx([0.005, 0.0165, 0.3, 0.7], abs=EXACT)
    assert table["observed"].tolist() == pytest.approx([0.0, 0.5, 0.5, 1.0], abs=EXACT)


def test_headline_in_words():
    table = pd.DataFrame([
        dict(scope="all", tenor="1M", crps=0.1, crps_flat=0.2, crps_gap_se=0.01, brier=0.1, brier_base=0.2,
             brier_gap_se=0.01, rel_rmse=0.3, rel_rmse_flat=0.31, rel_rmse_gap_se=0.01, coverage=0.903),
        dict(scope="all", tenor="3M", crps=0.1, crps_flat=0.2, crps_gap_se=0.01, brier=0.3, brier_base=0.2,
             brier_gap_se=0.01, rel_rmse=0.35, rel_rmse_flat=0.31, rel_rmse_gap_se=0.01, coverage=0.891),
        dict(scope="all", tenor="6M", crps=0.19, crps_flat=0.2, crps_gap_se=0.02, brier=0.19, brier_base=0.2,
             brier_gap_se=0.02, rel_rmse=0.3, rel_rmse_flat=0.3, rel_rmse_gap_se=0.01, coverage=0.88),
        dict(scope="fixed_name", tenor="1M", crps=0.3, crps_flat=0.2, crps_gap_se=0.01, brier=0.3, brier_base=0.2,
             brier_gap_se=0.01, rel_rmse=0.3, rel_rmse_flat=0.3, rel_rmse_gap_se=0.01, coverage=0.5),
    ])
    # At 6M both gaps are lower but within one standard error: no win is claimed there.
    assert headline(table) == (
        "The forecast beats the flat forward as a distribution (lower CRPS by more than one standard error) at 1M "
        "and 3M; its chance of change beats the base rate (lower Brier score by more than one standard error) at "
        "1M; its mean is below, or within one standard error of, flat's relative RMSE at 1M and 6M, and worse by "
        "more than one standard error at 3M; its 90% band holds 90.3%, 89.1%, 88.0% of outcomes at 1M, 3M and 6M "
        "(90% is calibrated).")
    assert headline(table, "fixed_name").startswith("The forecast beats the flat forward as a distribution "
                                                    "(lower CRPS by more than one standard error) at no tenor")
    assert headline(table.iloc[:0]) == "No forecast has been scored yet."
