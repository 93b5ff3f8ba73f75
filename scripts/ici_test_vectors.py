"""Write `docs/ici_test_vectors.json`: worked cases of the index rule with the code's results.

    python scripts/ici_test_vectors.py [--check]

Each case is a small world (models, price statements, host observations), a rebalance date and
the days to price; the expected basket and levels are computed here by `pipelines.ici`, so the
file says what the code does. `tests/docs/test_ici_vectors.py` recomputes every expected figure
from the rules in `docs/methodology.md` §7 alone (it imports nothing from `pipelines/`), and
`tests/pipelines/test_ici.py` checks the code still gives the file's figures: the document and
the code cannot drift apart unnoticed. `--check` exits 1 if the file is not what this script
would write.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, timedelta
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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
from pipelines.registry import EFFICIENT_OUTPUT_CEILING, FRONTIER_OUTPUT_FLOOR  # noqa: E402

OUT = ROOT / "docs" / "ici_test_vectors.json"


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
    return {
        "methodology_version": METHODOLOGY_VERSION,
        "about": "Worked cases of docs/methodology.md §7. Prices are in USD per million tokens; a price "
                 "entry is in force every day from `from` to `to` and was stated on `stated_on`. Expected "
                 "figures are written by scripts/ici_test_vectors.py from the code; floats compare to 1e-12.",
        "constants": {"major_makers": list(MAJOR_MAKERS), "tiers": list(TIERS),
                      "unfinished_words": list(UNFINISHED_WORDS), "cap": CAP, "batch_share": BATCH_SHARE,
                      "blend": {"input": INPUT_SHARE, "output": OUTPUT_SHARE},
                      "tier_by_price": {"frontier_output_at_least": FRONTIER_OUTPUT_FLOOR,
                                        "efficient_output_at_most": EFFICIENT_OUTPUT_CEILING}},
        "cases": [{**case, "expected": expected(case)} for case in CASES],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from what would be written")
    args = parser.parse_args()
    text = json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("up to date" if same else f"{OUT} differs from what scripts/ici_test_vectors.py writes")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
