"""Simulation endpoints (contract §6): the inference cost swap, the Monte Carlo of one model's
price, and the budget simulation of a workload portfolio.

Every number comes from the snapshot's `greeks` row of the model (its rates per mode) and its
published forecast law (`serve.outlook`) through `pipelines.swap`, `pipelines.forecast` and
`pipelines.budget`; nothing here computes a price. Request fields that the interface specification writes in camelCase
(`taskType`, `notionalTokens`, `taskCategory`, `horizonMonths`, also `fixedRate`) are accepted in
snake_case too; giving both spellings with different values is a 400. Where a check needs a
message better than the decoder's (twins, allowed values, bounds from the settings), it is made
here and answered with `serve.problems.invalid`.

Swap tenors and Monte Carlo horizons are the forward curves' tenors (1, 2, 3, 6, 9 and 12 months:
`pipelines.swap.TENORS`, `pipelines.monte_carlo.HORIZONS`); the budget simulation takes any whole
number of months to the same 12. A value outside them is a 400 that lists the valid ones.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import numpy as np
from litestar import Response, post
from litestar.params import Parameter
from msgspec import Meta, Struct

from pipelines.budget import BANDS, MAX_HORIZON_MONTHS, STAT_PERCENTILES, Workload, simulate_budget
from pipelines.monte_carlo import FAN_BANDS, HORIZONS, simulate_task_cost
from pipelines.pricing import Rates, task_cost
from pipelines.scheduled import level_ratios
from pipelines.spots import rate_columns
from pipelines.swap import TENORS, price_swap
from pipelines.tasks import TASK_TYPES, Profile, TaskProfile, task_profile
from serve.deps import Reply
from serve.direct import strict
from serve.line_follow import Follow, expected_ratio, line_forward, line_outlook, successor_process
from serve.model_mode import ModelInMode, check_fit
from serve.outlook import process_of
from serve.params import Eta, Tokens, in_mode
from serve.problems import Problem, invalid
from serve.respond import computed_envelope, envelope_type
from serve.routing import get
from serve.settings import Settings
from serve.state import LoadedSnapshot
from serve.threads import Threads

SEED_MAX = 2**63 - 1
MAX_NOTIONAL_TOKENS = 1e15
MAX_REQUESTS_PER_MONTH = 1e12

Notional = Annotated[float, Meta(gt=0, le=MAX_NOTIONAL_TOKENS)]
# USD per million output tokens; far above any list price, and small enough that the swap's
# arithmetic stays finite.
MAX_FIXED_RATE = 1_000_000.0
FixedRate = Annotated[float, Meta(ge=0, le=MAX_FIXED_RATE)]
Horizon = Annotated[int, Meta(ge=1, le=MAX_HORIZON_MONTHS)]
Seed = Annotated[int, Meta(ge=0, le=SEED_MAX)]


# --- Requests ------------------------------------------------------------------------------------

class SwapRequest(Struct, kw_only=True):
    """Body of POST /v1/swap. taskType (or task_type) and notionalTokens (or notional_tokens) are required."""

    model: str
    tenor: Annotated[str, Meta(description=f"Tenor: {', '.join(TENORS)} (monthly fixings to it)")]
    taskType: str | None = None
    task_type: str | None = None
    notionalTokens: Notional | None = None
    notional_tokens: Notional | None = None
    fixedRate: FixedRate | None = None
    fixed_rate: FixedRate | None = None
    mode: str | None = None


class ProfileIn(Struct, kw_only=True):
    n_in: Tokens
    n_out: Tokens
    eta: Eta = 0.0
    n_think: Tokens = 0.0


class WorkloadIn(Struct, kw_only=True):
    """One workload: a model, a task type (taskType or task_type) or an explicit profile, and its volume."""

    model: str
    requests_per_month: Annotated[float, Meta(gt=0, le=MAX_REQUESTS_PER_MONTH)]
    taskType: str | None = None
    task_type: str | None = None
    profile: ProfileIn | None = None
    mode: str | None = None
    follow: Annotated[Follow, Meta(
        description="`model` (default): the workload stays on this model. `line`: it moves to each successor of "
                    "the model's line as it comes, priced by the line forward (the model must be its line's "
                    "current model)")] = "model"


class SimulateRequest(Struct, kw_only=True):
    """Body of POST /v1/simulate. horizon_months (or horizonMonths), 1 to 12 months, is required."""

    items: Annotated[list[WorkloadIn], Meta(min_length=1)]
    horizon_months: Horizon | None = None
    horizonMonths: Horizon | None = None
    paths: int | None = None
    seed: Seed = 0


# --- Responses -----------------------------------------------------------------------------------

class TokenProfileOut(Struct):
    n_in: float
    n_out: float
    eta: float
    n_think: float


class SwapGreeks(Struct):
    delta: float | None  # USD per $/M of β; null when β is 0
    vega: float  # 0: the law has no diffusion, and the npv reads only its mean
    theta_greek: float  # USD per day
    pv01: float  # USD per +0.01 $/M of fixed rate


class SwapFixing(Struct):
    date: str
    months: int
    notional_tokens: float
    expected_floating_rate: float
    discount_factor: float


class SwapData(Struct, kw_only=True, rename="camel", omit_defaults=True):
    model: str
    model_id: str
    mode: str
    task_type: str
    task_profile: TokenProfileOut
    tenor: str
    tenor_months: int
    notional_tokens: float
    discount_rate: float
    floating_rate: float
    beta_used: float
    theta: float
    fair_fixed_rate: float
    npv: float
    notional_usd: float
    greeks: SwapGreeks
    schedule: list[SwapFixing]
    fixed_rate: float | None = None
    npv_at_fixed_rate: float | None = None


def _percentiles(levels: tuple[int, ...]) -> list[tuple[str, type]]:
    """The fields p05, p25, … of the percentiles at `levels`, as the pipelines name them."""
    return [(f"p{level:02d}", float) for level in levels]


Stats = msgspec.defstruct("Stats", [("mean", float), ("std", float), *_percentiles(STAT_PERCENTILES)],
                          module=__name__)


class HistogramBin(Struct):
    lower: float
    upper: float
    count: int


FanPoint = msgspec.defstruct("FanPoint", [("month", int), ("mean", float), *_percentiles(FAN_BANDS)],
                             module=__name__)


class MonteCarloData(Struct, kw_only=True, rename="camel"):
    ticker: str
    model_id: str
    mode: str
    task_category: str
    horizon_months: int
    paths: int
    seed: int
    spot_cost: float
    spot_beta: float
    theta: float
    forward_cost: float
    mean_standard_error: float
    cost: Stats
    beta: Stats
    histogram: list[HistogramBin]
    probability_of_change: float
    probability_of_change_model: float
    fan: list[FanPoint]


BudgetMonthOut = msgspec.defstruct("BudgetMonthOut", [("month", int), ("expected_spend", float),
                                                       *_percentiles(BANDS)], module=__name__)


class LineFollowed(Struct, kw_only=True):
    line: str
    current: Annotated[str, Meta(description="The line's current model: the workload's model today")]
    p_successor: Annotated[float, Meta(description="The chance a successor has come by the horizon")]
    expected_change: Annotated[float, Meta(description="The line forward at the horizon over today's price, "
                                                       "minus 1")]
    outlook: Annotated[str, Meta(description="The same in words, with the horizon's month")]


class WorkloadOut(Struct, kw_only=True, omit_defaults=True):
    model: str
    mode: str
    task: str
    task_profile: TokenProfileOut
    requests_per_month: float
    spot_cost: float
    expected_spend_total: float
    share: float
    follow: str
    line: Annotated[LineFollowed | None, Meta(description="With follow \"line\": the line followed")] = None


class SimulateData(Struct, kw_only=True):
    horizon_months: int
    paths: int
    seed: int
    months: list[BudgetMonthOut]
    workloads: list[WorkloadOut]
    total_expected_spend: float


SwapResponse = envelope_type("SwapResponse", SwapData)
MonteCarloResponse = envelope_type("MonteCarloResponse", MonteCarloData)
SimulateResponse = envelope_type("SimulateResponse", SimulateData)


# --- Checks --------------------------------------------------------------------------------------

def _twin(required: bool = True, **spellings: Any) -> tuple[str, Any]:
    """The one value given under either spelling, with the name the client used."""
    names = list(spellings)
    given = {name: value for name, value in spellings.items() if value is not None}
    if len(given) > 1 and len({repr(value) for value in given.values()}) > 1:
        raise invalid(names[0], f"{names[0]} and {names[1]} disagree; give one of them")
    if not given:
        if required:
            raise invalid(names[0], f"is required (also accepted as {names[1]})")
        return names[0], None
    return next(iter(given.items()))


def _task(field: str, name: str) -> tuple[str, TaskProfile]:
    try:
        return name.strip().lower(), task_profile(name)
    except KeyError:
        problem = invalid(field, f"unknown task type '{name}'; valid task types: {', '.join(TASK_TYPES)}")
        problem.extra["valid"] = list(TASK_TYPES)
        raise problem from None


def _one_of(field: str, value: Any, allowed) -> None:
    """A 400 naming the valid values (also as `valid`) unless `value` is one of `allowed`."""
    if value not in allowed:
        problem = invalid(field, f"must be one of {', '.join(map(str, allowed))}, got {value!r}")
        problem.extra["valid"] = list(allowed)
        raise problem


def _paths(settings: Settings, paths: int | None) -> int:
    if paths is None:
        return settings.monte_carlo_default_paths
    if not 1 <= paths <= settings.monte_carlo_max_paths:
        raise invalid("paths", f"must be a whole number from 1 to {settings.monte_carlo_max_paths}, got {paths}")
    return paths


class _Priced:
    """A model's rates in one mode, from its `greeks` row, and its forecast law."""

    def __init__(self, snapshot: LoadedSnapshot, name: str, mode: str | None, model_field: str = "model",
                 mode_field: str = "mode"):
        model = ModelInMode.of(snapshot, name, mode, model_field=model_field, mode_field=mode_field)
        row = model.greeks(snapshot)
        process = process_of(snapshot, model.ticker, model.mode)
        if process is None:
            raise Problem(404, "no_forecast", f"{model.ticker} has no forecast in {model.mode}: no price history to "
                                              f"fit one from")
        self.ticker, self.mode, self.row, self.process = model.ticker, model.mode, row, process
        self.model_id: str = row["model_id"]
        self.beta: float = float(row[f"beta_{model.mode}"])
        self.theta: float = float(row[in_mode("theta", model.mode)])
        self.rates = Rates.from_row(row, columns=rate_columns(model.mode))
        self._snapshot = snapshot

    def levels(self, months) -> np.ndarray:
        """The price announced for each horizon over today's (`scheduled.level_ratios`)."""
        return level_ratios(self._snapshot.table("scheduled_changes"), self.ticker, self.mode, self.beta,
                            self._snapshot.as_of_day, months)


