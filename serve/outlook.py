"""The forecast law of a snapshot (`pipelines.forecast`), read once per snapshot.

Every on-demand forward — a price's, a comparison's, a swap's, a Monte Carlo's, a budget's — reads
the one published law here, so each equals the published forward curve at its tenors.
"""

from __future__ import annotations

import numpy as np

from pipelines.forecast import Process, chance_at, mean_ratio, read_processes, stack_laws
from serve.records import memoized
from serve.state import LoadedSnapshot


def processes_of(snapshot: LoadedSnapshot) -> dict[tuple[str, str], Process]:
    """(ticker, mode) → its Process."""
    return memoized(snapshot, ("processes",),
                    lambda: read_processes(snapshot.table("processes"), snapshot.table("change_laws")))


def process_of(snapshot: LoadedSnapshot, ticker: str, mode: str) -> Process | None:
    """The ticker's law in `mode`, or None where it has none (no price history)."""
    return processes_of(snapshot).get((ticker, mode))


def _stacked(snapshot: LoadedSnapshot, mode: str) -> tuple[np.ndarray, np.ndarray]:
    return memoized(snapshot, ("forward_ratios", mode), lambda: stack_laws(
        [process_of(snapshot, ticker, mode) for ticker in snapshot.table("spots")["ticker"]]))


def forward_chances(snapshot: LoadedSnapshot, mode: str, months: float) -> np.ndarray:
    """The chance of a change by `months` of each row of the spots table in `mode`, NaN where the
    model has no law, read at once from a matrix kept per snapshot and mode."""
    by_month, _ = _stacked(snapshot, mode)
    return chance_at(by_month, months).reshape(-1)


def forward_ratios(snapshot: LoadedSnapshot, mode: str, months: float,
                   chances: np.ndarray | None = None) -> np.ndarray:
    """E[R_t] at `months` of each row of the spots table in `mode`, NaN where the model has no law
    (`chances`: `forward_chances` of the same, when the caller has them already)."""
    chances = forward_chances(snapshot, mode, months) if chances is None else chances
    return mean_ratio(chances, _stacked(snapshot, mode)[1])
