"""The forecast law of a snapshot (`pipelines.forecast`), read once per snapshot.

Every on-demand forward — a price's, a comparison's, a swap's, a Monte Carlo's, a budget's — reads
the one published law here, so each equals the published forward curve at its tenors.
"""

from __future__ import annotations

import numpy as np

from pipelines.forecast import Process, chance_at, read_processes
from serve.state import LoadedSnapshot


def processes_of(snapshot: LoadedSnapshot) -> dict[tuple[str, str], Process]:
    """(ticker, mode) → its Process."""
    key = ("processes",)
    if key not in snapshot.cache:
        snapshot.cache[key] = read_processes(snapshot.table("processes"), snapshot.table("change_laws"))
    return snapshot.cache[key]


def process_of(snapshot: LoadedSnapshot, ticker: str, mode: str) -> Process | None:
    """The ticker's law in `mode`, or None where it has none (no price history)."""
    return processes_of(snapshot).get((ticker, mode))


def forward_ratios(snapshot: LoadedSnapshot, mode: str, months: float) -> np.ndarray:
    """E[R_t] at `months` of each row of the spots table in `mode`, NaN where the model has no
    law: every row's chance of change read at once from a matrix kept per snapshot and mode."""
    key = ("forward_ratios", mode)
    if key not in snapshot.cache:
        laws = [process_of(snapshot, t, mode) for t in snapshot.table("spots")["ticker"]]
        width = next((len(p.by_month) for p in laws if p is not None), 12)
        by_month = np.array([p.by_month if p is not None else np.full(width, np.nan) for p in laws]).reshape(-1, width)
        means = np.array([p.law.mean if p is not None else np.nan for p in laws])
        snapshot.cache[key] = (by_month, means)
    by_month, means = snapshot.cache[key]
    p = chance_at(by_month, months).reshape(-1)
    return 1.0 + p * (means - 1.0)  # as `forecast.mixture_mean` writes it: never above 1 for a mean ≤ 1
