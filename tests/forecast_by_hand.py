"""The published forecast law recomputed by hand, with numpy, from the snapshot's own tables.

A test that checks a number the API returns compares it with these, never with the function the
server calls (`pipelines.forecast`, `serve.outlook`, `pipelines.scheduled`): so the test checks the
server's arithmetic rather than repeating it. Per ticker and mode the law is (methodology §4)

    β_h = S_h · R_h,   R_h = 1 with probability 1 − P_h, else a draw of the change law

- P_h: the `processes` rows give P(a change by the end of month k), k = 1 … 12; between whole
  months the survival 1 − P is log-linear (a constant hazard within the month), from 1 at 0;
- the change law: the `change_laws` rows of the ticker's `change_law`, ratios and weights;
- E[R_h] = 1 + P_h · (m − 1), m the change law's mean; the quantiles of R_h are those of the
  mixture of an atom at 1 (weight 1 − P_h) and the law (weight P_h);
- S_h: the last output price a source has announced for a day on or before as_of + round(h ·
  30.4375) days (`scheduled_changes`), else the spot; L_h = S_h / spot.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd

DAYS_PER_MONTH = 30.4375  # 365.25 / 12, the contract's month


class ByHand:
    """The law of every (ticker, mode) of a snapshot, read from its tables once."""

    def __init__(self, processes: pd.DataFrame, change_laws: pd.DataFrame, scheduled: pd.DataFrame,
                 spots: pd.DataFrame, as_of: date):
        self.chances = {key: rows.sort_values("months")["p_change"].to_numpy(float)
                        for key, rows in processes.groupby(["ticker", "mode"])}
        self.months = {key: rows.sort_values("months")["months"].to_numpy(float)
                       for key, rows in processes.groupby(["ticker", "mode"])}
        self.law_name = {key: rows["change_law"].iloc[0] for key, rows in processes.groupby(["ticker", "mode"])}
        self.laws = {name: (rows["ratio"].to_numpy(float), rows["weight"].to_numpy(float))
                     for name, rows in change_laws.groupby("change_law")}
        self.scheduled = scheduled[scheduled["field"] == "output"]
        self.spots = spots.set_index("ticker")
        self.as_of = as_of

    @classmethod
    def of(cls, store, as_of: date) -> ByHand:
        return cls(store.read_table("processes"), store.read_table("change_laws"),
                   store.read_table("scheduled_changes"), store.read_table("spots"), as_of)

    # --- the law ---------------------------------------------------------------------------------

    def law(self, ticker: str, mode: str = "sync") -> tuple[np.ndarray, np.ndarray]:
        return self.laws[self.law_name[(ticker, mode)]]

    def law_mean(self, ticker: str, mode: str = "sync") -> float:
        ratios, weights = self.law(ticker, mode)
        return float(np.sum(ratios * weights) / np.sum(weights))

    def p_change(self, ticker: str, mode: str, months: float) -> float:
        """P_h, log-linear in the survival between the published whole months."""
        assert self.months[(ticker, mode)].tolist() == list(range(1, 13))
        survival = np.r_[1.0, 1.0 - self.chances[(ticker, mode)]]  # at 0, 1, …, 12 months
        h = float(months)
        k = min(int(np.floor(h)), 11)
        if survival[k] == 0:
            return 1.0
        return float(1.0 - survival[k] * (survival[k + 1] / survival[k]) ** (h - k))

    def expected_ratio(self, ticker: str, mode: str, months: float) -> float:
        """E[R_h] = 1 + P_h · (m − 1)."""
        return 1.0 + self.p_change(ticker, mode, months) * (self.law_mean(ticker, mode) - 1.0)

    def quantile(self, ticker: str, mode: str, months: float, probability: float) -> float:
        """The least ratio x with P(R_h ≤ x) ≥ probability."""
        p = self.p_change(ticker, mode, months)
        ratios, weights = self.law(ticker, mode)
        weights = weights / weights.sum()
        support = np.unique(np.r_[ratios, 1.0])
        cdf = np.array([p * weights[ratios <= x].sum() + (1.0 - p) * (x >= 1.0) for x in support])
        return float(support[np.argmax(cdf >= probability - 1e-12)])

    def law_quantile(self, ticker: str, mode: str, probability: float) -> float:
        """The change law's own quantile: what a change, if it comes, does to the price."""
        ratios, weights = self.law(ticker, mode)
        order = np.argsort(ratios, kind="stable")
        cumulative = np.cumsum(weights[order]) / weights.sum()
        return float(ratios[order][min(np.searchsorted(cumulative, probability - 1e-12), len(ratios) - 1)])

    # --- the announced level ---------------------------------------------------------------------

    def horizon_day(self, months: float) -> date:
        return self.as_of + timedelta(days=round(float(months) * DAYS_PER_MONTH))

    def scheduled_beta(self, ticker: str, mode: str, months: float) -> float:
        """S_h: the last output price announced for a day on or before the horizon, else the spot."""
        due = self.scheduled[(self.scheduled["ticker"] == ticker) & (self.scheduled["mode"] == mode)
                             & (self.scheduled["effective_date"] <= self.horizon_day(months))]
        if len(due):
            return float(due.sort_values("effective_date")["after"].iloc[-1])
        return float(self.spots.loc[ticker, f"beta_{mode}"])

    def level(self, ticker: str, mode: str, months: float) -> float:
        """L_h = S_h / spot."""
        return self.scheduled_beta(ticker, mode, months) / float(self.spots.loc[ticker, f"beta_{mode}"])

    def forward(self, ticker: str, mode: str, months: float) -> float:
        """The mean of β_h: S_h · E[R_h]."""
        return self.scheduled_beta(ticker, mode, months) * self.expected_ratio(ticker, mode, months)

    # --- which tickers to test -------------------------------------------------------------------

    def tickers_of(self, law_name: str, mode: str = "sync") -> list[str]:
        return sorted(t for (t, m), name in self.law_name.items() if m == mode and name == law_name)
