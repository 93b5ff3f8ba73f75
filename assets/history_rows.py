"""Which rows of the daily price history a product reads (filters for `TableFile.read`).

The table has a row per ticker, mode and day, too many to load whole in a large universe, and
every product built from it reads a small part: the rows where an observation lands, the rows
of a few days, or a few tickers' rows.
"""

from datetime import date

import pandas as pd

from pipelines.backtest import scored_days
from pipelines.listings import CARRIED_FORWARD, SYNC
from warehouse.large_tables import TableFile

# The rows an observation lands on: every other row repeats the one before it (`carried_forward`),
# so these say all there is about a series' changes and its first day.
OBSERVED = [("provenance", "!=", CARRIED_FORWARD)]


def on_days(*days: date) -> list:
    """Every series' row on each of `days`."""
    return [("date", "in", sorted(set(days)))]


def sync_on(days: list[date]) -> list:
    """The sync rows on each of `days`."""
    return [("mode", "==", SYNC), *on_days(*days)]


# What each product reads, in one place for its asset and for the test that holds it to the
# product built from the whole history (tests/assets/test_history_rows.py).

def spot_rows(history: TableFile, as_of: date) -> pd.DataFrame:
    """Every series on the snapshot date: the spots and their evidence."""
    return history.read(where=on_days(as_of))


def observed_rows(history: TableFile) -> pd.DataFrame:
    """The rows where an observation lands: the forecast law, the events and the backtest's revisions."""
    return history.read(where=OBSERVED)


def backtest_rows(history: TableFile, as_of: date) -> pd.DataFrame:
    """The realised sync output prices on the days the backtest scores."""
    return history.read(columns=["ticker", "mode", "date", "output"], where=sync_on(scored_days(as_of)))
