"""An outsider's block bootstrap, written from `docs/methodology.md` §9 alone, must reproduce the
standard errors of `docs/test_vectors.json`. Nothing here comes from `pipelines/`; numpy gives
the generator the methodology names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FILE = json.loads((ROOT / "docs" / "test_vectors.json").read_text())


def standard_errors(case: dict, draws: int) -> dict[str, float]:
    """Per ticker (in alphabetical order) the sums over its cases; `draws` resamples of as many
    tickers, drawn with replacement by `integers(0, tickers)` one resample after another; each
    figure recomputed from the resample's sums; the standard error is the population standard
    deviation of the figure over the resamples."""
    by_case: dict[tuple[str, str], dict[str, dict]] = {}
    for row in case["rows"]:
        by_case.setdefault((row["ticker"], row["anchor"]), {})[row["method"]] = row
    tickers = sorted({ticker for ticker, _ in by_case})
    sums = {t: np.zeros(8) for t in tickers}
    for (ticker, _), methods in by_case.items():
        oracle, flat = methods["oracle"], methods["flat"]
        changed = float(oracle["changed"])
        sums[ticker] += [1.0, oracle["rel_error"] ** 2, flat["rel_error"] ** 2, oracle["crps"], flat["crps"],
                         (oracle["p_change"] - changed) ** 2, (oracle["p_base"] - changed) ** 2, oracle["covered"]]
    table = np.array([sums[t] for t in tickers])
    rng = np.random.default_rng(case["seed"])
    totals = np.array([table[rng.integers(0, len(tickers), size=len(tickers))].sum(axis=0) for _ in range(draws)])
    n, se, se_flat, crps, crps_flat, brier, brier_base, covered = totals.T
    return {"rel_rmse_gap_se": float(np.std(np.sqrt(se / n) - np.sqrt(se_flat / n))),
            "crps_gap_se": float(np.std((crps - crps_flat) / n)),
            "brier_gap_se": float(np.std((brier - brier_base) / n)),
            "coverage_se": float(np.std(covered / n))}


@pytest.mark.parametrize("case", FILE["bootstrap"]["cases"], ids=lambda case: case["name"])
def test_the_documented_bootstrap_reproduces_the_standard_errors(case):
    mine = standard_errors(case, FILE["bootstrap"]["draws"])
    assert mine == pytest.approx(case["expected"], rel=1e-12)
    assert all(value > 0 for value in mine.values())