def _profile_out(profile: Profile) -> TokenProfileOut:
    return TokenProfileOut(*map(float, profile.args))


def _reply(snapshot: LoadedSnapshot, response_type: type[Struct], data: Struct) -> Any:
    return response_type(**computed_envelope(snapshot, data))


# --- Swap ----------------------------------------------------------------------------------------

@post("/v1/swap", status_code=200, summary="Price an inference cost swap", tags=["simulation"],
      description=f"Fair fixed rate, npv, notional, greeks and the monthly fixing schedule of a swap on one model's "
                  f"cost for a task type, to a tenor of the forward curves ({', '.join(TENORS)}: up to 12 monthly "
                  f"fixings, each at the published forecast law; methodology §10).",
      **strict(SwapRequest))
async def swap(settings: Settings, snapshot: LoadedSnapshot, data: SwapRequest) -> SwapResponse:
    """Fair fixed rate, npv, notional, greeks and fixing schedule of a swap on one model and task type.

    The fixed payer receives the task's floating cost per million output tokens at monthly fixings
    to the tenor (1M, 2M, 3M, 6M, 9M or 12M, the forward curves' tenors: up to 12 fixings, each at
    the law the curves publish; `pipelines.swap`); discounting is continuous at the server's
    `discount_rate`. `npv` is at the fair rate (0 up to rounding); `npvAtFixedRate` is at
    `fixedRate` when one is given. The greeks are at the contract's fixed rate: `fixedRate` when
    given, else the fair rate.
    """
    tenor_key = data.tenor.strip().upper()
    _one_of("tenor", tenor_key, list(TENORS))
    task_field, task_name = _twin(taskType=data.taskType, task_type=data.task_type)
    task, profile = _task(task_field, task_name)
    _, notional = _twin(notionalTokens=data.notionalTokens, notional_tokens=data.notional_tokens)
    _, fixed = _twin(False, fixedRate=data.fixedRate, fixed_rate=data.fixed_rate)
    priced = _Priced(snapshot, data.model, data.mode)
    check_fit(priced.row, priced.mode, profile, field=task_field)
    try:
        quote = price_swap(priced.rates, priced.process, *profile.args, TENORS[tenor_key], notional,
                           settings.discount_rate, snapshot.as_of_day, fixed, priced.levels)
    except ValueError as error:
        raise invalid("body", str(error)) from None
    return _reply(snapshot, SwapResponse, SwapData(
        model=priced.ticker, model_id=priced.model_id, mode=priced.mode, task_type=task,
        task_profile=_profile_out(profile), tenor=tenor_key, tenor_months=quote.tenor_months,
        notional_tokens=float(notional), discount_rate=quote.discount_rate, floating_rate=quote.floating_rate,
        beta_used=quote.beta_used, theta=priced.theta, fair_fixed_rate=quote.fair_fixed_rate, npv=quote.npv,
        notional_usd=quote.notional_usd,
        greeks=SwapGreeks(quote.delta, quote.vega, quote.theta_greek, quote.pv01),
        schedule=[SwapFixing(f.date.isoformat(), int(f.months), f.notional_tokens, f.expected_floating_rate,
                             f.discount_factor) for f in quote.schedule],
        fixed_rate=quote.fixed_rate, npv_at_fixed_rate=quote.npv_at_fixed_rate,
    ))


