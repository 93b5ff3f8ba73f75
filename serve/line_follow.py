"""Following a model line (methodology §5, "Line forwards"): the published line forward of a model
that is its line's current one, for every endpoint that takes `follow: "line"` (`/v1/price`,
`/v1/simulate`), with the same refusal in the same words where the line cannot be followed.

The `line_forwards` table is indexed once per snapshot; the succession law is the pipeline's own
(`pipelines.line_forwards.succession_law`) over the published `lines` table, so a successor's price
in a simulated budget is drawn from the law the line forward's mean was computed from.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from pipelines.forecast import Process
from pipelines.line_forwards import HORIZONS, succession_law
from pipelines.outlook import line_in_words
from pipelines.scheduled import horizon_date
from serve.problems import invalid
from serve.records import memoized, optional_table
from serve.state import LoadedSnapshot

Follow = Literal["model", "line"]  # stay on the model asked for, or move to each successor as it comes
NO_LINES = "no_lines"  # the code of a 503 for a snapshot published before lines were kept


def lines_table(snapshot: LoadedSnapshot, name: str) -> pd.DataFrame:
    """`lines` or `line_forwards`, or a 503 (NO_LINES) for a snapshot published before they were kept."""
    return optional_table(snapshot, name, NO_LINES, "lines were kept")


def line_forward_rows(snapshot: LoadedSnapshot) -> dict[tuple[str, str, float], dict[str, Any]]:
    """(current model, mode, months) → its `line_forwards` row, once per snapshot."""
    def index() -> dict[tuple[str, str, float], dict[str, Any]]:
        table = lines_table(snapshot, "line_forwards")
        return {(row["current"], row["mode"], row["months"]): row for row in table.to_dict("records")}

    return memoized(snapshot, ("line_forward_rows",), index)


def line_forward(snapshot: LoadedSnapshot, ticker: str, mode: str, months: float | None,
                 field: str = "follow") -> dict[str, Any]:
    """The `line_forwards` row at `months` of the line `ticker` is the current model of, or a 400 on
    `field` saying why it cannot be followed (no whole horizon, in no line, not its current model)."""
    if months is None or float(months) not in HORIZONS:  # whole months 1 to 12
        raise invalid(field, "following the line needs a whole horizon_months, 1 to 12 (the line forwards' months)")
    point = line_forward_rows(snapshot).get((ticker, mode, float(months)))
    if point is not None:
        return point
    lines = lines_table(snapshot, "lines")
    mine = lines[lines["ticker"] == ticker]
    if mine.empty:
        raise invalid(field, f"{ticker} is in no line; send follow \"model\"")
    line = mine["line"].iloc[0]
    forwards = lines_table(snapshot, "line_forwards")
    now = forwards[(forwards["line"] == line) & (forwards["mode"] == mode)]["current"]
    where = f"its current model is {now.iloc[0]}; price that to follow the line" if len(now) else \
        f"it has no {mode} line forward"
    raise invalid(field, f"{ticker} is not the current model of its line {line}: {where}")


def expected_ratio(point: dict[str, Any]) -> float:
    """The line forward over its current model's spot: the expected change of following the line."""
    return float(point["beta_forward"]) / float(point["spot"])


def line_outlook(snapshot: LoadedSnapshot, point: dict[str, Any]) -> str:
    """The line forward in words (`pipelines.outlook.line_in_words`), the horizon said as its month."""
    return line_in_words(horizon_date(snapshot.as_of_day, float(point["months"])), float(point["p_successor"]),
                         expected_ratio(point))


def successor_process(snapshot: LoadedSnapshot, ticker: str, mode: str) -> Process:
    """Q, the successor's price over the current model's, as a `Process`: its chance by month m the
    line forward's p_successor, its law the succession law (a 400 as `line_forward` where the
    model's line cannot be followed)."""
    chances = [float(line_forward(snapshot, ticker, mode, months)["p_successor"]) for months in HORIZONS]
    law = memoized(snapshot, ("succession_law",), lambda: succession_law(lines_table(snapshot, "lines"),
                                                                         snapshot.as_of_day))
    return Process(np.asarray(chances), law)
