"""Write `docs/test_vectors.json`: worked cases of the index, the swap and the Monte Carlo with
the code's results.

    python scripts/test_vectors.py [--check]

An index case is a small world (models, price statements, host observations), a rebalance date
and the days to price; a swap case a flat-priced model, a forecast law and a contract; a Monte
Carlo case a law, horizons, paths and a seed. The index cases of an earlier methodology version
stay as published in a file of their own (`docs/test_vectors_ici-3.0.json`), which this script
does not write. The expected figures are computed here by
`pipelines/`, so the file says what the code does. The tests in `tests/docs/` recompute every
expected figure from the rules in `docs/methodology.md` alone (they import nothing from
`pipelines/`) and check that the code still gives the file's figures: the document and the code
cannot drift apart unnoticed. `--check` exits 1 if the file is not what this script would write.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipelines.forecast import ChangeLaw, Process  # noqa: E402
from pipelines.ici import (  # noqa: E402
    BATCH_SHARE,
    CAP,
    INPUT_SHARE,
    MAJOR_MAKERS,
    METHODOLOGY_VERSION,
    OUTPUT_SHARE,
    TIERS,
    UNFINISHED_WORDS,
    basket_days,
    build_ici_history,
    history_baskets,
    in_service,
    index_level,
    verification_hash,
)
from pipelines.months import DAYS_PER_MONTH  # noqa: E402
from pipelines.pricing import Rates  # noqa: E402
from pipelines.registry import EFFICIENT_OUTPUT_CEILING, FRONTIER_OUTPUT_FLOOR  # noqa: E402
from pipelines.scorecard import BOOTSTRAP_DRAWS, bootstrap_ses  # noqa: E402
from pipelines.swap import price_swap  # noqa: E402

OUT = ROOT / "docs" / "test_vectors.json"


def model(ticker, maker, tier, released_on, tier_basis="rule", pricing_basis="maker", retired_by=None,
          first_seen=None):
    return {"ticker": ticker, "maker": maker, "tier": tier, "tier_basis": tier_basis,
            "pricing_basis": pricing_basis, "retired_by": retired_by, "released_on": released_on,
            "first_seen": first_seen}


def price(ticker, mode, first, last, input_, output, stated_on=None):
    """A price in force every day from `first` to `last`, stated on `stated_on` (default `first`)."""
    return {"ticker": ticker, "mode": mode, "from": first, "to": last, "input": input_, "output": output,
            "stated_on": stated_on or first}


def hosts(ticker, count, since="2025-06-01"):
    return [{"ticker": ticker, "provider": f"host-{i}", "is_origin": False, "effective_date": since,
             "superseded": False} for i in range(count)]


# Case 1: a history from 2026-03-30 across the rebalance of 2026-04-01. The old basket's price
# cut on the rebalance date moves the level; the change of basket (GPT-Y replaces GPT-X) does
# not, and publishes its composition effect. Seven makers, so the cap binds on the cheap model
# most hosts serve. A model listed at $0 input (the most hosts) is never a constituent; a
# constituent whose output reads $0 mid-period is left out those days, and a batch price that
# starts mid-period starts the batch variant there.
CHAIN_CASE = {
    "name": "chained across a rebalance: the basket changes, the level does not",
    "start": "2026-03-30", "as_of": "2026-04-04",
    "models": [
        model("GPT-X", "openai", "frontier", "2025-04-14"), model("GPT-Y", "openai", "frontier", "2026-02-05"),
        model("OPUS", "anthropic", "frontier", "2025-05-22"), model("HAIKU", "anthropic", "efficient", "2025-10-15"),
        model("GLM-FREE", "zai", "efficient", "2026-02-11"), model("GLM-AIR", "zai", "efficient", "2025-07-28"),
        model("GEMINI-FLASH", "google", "efficient", "2025-06-17"), model("GROK", "xai", "frontier", "2025-07-09"),
        model("MISTRAL-M", "mistral", "frontier", "2025-05-07"),
        model("DEEPSEEK", "deepseek", "efficient", "2025-12-01"),
    ],
    "prices": [
        price("GPT-X", "sync", "2025-04-14", "2026-03-31", 2.0, 8.0),
        price("GPT-X", "sync", "2026-04-01", "2026-04-04", 1.0, 4.0),  # a cut on the rebalance date
        price("GPT-Y", "sync", "2026-02-05", "2026-04-04", 1.25, 10.0),
        price("OPUS", "sync", "2025-05-22", "2026-04-04", 15.0, 75.0),
        price("OPUS", "batch", "2026-04-03", "2026-04-04", 7.5, 37.5),
        price("HAIKU", "sync", "2025-10-15", "2026-04-02", 1.0, 5.0),
        price("HAIKU", "sync", "2026-04-03", "2026-04-03", 1.0, 0.0, stated_on="2026-04-03"),  # a $0 rate
        price("HAIKU", "sync", "2026-04-04", "2026-04-04", 1.0, 5.0, stated_on="2026-04-04"),
        price("GLM-FREE", "sync", "2026-02-11", "2026-04-04", 0.0, 3.2),
        price("GLM-AIR", "sync", "2025-07-28", "2026-04-04", 0.2, 1.1),
        price("GLM-AIR", "batch", "2026-04-02", "2026-04-04", 0.1, 0.55),
        price("GEMINI-FLASH", "sync", "2025-06-17", "2026-04-04", 0.3, 2.5),
        price("GROK", "sync", "2025-07-09", "2026-04-04", 3.0, 15.0),
        price("MISTRAL-M", "sync", "2025-05-07", "2026-04-04", 0.4, 2.0),
        price("MISTRAL-M", "sync", "2026-04-02", "2026-04-04", 0.4, 1.0, stated_on="2026-04-02"),
        price("DEEPSEEK", "sync", "2025-12-01", "2026-04-04", 0.28, 0.42),
    ],
    "hosts": [*hosts("GPT-X", 2), *hosts("GPT-Y", 3, since="2026-03-31"), *hosts("OPUS", 3), *hosts("HAIKU", 2),
              *hosts("GLM-FREE", 9), *hosts("GLM-AIR", 1), *hosts("GEMINI-FLASH", 12), *hosts("GROK", 1),
              *hosts("DEEPSEEK", 4)],
}

# Case 2: ties on hosts go to the later release date, not to the later start of a price series
# (the old GEMINI-1.0-PRO's series starts in 2025-07, after GEMINI-2.5-PRO's); a model without a
# release date from the registry stands in with its first-seen date; a model known retired on
# the rebalance date is no candidate; two constituents take equal weights.
TIE_CASE = {
    "name": "ties go to the later release; a retired model is no candidate",
    "start": "2025-10-01", "as_of": "2025-10-02",
    "models": [
        model("GEMINI-1.0-PRO", "google", "frontier", "2023-12-13"),
        model("GEMINI-2.5-PRO", "google", "frontier", "2025-06-17"),
        model("GEMINI-2.0-PRO", "google", "frontier", "2025-02-05", retired_by="2025-10-01"),
        model("SONNET-OLD", "anthropic", "efficient", None, first_seen="2025-02-24"),
        model("SONNET-NEW", "anthropic", "efficient", "2025-09-29"),
    ],
    "prices": [
        price("GEMINI-1.0-PRO", "sync", "2025-07-01", "2025-10-02", 0.125, 0.375),
        price("GEMINI-2.5-PRO", "sync", "2025-06-17", "2025-10-02", 1.25, 10.0),
        price("GEMINI-2.0-PRO", "sync", "2025-02-05", "2025-10-02", 1.0, 4.0),
        price("SONNET-OLD", "sync", "2025-09-01", "2025-10-02", 0.8, 1.5),
        price("SONNET-NEW", "sync", "2025-08-01", "2025-10-02", 1.0, 1.5),
        price("SONNET-NEW", "sync", "2025-10-02", "2025-10-02", 0.9, 1.5, stated_on="2025-10-02"),
    ],
    "hosts": [*hosts("GEMINI-1.0-PRO", 1), *hosts("GEMINI-2.5-PRO", 1), *hosts("GEMINI-2.0-PRO", 5),
              *hosts("SONNET-OLD", 1), *hosts("SONNET-NEW", 1)],
}

CASES = [CHAIN_CASE, TIE_CASE]

# A forecast law: the chance of a change by the end of month 1 … 12, and the change law (ratios
# new/old and their weights; mean 0.755).
LAW = {"p_change_by_month": [0.04, 0.08, 0.12, 0.15, 0.18, 0.21, 0.24, 0.27, 0.30, 0.32, 0.34, 0.36],
       "ratios": [0.5, 0.8, 1.25], "weights": [0.3, 0.6, 0.1]}
SWAP_CASES = [{
    "name": "six monthly fixings on a flat-priced model, at a given fixed rate",
    "as_of": "2026-11-26", "law": LAW, "rates": {"input": 3.0, "output": 15.0},
    "profile": {"n_in": 2000, "n_out": 500}, "tenor_months": 6, "notional_tokens": 12_000_000,
    "discount_rate": 0.05, "fixed_rate": 25.0,
}]
# Scored backtest cases (one per anchor, ticker and method), as `backtest` holds them.
def _scored(anchor, ticker, changed, p_base, oracle, flat):
    """oracle and flat: (rel_error, crps, p_change, covered)."""
    return [{"anchor": anchor, "ticker": ticker, "method": method, "rel_error": e, "crps": c, "p_change": p,
             "covered": v, "changed": changed, "p_base": p_base}
            for method, (e, c, p, v) in (("oracle", oracle), ("flat", flat))]


BOOTSTRAP_CASES = [{
    "name": "four tickers, two anchors",
    "seed": 0,
    "rows": [
        *_scored("2026-01-01", "B-MODEL", False, 0.05, (0.01, 0.004, 0.06, 0.9), (0.0, 0.002, 0.0, 0.95)),
        *_scored("2026-04-01", "B-MODEL", True, 0.05, (-0.3, 0.12, 0.10, 0.6), (-0.5, 0.25, 0.0, 0.0)),
        *_scored("2026-01-01", "A-MODEL", False, 0.05, (0.02, 0.006, 0.04, 0.92), (0.0, 0.001, 0.0, 0.95)),
        *_scored("2026-04-01", "A-MODEL", False, 0.05, (0.02, 0.006, 0.04, 0.92), (0.0, 0.001, 0.0, 0.95)),
        *_scored("2026-01-01", "C-MODEL", True, 0.08, (-0.1, 0.05, 0.20, 0.7), (-0.2, 0.1, 0.0, 0.0)),
        *_scored("2026-01-01", "D-MODEL", False, 0.08, (0.0, 0.003, 0.02, 0.93), (0.0, 0.0, 0.0, 0.95)),
    ],
}]

MONTE_CARLO_CASES = [{"name": "eight paths to 1, 3 and 6 months", "law": LAW, "horizons": [1, 3, 6], "paths": 8,
                      "seed": 7}]


def _process(law: dict) -> Process:
    return Process(np.array(law["p_change_by_month"]), ChangeLaw(np.array(law["ratios"]), np.array(law["weights"])))


def swap_expected(case: dict) -> dict:
    quote = price_swap(Rates(**case["rates"]), _process(case["law"]), case["profile"]["n_in"],
                       case["profile"]["n_out"], 0.0, 0.0, case["tenor_months"], case["notional_tokens"],
                       case["discount_rate"], date.fromisoformat(case["as_of"]), fixed_rate=case["fixed_rate"])
    return {"floating_rate": quote.floating_rate, "fair_fixed_rate": quote.fair_fixed_rate, "npv_at_fair": quote.npv,
            "npv_at_fixed_rate": quote.npv_at_fixed_rate, "notional_usd": quote.notional_usd, "delta": quote.delta,
            "vega": quote.vega, "theta_greek": quote.theta_greek, "pv01": quote.pv01,
            "schedule": [{"date": f.date.isoformat(), "months": f.months, "notional_tokens": f.notional_tokens,
                          "expected_floating_rate": f.expected_floating_rate, "discount_factor": f.discount_factor}
                         for f in quote.schedule]}


def bootstrap_expected(case: dict) -> dict:
    rows = pd.DataFrame(case["rows"])
    rows["anchor"] = pd.to_datetime(rows["anchor"]).dt.date
    return bootstrap_ses(rows, seed=case["seed"])


def monte_carlo_expected(case: dict) -> dict:
    ratios = _process(case["law"]).sample(case["horizons"], case["paths"], np.random.default_rng(case["seed"]))
    return {"ratios": ratios.tolist()}


def _frames(case: dict) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rows = []
    for p in case["prices"]:
        first, last = date.fromisoformat(p["from"]), date.fromisoformat(p["to"])
        rows += [{"ticker": p["ticker"], "mode": p["mode"], "date": first + timedelta(days=i), "input": p["input"],
                  "output": p["output"], "observed_on": date.fromisoformat(p["stated_on"])}
                 for i in range((last - first).days + 1)]
    # A later entry of the same (ticker, mode) restates the days it covers.
    history = pd.DataFrame(rows).drop_duplicates(["ticker", "mode", "date"], keep="last")
    models = pd.DataFrame(case["models"]).rename(columns={"maker": "provider"})
    models["retired_by"] = pd.to_datetime(models["retired_by"])
    observations = pd.DataFrame(case["hosts"])
    observations["effective_date"] = pd.to_datetime(observations["effective_date"]).dt.date
    return history.reset_index(drop=True), models, observations


def _nullable(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def expected(case: dict) -> dict:
    history, models, observations = _frames(case)
    start, as_of = date.fromisoformat(case["start"]), date.fromisoformat(case["as_of"])
    baskets = history_baskets(history, models, observations, as_of, start)
    daily = build_ici_history(history, models, observations, as_of, start, baskets=baskets)
    out = {"baskets": {day.isoformat(): [{"ticker": r.ticker, "tier": r.tier, "hosts": int(r.hosts),
                                          "weight": float(r.weight)} for r in basket.itertuples()]
                       for day, basket in baskets.items()}, "levels": {}}
    for point in daily.itertuples():
        day, variant = point.date, point.type
        rebalance = max(d for d in basket_days(as_of, start) if d <= day)
        levels = out["levels"].setdefault(day.isoformat(), {})
        if np.isnan(point.value):
            levels[variant] = None
            continue
        level = index_level(baskets[rebalance], in_service(history[history["date"] == day], models), variant,
                            point.value, rebalance)
        levels[variant] = {
            "value": level.value, "link_factor": level.link_factor,
            "composition_effect": _nullable(point.composition_effect),
            "carried_forward": level.carried_forward, "oldest_input_days": int(level.oldest_input_days),
            "constituents": [[t, float(w), float(p)] for t, w, p in
                             zip(level.detail["ticker"], level.detail["weight"], level.detail["price"], strict=True)],
            "verification_hash": verification_hash(variant, day, METHODOLOGY_VERSION, level.detail, level.link_factor),
        }
    return out


def vectors() -> dict:
    index = {
        "methodology_version": METHODOLOGY_VERSION,
        "about": "Worked cases of docs/methodology.md §7: a history from `start` to `as_of` (the start is a "
                 "rebalance date). Prices are in USD per million tokens; a price entry is in force every day "
                 "from `from` to `to` and was stated on `stated_on`; a later entry of the same model and mode "
                 "restates the days it covers. The cases of ici-3.0 are in test_vectors_ici-3.0.json.",
        "constants": {"major_makers": list(MAJOR_MAKERS), "tiers": list(TIERS),
                      "unfinished_words": list(UNFINISHED_WORDS), "cap": CAP, "batch_share": BATCH_SHARE,
                      "blend": {"input": INPUT_SHARE, "output": OUTPUT_SHARE},
                      "tier_by_price": {"frontier_output_at_least": FRONTIER_OUTPUT_FLOOR,
                                        "efficient_output_at_most": EFFICIENT_OUTPUT_CEILING}},
        "cases": [{**case, "expected": expected(case)} for case in CASES],
    }
    swap = {"about": "Worked cases of docs/methodology.md §10 (swap): a model with flat input and output "
                     "prices ($/M) and no other billed line, a profile with no cache and no thinking.",
            "days_per_month": DAYS_PER_MONTH,
            "cases": [{**case, "expected": swap_expected(case)} for case in SWAP_CASES]}
    monte_carlo = {"about": "Worked cases of docs/methodology.md §6: numpy's default generator "
                            "(numpy.random.default_rng(seed)); R at each horizon on each path.",
                   "cases": [{**case, "expected": monte_carlo_expected(case)} for case in MONTE_CARLO_CASES]}
    bootstrap = {"about": "Worked cases of docs/methodology.md §9 (standard errors): scored cases of the "
                          "oracle and of flat; numpy.random.default_rng(seed).",
                 "draws": BOOTSTRAP_DRAWS,
                 "cases": [{**case, "expected": bootstrap_expected(case)} for case in BOOTSTRAP_CASES]}
    return {"about": "Expected figures are written by scripts/test_vectors.py from the code; floats compare to "
                     "1e-12 (relative for money).",
            "index": index, "swap": swap, "monte_carlo": monte_carlo, "bootstrap": bootstrap}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from what would be written")
    args = parser.parse_args()
    text = json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("up to date" if same else f"{OUT} differs from what scripts/test_vectors.py writes")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
