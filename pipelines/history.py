"""Daily price history per ticker and mode, each point carrying where it came from.

The series follows the maker's own prices. Before the first of those, the archived OpenRouter
list can carry the history back to mid-2023, but only where that list has been shown to track
the maker's price: OpenRouter passes closed models through at the maker's list price, while for
open-weight models it quotes whichever host serves them, which is no evidence of the maker's
price. The evidence is measured on the days where both exist (`archive_tracks_maker`). Once the
maker's own data begins, the archive no longer steers the series, so a host's markup never
masquerades as a price change. A day with no new observation repeats the last one, marked
`carried_forward`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import numpy as np
import pandas as pd

from pipelines.ingest_archive import HOST as ARCHIVE_HOST
from pipelines.listings import CARRIED_FORWARD, PRICE_FIELDS, SYNC, prices_agree
from pipelines.membership import is_among
from pipelines.open_weight import SOURCE as HOST_MEDIAN_SOURCE
from pipelines.open_weight import host_priced

POINT_COLUMNS = [*PRICE_FIELDS, "tiers", "peak", "source", "source_version", "source_url", "provenance"]

# Fields a point may take from the point before it when its source never states them (every
# field but the input and output prices, which each statement gives).
CARRIED_FIELDS = tuple(f for f in PRICE_FIELDS if f not in ("input", "output"))
# Carried only while the input and output prices stay the same: tiers and peak rates are absolute
# rates of one price.
RESTATED_FIELDS = ("tiers", "peak")
DROPPED = -1.0  # never a price
# Bedrock's cross-region inference profiles prefix the model id with a geography.
REGIONAL_PREFIX = r"^(us|eu|apac|global|jp|au|ca|us-gov)\."

# The archive counts as tracking a maker when, on the days both are known, at least this share
# of archived prices match the maker's price in force (within the tolerance, which absorbs the
# archive's rounding), over at least this many comparisons.
AGREEMENT_FLOOR = 0.9
AGREEMENT_TOLERANCE = 0.02
MIN_COMPARISONS = 10

# The daily history is built and written in parts of about this many rows, each of whole series:
# the table has a row per ticker, mode and day, too many to hold at once in a large universe.
PART_ROWS = 500_000


def _in_force(known: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The makers' sync statements in force, and the archive's (`_archived`)."""
    known = known[~known["superseded"]]
    # A host median is no maker's price: it neither confirms nor refutes the archive's.
    origin = known[known["is_origin"] & (known["mode"] == SYNC) & ~host_priced(known)]
    return origin, _archived(known)


def _archived(known: pd.DataFrame) -> pd.DataFrame:
    """The archive's sync statements in force: apart from `_in_force`'s makers, whose host
    medians cost a pass over every statement that a reader of the archive alone need not make."""
    return known[~known["superseded"] & (known["provider"] == ARCHIVE_HOST) & (known["mode"] == SYNC)]


def archive_agreement(observations: pd.DataFrame) -> pd.DataFrame:
    """Each archived price compared with the maker's price in force that day (where there is one)."""
    return _agreement_of(*_in_force(observations))


def _agreement_of(origin: pd.DataFrame, archived: pd.DataFrame) -> pd.DataFrame:
    """`archive_agreement` of the statements `_in_force` picks."""
    origin = origin.sort_values(["effective_date", "authority"], kind="stable")
    origin = origin.drop_duplicates(["ticker", "effective_date"], keep="last")
    left = archived[["ticker", "effective_date", "input", "output"]].assign(
        _day=pd.to_datetime(archived["effective_date"])).sort_values("_day")
    right = origin[["ticker", "effective_date", "input", "output", "provider"]].assign(
        _day=pd.to_datetime(origin["effective_date"])).sort_values("_day")
    paired = pd.merge_asof(left, right, on="_day", by="ticker", suffixes=("", "_maker"), direction="backward")
    paired = paired[paired["provider"].notna()]
    agree = np.isclose(paired["input"], paired["input_maker"], rtol=AGREEMENT_TOLERANCE) & np.isclose(
        paired["output"], paired["output_maker"], rtol=AGREEMENT_TOLERANCE)
    return pd.DataFrame({"ticker": paired["ticker"], "maker": paired["provider"], "agree": agree})


