"""Walk-forward backtest of the forecasts, against two baselines.

At each monthly anchor the history is rebuilt from the statements published by then, in force
on or before it (`known_points`: neither a model first listed later nor a later restatement
can leak in), the law is fitted on that history alone
(`pipelines.forecast`), and the sync β of each model is forecast at 1, 3 and 6 months. Each
forecast is scored against the β the full history shows on the target date.

Methods, each a whole distribution of β at the horizon:
- `oracle`: the published law: an atom at the spot and the change law (scheduled prices are
  announced after the fact in the bundled data, so none is known at an anchor);
- `flat`: the price stays as it is (all mass at the spot);
- `single_exp`: the original oracle's estimator, per family lineage (see `single_exp_params`):
  a lognormal whose median is its published forward spot·e^(−θt), with log-sd σ√t.

Each case is scored on every measure the scorecard (`pipelines.scorecard`) reads: the error of
the mean (`forecast`) relative to the spot and in log ratio, the absolute percentage error of the
median, the CRPS of the distribution (in units of the spot), the randomised PIT (the share of a
uniform draw inside [F(y−), F(y)] that lands in [0.05, 0.95]: an atom counts fractionally, and a
calibrated 90% band covers 90%), and `p_change` beside the base rate of change the history showed
at the anchor. A case whose window holds a revision (a move with a switch of source, a host
median moving, a restated listing, or a move undone within 62 days: `change_panel.REVISIONS`) is
kept but flagged with the kind of its first revision (`revision_kind`), and left out of every
score. The realised price is the full history's, in force on the target date.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.special import ndtr

from pipelines.change_panel import FIXED, Histories, change_points
from pipelines.events import build_events, price_moves
from pipelines.forecast import (
    ChangeLaw,
    FittedLaw,
    chance_at,
    change_by_month,
    mixture_cdf,
    mixture_crps,
    mixture_mean,
    mixture_quantiles,
)
from pipelines.history import archive_tracks_on, build_price_history, steering_points_on
from pipelines.listings import CARRIED_FORWARD, SYNC
from pipelines.membership import is_among
from pipelines.months import DAYS_PER_MONTH
from pipelines.observations import as_known_on
from pipelines.registry import Rules, default_tier

TENOR_MONTHS = {"1M": 1, "3M": 3, "6M": 6}
START = date(2024, 1, 1)  # the first anchor
METHODS = ("oracle", "flat", "single_exp")
Z90 = 1.6448536269514722  # the standard normal's 95% quantile
BAND = (0.05, 0.95)
CHANGED = 1e-9  # relative: a realised price this close to the spot did not change

# The single-exponential baseline, as the original oracle published it.
BASELINE_WEIGHT_DECAY = 0.85
BASELINE_THETA_RANGE = (0.01, 0.15)
BASELINE_SIGMA_RANGE = (0.02, 0.25)
BASELINE_DEFAULT = (0.05, 0.06)
BASELINE_MIN_GAP_MONTHS = 0.5

PREDICTION_COLUMNS = ["anchor", "ticker", "family", "tier", "fixed_name", "tenor", "months", "method", "target_date",
                      "spot", "forecast", "median", "p05", "p95", "p_change", "p_base", "realised", "changed",
                      "revision", "revision_kind", "rel_error", "log_error", "ape", "crps", "pit_low", "pit_high",
                      "covered"]


def anchor_dates(start: date, as_of: date) -> list[date]:
    """The first day of each month from `start` while a one-month forecast can still be scored."""
    anchors, day = [], date(start.year, start.month, 1)
    while target_date(day, 1) <= as_of:
        anchors.append(day)
        day = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return anchors


@lru_cache(maxsize=4096)  # a backtest asks it for every forecast, of a few hundred (anchor, tenor) pairs
def target_date(anchor: date, months: float) -> date:
    return anchor + timedelta(days=round(months * DAYS_PER_MONTH))


def scored_days(as_of: date, start: date = START) -> list[date]:
    """The days whose realised prices `score` reads: each target date of each anchor, to `as_of`."""
    targets = {target_date(anchor, months) for anchor in anchor_dates(start, as_of) for months in TENOR_MONTHS.values()}
    return sorted(day for day in targets if day <= as_of)


# What an anchor's points are made of (`steering_points_on`, `archive_tracks_on`).
ANCHOR_COLUMNS = ["ticker", "provider", "provider_model_id", "is_origin", "mode", "effective_date", "input", "output",
                  "source", "provenance", "authority", "superseded"]
KNOWN_POINT_COLUMNS = ["ticker", "mode", "date", "output", "source", "provenance"]


def known_points(observations: pd.DataFrame, anchor: date) -> pd.DataFrame:
    """The history's observed points as they could be built on `anchor` from what was known then."""
    return _points_of(as_known_on(observations, anchor), anchor)


