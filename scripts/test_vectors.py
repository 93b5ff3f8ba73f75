"""Write `docs/test_vectors.json`: worked cases of the index, the swap and the Monte Carlo with
the code's results.

    python scripts/test_vectors.py [--check]

An index case is a small world (models, price statements, host observations), a rebalance date
and the days to price; a swap case a flat-priced model, a forecast law and a contract; a Monte
Carlo case a law, horizons, paths and a seed. The expected figures are computed here by
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
    VARIANTS,
    in_service,
    index_level,
    select_constituents,
    verification_hash,
)
from pipelines.months import DAYS_PER_MONTH  # noqa: E402
from pipelines.pricing import Rates  # noqa: E402
from pipelines.registry import EFFICIENT_OUTPUT_CEILING, FRONTIER_OUTPUT_FLOOR  # noqa: E402
from pipelines.scorecard import BOOTSTRAP_DRAWS, bootstrap_ses  # noqa: E402
from pipelines.swap import price_swap  # noqa: E402

OUT = ROOT / "docs" / "test_vectors.json"


def model(ticker, maker, tier, tier_basis="rule", pricing_basis="maker", retired_by=None):
    return {"ticker": ticker, "maker": maker, "tier": tier, "tier_basis": tier_basis,
            "pricing_basis": pricing_basis, "retired_by": retired_by}


def price(ticker, mode, first, last, input_, output, stated_on=None):
    """A price in force every day from `first` to `last`, stated on `stated_on` (default `first`)."""
    return {"ticker": ticker, "mode": mode, "from": first, "to": last, "input": input_, "output": output,
            "stated_on": stated_on or first}


def hosts(ticker, count, since="2025-06-01"):
    return [{"ticker": ticker, "provider": f"host-{i}", "is_origin": False, "effective_date": since,
             "superseded": False} for i in range(count)]


# Case 1: eight constituents, so the cap binds (at least 1/0.15 names); a tier by price that
# changed after the rebalance; a preview with the most hosts; a model retired before the
# rebalance and one after it; a host-median price; a maker that is not major; batch for some; a
# new price stated after the rebalance.
BASKET_CASE = {
    "name": "eight makers' tiers, the cap, and what is never a constituent",
    "rebalance_date": "2026-04-01",
    "days": ["2026-04-01", "2026-05-20"],
    "models": [
        model("GPT-X", "openai", "frontier"), model("GPT-X-PREVIEW", "openai", "frontier"),
        model("GPT-MINI", "openai", "efficient"),
        model("OPUS", "anthropic", "frontier"), model("HAIKU", "anthropic", "efficient"),
        model("GEMINI-PRO", "google", "frontier"), model("GEMINI-FLASH", "google", "efficient"),
        # Frontier by today's price (output 12 from 2026-05-01); on 2026-04-01 its output was 1.2: efficient.
        model("GROK-FAST", "xai", "frontier", tier_basis="price"),
        model("GROK-BIG", "xai", "frontier", retired_by="2026-05-10"),  # chosen, then gone before 2026-05-20
        model("GROK-OLD", "xai", "efficient", retired_by="2026-03-15"),
        model("LLAMA-OPEN", "meta", "efficient", pricing_basis="host_median"),
        model("M-1", "minimax", "frontier"),
    ],
    "prices": [
        price("GPT-X", "sync", "2025-01-01", "2026-05-31", 2.0, 8.0),
        price("GPT-X", "batch", "2025-07-01", "2026-05-31", 1.0, 4.0),
        price("GPT-X-PREVIEW", "sync", "2025-01-01", "2026-05-31", 1.0, 4.0),
        price("GPT-MINI", "sync", "2025-01-01", "2026-05-31", 0.4, 1.6),
        price("OPUS", "sync", "2025-01-01", "2026-05-31", 15.0, 75.0),
        price("OPUS", "batch", "2025-07-01", "2026-05-31", 7.5, 37.5),
        price("HAIKU", "sync", "2025-01-01", "2026-05-31", 0.8, 4.0),
        price("GEMINI-PRO", "sync", "2025-01-01", "2026-04-30", 1.25, 10.0),
        price("GEMINI-PRO", "sync", "2026-05-01", "2026-05-31", 1.0, 8.0, stated_on="2026-05-01"),
        price("GEMINI-FLASH", "sync", "2025-03-01", "2026-05-31", 0.3, 2.5),
        price("GROK-FAST", "sync", "2025-01-01", "2026-04-30", 0.2, 1.2),
        price("GROK-FAST", "sync", "2026-05-01", "2026-05-31", 3.0, 12.0, stated_on="2026-05-01"),
        price("GROK-BIG", "sync", "2025-01-01", "2026-05-31", 3.0, 15.0),
        price("GROK-OLD", "sync", "2024-01-01", "2026-05-31", 0.1, 0.4),
        price("LLAMA-OPEN", "sync", "2025-01-01", "2026-05-31", 0.1, 0.3),
        price("M-1", "sync", "2025-01-01", "2026-05-31", 1.0, 5.0),
    ],
    "hosts": [*hosts("GPT-X", 1), *hosts("GPT-X-PREVIEW", 9), *hosts("OPUS", 3), *hosts("HAIKU", 2),
              *hosts("GEMINI-FLASH", 12), *hosts("GROK-FAST", 4), *hosts("GROK-OLD", 6),
              *hosts("LLAMA-OPEN", 20), *hosts("GPT-MINI", 2, since="2026-04-02")],
}

# Case 2: ties, equal weights below 1/CAP names, and a constituent whose series stops.
TIE_CASE = {
    "name": "ties by newest first sync date then ticker; fewer names than 1/cap take equal weights",
    "rebalance_date": "2026-07-01",
    "days": ["2026-07-01", "2026-07-10"],
    "models": [
        model("OPUS-A", "anthropic", "frontier"), model("OPUS-B", "anthropic", "frontier"),
        model("SONNET-NEW", "anthropic", "efficient"), model("SONNET-OLD", "anthropic", "efficient"),
        model("MISTRAL-BIG", "mistral", "frontier"),
    ],
    "prices": [
        price("OPUS-A", "sync", "2026-01-01", "2026-07-31", 15.0, 75.0),
        price("OPUS-B", "sync", "2026-01-01", "2026-07-31", 5.0, 25.0),
        price("SONNET-NEW", "sync", "2026-02-01", "2026-07-31", 1.0, 1.5),
        price("SONNET-OLD", "sync", "2025-02-01", "2026-07-31", 1.0, 1.5),
        price("MISTRAL-BIG", "sync", "2026-01-01", "2026-07-05", 2.0, 6.0),
        price("MISTRAL-BIG", "batch", "2026-01-01", "2026-07-31", 1.0, 3.0),
    ],
    "hosts": [*hosts("OPUS-A", 1), *hosts("OPUS-B", 1), *hosts("SONNET-NEW", 1), *hosts("SONNET-OLD", 1)],
}

CASES = [BASKET_CASE, TIE_CASE]

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
    models = pd.DataFrame(case["models"]).rename(columns={"maker": "provider"})
    models["retired_by"] = pd.to_datetime(models["retired_by"])
    observations = pd.DataFrame(case["hosts"])
    observations["effective_date"] = pd.to_datetime(observations["effective_date"]).dt.date
    return pd.DataFrame(rows), models, observations


def expected(case: dict) -> dict:
    history, models, observations = _frames(case)
    basket = select_constituents(history, models, observations, date.fromisoformat(case["rebalance_date"]))
    out = {"basket": [{"ticker": r.ticker, "tier": r.tier, "hosts": int(r.hosts), "weight": float(r.weight)}
                      for r in basket.itertuples()], "levels": {}}
    for day_text in case["days"]:
        day = date.fromisoformat(day_text)
        levels = {}
        for variant in VARIANTS:
            value, detail, carried, oldest = index_level(basket, in_service(history[history["date"] == day], models),
                                                         variant)
            if detail.empty:
                levels[variant] = None
                continue
            levels[variant] = {
                "value": value, "carried_forward": carried, "oldest_input_days": int(oldest),
                "constituents": [[t, float(w), float(p)] for t, w, p in
                                 zip(detail["ticker"], detail["weight"], detail["price"], strict=True)],
                "verification_hash": verification_hash(variant, day, METHODOLOGY_VERSION, detail),
            }
        out["levels"][day_text] = levels
    return out


def vectors() -> dict:
    index = {
        "methodology_version": METHODOLOGY_VERSION,
        "about": "Worked cases of docs/methodology.md §7. Prices are in USD per million tokens; a price "
                 "entry is in force every day from `from` to `to` and was stated on `stated_on`.",
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
