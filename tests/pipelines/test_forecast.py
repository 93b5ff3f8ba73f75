"""The forecast law: the change law, the mixture's moments, quantiles and CRPS, the hazard and the paths."""

import math
import zlib
from datetime import date

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import approx_fprime

from pipelines import forecast
from pipelines.change_panel import FEATURES
from pipelines.forecast import (
    NEVER_ROSE,
    ROSE,
    ChangeLaw,
    FittedLaw,
    Hazard,
    Process,
    ProcessTable,
    build_change_laws,
    chance_at,
    fit_change_laws,
    fit_hazard,
    fit_sample,
    mixture_cdf,
    mixture_crps,
    mixture_mean,
    mixture_quantiles,
    read_processes,
    recency_weights,
)

EXACT = 1e-12
LAW = ChangeLaw(np.array([0.5, 0.8, 2.0]), np.array([0.5, 0.3, 0.2]))  # mean 0.25 + 0.24 + 0.4 = 0.89


def test_change_law_moments_and_quantiles():
    assert LAW.mean == pytest.approx(0.89, abs=EXACT)
    logs = np.log([0.5, 0.8, 2.0])
    mean = 0.5 * logs[0] + 0.3 * logs[1] + 0.2 * logs[2]
    assert LAW.log_mean == pytest.approx(mean, abs=EXACT)
    assert LAW.log_std == pytest.approx(math.sqrt(np.dot([0.5, 0.3, 0.2], (logs - mean) ** 2)), abs=EXACT)
    assert [LAW.quantile(q) for q in (0.05, 0.5, 0.51, 0.8, 0.81, 1.0)] == [0.5, 0.5, 0.8, 0.8, 2.0, 2.0]


def atoms(p, law=LAW):
    """The mixture as explicit atoms: 1 with weight 1 − p, each ratio with p times its weight."""
    return np.r_[1.0, law.ratios], np.r_[1 - p, p * law.weights]


@pytest.mark.parametrize("p", [0.0, 0.03, 0.4, 1.0])
def test_mixture_mean_is_the_sum_over_atoms(p):
    values, weights = atoms(p)
    assert mixture_mean(p, LAW) == pytest.approx(values @ weights, abs=EXACT)


def test_a_law_with_mean_at_most_one_never_lifts_the_mean():
    flat = ChangeLaw(np.array([0.5, 1.5]), np.array([0.5, 0.5]))  # mean exactly 1
    assert (mixture_mean(np.linspace(0, 1, 101), flat) <= 1.0).all()


def test_mixture_quantiles_by_hand():
    # p = 0.4: atoms 0.5 (0.2), 0.8 (0.12), 1 (0.6), 2 (0.08); cumulative 0.2, 0.32, 0.92, 1.
    q = mixture_quantiles([0.4, 0.03], LAW, (0.05, 0.2, 0.21, 0.5, 0.92, 0.95))
    assert q[0].tolist() == [0.5, 0.5, 0.8, 1.0, 1.0, 2.0]
    # p = 0.03: cumulative 0.015, 0.024, 0.994, 1: the band is the atom.
    assert q[1].tolist() == [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]


def test_mixture_cdf_by_hand():
    low, high = mixture_cdf([0.4, 0.4, 0.4, 0.4], LAW, [0.8, 1.0, 1.2, 0.1])
    assert low == pytest.approx([0.2, 0.32, 0.92, 0.0], abs=EXACT)
    assert high == pytest.approx([0.32, 0.92, 0.92, 0.0], abs=EXACT)


@pytest.mark.parametrize(("p", "x"), [(0.0, 1.0), (0.0, 0.7), (0.05, 1.0), (0.3, 0.5), (0.3, 3.0), (1.0, 0.9)])
def test_mixture_crps_is_the_integral_of_the_squared_cdf_gap(p, x):
    values, weights = atoms(p)
    grid = np.linspace(0.0, 4.0, 400_001)
    cdf = (values[None, :] <= grid[:, None]) @ weights
    integral = np.sum((cdf - (grid >= x)) ** 2) * (grid[1] - grid[0])
    assert mixture_crps([p], LAW, [x])[0] == pytest.approx(integral, abs=2e-5)


def test_chance_at_whole_and_part_months():
    by_month = np.array([0.1, 0.19])  # survival 0.9, 0.81
    assert chance_at(by_month, [1, 2]) == pytest.approx([0.1, 0.19], abs=EXACT)
    assert chance_at(by_month, [0.5, 1.5]) == pytest.approx([1 - 0.9**0.5, 1 - 0.9 * 0.9**0.5], abs=EXACT)
    assert chance_at(np.array([[0.1, 0.19], [0.0, 0.5]]), 2.0).reshape(-1) == pytest.approx([0.19, 0.5], abs=EXACT)
    assert chance_at(by_month, [0.0])[0] == 0.0


BY_MONTH = 1 - 0.8 ** np.arange(1, 13)  # a hazard of 20% a month


