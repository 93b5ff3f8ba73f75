"""Which rows of the daily price history a product reads (filters for `TableFile.read`).

The table has a row per ticker, mode and day, too many to load whole in a large universe, and
every product built from it reads a small part: the rows where an observation lands, the rows
of a few days, or a few tickers' rows.
"""

from datetime import date

import pandas as pd

from pipelines.backtest import scored_days
from pipelines.ici import HISTORY_START, basket_days, constituents_of, history_baskets, last_rebalance
from pipelines.listings import CARRIED_FORWARD, SYNC
from warehouse.large_tables import TableFile

# The rows an observation lands on: every other row repeats the one before it (`carried_forward`),
# so these say all there is about a series' changes and its first day.
OBSERVED = [("provenance", "!=", CARRIED_FORWARD)]


def on_days(*days: date) -> list:
    """Every series' row on each of `days`."""
    return [("date", "in", sorted(set(days)))]


def observed_or_on(*days: date) -> list:
    """The observed rows, and every row on each of `days` (each row once)."""
    return [OBSERVED, on_days(*days)]


def sync_on(days: list[date]) -> list:
    """The sync rows on each of `days`."""
    return [("mode", "==", SYNC), *on_days(*days)]


def of_tickers_since(tickers: set[str], start: date) -> list:
    """Every row of `tickers` from `start`."""
    return [("ticker", "in", sorted(tickers)), ("date", ">=", start)]


# What each product reads, in one place for its asset and for the test that holds it to the
# product built from the whole history (tests/assets/test_history_rows.py).

def spot_rows(history: TableFile, as_of: date) -> pd.DataFrame:
    """Every series on the snapshot date: the spots and their evidence."""
    return history.read(where=on_days(as_of))


def observed_rows(history: TableFile) -> pd.DataFrame:
    """The rows where an observation lands: the forecast law, the events and the backtest's revisions."""
    return history.read(where=OBSERVED)


def index_rows(history: TableFile, as_of: date) -> pd.DataFrame:
    """The index today: the observed rows, and every row on the snapshot date and its last rebalance."""
    return history.read(where=observed_or_on(as_of, last_rebalance(as_of)))


def index_history_rows(history: TableFile, models: pd.DataFrame, observations: pd.DataFrame,
                       as_of: date) -> tuple[pd.DataFrame, dict[date, pd.DataFrame]]:
    """The index's history: (every row of the constituents since its start, the baskets), the
    baskets chosen from the observed rows and those of each rebalance day."""
    baskets = history_baskets(history.read(where=observed_or_on(*basket_days(as_of))), models, observations, as_of)
    return history.read(where=of_tickers_since(constituents_of(baskets), HISTORY_START)), baskets


def backtest_rows(history: TableFile, as_of: date) -> pd.DataFrame:
    """The realised sync output prices on the days the backtest scores."""
    return history.read(columns=["ticker", "mode", "date", "output"], where=sync_on(scored_days(as_of)))