# --- Monte Carlo ---------------------------------------------------------------------------------

def _query(description: str, **kwargs: Any) -> Any:
    return Parameter(description=description, required=False, **kwargs)


@get("/v1/monte-carlo/{ticker:path}", summary="Monte Carlo of a model's future task cost",
     tags=["simulation"],
     description=f"Paths of the model's forecast law to `horizonMonths`, a tenor of the forward curves "
                 f"({', '.join(map(str, HORIZONS))} months), and the task's cost on them; the simulated mean "
                 f"estimates the published forward at that tenor (methodology §6, §10).")
async def monte_carlo(
    computing: Threads,
    settings: Settings,
    reply: Reply,
    ticker: str,
    taskCategory: Annotated[str | None, _query("Task type of the token profile (required; or task_category)")] = None,
    task_category: Annotated[str | None, _query("snake_case spelling of taskCategory")] = None,
    horizonMonths: Annotated[int | None, _query(f"Horizon in months: {', '.join(map(str, HORIZONS))} (required; or "
                                                f"horizon_months)")] = None,
    horizon_months: Annotated[int | None, _query("snake_case spelling of horizonMonths")] = None,
    paths: Annotated[int | None, _query("Number of paths (default and bound in the server settings)")] = None,
    seed: Annotated[int, _query("Seed of the generator; the same seed gives the same answer", ge=0,
                                le=SEED_MAX)] = 0,
    mode: Annotated[str | None, _query("sync (default) or batch")] = None,
) -> Response[MonteCarloResponse]:
    """Paths of the model's forecast law to the horizon, and the task's cost on them.

    `horizonMonths` is a tenor of the forward curves: 1, 2, 3, 6, 9 or 12, and at each the simulated
    mean estimates the published forward (`/v1/forwards/{ticker}`'s `beta_forward`).
    The response follows the query's camelCase (`taskCategory`, `horizonMonths`, `spotCost`, …).
    Each path draws a time of change from the model's chance of change and a ratio from its change
    law (`pipelines.forecast`). `cost` and `beta` summarise the simulated task cost (USD) and output
    price ($/M) at the horizon; `forwardCost` is the analytic expected cost spot_cost·L(t)·E[R_t]
    (L the price a source has announced for the horizon over today's, 1 where none: the forward
    curve's mean), which `cost.mean` estimates within `meanStandardError`. `histogram` has 20 equal
    bins of the cost. `probabilityOfChange` is the simulated share of paths whose price changed (a
    change a source has announced is not counted: it is known, see `/v1/scheduled`), beside the
    law's chance of a change, `probabilityOfChangeModel`. `fan` holds the monthly mean and
    percentiles of β to the horizon. Same query, same answer.
    """
    category_field, category = _twin(taskCategory=taskCategory, task_category=task_category)
    task, profile = _task(category_field, category)
    horizon_field, horizon = _twin(horizonMonths=horizonMonths, horizon_months=horizon_months)
    _one_of(horizon_field, horizon, HORIZONS)
    return await computing.run(_monte_carlo, reply, ticker.lstrip("/"), mode, category_field, task, profile, horizon,
                               _paths(settings, paths), seed)


