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
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from pipelines.ingest_archive import HOST as ARCHIVE_HOST
from pipelines.listings import CARRIED_FORWARD, PRICE_FIELDS, SYNC, known_on, prices_agree, published_late
from pipelines.membership import is_among
from pipelines.open_weight import SOURCE as HOST_MEDIAN_SOURCE
from pipelines.open_weight import host_median_from, host_priced, host_priced_since

POINT_COLUMNS = [*PRICE_FIELDS, "tiers", "peak", "source", "source_version", "source_url", "provenance", "known_on"]

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
    """The archive's sync statements in force."""
    return known[~known["superseded"] & (known["provider"] == ARCHIVE_HOST) & (known["mode"] == SYNC)]


def archive_agreement(observations: pd.DataFrame) -> pd.DataFrame:
    """Each archived price compared with the maker's price in force that day (where there is one):
    its ticker, the maker, whether they agree, and the archived price's effective date."""
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
    return pd.DataFrame({"ticker": paired["ticker"], "maker": paired["provider"], "agree": agree,
                         "effective_date": paired["effective_date"]})


def archive_tracks_maker(observations: pd.DataFrame) -> set[str]:
    """Tickers whose history the archive may carry back: the ticker's own comparisons decide
    where it has enough of them (`MIN_COMPARISONS`), else its maker's (and then none of its own
    may disagree)."""
    return archive_tracks_on(observations, [date.max])[0]


