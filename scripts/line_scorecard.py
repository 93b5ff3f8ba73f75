"""The walk-forward scorecard of line forwards on a published snapshot (`pipelines.line_backtest`):
every monthly anchor from 2024-01-01, each forecast made with what was known then, scored at
1, 3 and 6 months against flat and against the fixed model's own forecast.

    python scripts/line_scorecard.py SNAPSHOT_DIR [--cases OUT.parquet]

Prints one row per tenor and method, with the line-block bootstrap standard errors of the line
forward's CRPS and RMSE gaps.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.backtest import START, anchor_dates, forecasts_at, target_date  # noqa: E402
from pipelines.line_backtest import LINE_TENORS, line_cases, line_scorecard  # noqa: E402
from pipelines.line_forwards import current_members, succession_law, succession_rates  # noqa: E402
from pipelines.lines import build_lines  # noqa: E402
from pipelines.registry import Rules  # noqa: E402
from warehouse.seed_files import read_seed_csv  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--cases", type=Path, help="also write every scored case here")
    args = parser.parse_args()
    observations = pd.read_parquet(args.snapshot / "price_observations.parquet")
    models = pd.read_parquet(args.snapshot / "models.parquet")
    history = pd.read_parquet(args.snapshot / "price_history.parquet",
                              columns=["ticker", "mode", "date", "output", "provenance"])
    history["date"] = pd.to_datetime(history["date"]).dt.date
    as_of = max(history["date"])
    rules = Rules.from_frame(read_seed_csv("model_rules"))
    sync = history[history["mode"] == "sync"].set_index(["ticker", "date"])["output"]
    current_on: dict[date, pd.DataFrame] = {}

    def current(day: date) -> pd.DataFrame:
        if day not in current_on:
            current_on[day] = current_members(build_lines(models, history, day), day).set_index("line")
        return current_on[day]

    def outcome(line: str, day: date):
        if day > as_of or line not in current(day).index:
            return None
        ticker = current(day).loc[line, "ticker"]
        price = sync.get((ticker, day))
        return None if price is None or not price > 0 else (ticker, float(price))

    cases = []
    for anchor in anchor_dates(START, as_of):
        if target_date(anchor, min(LINE_TENORS.values())) > as_of:
            break
        forecasts, laws = forecasts_at(observations, models, rules, anchor)
        oracle = forecasts[forecasts["method"] == "oracle"]
        lines = build_lines(models, history, anchor)
        cases += line_cases(anchor, current_members(lines, anchor), succession_rates(lines, anchor).set_index("line"),
                            succession_law(lines, anchor), oracle, laws, outcome)
        print(f"{anchor}: {len(cases)} cases", file=sys.stderr)
    frame = pd.DataFrame(cases)
    if args.cases:
        frame.to_parquet(args.cases)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(line_scorecard(frame).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