def test_process_figures_by_hand():
    process = Process(BY_MONTH, LAW)
    assert process.p_change(3)[0] == pytest.approx(1 - 0.8**3, abs=EXACT)
    assert process.expected_ratio([3])[0] == pytest.approx(1 + (1 - 0.8**3) * (0.89 - 1), abs=EXACT)
    assert process.theta == pytest.approx(-math.log(1 + (1 - 0.8**12) * -0.11) / 12, abs=EXACT)
    assert Process(np.zeros(12), ChangeLaw(np.array([1.5]), np.array([1.0]))).theta == 0.0
    assert math.copysign(1.0, Process(np.zeros(12), LAW).theta) == 1.0  # never −0


def test_paths_match_the_law():
    process = Process(BY_MONTH, LAW)
    grid = np.array([1.0, 3.0, 6.0])
    paths = process.sample(grid, 200_000, np.random.default_rng(7))
    for i, h in enumerate(grid):
        share = np.mean(paths[:, i] != 1.0)
        p = process.p_change(h)[0]
        assert share == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / len(paths)))
        mean, sd = paths[:, i].mean(), paths[:, i].std()
        assert mean == pytest.approx(process.expected_ratio(h)[0], abs=4 * sd / math.sqrt(len(paths)))
    changed = paths != 1.0
    assert (changed[:, :-1] <= changed[:, 1:]).all()  # once changed, a path stays changed ...
    both = changed[:, 0]
    assert (paths[both, 0] == paths[both, 2]).all()  # ... at the ratio it drew
    again = process.sample(grid, 1000, np.random.default_rng(7))
    assert (again == process.sample(grid, 1000, np.random.default_rng(7))).all()


def panel(rows, anchor=date(2025, 1, 1)):
    """rows: (changed, ratio, family_rose); every window one month, at one anchor, features all zero."""
    frame = pd.DataFrame([dict(ticker=f"T{i}", anchor=anchor, months=1.0, name_class="fixed", family_rose=rose,
                               changed=changed, ratio=ratio) for i, (changed, ratio, rose) in enumerate(rows)])
    for feature in FEATURES:
        frame[feature] = 0.0
    return frame


def test_change_laws_by_hand():
    # Cuts {0.5}; rises {2, 3} at equal weight; the pooled share of rises 2/3.
    laws, prior = fit_change_laws(panel([(True, 0.5, False), (True, 2.0, False), (True, 3.0, True),
                                         (False, 1.0, False)]), date(2025, 1, 1))  # weights 1
    # Family rose (one change, a rise): prior 5/6, share of rises (1/6)·1 + (5/6)·(2/3) = 13/18.
    assert prior[ROSE] == pytest.approx(5 / 6, abs=EXACT)
    assert laws[ROSE].ratios.tolist() == [0.5, 2.0, 3.0]
    assert laws[ROSE].weights == pytest.approx([5 / 18, 13 / 36, 13 / 36], abs=EXACT)
    # Never rose (a cut and a rise): prior 5/7, share (2/7)·(1/2) + (5/7)·(2/3) = 13/21, capped at
    # (1 − 0.5)/(2.5 − 0.5) = 1/4 so that the mean is 1: 0.75·0.5 + 0.25·2.5.
    assert prior[NEVER_ROSE] == pytest.approx(5 / 7, abs=EXACT)
    assert laws[NEVER_ROSE].weights == pytest.approx([0.75, 0.125, 0.125], abs=1e-12)
    assert laws[NEVER_ROSE].mean <= 1.0 and laws[NEVER_ROSE].mean == pytest.approx(1.0, abs=1e-12)


def test_change_laws_without_changes_or_with_one_direction():
    laws, prior = fit_change_laws(panel([(False, 1.0, False)]), date(2025, 2, 1))
    assert laws[ROSE].ratios.tolist() == [1.0] and prior == {ROSE: 1.0, NEVER_ROSE: 1.0}
    laws, _ = fit_change_laws(panel([(True, 2.0, False), (True, 4.0, False)]), date(2025, 2, 1))
    assert laws[ROSE].mean == pytest.approx(3.0) and laws[NEVER_ROSE].ratios.tolist() == [1.0]  # no cut to mix


def test_recency_weights():
    assert recency_weights([date(2024, 1, 1), date(2025, 1, 1)], date(2025, 1, 1)) == pytest.approx(
        [0.5 ** (366 / 30.4375 / 12), 1.0], abs=EXACT)


def test_hazard_without_signal_is_the_rate():
    # Features and horizon all alike: the fit has nothing but the intercept, P = 7/100.
    rows = [(i < 7, 0.5 if i < 7 else 1.0, False) for i in range(100)]
    hazard = fit_hazard(panel(rows), date(2025, 2, 1))
    assert hazard.chance(panel(rows).iloc[:1], 1.0)[0] == pytest.approx(0.07, abs=1e-6)


def test_hazard_with_few_changes_is_the_plain_rate():
    rows = [(i < 2, 0.5, False) for i in range(50)]
    hazard = fit_hazard(panel(rows), date(2025, 1, 1))  # every window at the anchor: weights 1
    rate = (2 + 0.5) / (50 + 1)
    one = panel(rows).iloc[:1]
    assert hazard.chance(one, 1.0)[0] == pytest.approx(rate, abs=EXACT)
    assert hazard.chance(one, 3.0)[0] > hazard.chance(one, 1.0)[0]