def _points_of(known: pd.DataFrame, anchor: date) -> pd.DataFrame:
    """`known_points` from the observations as known on `anchor` (`observations.as_known_on`:
    published by then, ranked again among themselves), so that neither a model first listed later
    nor a later restatement reaches back into the anchor."""
    known = known[ANCHOR_COLUMNS]
    steered = steering_points_on(known, [anchor], archive_tracks_on(known, [anchor]))[0]
    # Output, source and provenance are as stated: carrying the other fields would change none of them.
    return steered.rename(columns={"effective_date": "date"})[KNOWN_POINT_COLUMNS]


def groups_at(models: pd.DataFrame, spots: pd.Series, rules: Rules) -> pd.DataFrame:
    """Family and tier of each model as they read on the anchor: a tier that comes from the price
    (no curated rule) uses the price of that day."""
    subject = (models["provider"] + "/" + models["model_id"]).to_numpy(dtype=object)  # not Arrow: read per row
    ruled = [rules.first("tier", s) for s in subject]
    price = models["ticker"].map(spots).to_numpy(dtype=float, na_value=np.nan)
    tier = [r or (default_tier(p) if p == p else "mid") for r, p in zip(ruled, price.tolist(), strict=True)]
    return pd.DataFrame({"ticker": models["ticker"], "family": models["family"], "tier": tier})


def spots_at(points: pd.DataFrame, mode: str = SYNC) -> pd.Series:
    rows = points[(points["mode"] == mode) & (points["output"] > 0)].sort_values("date")
    return rows.groupby("ticker")["output"].last()


def single_exp_params(family_points: pd.DataFrame) -> tuple[float, float]:
    """θ and σ of one family lineage: its sync prices by date; each pair of consecutive prices
    more than half a month apart gives θᵢ = −ln(pᵢ/pᵢ₋₁)/Δtᵢ; θ is their mean weighted 0.85^(n−1−i)
    (newest weight 1), σ their population standard deviation, each clamped; fewer than two
    usable pairs give the defaults (0.05, 0.06)."""
    rows = family_points.sort_values(["date", "ticker"])
    return _single_exp(pd.to_datetime(rows["date"]).to_numpy(), rows["output"].to_numpy())


