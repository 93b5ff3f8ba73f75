"""Task costs on demand: one model (`/v1/price`), every model ranked (`/v1/compare`), every
provider of one model (`/v1/providers`), and the published task types (`/v1/task-types`).

Bodies are msgspec structs whose constraints the OpenAPI document shows. They are decoded once,
in msgspec's strict mode (`serve.direct`): a wrong JSON type is a 400, never a guess.
Answers are computed per request and carry no ETag; what depends only on the snapshot (each
model's rates and θ) is kept in the snapshot's cache.
"""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
import pandas as pd
from litestar import Request, Response, post

from pipelines.evidence import EVIDENCE_COLUMNS
from pipelines.listings import BATCH, PRICE_FIELDS, SYNC
from pipelines.outlook import announced_change, in_words
from pipelines.pricing import (
    USAGE_FIELDS,
    CacheValue,
    PriceBook,
    Rates,
    Usage,
    check_profile,
    in_period,
    period_of,
    task_cost,
)
from pipelines.quotes import (
    EXCLUDED_COLUMNS,
    RANK_COLUMNS,
    RANK_LABELS,
    Profile,
    Roster,
    cost_lines,
    forward_quote,
    model_rates,
    provider_quotes,
    rank,
)
from pipelines.scheduled import level_ratios, scheduled_ratios
from pipelines.spots import build_spots, rate_columns
from pipelines.tasks import task_table
from serve.deps import Reply
from serve.direct import direct, handler_answer
from serve.line_follow import Follow, line_forward, line_outlook
from serve.lookup import UnknownModel
from serve.model_mode import ModelInMode, check_fit
from serve.outlook import forward_chances, forward_ratios, process_of
from serve.params import MAX_TOKENS, Eta, Tokens, in_mode
from serve.problems import invalid
from serve.records import memoized, record_of
from serve.respond import TidyList, column_values, envelope_type, records, tidy_columns, tidy_floats
from serve.routing import get
from serve.state import LoadedSnapshot

UNKNOWN_MODEL = "unknown_model"  # why a name in a comparison's `models` is left out

MAX_HORIZON = 12.0
MAX_MODELS = 1000

Horizon = Annotated[float, msgspec.Meta(gt=0, le=MAX_HORIZON, description="Forward horizon in months, 0 < h ≤ 12.")]
ModelName = Annotated[str, msgspec.Meta(min_length=1, max_length=200,
                                        description="Ticker, batch ticker, model_id or alias (case-insensitive).")]
Mode = Literal["sync", "batch"]
Period = Literal["peak", "off_peak"]
Count = Annotated[float, msgspec.Meta(ge=0, le=MAX_TOKENS, description="A count of requests or tool calls, ≥ 0.")]
AsOf = Annotated[date, msgspec.Meta(description="Price at the prices in force on this date (YYYY-MM-DD, on or before "
                                                "the snapshot's), from the daily history; not with a horizon.")]
PAST_DAYS_KEPT = 16  # past days whose prices are kept per snapshot (each a spots table), then started over