def archive_tracks_on(observations: pd.DataFrame, days: list[date]) -> list[set[str]]:
    """`archive_tracks_maker` of the observations dated on or before each of `days`, all at once
    (the backtest asks at every anchor). The comparisons of a day are the whole's made on or
    before it: an archived price is compared with the maker's price in force on its own day.
    Except that a ticker priced at its hosts' median by then has no maker's price to compare."""
    known = observations[~observations["superseded"]]
    archived = _archived(known)
    tickers, archived_code = np.unique(archived["ticker"].to_numpy(dtype=object), return_inverse=True)
    code_of = {ticker: code for code, ticker in enumerate(tickers)}
    median_from = host_median_from(known)

    def coded(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each row's ticker code (−1: no archived price), day, and first host median's day."""
        names = frame["ticker"].to_numpy(dtype=object)
        return (np.array([code_of.get(t, -1) for t in names], dtype=np.int64), _days(frame).to_numpy(),
                median_from.reindex(names).to_numpy())

    origin = known[known["is_origin"] & (known["mode"] == SYNC)]
    comparisons = _agreement_of(origin, archived)
    makers, maker_code = np.unique(comparisons["maker"].to_numpy(dtype=object), return_inverse=True)
    maker_count = max(len(makers), 1)  # so that a ticker's maker can be looked up when none compared
    by_maker = {maker: code for code, maker in enumerate(makers)}
    compared, compared_day, compared_median = coded(comparisons)
    agree = comparisons["agree"].to_numpy(dtype=float)
    origin_code, origin_day, origin_median = coded(origin)
    origin_maker = np.array([by_maker.get(m, -1) for m in origin["provider"].to_numpy(dtype=object)], dtype=np.int64)
    archived_from = _days(archived).groupby(archived_code).min().to_numpy()  # by code: each has some

    tracked = []
    for day in (np.datetime64(d, "D") for d in days):
        # Comparisons made by then, of tickers not yet priced at their hosts' median.
        made = (compared_day <= day) & ~(compared_median <= day)
        own = _stats(compared[made], agree[made], len(tickers))
        maker = _stats(maker_code[made], agree[made], maker_count)
        # Each ticker's maker: that of its first statement in force by then (in the statements' order).
        stated = np.flatnonzero((origin_day <= day) & ~(origin_median <= day) & (origin_code >= 0))
        seen, first = np.unique(origin_code[stated], return_index=True)
        maker_of = np.full(len(tickers), -1)
        maker_of[seen] = origin_maker[stated[first]]
        known_maker = maker_of >= 0
        of_maker = np.where(known_maker, maker_of, 0)
        maker_trusted = known_maker & maker.trusted[of_maker]
        decided_alone = own.size >= MIN_COMPARISONS
        ok = np.where(decided_alone, own.trusted, maker_trusted & ((own.size == 0) | own.all))
        tracked.append(set(tickers[ok & (archived_from <= day)]))
    return tracked


@dataclass(frozen=True)
class _Stats:
    """Per code: the comparisons made (`size`), whether all agree (`all`), and whether there are
    enough of them and enough agree for the archive to be trusted (`trusted`)."""

    size: np.ndarray
    all: np.ndarray
    trusted: np.ndarray


def _stats(codes: np.ndarray, agree: np.ndarray, n: int) -> _Stats:
    size = np.bincount(codes, minlength=n)
    agreed = np.bincount(codes, weights=agree, minlength=n)
    share = agreed / np.maximum(size, 1)
    return _Stats(size, agreed == size, (size >= MIN_COMPARISONS) & (share >= AGREEMENT_FLOOR))


def _days(frame: pd.DataFrame) -> pd.Series:
    """The rows' effective dates as days (dates as objects compare slowly)."""
    return pd.Series(pd.to_datetime(frame["effective_date"]).to_numpy().astype("datetime64[D]"), index=frame.index)


def regional_variants(origin: pd.DataFrame) -> pd.Series:
    """Statements of a cross-region id (`apac.amazon.nova-pro-v1:0`) where the same source states
    the in-region id of the model: a cross-region route carries a surcharge, so it is another
    offer, not a change of the model's price (NOVA-* showed a 5% "increase" and a cut two days later)."""
    return _regional_since(origin).notna()


def _regional_since(origin: pd.DataFrame) -> pd.Series:
    """Per statement of a cross-region id: the first day its source states the model's in-region
    id (from then on it is a `regional_variants`); NaT for the other statements."""
    regional = origin["provider_model_id"].str.match(REGIONAL_PREFIX).to_numpy(dtype=bool)
    days = _days(origin)
    base = days[~regional].groupby([origin["ticker"][~regional], origin["source"][~regional]]).min()
    keys = pd.MultiIndex.from_arrays([origin["ticker"], origin["source"]])
    since = base.reindex(keys).to_numpy() if len(base) else np.full(len(origin), np.datetime64("NaT", "ns"))
    return pd.Series(np.where(regional, since, np.datetime64("NaT", "ns")), index=origin.index)


def cutoff_days(observations: pd.DataFrame) -> set[date]:
    """The days from which a statement may stop steering its series in a build from some of these
    observations (`steering_points_on`'s `until`): the first day of a ticker's host median, and
    the first day a source states a ticker's in-region id beside a cross-region one. A build
    drops the statements it cuts off for the whole series, so a history of past days as known
    then must not span one. Only a maker's or a median's statement (`is_origin`) steers, and only
    one known when in force can begin either inside a stretch of unchanged knowledge: one
    published late begins it no later than the day it is published."""
    _, late = published_late(observations)
    timely = observations[observations["is_origin"].to_numpy(dtype=bool) & ~late.to_numpy()]
    ids = timely["provider_model_id"].astype(str)
    regional = ids.str.match(REGIONAL_PREFIX).to_numpy(dtype=bool)
    with_regional = timely["ticker"].isin(set(timely.loc[regional, "ticker"])).to_numpy()
    median = (timely["source"] == HOST_MEDIAN_SOURCE).to_numpy()
    days = pd.to_datetime(timely["effective_date"])
    firsts = [days[median].groupby(timely["ticker"][median]).min(),
              days[with_regional & ~regional].groupby([timely["ticker"][with_regional & ~regional],
                                                       timely["source"][with_regional & ~regional]]).min()]
    return {d.date() for first in firsts for d in first}


def history_points(observations: pd.DataFrame, as_of: date, backfill: set[str]) -> pd.DataFrame:
    """The observations that steer the series: one per (ticker, mode, date), the most authoritative,
    with the fields their sources leave unstated carried (`carry_unstated`).

    `backfill` names the tickers whose history the archive may carry back (`archive_tracks_maker`).
    """
    return carry_unstated(steering_points(observations, as_of, backfill))


def steering_points(observations: pd.DataFrame, as_of: date, backfill: set[str]) -> pd.DataFrame:
    """`history_points` as stated, nothing carried: the same rows, input and output prices,
    sources and provenance, for a reader of those alone (the backtest, at every anchor)."""
    return steering_points_on(observations, [as_of], [backfill])[0]


def steering_points_on(observations: pd.DataFrame, days: list[date], backfills: list[set[str]]) -> list[pd.DataFrame]:
    """`steering_points` of each day with its backfill, all from one sort (the backtest asks at
    every anchor). On a day, the series is steered by the makers' statements in force then, but
    for a cross-region id beside its in-region one (`regional_variants`) and, for a model priced
    at its hosts' median, anything but the median; before a series' first such statement, by the
    archive's, where it tracks the maker (`backfill`) and is not one host's price of an
    open-weight model (OpenRouter's: no evidence of the hosts' median); for a series with no
    maker's statement in force yet, throughout. One point per series and day: the most
    authoritative."""
    statements = observations[~observations["superseded"]]
    origin = statements[statements["is_origin"]]
    archived = _archived(statements)
    points = pd.concat([origin, archived], ignore_index=True)
    # Each row's day from which it no longer steers (NaT: never): for a maker's statement, the
    # day its id became a regional variant or its model's median began (unless it is the median).
    is_median = (origin["source"] == HOST_MEDIAN_SOURCE).to_numpy()
    origin_until = np.fmin(_regional_since(origin).to_numpy(),
                           np.where(is_median, np.datetime64("NaT", "ns"), host_priced_since(origin).to_numpy()))
    until = np.r_[origin_until, host_priced_since(archived).to_numpy()]
    from_archive = np.r_[np.zeros(len(origin), dtype=bool), np.ones(len(archived), dtype=bool)]
    order = points.sort_values(["ticker", "mode", "effective_date", "authority"], ascending=[True, True, True, False],
                               kind="stable").index.to_numpy()
    sorted_points = points.take(order)
    day = _days(sorted_points).to_numpy()
    until, from_archive = until[order].astype("datetime64[D]"), from_archive[order]
    series = sorted_points.groupby(["ticker", "mode"], sort=False).ngroup().to_numpy()
    ticker = sorted_points["ticker"]
    steered = []
    for as_of, backfill in zip(days, backfills, strict=True):
        end = np.datetime64(as_of, "D")
        in_force = (day <= end) & ~(until <= end)
        maker = in_force & ~from_archive
        # Each series' first maker's statement in force: the archive steers only before it, and
        # throughout a series with none in force yet (NaT: a view of a past day may know none).
        first = np.full(series.max(initial=-1) + 1, np.datetime64("NaT", "D"))
        seen, at = np.unique(series[maker], return_index=True)  # sorted by day within a series
        first[seen] = day[maker][at]
        carried = in_force & from_archive & is_among(ticker, backfill) & ~(day >= first[series])
        kept = np.flatnonzero(maker | carried)
        # The most authoritative point of each series and day: the first in the sort.
        first_of_day = np.ones(len(kept), dtype=bool)
        first_of_day[1:] = (series[kept][1:] != series[kept][:-1]) | (day[kept][1:] != day[kept][:-1])
        steered.append(sorted_points.iloc[kept[first_of_day]].reset_index(drop=True))
    return steered


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
    point on or before it with one sorted search, then every column is taken in one step. Each
    row says when its statement could first be known (`known_on`: `listings.known_on`) beside the
    day it asserts (`observed_on`).
    """
    columns = ["ticker", "mode", "date", *POINT_COLUMNS, "observed_on"]
    if points.empty:
        return pd.DataFrame(columns=columns)
    points, day, series, starts, lengths = _series_layout(points, as_of)
    points["known_on"] = known_on(points).astype(object)  # each day's statement's, carried with it
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
    return history_points(observations, as_of, archive_tracks_on(observations, [as_of])[0])


def build_price_history(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    return daily_history(price_history_points(observations, as_of), as_of)


def price_history_parts(observations: pd.DataFrame, as_of: date, part_rows: int = PART_ROWS) -> Iterator[pd.DataFrame]:
    """`build_price_history` a part at a time (`daily_history_parts`)."""
    return daily_history_parts(price_history_points(observations, as_of), as_of, part_rows)