def _monte_carlo(reply: Reply, name: str, mode: str | None, category_field: str, task: str, profile: TaskProfile,
                 horizon: int, count: int, seed: int) -> Response[MonteCarloResponse]:
    """The Monte Carlo answer, computed in a worker thread (`serve.threads`)."""
    snapshot = reply.snapshot
    priced = _Priced(snapshot, name, mode, "ticker")
    check_fit(priced.row, priced.mode, profile, field=category_field)
    cost_today = task_cost(priced.rates, *profile.args).spot_cost
    levels = priced.levels(np.arange(1, horizon + 1, dtype=float))
    paths_of = simulate_task_cost(cost_today, priced.beta, priced.process, levels, horizon, count, seed)
    data = MonteCarloData(
        ticker=priced.ticker, model_id=priced.model_id, mode=priced.mode, task_category=task, horizon_months=horizon,
        paths=count, seed=seed, spot_cost=cost_today, spot_beta=priced.beta, theta=priced.theta,
        forward_cost=paths_of.forward_cost, mean_standard_error=paths_of.mean_standard_error,
        cost=Stats(**paths_of.cost), beta=Stats(**paths_of.beta),
        histogram=[HistogramBin(**b) for b in paths_of.histogram],
        probability_of_change=paths_of.probability_of_change,
        probability_of_change_model=paths_of.probability_of_change_model,
        fan=[FanPoint(**vars(month)) for month in paths_of.fan],
    )
    return reply.body(msgspec.to_builtins(_reply(snapshot, MonteCarloResponse, data)))