class BilledUsage(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What a request uses beside its tokens, and when it is made; every field optional, so a
    profile of the interface's four fields means what it always meant (plus compulsory fees)."""

    n_cache_write_5m: Annotated[Tokens, msgspec.Meta(description="Prompt tokens written to the 5-minute cache "
                                                                 "(part of n_in).")] = 0.0
    n_cache_write_1h: Annotated[Tokens, msgspec.Meta(description="Prompt tokens written to the 1-hour cache "
                                                                 "(part of n_in).")] = 0.0
    n_citation: Annotated[Tokens, msgspec.Meta(description="Citation tokens, beside n_out (search models).")] = 0.0
    n_requests: Annotated[Count, msgspec.Meta(description="Requests the profile spans; each pays the compulsory "
                                                          "request fee.")] = 1.0
    n_web_searches: Annotated[Count, msgspec.Meta(description="Web-search calls, at the model's fee.")] = 0.0
    n_file_searches: Annotated[Count, msgspec.Meta(description="File-search calls, at the model's fee.")] = 0.0
    n_grounding: Annotated[Count, msgspec.Meta(description="Grounding calls, at the model's fee.")] = 0.0
    period: Annotated[Period, msgspec.Meta(description="Price a model priced by the hour at its peak or off-peak "
                                                       "rates; default its standard period.")] | None = None
    at: Annotated[datetime, msgspec.Meta(description="Price at this time (RFC 3339; no offset = UTC): the period "
                                                     "it falls in.")] | None = None


class PriceRequest(BilledUsage, kw_only=True, forbid_unknown_fields=True):
    model: Annotated[ModelName, msgspec.Meta(description="Ticker, batch ticker (`SONNET-4.B`), forward ticker "
                                                         "(`SONNET-4-3M`), model_id or alias.")]
    n_in: Tokens
    n_out: Tokens
    eta: Eta = 0.0
    n_think: Tokens = 0.0
    horizon_months: Horizon | None = None
    mode: Mode | None = None
    as_of: AsOf | None = None
    follow: Annotated[Follow, msgspec.Meta(
        description="`model` (default): the forward stays on this model. `line`: also the forward of its line's "
                    "then-current model (`line_forward`), a successor included; needs a whole horizon_months and "
                    "the model to be its line's current model")] = "model"


class CompareRequest(BilledUsage, kw_only=True, forbid_unknown_fields=True):
    n_in: Tokens
    n_out: Tokens
    eta: Eta = 0.0
    n_think: Tokens = 0.0
    horizon_months: Horizon | None = None
    mode: Mode = SYNC
    models: Annotated[list[ModelName], msgspec.Meta(min_length=1, max_length=MAX_MODELS)] | None = None
    include_retired: Annotated[bool, msgspec.Meta(
        description="rank deprecated and retired models too (by default a comparison ranks active ones)")] = False
    as_of: AsOf | None = None


class ProvidersRequest(BilledUsage, kw_only=True, forbid_unknown_fields=True):
    model: ModelName
    n_in: Tokens
    n_out: Tokens
    eta: Eta = 0.0
    n_think: Tokens = 0.0
    mode: Mode | None = None


# The profile priced: its tokens, then the billed usage with `Usage`'s own fields and defaults.
TaskProfileOut = msgspec.defstruct(
    "TaskProfileOut", [("n_in", float), ("n_out", float), ("n_think", float), ("eta", float),
                       *((f.name, float, f.default) for f in fields(Usage))], module=__name__)


CacheValueOut = msgspec.defstruct("CacheValueOut", [(f.name, float) for f in fields(CacheValue)], module=__name__)


class ForwardOut(msgspec.Struct):
    horizon_months: float
    cost: float | None
    beta_forward: float | None
    p_change: Annotated[float | None, msgspec.Meta(description="The chance of a price change by the horizon")]
    decay_factor: Annotated[float | None, msgspec.Meta(description="The forecast's mean ratio E[R_t] at the horizon")]
    cost_median: float | None
    cost_p05: float | None
    cost_p95: float | None
    scheduled_factor: Annotated[float, msgspec.Meta(description="The output price a source has announced for the "
                                                                "horizon over today's (1 where none)")]
    theta_used: Annotated[float | None, msgspec.Meta(
        description="The decay a month the forecast implies to the horizon, -ln(decay_factor)/horizon_months "
                    "(the original oracle's name)")] = None
    outlook: Annotated[str | None, msgspec.Meta(
        description="The forward in words: the announced change first, else the chance of a change and the "
                    "expected move (methodology §5)")] = None


class LineForwardOut(msgspec.Struct, kw_only=True):
    line: str
    current: Annotated[str, msgspec.Meta(description="The line's current model: the one priced")]
    horizon_months: float
    p_successor: Annotated[float, msgspec.Meta(description="The chance a successor has come by the horizon")]
    cost: Annotated[float, msgspec.Meta(description="The expected cost at the horizon on the line's then-current "
                                                    "model: spot_cost · beta_forward / spot")]
    cost_median: float
    cost_p05: float
    cost_p95: float
    beta_forward: float
    outlook: str


class CostLine(msgspec.Struct, kw_only=True):
    line: Annotated[str, msgspec.Meta(description="input, cached_input, cache_write_5m, cache_write_1h, output, "
                                                  "thinking, citation, request_fee, web_search, file_search, "
                                                  "grounding")]
    quantity: Annotated[float, msgspec.Meta(description="Tokens, or requests or calls for a fee line")]
    unit_price: Annotated[float | None, msgspec.Meta(description="$/M tokens, or $ per 1,000 for a fee line; "
                                                                 "null where no source states the fee")]
    unit: Annotated[str, msgspec.Meta(description="usd_per_million_tokens or usd_per_thousand")]
    cost: float
    note: str | None = None


class Price(msgspec.Struct, kw_only=True):
    model: str
    model_id: str
    display_name: str
    provider: str
    mode: str
    spot_cost: Annotated[float, msgspec.Meta(description="USD: the sum of cost_lines")]
    kappa: float | None
    r_in_eff: float | None
    beta_used: float
    task_profile: TaskProfileOut
    cost_lines: list[CostLine]
    period: Annotated[str | None, msgspec.Meta(description="peak or off_peak for a model priced by the hour, "
                                                           "else null")]
    forward: ForwardOut | None = None
    line_forward: Annotated[LineForwardOut | None, msgspec.Meta(
        description="With follow \"line\": the cost at the horizon following the model's line")] = None
    cache_value: CacheValueOut | None = None
    as_of: Annotated[str | None, msgspec.Meta(description="The date whose prices were used, when asked")] = None


class Ranked(msgspec.Struct, kw_only=True):
    ticker: str
    model_id: str
    display_name: str
    provider: str
    spot_cost: float
    kappa: float | None
    beta: float
    is_reasoning: bool
    theta: float | None
    r_in_eff: float | None
    context_window: int | None
    status: Annotated[str, msgspec.Meta(description="active, deprecated or retired (ranked only when asked)")]
    forward_cost: float | None = None
    note: Annotated[str | None, msgspec.Meta(
        description="With `models` and thinking tokens: how this model's thinking tokens were billed (a model "
                    "that is not a reasoning model has them priced as output tokens)")] = None
    outlook: Annotated[str | None, msgspec.Meta(
        description="With `horizon_months`: the forward in words (the announced change first, else the chance of "
                    "a change and the expected move)")] = None


# A model left out as the answer writes it: EXCLUDED_COLUMNS in order (`Excluded` documents them). A
# struct made from a row's values costs a sixth of a dict, and encodes faster.
ExcludedRow = msgspec.defstruct("ExcludedRow", [(column, Any) for column in EXCLUDED_COLUMNS], module=__name__)


class Excluded(msgspec.Struct):
    ticker: Annotated[str | None, msgspec.Meta(description="null for a name no model answers to")]
    reason: Annotated[str, msgspec.Meta(description="not_text, retired, deprecated, no_price, no_output_price, "
                                                    "no_thinking, context_window, or unknown_model (a name in "
                                                    "`models` no model answers to: skipped, with `model` and "
                                                    "`suggestions`)")]
    detail: str
    model: str | None = None  # unknown_model only: the name as sent
    suggestions: list[str] | None = None  # unknown_model only: tickers with a close name


class Comparison(msgspec.Struct, kw_only=True):
    task_profile: TaskProfileOut
    mode: str
    models: list[Ranked]
    cheapest: str | None
    most_expensive: str | None
    count: int
    excluded: list[Excluded]
    horizon_months: float | None = None
    as_of: Annotated[str | None, msgspec.Meta(description="The date whose prices were used, when asked")] = None


class OriginOut(msgspec.Struct):
    provider: str
    provider_model_id: str
    spot_cost: float


# One provider's quote: who, its cost beside the origin's, each of its PRICE_FIELDS, and their provenance.
ProviderQuote = msgspec.defstruct("ProviderQuote", [
    ("provider", str), ("provider_model_id", str), ("is_origin", bool), ("spot_cost", float),
    ("spread_to_origin", float | None), *((name, float | None) for name in PRICE_FIELDS), ("peak", str | None),
    ("effective_date", str), ("source", str), ("source_version", str), ("source_url", str | None),
    ("provenance", str)], kw_only=True, module=__name__)
PROVIDER_FIELDS = list(ProviderQuote.__struct_fields__)


class ProviderComparison(msgspec.Struct, kw_only=True):
    ticker: str
    model_id: str
    display_name: str
    mode: str
    task_profile: TaskProfileOut
    origin: OriginOut | None
    providers: list[ProviderQuote]
    count: int


class TaskType(msgspec.Struct):
    task_type: str
    n_in: float
    n_out: float
    eta: float
    n_think: float
    description: str
    thinking: Annotated[str, msgspec.Meta(description="What its thinking tokens stand for; with none, that a "
                                                      "reasoning model's cost on it is a floor")]


PriceResponse = envelope_type("PriceResponse", Price)
CompareResponse = envelope_type("CompareResponse", Comparison)
ProvidersResponse = envelope_type("ProvidersResponse", ProviderComparison)
TaskTypesResponse = envelope_type("TaskTypesResponse", list[TaskType])

def _profile(body: PriceRequest | CompareRequest | ProvidersRequest) -> Profile:
    """The request's profile, checked: cache writes are prompt tokens, so they fit in what the
    prompt does not read from cache."""
    usage = Usage(**{name: getattr(body, name) for name in USAGE_FIELDS})
    try:
        check_profile(body.n_in, body.n_out, body.eta, body.n_think, usage)
    except ValueError as error:
        raise invalid("n_cache_write_5m" if body.n_cache_write_5m else "n_cache_write_1h", str(error)) from None
    return Profile(body.n_in, body.n_out, body.eta, body.n_think, usage=usage)


def _when(body: BilledUsage) -> tuple[str | None, datetime | None]:
    """(period, at) of the request; a time without an offset is UTC."""
    if body.period is not None and body.at is not None:
        raise invalid("at", "send either period or at, not both: at picks the period its time falls in")
    if body.at is None:
        return body.period, None
    try:
        return body.period, (body.at if body.at.tzinfo is not None else body.at.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:
        raise invalid("at", "the time is out of range once converted to UTC; send a time between the years 1 "
                            "and 9999 in UTC") from None


def _priced_on(snapshot: LoadedSnapshot, as_of: date | None, months: float | None) -> date | None:
    """The past day whose prices a request asks for, or None for the snapshot's own."""
    if as_of is None:
        return None
    if months is not None:
        raise invalid("as_of", "a forward starts from the snapshot's prices: send as_of or a horizon, not both")
    latest = snapshot.as_of_day
    if as_of > latest:
        raise invalid("as_of", f"{as_of.isoformat()} is after the snapshot date {latest.isoformat()}; prices to "
                               "come are forecasts: ask with horizon_months instead")
    return None if as_of == latest else as_of


def _past(snapshot: LoadedSnapshot, day: date) -> dict[str, Any]:
    """The prices in force on `day`: a spots table built from the daily history as the pipeline
    builds today's (identities, statuses and evidence as today), and its per-mode inputs."""
    kept = snapshot.cache.setdefault("past_prices", {})
    if day not in kept:
        if len(kept) >= PAST_DAYS_KEPT:
            kept.clear()
        kept[day] = {"spots": build_spots(snapshot.table("price_history"), snapshot.table("models"), day,
                                          snapshot.table("spots")[["ticker", *EVIDENCE_COLUMNS]])}
    return kept[day]


def _check_fit(snapshot: LoadedSnapshot, ticker: str, mode: str, profile: Profile,
               day: date | None = None) -> tuple[dict[str, Any], Rates]:
    """The model's spots record and rates (on `day`, when given), after the checks that make the
    profile impossible on it."""
    all_rates, _, row_of, _ = _mode_inputs(snapshot, mode, day)
    spot = record_of(snapshot, "spots", ticker) if day is None else \
        records(_past(snapshot, day)["spots"].iloc[[row_of[ticker]]])[0]
    rates = all_rates[row_of[ticker]]
    check_fit(spot, mode, profile, priced=rates is not None, when="" if day is None else f" on {day.isoformat()}")
    return spot, rates


def _task_profile(profile: Profile) -> dict[str, float]:
    """The profile priced, the billed usage beside its tokens included."""
    return {"n_in": profile.n_in, "n_out": profile.n_out, "n_think": profile.n_think, "eta": profile.eta,
            **{name: getattr(profile.usage, name) for name in USAGE_FIELDS}}  # its fields only, not what it caches


def _line_forward(snapshot: LoadedSnapshot, ticker: str, mode: str, months: float | None,
                  spot_cost: float) -> dict[str, Any]:
    """The cost at `months` following the model's line (`serve.line_follow`): the task's spot cost
    moved as the line's β is, as a fixed model's forward moves it. A 400 when it cannot be said."""
    point = line_forward(snapshot, ticker, mode, months)
    scale = spot_cost / float(point["spot"])
    return {"line": point["line"], "current": ticker, "horizon_months": months,
            "p_successor": float(point["p_successor"]), "cost": float(point["beta_forward"]) * scale,
            "cost_median": float(point["beta_median"]) * scale, "cost_p05": float(point["p05"]) * scale,
            "cost_p95": float(point["p95"]) * scale, "beta_forward": float(point["beta_forward"]),
            "outlook": line_outlook(snapshot, point)}


def price_data(snapshot: LoadedSnapshot, body: PriceRequest) -> dict[str, Any]:
    resolved = ModelInMode.of(snapshot, body.model, body.mode, forward=True)
    mode = resolved.mode
    months = body.horizon_months
    if resolved.tenor_months is not None:
        if not 0 < resolved.tenor_months <= MAX_HORIZON:
            raise invalid("model", f"a forward ticker's horizon must be 1M to 12M, got {resolved.tenor_months}M")
        if months is not None and months != resolved.tenor_months:
            raise invalid("horizon_months", f"{months:g} contradicts the forward ticker's {resolved.tenor_months}M")
        months = float(resolved.tenor_months)
    day = _priced_on(snapshot, body.as_of, months)
    profile, (period, at) = _profile(body), _when(body)
    spot, rates = _check_fit(snapshot, resolved.ticker, mode, profile, day)
    cost = task_cost(in_period(rates, period, at), *profile.args, usage=profile.usage)
    data: dict[str, Any] = {
        "model": spot["ticker"], "model_id": spot["model_id"], "display_name": spot["display_name"],
        "provider": spot["provider"], "mode": mode, "spot_cost": cost.spot_cost, "kappa": cost.kappa,
        "r_in_eff": cost.r_in_eff, "beta_used": cost.beta_used, "task_profile": _task_profile(profile),
        "cost_lines": cost_lines(cost), "period": period_of(rates, period, at),
    }
    if months is not None:
        process = process_of(snapshot, resolved.ticker, mode)
        factor = float(level_ratios(snapshot.table("scheduled_changes"), resolved.ticker, mode,
                                    spot[f"beta_{mode}"], snapshot.as_of_day, [months])[0])
        forward = forward_quote(cost.spot_cost, cost.beta_used, process, months, factor)
        announced = None if factor == 1 else announced_change(
            snapshot.table("scheduled_changes"), resolved.ticker, mode, snapshot.as_of_day, months)
        expected = None if forward.cost is None or not cost.spot_cost else forward.cost / cost.spot_cost
        data["forward"] = {**vars(forward), "outlook": in_words(months, forward.p_change, expected, announced)}
    if body.follow == "line":
        data["line_forward"] = _line_forward(snapshot, resolved.ticker, mode, months, cost.spot_cost)
    if cost.cache_value is not None:
        data["cache_value"] = dict(vars(cost.cache_value))
    if body.as_of is not None:
        data["as_of"] = body.as_of.isoformat()
    return data


def _kept_for(snapshot: LoadedSnapshot, day: date | None) -> dict:
    """Where what is worked out from the prices in force on `day` is kept: with the snapshot for
    today's (day None), with that day's prices otherwise (`_past`)."""
    return snapshot.cache if day is None else _past(snapshot, day)


def _mode_inputs(snapshot: LoadedSnapshot, mode: str,
                 day: date | None = None) -> tuple[list, np.ndarray, dict[str, int], PriceBook]:
    """Per snapshot and mode (and past day, when given): each spots row's rates, the mode's θ
    aligned to the rows, row by ticker, and the rows' price book for comparisons."""
    cache, key = _kept_for(snapshot, day), ("quotes", mode)
    if key not in cache:
        spots = (snapshot.table("spots") if day is None else cache["spots"]).reset_index(drop=True)
        rates = [model_rates(row, mode) for row in spots.to_dict("records")]
        greeks = snapshot.table("greeks").set_index("ticker")
        theta = greeks[in_mode("theta", mode)].reindex(spots["ticker"]).to_numpy(dtype=float)
        cache[key] = (rates, theta, {t: i for i, t in enumerate(spots["ticker"])},
                      PriceBook.of(spots, rate_columns(mode)))
    return cache[key]


def _tidy_theta(snapshot: LoadedSnapshot, mode: str, day: date | None = None) -> list[float | None]:
    """`_mode_inputs`' θ of every spots row, tidied once per snapshot, mode and day."""
    cache, key = _kept_for(snapshot, day), ("tidy_theta", mode)
    if key not in cache:
        cache[key] = tidy_floats(_mode_inputs(snapshot, mode, day)[1])
    return cache[key]


def _listed(snapshot: LoadedSnapshot, names: list[str], mode: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The tickers of `models`, each once, in the order given, and the names no model answers to,
    each as a left-out entry (`unknown_model`, with suggestions): a comparison skips them, as the
    original oracle did, rather than failing whole."""
    tickers, unknown = [], []
    for name in names:
        try:
            resolved = snapshot.lookup.resolve(name.strip(), batch=True)
        except UnknownModel as error:
            hint = f" (did you mean {', '.join(error.suggestions)}?)" if error.suggestions else ""
            unknown.append({"ticker": None, "reason": UNKNOWN_MODEL, "detail": f"no model is called '{name}'{hint}",
                            "model": name, "suggestions": error.suggestions})
            continue
        if resolved.mode == BATCH and mode != BATCH:
            raise invalid("models", f"'{name}' is a batch ticker; send mode \"batch\" to compare batch prices")
        tickers.append(resolved.ticker)
    return list(dict.fromkeys(tickers)), unknown


def _roster(snapshot: LoadedSnapshot) -> Roster:
    """Who the models of a comparison are, once per snapshot."""
    return memoized(snapshot, ("roster",), lambda: Roster.of(snapshot.table("spots")))


def _rank_labels(snapshot: LoadedSnapshot) -> dict[str, list[Any]]:
    """The spots table's label columns of a comparison, JSON-ready, once per snapshot."""
    return memoized(snapshot, ("rank_labels",),
                    lambda: {column: column_values(snapshot.table("spots")[column]) for column in RANK_LABELS})


def _ranked_rows(snapshot: LoadedSnapshot, rows: list[int], figures: dict[str, list]) -> TidyList:
    """A comparison's ranked models (RANK_COLUMNS, `forward_cost` only when it was worked out):
    each the spots table's labels of its row and its figures, tidied already."""
    labels = _rank_labels(snapshot)
    fields = [column for column in [*RANK_COLUMNS, "note", "outlook"] if column in labels or column in figures]
    return TidyList({name: labels[name][row] if name in labels else figures[name][i] for name in fields}
                    for i, row in enumerate(rows))


def _outlooks(snapshot: LoadedSnapshot, mode: str, months: float, rows: list[int], ranking,
              scheduled: np.ndarray | None, chances: np.ndarray) -> list[str]:
    """Each ranked model's forward in words (`pipelines.outlook`), in rank order; `rows` and
    `chances` (`forward_chances`) index the whole spots table, the ranking's arrays the frame it ranked."""
    tickers = _rank_labels(snapshot)["ticker"]
    order = ranking.order.tolist()
    changes = snapshot.table("scheduled_changes")
    words = []
    for row, ranked in zip(rows, order, strict=True):
        moved = scheduled is not None and not np.isclose(scheduled[ranked], 1.0, rtol=1e-12, atol=0)
        spot, forward = ranking.spot_cost[ranked], ranking.forward_cost[ranked]
        words.append(in_words(months, float(chances[row]), float(forward / spot) if spot else None,
                              announced_change(changes, tickers[row], mode, snapshot.as_of_day, months)
                              if moved else None))
    return words


def compare_data(snapshot: LoadedSnapshot, body: CompareRequest) -> dict[str, Any]:
    profile, mode = _profile(body), body.mode
    day = _priced_on(snapshot, body.as_of, body.horizon_months)
    _, theta, row_of, book = _mode_inputs(snapshot, mode, day)
    spots = snapshot.table("spots") if day is None else _past(snapshot, day)["spots"]
    chances = ratios = None
    if body.horizon_months is not None:  # read once, for the forwards and their words
        chances = forward_chances(snapshot, mode, body.horizon_months)
        ratios = forward_ratios(snapshot, mode, body.horizon_months, chances)
    unknown: list[dict[str, Any]] = []
    listed_rows = None  # the spots rows ranked, when not all
    if body.models is not None:
        listed, unknown = _listed(snapshot, body.models, mode)
        listed_rows = [row_of[t] for t in listed]
        spots, theta, book = spots.iloc[listed_rows], theta[listed_rows], None  # a few models: priced afresh
        ratios = None if ratios is None else ratios[listed_rows]
    # A model named in `models` was asked for: it ranks even if retired (marked by its status). At a
    # past date, a model priced then was sold then, whatever its status today.
    include_retired = body.include_retired or body.models is not None or day is not None
    period, at = _when(body)
    scheduled = None if body.horizon_months is None else scheduled_ratios(
        spots, snapshot.table("scheduled_changes"), mode, snapshot.as_of_day, body.horizon_months)
    roster = _roster(snapshot) if body.models is None and day is None else None  # else afresh
    # Every model named is priced: one that does not think has its thinking tokens billed as output.
    ranking = rank(spots, profile, mode, theta, ratios, book, include_retired, period, at, scheduled, roster,
                   think_as_output=body.models is not None)
    order = ranking.order.tolist()
    rows = order if listed_rows is None else [listed_rows[i] for i in order]  # rows of the whole spots table
    columns = ranking.figures()
    del columns["theta"]  # the snapshot's own, the same in every answer: tidied once
    if body.horizon_months is None:  # no forward asked: none tidied, none written
        del columns["forward_cost"]
    notes = columns.pop("note", None)
    figures = tidy_columns(columns)
    if notes is not None:
        figures["note"] = notes.tolist()
    theta_of = _tidy_theta(snapshot, mode, day)
    figures["theta"] = [theta_of[row] for row in rows]
    if body.horizon_months is not None:
        figures["outlook"] = _outlooks(snapshot, mode, body.horizon_months, rows, ranking, scheduled, chances)
    tickers = _rank_labels(snapshot)["ticker"]
    data: dict[str, Any] = {
        "task_profile": _task_profile(profile), "mode": mode,
        "models": _ranked_rows(snapshot, rows, figures),
        "cheapest": tickers[rows[0]] if rows else None,
        "most_expensive": tickers[rows[-1]] if rows else None,
        "count": len(rows),
        "excluded": TidyList([*(ExcludedRow(*row) for row in ranking.excluded_rows), *unknown]),  # text only
    }
    if body.horizon_months is not None:
        data["horizon_months"] = body.horizon_months
    if body.as_of is not None:
        data["as_of"] = body.as_of.isoformat()
    return data


def _provider_rows(snapshot: LoadedSnapshot, ticker: str, mode: str) -> pd.DataFrame:
    table = snapshot.table("providers")
    by_model = memoized(snapshot, ("providers_by_model",), lambda: {
        group: rows.reset_index(drop=True) for group, rows in table.groupby(["ticker", "mode"], sort=False)})
    return by_model.get((ticker, mode), table.iloc[0:0])


def providers_data(snapshot: LoadedSnapshot, body: ProvidersRequest) -> dict[str, Any]:
    resolved = ModelInMode.of(snapshot, body.model, body.mode)
    mode = resolved.mode
    profile = _profile(body)
    spot, _ = _check_fit(snapshot, resolved.ticker, mode, profile)
    rows = _provider_rows(snapshot, resolved.ticker, mode)
    quoted, origin = provider_quotes(rows, profile, *_when(body))
    providers = records(quoted, PROVIDER_FIELDS)
    return {
        "ticker": spot["ticker"], "model_id": spot["model_id"], "display_name": spot["display_name"],
        "mode": mode, "task_profile": _task_profile(profile),
        "origin": None if origin is None else dict(vars(origin)),
        "providers": providers, "count": len(providers),
    }


# Each handler declares its operation; `serve.direct` answers it from the raw body (see there).

@post("/v1/price", status_code=200, summary="The cost of a task profile on one model", tags=["pricing"],
      **direct(PriceRequest, price_data))
async def price(request: Request, data: PriceRequest) -> Response[PriceResponse]:
    return await handler_answer(request)


@post("/v1/compare", status_code=200, summary="Models ranked by the cost of a task profile", tags=["pricing"],
      **direct(CompareRequest, compare_data, offload=True))
async def compare(request: Request, data: CompareRequest) -> Response[CompareResponse]:
    return await handler_answer(request)


@post("/v1/providers", status_code=200, summary="The cost of a task profile at every provider of a model",
      tags=["pricing"], **direct(ProvidersRequest, providers_data))
async def providers(request: Request, data: ProvidersRequest) -> Response[ProvidersResponse]:
    return await handler_answer(request)


@get("/v1/task-types", summary="The published token profiles of the task types", tags=["pricing"])
async def task_types(reply: Reply) -> Response[TaskTypesResponse]:
    return reply(task_table())


ROUTES = [price, compare, providers, task_types]
