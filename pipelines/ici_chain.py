"""Chain-linking of the Inference Cost Index (methodology `ici-4.0`, `docs/methodology.md` §7 step 6).

A fixed basket of list prices falls when its members' prices fall. Re-weighting the raw average
of a new basket instead moves the level by the change of basket alone: on the bundled data that
was about 85% of the fall of the index before `ici-4.0`. So the level moves only by the prices of
constituents priced on two consecutive days:

    L(d) = L(d − 1) · Σ_{i∈S} wᵢ·pᵢ(d) / Σ_{i∈S} wᵢ·pᵢ(d − 1),   S = priced on d − 1 and on d,

with the basket of the period d belongs to. On a rebalance date R the old basket gives L(R) (it is
priced on R − 1 and R) and the new basket starts from that level, so a change of basket never
moves the level. A constituent entering or leaving mid-period (a series that starts, a
retirement) does not move it either. A day on which no pair is priced carries the level over
unchanged; the first day on which the variant has any price starts it at that day's weighted
average (Σ wᵢ·pᵢ / Σ wᵢ over the priced constituents), in $/M.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Chained:
    """One basket's days in one variant: each day's level (NaN where nothing is priced), and the
    level it hands on (the last one it reached, NaN while the variant never had one)."""

    values: np.ndarray
    carried_out: float


def raw_level(prices: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per day: the weighted average price over the constituents priced that day (NaN: none)."""
    priced = np.isfinite(prices)
    held = np.where(priced, weights[None, :], 0.0)
    total = held.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (held * np.where(priced, prices, 0.0)).sum(axis=1) / total, np.nan)


def chain(prices: np.ndarray, weights: np.ndarray, carried_in: float = np.nan) -> Chained:
    """The chained level of one basket over consecutive days (rows of `prices`, NaN where a
    constituent is not priced), starting from `carried_in` on the first day (the level the old
    basket reached that day)."""
    level = float(carried_in)
    values = np.full(len(prices), np.nan)
    previous = None
    for day, today in enumerate(prices):
        priced = np.isfinite(today)
        if priced.any():
            if np.isnan(level):  # the variant's first level
                level = float(weights[priced] @ today[priced] / weights[priced].sum())
            elif previous is not None and (both := priced & np.isfinite(previous)).any():
                level *= float(weights[both] @ today[both]) / float(weights[both] @ previous[both])
            values[day] = level
        previous = today
    return Chained(values, level)


def composition_effects(levels: np.ndarray, raw: np.ndarray, changed: np.ndarray) -> np.ndarray:
    """Per day: the relative jump the raw weighted average makes beyond the chained level's move,
    i.e. what the level would have jumped that day if it were not chain-linked. It is 0 where
    neither the basket nor the set of constituents priced changed from the day before, and NaN
    where that day or the day before has no level."""
    link = levels / raw  # the factor carrying the raw average to the level
    effect = np.full(len(levels), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        effect[1:] = link[:-1] / link[1:] - 1
    effect[1:] = np.where(np.isfinite(effect[1:]) & ~changed[1:], 0.0, effect[1:])
    return effect