# --- Budget simulation ---------------------------------------------------------------------------

@post("/v1/simulate", status_code=200, summary="Budget simulation of a workload portfolio",
      tags=["simulation"],
      description=f"Monthly spend of a portfolio of workloads to `horizon_months` (a whole number from 1 to "
                  f"{MAX_HORIZON_MONTHS}), expected from the forward curves, with simulated percentile bands and "
                  f"each workload's share (methodology §10); a workload may follow its model's line "
                  f"(`follow: \"line\"`, methodology §5).",
      **strict(SimulateRequest))
async def simulate(computing: Threads, settings: Settings, snapshot: LoadedSnapshot,
                   data: SimulateRequest) -> SimulateResponse:
    """Monthly spend of a portfolio of workloads to the horizon (1 to 12 months), with percentile
    bands and shares.

    `expected_spend` (per month, per workload and in total) is analytic: requests·spot_cost·L(m)·E[R_m]
    at the end of month m (L the price announced for then over today's, 1 where none), the forward
    curve's expectation. The bands p05 … p95 of each month's total
    spend are simulated (`pipelines.budget`): workloads on one model and mode share its price path,
    different models move independently. A workload gives a task type (`taskType` or `task_type`) or
    an explicit `profile` {n_in, n_out, eta, n_think}, not both.

    A workload with `follow: "line"` (default `"model"`, as in /v1/price) moves to each successor of
    its model's line as it comes: its expected spend in month m is requests·spot_cost times the line
    forward at m over the current model's spot (`/v1/lines/{line}/forwards`), and its paths draw the
    successor's coming and price (methodology §5, "Line forwards"); its `line` says which line, the
    chance a successor has come by the horizon and the expected change in words. A model that is
    not its line's current model, or is in no line, is a 400 on `items[i].follow`.
    """
    return await computing.run(_simulate, settings, snapshot, data)