def test_hazard_is_the_penalised_optimum():
    rng = np.random.default_rng(3)
    frame = panel([(bool(rng.random() < 0.1), 0.5, False) for _ in range(400)])
    frame["log_age"] = rng.normal(size=len(frame))
    frame["months"] = rng.choice([1.0, 3.0, 6.0], size=len(frame))
    frame["changed"] = rng.random(len(frame)) < 0.05 * frame["months"] * np.exp(frame["log_age"])
    fitted = fit_hazard(frame, date(2025, 2, 1))
    x = np.column_stack([frame[FEATURES].to_numpy(float), np.log(frame["months"].to_numpy())])
    z = (x - fitted.center) / fitted.scale
    y = frame["changed"].to_numpy(float)
    w = recency_weights(frame["anchor"], date(2025, 2, 1)) / frame["months"].to_numpy()

    def objective(params):  # written out afresh: weighted log loss plus the penalty on the slopes
        eta = params[0] + z @ params[1:]
        p = 1 / (1 + np.exp(-eta))
        return -np.sum(w * (y * np.log(p) + (1 - y) * np.log(1 - p))) + 0.5 * forecast.L2_PENALTY * np.sum(
            params[1:] ** 2)

    gradient = approx_fprime(np.r_[fitted.intercept, fitted.coef], objective, 1e-7)
    assert np.abs(gradient).max() < 1e-3
    assert fitted.coef[FEATURES.index("log_age")] > 0 and fitted.coef[-1] > 0  # older here, and longer: likelier


def test_tables_round_trip():
    fitted = FittedLaw(Hazard(np.zeros(15), np.ones(15), np.zeros(15), 0.0), {ROSE: LAW, NEVER_ROSE: LAW},
                       {ROSE: 0.25, NEVER_ROSE: 0.5}, {1.0: 0.01})
    laws = build_change_laws(fitted)
    assert laws.columns.tolist() == ["change_law", "ratio", "weight", "prior_weight"]
    assert laws["prior_weight"].tolist() == [0.5] * 3 + [0.25] * 3
    processes = pd.DataFrame({"ticker": "A", "mode": "sync", "months": np.arange(1.0, 13.0), "p_change": BY_MONTH,
                              "change_law": ROSE})
    read = read_processes(processes.iloc[::-1], laws)[("A", "sync")]
    assert read.by_month.tolist() == BY_MONTH.tolist() and read.law.weights.tolist() == LAW.weights.tolist()


def test_the_table_of_processes_gives_each_process_figures_exactly():
    other = ChangeLaw(np.array([0.25, 1.5]), np.array([0.6, 0.4]))
    laws = pd.DataFrame([(name, r, w, 0.5) for name, law in ((ROSE, LAW), (NEVER_ROSE, other))
                         for r, w in zip(law.ratios, law.weights, strict=True)],
                        columns=["change_law", "ratio", "weight", "prior_weight"])
    rows = [("B", "sync", BY_MONTH, NEVER_ROSE), ("A", "sync", BY_MONTH / 2, ROSE), ("A", "batch", BY_MONTH, ROSE)]
    processes = pd.concat([pd.DataFrame({"ticker": t, "mode": m, "months": np.arange(1.0, 13.0), "p_change": by,
                                         "change_law": law}) for t, m, by, law in rows]).iloc[::-1]
    table = ProcessTable.read(processes, laws)
    assert list(zip(table.tickers, table.modes, strict=True)) == [("A", "batch"), ("A", "sync"), ("B", "sync")]
    one_by_one = read_processes(processes, laws)
    months, probabilities = [0.5, 1.0, 2.5, 12.0], (0.05, 0.5, 0.95)
    for i, process in enumerate(one_by_one.values()):
        assert table.p_change(months)[i].tolist() == process.p_change(months).tolist()
        assert table.expected_ratio(months)[i].tolist() == process.expected_ratio(months).tolist()
        assert table.quantiles(months, probabilities)[i].tolist() == process.quantiles(months, probabilities).tolist()
    with pytest.raises(ValueError, match="never fall"):
        ProcessTable.read(processes.assign(p_change=processes["p_change"] * -1), laws)
    with pytest.raises(ValueError, match="lacks"):
        ProcessTable.read(processes, laws[laws["change_law"] == ROSE])
    with pytest.raises(ValueError, match="same number of months"):
        ProcessTable.read(processes.iloc[1:], laws)


def test_fit_sample_is_every_ticker_or_a_fixed_hash_sample():
    tickers = [f"T{i}" for i in range(10)]
    assert fit_sample(tickers, 10) == tickers
    chosen = fit_sample(tickers, 3)
    crc = sorted(tickers, key=lambda t: zlib.crc32(t.encode()))[:3]
    assert chosen == sorted(crc) and fit_sample(list(reversed(tickers)), 3) == chosen