def archive_tracks_maker(observations: pd.DataFrame) -> set[str]:
    """Tickers whose history the archive may carry back: the ticker's own comparisons decide
    where it has enough of them, else its maker's."""
    origin, archived = _in_force(observations)  # once: the backtest asks at every anchor
    comparisons = _agreement_of(origin, archived)
    makers, tickers = _agreement(comparisons, "maker"), _agreement(comparisons, "ticker")
    maker_of = origin.drop_duplicates("ticker").set_index("ticker")["provider"].to_dict()
    tracked = set()
    for ticker in archived["ticker"].unique():
        own = tickers.get(ticker)
        if own is not None and own["size"] >= MIN_COMPARISONS:
            ok = own["trusted"]
        else:
            maker = makers.get(maker_of.get(ticker))
            ok = maker is not None and maker["trusted"] and (own is None or own["all"])
        if ok:
            tracked.add(ticker)
    return tracked


def _agreement(comparisons: pd.DataFrame, by: str) -> dict[str, dict]:
    """Per value of `by`: the comparisons made (`size`), whether all agree (`all`), and whether
    there are enough of them and enough agree for the archive to be trusted (`trusted`)."""
    stats = comparisons.groupby(by)["agree"].agg(["size", "mean", "all"])
    stats["trusted"] = (stats["size"] >= MIN_COMPARISONS) & (stats["mean"] >= AGREEMENT_FLOOR)
    return stats.to_dict("index")


def regional_variants(origin: pd.DataFrame) -> pd.Series:
    """Statements of a cross-region id (`apac.amazon.nova-pro-v1:0`) where the same source states
    the in-region id of the model: a cross-region route carries a surcharge, so it is another
    offer, not a change of the model's price (NOVA-* showed a 5% "increase" and a cut two days later)."""
    regional = origin["provider_model_id"].str.match(REGIONAL_PREFIX)
    base_stated = (~regional).groupby([origin["ticker"], origin["source"]]).transform("any")
    return regional & base_stated


def history_points(observations: pd.DataFrame, as_of: date, backfill: set[str]) -> pd.DataFrame:
    """The observations that steer the series: one per (ticker, mode, date), the most authoritative,
    with the fields their sources leave unstated carried (`carry_unstated`).

    `backfill` names the tickers whose history the archive may carry back (`archive_tracks_maker`).
    """
    return carry_unstated(steering_points(observations, as_of, backfill))


def steering_points(observations: pd.DataFrame, as_of: date, backfill: set[str]) -> pd.DataFrame:
    """`history_points` as stated, nothing carried: the same rows, input and output prices,
    sources and provenance, for a reader of those alone (the backtest, at every anchor)."""
    known = observations[observations["effective_date"] <= as_of]
    origin = known[known["is_origin"] & ~known["superseded"]]
    origin = origin[~regional_variants(origin) & (~host_priced(origin) | (origin["source"] == HOST_MEDIAN_SOURCE))]
    archived = _archived(known)
    # OpenRouter's price of an open-weight model is one host's, no evidence of the hosts' median.
    archived = archived[is_among(archived["ticker"], backfill) & ~host_priced(archived).to_numpy()]
    # The minimum taken over datetimes, then back to dates: dates as objects group slowly.
    first_origin = pd.to_datetime(origin["effective_date"]).groupby([origin["ticker"], origin["mode"]]).min()
    first_origin = first_origin.dt.date.rename("first_origin")
    archived = archived.join(first_origin, on=["ticker", "mode"])
    archived = archived[archived["effective_date"] < archived["first_origin"]].drop(columns="first_origin")
    points = pd.concat([origin, archived], ignore_index=True)
    points = points.sort_values(["ticker", "mode", "effective_date", "authority"],
                                ascending=[True, True, True, False], kind="stable")
    return points.drop_duplicates(["ticker", "mode", "effective_date"], keep="first")


def carry_unstated(points: pd.DataFrame, keys: tuple[str, ...] = ("ticker", "mode")) -> pd.DataFrame:
    """A source that never states a field for a series says nothing about it: where a point
    leaves one of `CARRIED_FIELDS` empty and its source states that field nowhere in the series,
    the previous point's value stands (model-prices has no reasoning rate; genai-prices' batch
    variants list only the keys they change). A source that states the field elsewhere in the
    series and leaves it empty here has dropped it, and the field stays empty.

    Context tiers and peak rates (`RESTATED_FIELDS`) are absolute rates tied to the base price,
    so they are carried the same way but only while the input and output prices stay the same: a
    dataset that restates a price without its long-context tiers has not removed them.

    `keys` name a series; the points come sorted by series and date.
    """
    points = points.reset_index(drop=True)
    series = [points[key] for key in keys]
    new_series = ~points[list(keys)].eq(points[list(keys)].shift()).all(axis=1)
    repriced = new_series | ~(same_as_previous(points["input"]) & same_as_previous(points["output"]))
    price_runs = [*series, repriced.cumsum()]
    for field, groups in [(f, series) for f in CARRIED_FIELDS] + [(f, price_runs) for f in RESTATED_FIELDS]:
        states = points[field].notna().groupby([*series, points["source"]]).transform("any")
        # A drop (empty where the source states the field elsewhere) is carried too, as a marker.
        marked = points[field].astype(object).where(~(states & points[field].isna()), DROPPED)
        carried = marked.groupby(groups).ffill()
        points[field] = carried.where(carried != DROPPED).astype(points[field].dtype)
    return points