def _followed(snapshot: LoadedSnapshot, priced: _Priced, horizon: int, field: str) -> LineFollowed:
    """The line a workload follows, at the horizon (`serve.line_follow`: the refusal of /v1/price)."""
    point = line_forward(snapshot, priced.ticker, priced.mode, horizon, field)
    return LineFollowed(line=point["line"], current=priced.ticker, p_successor=float(point["p_successor"]),
                        expected_change=expected_ratio(point) - 1.0, outlook=line_outlook(snapshot, point))


def _simulate(settings: Settings, snapshot: LoadedSnapshot, data: SimulateRequest) -> SimulateResponse:
    """The budget simulation, computed in a worker thread (`serve.threads`)."""
    if len(data.items) > settings.simulate_max_items:
        raise invalid("items", f"at most {settings.simulate_max_items} items, got {len(data.items)}")
    _, horizon = _twin(horizon_months=data.horizon_months, horizonMonths=data.horizonMonths)
    count = _paths(settings, data.paths)
    workloads, described = [], []
    for i, item in enumerate(data.items):
        field = f"items[{i}]"
        task_field, task_name = _twin(False, **{f"{field}.taskType": item.taskType,
                                                f"{field}.task_type": item.task_type})
        if (task_name is None) == (item.profile is None):
            raise invalid(f"{field}.taskType", "give a task type (taskType) or an explicit profile, exactly one")
        task, profile = (("custom", Profile(**msgspec.structs.asdict(item.profile))) if task_name is None
                         else _task(task_field, task_name))
        priced = _Priced(snapshot, item.model, item.mode, f"{field}.model", f"{field}.mode")
        check_fit(priced.row, priced.mode, profile, field=f"{field}.profile" if task_name is None else task_field)
        followed = _followed(snapshot, priced, horizon, f"{field}.follow") if item.follow == "line" else None
        try:
            workload = Workload(f"{priced.ticker}:{priced.mode}", priced.rates, priced.process, *profile.args,
                                item.requests_per_month, tuple(priced.levels(np.arange(1, MAX_HORIZON_MONTHS + 1))),
                                *((followed.line, successor_process(snapshot, priced.ticker, priced.mode))
                                  if followed else ()))
            cost = task_cost(priced.rates, *profile.args).spot_cost
        except ValueError as error:
            raise invalid(field, str(error)) from None
        workloads.append(workload)
        described.append((priced, task, profile, item.requests_per_month, cost, item.follow, followed))
    budget = simulate_budget(workloads, horizon, count, data.seed)
    return _reply(snapshot, SimulateResponse, SimulateData(
        horizon_months=horizon, paths=count, seed=data.seed,
        months=[BudgetMonthOut(**vars(month)) for month in budget.months],
        workloads=[WorkloadOut(model=priced.ticker, mode=priced.mode, task=task, task_profile=_profile_out(profile),
                               requests_per_month=float(requests), spot_cost=cost, expected_spend_total=spend,
                               share=share, follow=follow, line=followed)
                   for (priced, task, profile, requests, cost, follow, followed), spend, share in zip(
                       described, budget.workload_spend, budget.shares, strict=True)],
        total_expected_spend=budget.total_expected_spend,
    ))


ROUTES = [swap, monte_carlo, simulate]
