"""An outsider's swap and Monte Carlo, written from `docs/methodology.md` §2, §4, §6 and §10
alone, must reproduce the swap and Monte Carlo cases of `docs/test_vectors.json`.

Nothing here comes from `pipelines/`; numpy is used for its random generator, which the
methodology names (the same seed must give the same draws)."""

from __future__ import annotations

import json
import math
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
FILE = json.loads((ROOT / "docs" / "test_vectors.json").read_text())
DAYS_PER_MONTH = FILE["swap"]["days_per_month"]


# --- the forecast law (§4) -------------------------------------------------------------------------

def chance_by(law: dict, t: float) -> float:
    """P(a change by t months): the monthly chances, with a constant hazard within each month
    (the survival log-linear between whole months); beyond month 12, month 12's hazard goes on."""
    survival = [1.0] + [1.0 - p for p in law["p_change_by_month"]]
    whole = min(max(math.floor(t), 0), len(survival) - 2)
    before, after = survival[whole], survival[whole + 1]
    step = after / before if before > 0 else 0.0
    return 1.0 - before * step ** (t - whole)


def law_mean(law: dict) -> float:
    return sum(r * w for r, w in zip(law["ratios"], law["weights"], strict=True))


def expected_ratio(law: dict, t: float) -> float:
    """E[R_t] = 1 − P_t + P_t·m."""
    return 1.0 + chance_by(law, t) * (law_mean(law) - 1.0)


# --- the swap (§10) --------------------------------------------------------------------------------

def swap(case: dict) -> dict:
    rates, profile, law = case["rates"], case["profile"], case["law"]
    n_in, n_out = profile["n_in"], profile["n_out"]
    float0 = (n_in * rates["input"] + n_out * rates["output"]) / n_out  # spot_cost·10⁶/n_out, $/M
    multiplier = float0 / rates["output"]
    months = list(range(1, case["tenor_months"] + 1))
    notional = case["notional_tokens"] / len(months)
    r, fixed = case["discount_rate"], case["fixed_rate"]

    def legs(shift: float) -> list[tuple[float, float]]:
        """(DF, E[float]) per fixing, every fixing `shift` months nearer."""
        return [(math.exp(-r * (t - shift) / 12), float0 * expected_ratio(law, t - shift)) for t in months]

    def npv(k: float, shift: float = 0.0) -> float:
        return sum(df * notional * (e - k) for df, e in legs(shift)) * 1e-6

    today = legs(0.0)
    fair = sum(df * notional * e for df, e in today) / sum(df * notional for df, _ in today)
    as_of = date.fromisoformat(case["as_of"])
    return {
        "floating_rate": float0, "fair_fixed_rate": fair, "npv_at_fair": npv(fair), "npv_at_fixed_rate": npv(fixed),
        "notional_usd": sum(notional * e for _, e in today) * 1e-6,
        "delta": sum(df * notional * expected_ratio(law, t) for (df, _), t in zip(today, months, strict=True))
        * multiplier * 1e-6,
        "vega": 0.0,
        "theta_greek": npv(fixed, shift=1 / DAYS_PER_MONTH) - npv(fixed),
        "pv01": -0.01 * sum(df * notional for df, _ in today) * 1e-6,
        "schedule": [{"date": (as_of + timedelta(days=round(t * DAYS_PER_MONTH))).isoformat(), "months": float(t),
                      "notional_tokens": notional, "expected_floating_rate": e, "discount_factor": df}
                     for (df, e), t in zip(today, months, strict=True)],
    }


@pytest.mark.parametrize("case", FILE["swap"]["cases"], ids=lambda case: case["name"][:40])
def test_the_documented_swap_reproduces_every_figure(case):
    mine, expected = swap(case), case["expected"]
    assert set(mine) == set(expected)
    for name in expected:
        if name == "schedule":
            for got, want in zip(mine["schedule"], expected["schedule"], strict=True):
                assert got["date"] == want["date"]
                assert [got[k] for k in want if k != "date"] == pytest.approx(
                    [want[k] for k in want if k != "date"], rel=1e-12)
        else:
            assert mine[name] == pytest.approx(expected[name], rel=1e-12, abs=1e-12), name


# --- Monte Carlo (§6) ------------------------------------------------------------------------------

def monte_carlo(case: dict) -> list[list[float]]:
    """One uniform u per path for its time of change, then one uniform v per path for its ratio
    (the first ratio whose cumulative weight exceeds v); changed by t when P_t ≥ 1 − u."""
    law, rng = case["law"], np.random.default_rng(case["seed"])
    u, v = rng.random(case["paths"]), rng.random(case["paths"])
    cumulative = np.cumsum(law["weights"])
    ratio = [law["ratios"][min(int(np.searchsorted(cumulative, x, side="right")), len(law["ratios"]) - 1)] for x in v]
    return [[r if chance_by(law, t) >= 1.0 - draw else 1.0 for t in case["horizons"]]
            for draw, r in zip(u, ratio, strict=True)]


@pytest.mark.parametrize("case", FILE["monte_carlo"]["cases"], ids=lambda case: case["name"][:40])
def test_the_documented_monte_carlo_reproduces_every_path(case):
    assert monte_carlo(case) == case["expected"]["ratios"]
    assert any(r != 1.0 for path in case["expected"]["ratios"] for r in path)  # a case that shows a change
