"""Which rows of the daily price history a product reads (filters for `TableFile.read`).

The table has a row per ticker, mode and day, too many to load whole in a large universe, and
every product built from it reads a small part: the rows where an observation lands, the rows
of a few days, or a few tickers' rows.
"""

from datetime import date

from pipelines.listings import CARRIED_FORWARD, SYNC

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
