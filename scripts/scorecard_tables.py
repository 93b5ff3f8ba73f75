"""The scorecard of `docs/methodology.md` §9, printed as Markdown from a snapshot.

    python scripts/scorecard_tables.py SNAPSHOT_DIR

Reads the snapshot's `accuracy` and `backtest_reliability` tables and prints what the methodology
shows of them (`scorecard`): the headlines, the scores, the cases left out by kind and the
reliability; then the line forwards' scores (`line_table`), so the figures there are copied from
a build, never typed by hand (`tests/pipelines/test_scorecard_in_docs.py` checks that they are
the full data's).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from pipelines.change_panel import REVISIONS
from pipelines.line_backtest import LINE_SCOPE
from pipelines.scorecard import headline

SCOPES = {"all": "all", "fixed_name": "fixed name"}


def _models(accuracy: pd.DataFrame) -> pd.DataFrame:
    """The rows scoring the forecasts of a model (scopes SCOPES)."""
    return accuracy[accuracy["scope"].isin(list(SCOPES))]


def _trio(row, name: str, digits: int = 5, methods=("", "_flat", "_single_exp"), percent: bool = False) -> str:
    """The oracle's figure and its baselines', " / " apart (as percentages with one decimal)."""
    if percent:
        return " / ".join(f"{100 * row[name + m]:.1f}%" for m in methods)
    return " / ".join(f"{row[name + m]:.{digits}f}" for m in methods)


def accuracy_table(accuracy: pd.DataFrame) -> str:
    lines = ["| scope | tenor | n (revisions left out) | changed | CRPS oracle / flat / single-exp | gap s.e. "
             "| Brier oracle / base rate | rel. RMSE oracle / flat / single-exp | gap s.e. "
             "| log-ratio RMSE oracle / flat | MAPE oracle / flat | coverage oracle / flat / single-exp |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for _, row in _models(accuracy).iterrows():
        lines.append(
            f"| {SCOPES[row['scope']]} | {row['tenor']} | {row['n']:,} ({row['revisions_excluded']}) "
            f"| {100 * row['changed_share']:.1f}% | {_trio(row, 'crps')} | {row['crps_gap_se']:.5f} "
            f"| {row['brier']:.5f} / {row['brier_base']:.5f} | {_trio(row, 'rel_rmse')} | {row['rel_rmse_gap_se']:.5f} "
            f"| {_trio(row, 'log_rmse', methods=('', '_flat'))} | {_trio(row, 'mape', 2, ('', '_flat'))} "
            f"| {_trio(row, 'coverage', percent=True)} |")
    return "\n".join(lines)


def exclusions_table(accuracy: pd.DataFrame) -> str:
    """Per scope and tenor: the cases scored, and those left out by the kind of their first revision."""
    lines = ["| scope | tenor | scored | left out | " + " | ".join(REVISIONS) + " |",
             "|---|---|---|---|" + "---|" * len(REVISIONS)]
    for _, row in _models(accuracy).iterrows():
        lines.append(f"| {SCOPES[row['scope']]} | {row['tenor']} | {row['n']:,} | {row['revisions_excluded']} | "
                     + " | ".join(str(row[f"excluded_{kind}"]) for kind in REVISIONS) + " |")
    return "\n".join(lines)


def headlines(accuracy: pd.DataFrame) -> str:
    """The headline of each scope, as quoted blocks."""
    return "\n\n".join(f"> {SCOPES[scope].capitalize()}: {headline(accuracy, scope)}" for scope in SCOPES)


def scorecard(accuracy: pd.DataFrame, reliability: pd.DataFrame) -> str:
    """Everything the methodology shows of a snapshot's scorecard, in its order."""
    return "\n\n".join([headlines(accuracy), accuracy_table(accuracy), "Cases left out, by the kind of revision:",
                        exclusions_table(accuracy), "Reliability of p_change (all models):",
                        reliability_table(reliability)])


def line_table(accuracy: pd.DataFrame) -> str:
    """The line forwards' scores per tenor, beside the fixed model's own forecast and flat."""
    lines = ["| tenor | n (lines) | successor came | CRPS line / fixed / flat | gap to flat (s.e.) "
             "| gap to fixed (s.e.) | rel. RMSE line / fixed / flat (gap to flat s.e.) "
             "| 90% band line / fixed / flat | Brier line / base rate (s.e.) |",
             "|---|---|---|---|---|---|---|---|---|"]
    trio = ("", "_fixed", "_flat")
    for _, row in accuracy[accuracy["scope"] == LINE_SCOPE].iterrows():
        lines.append(
            f"| {row['tenor']} | {row['n']:,} ({row['blocks']}) | {100 * row['changed_share']:.1f}% "
            f"| {_trio(row, 'crps', methods=trio)} | {row['crps'] - row['crps_flat']:+.5f} ({row['crps_gap_se']:.5f}) "
            f"| {row['crps'] - row['crps_fixed']:+.5f} ({row['crps_fixed_gap_se']:.5f}) "
            f"| {_trio(row, 'rel_rmse', 4, trio)} ({row['rel_rmse_gap_se']:.4f}) "
            f"| {_trio(row, 'coverage', methods=trio, percent=True)} "
            f"| {row['brier']:.4f} / {row['brier_base']:.4f} ({row['brier_gap_se']:.4f}) |")
    return "\n".join(lines)


def reliability_table(reliability: pd.DataFrame) -> str:
    lines = ["| tenor | P(change) bin | n | predicted | observed |", "|---|---|---|---|---|"]
    for _, row in reliability.iterrows():
        lines.append(f"| {row['tenor']} | {row['low']:.2f}–{row['high']:.2f} | {row['n']:,} "
                     f"| {row['predicted']:.4f} | {row['observed']:.4f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="a published snapshot's folder")
    snapshot = parser.parse_args().snapshot
    accuracy = pd.read_parquet(snapshot / "accuracy.parquet")
    print(scorecard(accuracy, pd.read_parquet(snapshot / "backtest_reliability.parquet")))
    print("\nLine forwards:\n")
    print(line_table(accuracy))


if __name__ == "__main__":
    main()