def lineage_params(sync_points: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """`single_exp_params` of each family of `sync_points`: one sort for them all, then each
    family's slice (a frame per family costs more than its sums)."""
    rows = sync_points.sort_values(["family", "date", "ticker"])
    if rows.empty:
        return {}
    families, prices = rows["family"].to_numpy(), rows["output"].to_numpy()
    days = pd.to_datetime(rows["date"]).to_numpy()
    starts = np.flatnonzero(np.r_[True, families[1:] != families[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    return {families[a]: _single_exp(days[a:b], prices[a:b]) for a, b in zip(starts, ends, strict=True)}


def _single_exp(days: np.ndarray, prices: np.ndarray) -> tuple[float, float]:
    """`single_exp_params` of one lineage's prices, in order, and their days."""
    gaps = np.diff(days).astype("timedelta64[D]").astype(float) / DAYS_PER_MONTH
    usable = gaps > BASELINE_MIN_GAP_MONTHS
    thetas = -np.log(prices[1:][usable] / prices[:-1][usable]) / gaps[usable]
    if len(thetas) < 2:
        return BASELINE_DEFAULT
    weights = BASELINE_WEIGHT_DECAY ** np.arange(len(thetas) - 1, -1, -1)
    theta = float(np.clip(np.sum(weights * thetas) / weights.sum(), *BASELINE_THETA_RANGE))
    sigma = float(np.clip(np.std(thetas), *BASELINE_SIGMA_RANGE))
    return theta, sigma


def forecasts_at(observations: pd.DataFrame, models: pd.DataFrame, rules: Rules,
                 anchor: date) -> tuple[pd.DataFrame, dict[str, ChangeLaw]]:
    """Every method's forecast of each model's sync β made on `anchor`, from what was known then
    (its points, and its moves as the events named them then: `moves_known_on`), and the change
    laws fitted then. Columns: the identifying ones, spot, forecast (the mean), median, p05, p95,
    p_change and p_base, and what scoring needs of each distribution (`change_law` for the
    oracle; `mu`, `s` for single_exp: ln(β/spot) ~ N(mu, s²))."""
    known = as_known_on(observations, anchor)
    return forecasts_from(_points_of(known, anchor), models, rules, anchor, _moves_of(known, models, anchor))


def moves_known_on(observations: pd.DataFrame, models: pd.DataFrame, anchor: date) -> pd.DataFrame:
    """The sync output moves the events would have named on `anchor` (`events.price_moves`): from
    the history built from the statements published by then, so that whether a move was
    someone's own price changing is judged with what was known then, not with a later source
    that dates or restates it."""
    return _moves_of(as_known_on(observations, anchor), models, anchor)


def _moves_of(known: pd.DataFrame, models: pd.DataFrame, anchor: date) -> pd.DataFrame:
    """`moves_known_on` from the observations as known on `anchor`."""
    history = build_price_history(known, anchor)
    observed = history[history["provenance"] != CARRIED_FORWARD]
    return price_moves(build_events(observed, models, anchor, observations=known))


def forecasts_from(points: pd.DataFrame, models: pd.DataFrame, rules: Rules, anchor: date,
                   moves: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict[str, ChangeLaw]]:
    """`forecasts_at` from the anchor's `known_points`; `moves` as `change_points` reads them."""
    spots = spots_at(points)
    groups = groups_at(models, spots, rules)
    histories = Histories(change_points(points, anchor, moves), models, rules)
    fitted = FittedLaw.fit(histories, anchor)
    known = [t for t in histories.tickers if spots.get(t, 0) > 0]
    base = groups.set_index("ticker").loc[known].reset_index()
    base["spot"] = base["ticker"].map(spots).astype("float64")  # float even when no model is known yet
    base["fixed_name"] = np.array([histories.name_class[t] == FIXED for t in base["ticker"]], dtype=bool)
    by_month = change_by_month(fitted.hazard, histories, known, anchor)
    law_of = fitted.groups(histories, known, anchor)
    sync_points = points[(points["mode"] == SYNC) & (points["output"] > 0)].merge(groups, on="ticker")
    lineage = lineage_params(sync_points)
    baseline = np.array([lineage.get(f, BASELINE_DEFAULT) for f in base["family"]]).reshape(-1, 2)
    spot = base["spot"].to_numpy(float)
    parts = []  # (tenor, method, the distribution's columns)
    for tenor, months in TENOR_MONTHS.items():
        p = chance_at(by_month, months).reshape(-1)
        mean, q = np.empty(len(p)), np.empty((len(p), 3))
        for name, law in fitted.laws.items():
            rows = law_of == name
            mean[rows] = mixture_mean(p[rows], law)
            q[rows] = mixture_quantiles(p[rows], law, (BAND[0], 0.5, BAND[1]))
        mu, s = -baseline[:, 0] * months, baseline[:, 1] * np.sqrt(months)
        drift = spot * np.exp(mu)
        parts += [
            (tenor, "oracle", dict(forecast=spot * mean, median=spot * q[:, 1], p05=spot * q[:, 0],
                                   p95=spot * q[:, 2], p_change=p, change_law=law_of)),
            (tenor, "flat", dict(forecast=spot, median=spot, p05=spot, p95=spot, p_change=0.0)),
            (tenor, "single_exp", dict(forecast=drift, median=drift, p05=drift * np.exp(-Z90 * s),
                                       p95=drift * np.exp(Z90 * s), p_change=1.0, mu=mu, s=s)),
        ]
    return _stacked(base, anchor, parts, fitted.base_rates), fitted.laws


def _stacked(base: pd.DataFrame, anchor: date, parts: list[tuple[str, str, dict]],
             base_rates: dict[float, float]) -> pd.DataFrame:
    """One frame of every (tenor, method) part of `forecasts_at`, each a copy of `base`'s rows
    with its own columns (a column a part lacks is missing there): built once, since a frame per
    part cost more than the forecasts in it."""
    n = len(base)
    months = [float(TENOR_MONTHS[tenor]) for tenor, _, _ in parts]
    frame = base[["ticker", "family", "tier", "fixed_name", "spot"]].iloc[np.tile(np.arange(n), len(parts))]
    frame = frame.reset_index(drop=True).assign(
        anchor=anchor,
        tenor=pd.array(np.repeat([tenor for tenor, _, _ in parts], n), dtype="str"),
        months=np.repeat(months, n),
        method=pd.array(np.repeat([method for _, method, _ in parts], n), dtype="str"),
        p_base=np.repeat([base_rates.get(m, np.nan) for m in months], n))
    for column in ("forecast", "median", "p05", "p95", "p_change", "mu", "s"):
        frame[column] = _joined([values.get(column, np.nan) for _, _, values in parts], n, float)
    frame["change_law"] = _joined([values.get("change_law") for _, _, values in parts], n, object)
    return frame


def _joined(values: list, n: int, dtype) -> np.ndarray:
    """Each part's column (an array of `n`, or one value for all), one after another."""
    return np.concatenate([np.broadcast_to(np.asarray(v, dtype=dtype), (n,)) for v in values])


def score(forecasts: pd.DataFrame, laws: dict[str, ChangeLaw], history: pd.DataFrame, revisions: Histories,
          as_of: date) -> pd.DataFrame:
    """Attach the realised sync β on each target date (where it is known and positive), flag the
    cases whose window holds a revision (`revisions`: the change points of the full history),
    and score every case (`forecasts` and `laws` as `forecasts_at` gives them). `history` needs
    only its sync rows on `scored_days`."""
    return _score(forecasts, laws, realised_sync(history), revisions, as_of)


def realised_sync(history: pd.DataFrame) -> pd.Series:
    """The sync β by (ticker, date)."""
    return history[history["mode"] == SYNC].set_index(["ticker", "date"])["output"]


def _score(forecasts: pd.DataFrame, laws: dict[str, ChangeLaw], realised: pd.Series, revisions: Histories,
           as_of: date) -> pd.DataFrame:
    days = [target_date(a, m) for a, m in zip(forecasts["anchor"], forecasts["months"], strict=True)]
    # Dates, even where there is none: an anchor with no forecast still gives a table's part.
    forecasts = forecasts.assign(target_date=pd.Series(days, index=forecasts.index, dtype=object))
    forecasts = forecasts[forecasts["target_date"] <= as_of]
    key = pd.MultiIndex.from_arrays([forecasts["ticker"], forecasts["target_date"]])
    scored = forecasts.assign(realised=realised.reindex(key).to_numpy())
    scored = scored[scored["realised"] > 0].reset_index(drop=True)
    for column in ("change_law", "mu", "s"):
        if column not in scored:
            scored[column] = np.nan
    spot, y = scored["spot"].to_numpy(float), scored["realised"].to_numpy(float)
    x = y / spot
    scored["changed"] = np.abs(x - 1.0) > CHANGED
    tracked = is_among(scored["ticker"], revisions.index)
    revision = np.full(len(scored), "", dtype=object)
    revision[tracked] = revisions.first_revision(scored["ticker"].to_numpy(dtype=object)[tracked],
                                                 scored["anchor"].to_numpy()[tracked],
                                                 scored["target_date"].to_numpy()[tracked])
    scored["revision"] = revision != ""
    scored["revision_kind"] = np.where(revision != "", revision, None)
    scored["rel_error"] = (scored["forecast"].to_numpy(float) - y) / spot
    scored["log_error"] = np.log(scored["forecast"].to_numpy(float) / y)
    scored["ape"] = np.abs(scored["median"].to_numpy(float) - y) / y * 100
    crps, low, high = np.empty(len(scored)), np.empty(len(scored)), np.empty(len(scored))
    method = scored["method"].to_numpy()
    flat = method == "flat"
    crps[flat], low[flat], high[flat] = np.abs(1.0 - x[flat]), x[flat] > 1.0 + CHANGED, x[flat] >= 1.0 - CHANGED
    single = method == "single_exp"
    mu, s = scored["mu"].to_numpy(float)[single], scored["s"].to_numpy(float)[single]
    crps[single] = lognormal_crps(mu, s, x[single])
    low[single] = high[single] = ndtr((np.log(x[single]) - mu) / s)
    p = scored["p_change"].to_numpy(float)
    for name, law in laws.items():
        rows = (method == "oracle") & (scored["change_law"].to_numpy() == name)
        crps[rows] = mixture_crps(p[rows], law, x[rows])
        low[rows], high[rows] = mixture_cdf(p[rows], law, x[rows])
    scored["crps"], scored["pit_low"], scored["pit_high"] = crps, low, high
    scored["covered"] = band_share(low, high)
    return scored[PREDICTION_COLUMNS]


def band_share(low: np.ndarray, high: np.ndarray, band: tuple[float, float] = BAND) -> np.ndarray:
    """P(low + U·(high − low) ∈ band), U uniform: the randomised PIT's chance of lying in the band."""
    width = high - low
    inside = np.clip(high, *band) - np.clip(low, *band)
    point = ((low >= band[0]) & (low <= band[1])).astype(float)
    return np.where(width > 1e-12, inside / np.where(width > 1e-12, width, 1.0), point)


def lognormal_crps(mu: np.ndarray, s: np.ndarray, x: np.ndarray) -> np.ndarray:
    """CRPS of X = e^(mu + s·Z) at x > 0 (Baran and Lerch's closed form):
    x(2Φ(z) − 1) − 2e^(mu + s²/2)(Φ(z − s) + Φ(s/√2) − 1), z = (ln x − mu)/s."""
    z = (np.log(x) - mu) / s
    return x * (2 * ndtr(z) - 1) - 2 * np.exp(mu + s**2 / 2) * (ndtr(z - s) + ndtr(s / np.sqrt(2)) - 1)


def run_backtest(observations: pd.DataFrame, history: pd.DataFrame, observed: pd.DataFrame, models: pd.DataFrame,
                 rules: Rules, as_of: date, start: date = START, moves: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every scored prediction of every method at every anchor (`history` as `score` reads it;
    `observed`, the history's observed rows, for the revisions; `moves` as `change_points` reads them)."""
    return pd.concat(backtest_parts(observations, history, observed, models, rules, as_of, start, moves=moves),
                     ignore_index=True)


@dataclass(frozen=True)
class Anchors:
    """What each anchor knew, read once for every backtest made at it: its points
    (`known_points`) and, with moves, its moves as the events named them then (`moves_known_on`)."""

    dates: list[date]
    points: dict[date, pd.DataFrame]
    moves: dict[date, pd.DataFrame] | None = None

    @classmethod
    def known(cls, observations: pd.DataFrame, models: pd.DataFrame, as_of: date, start: date = START,
              with_moves: bool = True) -> Anchors:
        dates = anchor_dates(start, as_of)
        points, moves = {}, {} if with_moves else None
        for anchor in dates:  # what each anchor knew, ranked once for its points and its moves
            known = as_known_on(observations, anchor)
            points[anchor] = _points_of(known, anchor)
            if moves is not None:
                moves[anchor] = _moves_of(known, models, anchor)
        return cls(dates, points, moves)

    def forecasts(self, anchor: date, models: pd.DataFrame, rules: Rules
                  ) -> tuple[pd.DataFrame, dict[str, ChangeLaw]]:
        """`forecasts_at` the anchor, from what it knew."""
        return forecasts_from(self.points[anchor], models, rules, anchor,
                              None if self.moves is None else self.moves[anchor])


def backtest_parts(observations: pd.DataFrame, history: pd.DataFrame, observed: pd.DataFrame, models: pd.DataFrame,
                   rules: Rules, as_of: date, start: date = START,
                   map_anchors: Callable[[Callable[[date], pd.DataFrame], list[date]], Iterable[pd.DataFrame]] = map,
                   moves: pd.DataFrame | None = None, anchors: Anchors | None = None) -> Iterator[pd.DataFrame]:
    """`run_backtest` an anchor at a time: each anchor's scored predictions, in order, so that
    only one anchor's are held. The anchors are independent of each other: `map_anchors` (an
    ordered map, such as the built-in one) may compute them anywhere, in any order. `moves`: the
    moves the events name today (`change_points`), for the revisions of the realised path; with
    them, each anchor reads its own, as the events named them then (`moves_known_on`). `anchors`:
    what each anchor knew, when it was read already (`Anchors.known`, with moves when `moves`)."""
    revisions = Histories(change_points(observed, as_of, moves), models, rules)
    if anchors is None:
        anchors = Anchors.known(observations, models, as_of, start, with_moves=moves is not None)
    scored_at = AnchorScorer(anchors.points, models, rules, realised_sync(history), revisions, as_of, anchors.moves)
    yield from map_anchors(scored_at, anchors.dates)


@dataclass(frozen=True)
class AnchorScorer:
    """One anchor's scored predictions (`forecasts_from`, then `score`): what it reads, kept
    together so that it can be handed to another process whole."""

    points: dict[date, pd.DataFrame]  # by anchor, its `known_points`
    models: pd.DataFrame
    rules: Rules
    realised: pd.Series
    revisions: Histories
    as_of: date
    moves: dict[date, pd.DataFrame] | None = None  # by anchor, `moves_known_on`

    def __call__(self, anchor: date) -> pd.DataFrame:
        moves = None if self.moves is None else self.moves[anchor]
        forecasts, laws = forecasts_from(self.points[anchor], self.models, self.rules, anchor, moves)
        return _score(forecasts, laws, self.realised, self.revisions, self.as_of)