def same_as_previous(prices: pd.Series) -> pd.Series:
    """Whether each point states the same price as the point before it (`listings.same_price`;
    missing equals missing)."""
    before = prices.shift()
    agree = prices_agree(prices.to_numpy(float, na_value=np.nan), before.to_numpy(float, na_value=np.nan))
    return pd.Series(agree | (prices.isna() & before.isna()).to_numpy(), index=prices.index)


def _series_layout(points: pd.DataFrame, as_of: date) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """Points (not none) sorted by series and date, with each point's day number and series
    number, each series' first point, and each series' length in days to `as_of`."""
    points = points.sort_values(["ticker", "mode", "effective_date"], kind="stable").reset_index(drop=True)
    day = pd.to_datetime(points["effective_date"]).to_numpy().astype("datetime64[D]").astype(np.int64)
    series = points.groupby(["ticker", "mode"], sort=False).ngroup().to_numpy()
    starts = np.flatnonzero(np.r_[True, series[1:] != series[:-1]])  # each series' first point
    lengths = np.maximum(np.datetime64(as_of, "D").astype(np.int64) - day[starts] + 1, 0)
    return points, day, series, starts, lengths


def daily_history(points: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """One row per calendar day from each series' first point to `as_of`, gaps carried forward.

    Whole observations are carried forward (by position); a field an observation leaves empty has
    already been filled by `carry_unstated` where its source never states that field, and is
    otherwise empty. All series at once: each day looks up its series' latest
    point on or before it with one sorted search, then every column is taken in one step.
    """
    columns = ["ticker", "mode", "date", *POINT_COLUMNS, "observed_on"]
    if points.empty:
        return pd.DataFrame(columns=columns)
    points, day, series, starts, lengths = _series_layout(points, as_of)
    end = np.datetime64(as_of, "D").astype(np.int64)
    row_series = np.repeat(np.arange(len(starts)), lengths)
    row_day = day[starts][row_series] + (np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    # Series ids ascend with position, so (series, day) keys are sorted and one search finds each
    # day's point: the last whose key is not after the day's.
    span = int(max(end, day.max()) - day.min()) + 2
    point_key = series.astype(np.int64) * span + (day - day.min())
    position = np.searchsorted(point_key, row_series.astype(np.int64) * span + (row_day - day.min()), side="right") - 1
    daily = points[["ticker", "mode", *POINT_COLUMNS]].take(position).reset_index(drop=True)
    daily.loc[day[position] != row_day, "provenance"] = CARRIED_FORWARD
    daily["date"] = row_day.astype("datetime64[D]").astype(object)
    daily["observed_on"] = day[position].astype("datetime64[D]").astype(object)
    return daily[columns]


def daily_history_parts(points: pd.DataFrame, as_of: date, part_rows: int = PART_ROWS) -> Iterator[pd.DataFrame]:
    """`daily_history` in parts of about `part_rows` rows (more where one series is longer), each
    holding whole series, in the order of the whole: only one part is ever held."""
    if points.empty:
        yield daily_history(points, as_of)
        return
    points, _, _, starts, lengths = _series_layout(points, as_of)
    part_of_series = (np.cumsum(lengths) - lengths) // part_rows  # by the rows before the series
    bounds = np.r_[starts, len(points)]  # series i's points are bounds[i]:bounds[i + 1]
    for number in np.unique(part_of_series):
        first, last = np.flatnonzero(part_of_series == number)[[0, -1]]
        yield daily_history(points.iloc[bounds[first]:bounds[last + 1]], as_of)


def price_history_points(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The points of the published history: the archive carries a series back where it tracks the maker."""
    known = observations[observations["effective_date"] <= as_of]
    return history_points(observations, as_of, archive_tracks_maker(known))


def build_price_history(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    return daily_history(price_history_points(observations, as_of), as_of)


def price_history_parts(observations: pd.DataFrame, as_of: date, part_rows: int = PART_ROWS) -> Iterator[pd.DataFrame]:
    """`build_price_history` a part at a time (`daily_history_parts`)."""
    return daily_history_parts(price_history_points(observations, as_of), as_of, part_rows)
