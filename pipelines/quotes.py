"""Quotes: one task profile priced on one model, ranked across models, and across the providers
of one model (contract §3 and §6, `POST /v1/price`, `/v1/compare`, `/v1/providers`).

The arithmetic is not here: costs come from `pipelines.pricing` (`task_cost` for one model,
`spot_costs` for a frame of them) and the forward from `pipelines.forecast`. This module
decides which models can serve a profile, ranks them, and carries a cost forward.

A forward cost is spot_cost · L(t) · E[R_t], L(t) the output price a source has announced for t
over today's (1 where none, `pipelines.scheduled`) and E[R_t] the forecast's mean ratio: the law
moves β, and every price of a model (input, cache, reasoning, and its fees, which the same price
list sets) is taken as a fixed ratio of β, so the whole cost scales with it. Its median and 90%
band are spot_cost · L(t) times the quantiles of R_t.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import pandas as pd

from pipelines.forecast import Process
from pipelines.model_metadata import DEPRECATED as DEPRECATED_STATUS
from pipelines.model_metadata import RETIRED as RETIRED_STATUS
from pipelines.pricing import (
    FEE_LINES,
    LINES,
    PriceBook,
    Rates,
    TaskCost,
    TaskCosts,
    is_missing,
    spot_costs,
    task_costs,
)
from pipelines.spots import rate_columns
from pipelines.tasks import Profile

# Why a model cannot serve a profile, in the order they are checked.
NO_PRICE = "no_price"  # no price in the requested mode
NO_OUTPUT_PRICE = "no_output_price"  # an output price of zero: no β to rank or carry forward
NO_THINKING = "no_thinking"  # thinking tokens asked of a model that does not think
CONTEXT_WINDOW = "context_window"  # n_in + n_think + n_out above the model's known window
REASONS = (NO_PRICE, NO_OUTPUT_PRICE, NO_THINKING, CONTEXT_WINDOW)
# Why a comparison leaves a model out although it could be priced: it is not a text model (it
# does not take text in and write text out), or it is retired or deprecated (unless those are asked
# for). A deprecated model is on its way out, often closed to new users already: a comparison
# that helps choose a model ranks, like the board's default view, the ones a user can adopt.
NOT_TEXT = "not_text"
RETIRED = "retired"
DEPRECATED = "deprecated"
SCOPE_REASONS = (NOT_TEXT, RETIRED, DEPRECATED)

RANK_COLUMNS = ["ticker", "model_id", "display_name", "provider", "spot_cost", "kappa", "beta", "is_reasoning",
                "theta", "forward_cost", "r_in_eff", "context_window", "status"]
EXCLUDED_COLUMNS = ["ticker", "reason", "detail"]
Entry = tuple[str, str, str]  # a model left out, as EXCLUDED_COLUMNS

def unfit_masks(profile: Profile, priced, beta, is_reasoning, context_window) -> dict:
    """For each reason of REASONS, which models cannot serve the profile for it: arrays aligned by
    model (bools; β and the window as floats, NaN where unknown), or one model's Python scalars,
    which the same operators serve (`x ^ True` negates both a bool and a bool array). A model
    without a price has that reason alone; an unknown window excludes nothing (NaN compares False)."""
    return {NO_PRICE: priced ^ True,
            NO_OUTPUT_PRICE: priced & ((beta > 0) ^ True),
            NO_THINKING: priced & (profile.n_think > 0) & (is_reasoning ^ True),
            CONTEXT_WINDOW: priced & (profile.tokens > context_window)}


def unfit_reasons(profile: Profile, *, priced: bool, beta: float | None, is_reasoning: bool,
                  context_window: float | None) -> list[str]:
    """Every reason (of REASONS, in order) the model cannot serve the profile; empty when it can."""
    def number(value) -> float:
        return math.nan if is_missing(value) else float(value)

    masks = unfit_masks(profile, bool(priced), number(beta), not is_missing(is_reasoning) and bool(is_reasoning),
                        number(context_window))
    return [reason for reason in REASONS if masks[reason]]


def describe(reason: str, profile: Profile, mode: str, context_window: float | None = None) -> str:
    """A reason in words."""
    if reason == NO_PRICE:
        return f"the model has no {mode} price"
    if reason == NO_OUTPUT_PRICE:
        return f"the model has no positive {mode} output price"
    if reason == NO_THINKING:
        return "the model bills no thinking tokens (it is not a reasoning model); send n_think 0"
    if reason == CONTEXT_WINDOW:
        return (f"the profile needs {profile.tokens:,.0f} tokens (n_in + n_think + n_out), more than the "
                f"model's context window of {int(context_window):,}")
    raise ValueError(f"unknown reason {reason!r}")


def model_rates(row: Mapping, mode: str) -> Rates | None:
    """A spots row's rates in a mode, or None when the model has no price in it."""
    columns = rate_columns(mode)
    if is_missing(row.get(columns["output"])) or is_missing(row.get(columns["input"])):
        return None
    return Rates.from_row(row, columns)


@dataclass(frozen=True)
class ForwardQuote:
    horizon_months: float
    cost: float | None  # spot_cost · scheduled_factor · decay_factor, the expected cost at the horizon
    beta_forward: float | None  # β · scheduled_factor · decay_factor
    p_change: float | None  # the chance of a price change by the horizon
    decay_factor: float | None  # E[R_t]
    cost_median: float | None
    cost_p05: float | None  # the 90% band of the cost at the horizon
    cost_p95: float | None
    scheduled_factor: float = 1.0  # β announced for the horizon over β today (`pipelines.scheduled`)
    theta_used: float | None = None  # the decay a month the factor implies, −ln(decay_factor)/months


def forward_quote(spot_cost: float, beta: float, process: Process | None, months: float,
                  scheduled_factor: float = 1.0) -> ForwardQuote:
    """The cost carried to `months` under the forecast law, from the level a source has announced
    for then (`scheduled_factor`, 1 where none); None where the model has no law (no history)."""
    if not 0 < months <= 12 or not math.isfinite(months):
        raise ValueError(f"months must be in (0, 12], got {months!r}")
    if process is None:
        return ForwardQuote(months, None, None, None, None, None, None, None, scheduled_factor)
    factor = float(process.expected_ratio(months)[0])
    low, median, high = (float(q) for q in process.quantiles(months, (0.05, 0.5, 0.95))[0])
    level = spot_cost * scheduled_factor
    return ForwardQuote(months, level * factor, beta * scheduled_factor * factor, float(process.p_change(months)[0]),
                        factor, level * median, level * low, level * high, scheduled_factor,
                        -math.log(factor) / months if factor > 0 else None)


def cost_lines(cost: TaskCost) -> list[dict]:
    """The lines of a task cost that bill something, in LINES order; their costs sum to spot_cost
    (the lines left out cost exactly 0). A tool fee the profile asks for that no source states
    for the model is shown at 0 with a note; a model with no request fee has no request line."""
    out = []
    for line in LINES:
        quantity, price = cost.quantities[line], cost.unit_prices[line]
        if quantity == 0 or (line == "request_fee" and price is None):
            continue
        note = None
        if price is None:
            note = f"no source states a {line.replace('_', ' ')} fee for this model: billed at 0 here"
        out.append({"line": line, "quantity": quantity, "unit_price": price,
                    "unit": "usd_per_thousand" if line in FEE_LINES else "usd_per_million_tokens",
                    "cost": cost.lines[line], "note": note})
    return out


RANK_LABELS = ["ticker", "model_id", "display_name", "provider", "is_reasoning", "context_window", "status"]


def scope_masks(input_modalities: list, output_modalities: list, status: list[str],
                include_retired: bool) -> dict[str, np.ndarray]:
    """For each reason of SCOPE_REASONS, which models a comparison of text models leaves out
    for it: lists aligned by model, each model's modalities a list of names."""
    not_text = np.array(["text" not in list(ins) or "text" not in list(outs)
                         for ins, outs in zip(input_modalities, output_modalities, strict=True)], dtype=bool)
    retired = np.array([value == RETIRED_STATUS for value in status], dtype=bool) & (not include_retired)
    deprecated = np.array([value == DEPRECATED_STATUS for value in status], dtype=bool) & (not include_retired)
    return {NOT_TEXT: not_text, RETIRED: retired, DEPRECATED: deprecated}


def describe_scope(reason: str, input_modalities, output_modalities) -> str:
    if reason == NOT_TEXT:
        return (f"not a text model (input: {', '.join(input_modalities)}; output: {', '.join(output_modalities)}): "
                "a comparison of text models leaves it out; price it alone with POST /v1/price")
    if reason == RETIRED:
        return "the model is retired; send include_retired true to rank it (marked status retired)"
    if reason == DEPRECATED:
        return ("the model is deprecated: its maker is retiring it; send include_retired true to rank it "
                "(marked status deprecated)")
    raise ValueError(f"unknown reason {reason!r}")


@dataclass(frozen=True)
class Roster:
    """What a ranking reads of a spots frame besides its prices: who the models are, not what they
    cost, as arrays and lists once (a caller that ranks many profiles on one frame keeps it; a
    pandas column lookup per request costs more than the ranking's arithmetic)."""

    tickers: np.ndarray  # objects (str)
    context_window: np.ndarray  # float, NaN where unknown
    is_reasoning: np.ndarray  # bool
    input_modalities: list
    output_modalities: list
    out_of_scope: dict[str, np.ndarray]  # `scope_masks` with retired models left out
    # Each SCOPE_REASONS reason's `describe_scope` of the rows it leaves out (None elsewhere), made
    # once: the words do not depend on the profile, and a comparison leaves out a hundred models.
    scope_details: dict[str, list[str | None]]
    # `left_out_of_scope` per include_retired, made on first use
    _left_out: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, spots: pd.DataFrame) -> Roster:
        inputs, outputs = spots["input_modalities"].tolist(), spots["output_modalities"].tolist()
        out_of_scope = scope_masks(inputs, outputs, spots["status"].tolist(), include_retired=False)
        details = {reason: [describe_scope(reason, ins, outs) if out else None
                            for ins, outs, out in zip(inputs, outputs, out_of_scope[reason].tolist(), strict=True)]
                   for reason in SCOPE_REASONS}
        return cls(spots["ticker"].to_numpy(dtype=object),
                   spots["context_window"].to_numpy(dtype=float, na_value=np.nan),
                   spots["is_reasoning"].to_numpy(dtype=bool, na_value=False), inputs, outputs, out_of_scope,
                   details)

    def scopes(self, include_retired: bool) -> dict[str, np.ndarray]:
        """`scope_masks` of the rows, for this `include_retired`."""
        if not include_retired:
            return self.out_of_scope
        kept = np.zeros(len(self.tickers), dtype=bool)
        return {**self.out_of_scope, RETIRED: kept, DEPRECATED: kept}

    def left_out_of_scope(self, include_retired: bool) -> tuple[np.ndarray, list[int], list[Entry]]:
        """Which rows are in scope (a mask); and the others, in order, with their entries (each
        row's first reason in `scopes`). The same for every profile, so made once per
        `include_retired`: a comparison leaves out a hundred models."""
        made = self._left_out.get(include_retired)
        if made is None:
            scopes = self.scopes(include_retired)
            first = _first_reasons(len(self.tickers), list(scopes.values()))
            names = list(scopes)
            rows = np.flatnonzero(first < len(names)).tolist()
            entries = [(self.tickers[row], names[first[row]], self.scope_details[names[first[row]]][row])
                       for row in rows]
            made = self._left_out[include_retired] = (first == len(names), rows, entries)
        return made


@dataclass(frozen=True)
class Ranking:
    """What `rank` finds, by row of the spots frame it was given: the rows that can serve the
    profile, cheapest first (ties by ticker); every row's cost figures (NaN where not defined);
    and why the other rows cannot serve it. Arrays rather than a frame, as a comparison is made
    per request; `priced` gives the frame."""

    order: np.ndarray
    spot_cost: np.ndarray
    kappa: np.ndarray
    beta: np.ndarray
    r_in_eff: np.ndarray
    theta: np.ndarray
    forward_cost: np.ndarray
    excluded_rows: list[Entry]
    note: np.ndarray | None = None  # objects: how a row was priced, where the profile was adjusted for it

    @property
    def excluded(self) -> pd.DataFrame:
        """The models left out, as a frame of EXCLUDED_COLUMNS."""
        return pd.DataFrame(self.excluded_rows or None, columns=EXCLUDED_COLUMNS)

    def figures(self) -> dict[str, np.ndarray]:
        """The cost columns of the ranked rows, in rank order."""
        columns = {name: getattr(self, name)[self.order]
                   for name in ("spot_cost", "kappa", "beta", "theta", "forward_cost", "r_in_eff")}
        return columns if self.note is None else {**columns, "note": self.note[self.order]}

    def priced(self, spots: pd.DataFrame) -> pd.DataFrame:
        """The ranked rows as a frame of RANK_COLUMNS (`spots` as given to `rank`)."""
        labels = spots.iloc[self.order][RANK_LABELS].reset_index(drop=True)
        figures = self.figures()
        return labels.assign(**figures)[RANK_COLUMNS + (["note"] if "note" in figures else [])]


def rank(spots: pd.DataFrame, profile: Profile, mode: str, theta: np.ndarray | None = None,
         forward_ratio: np.ndarray | None = None, book: PriceBook | None = None, include_retired: bool = False,
         period: str | None = None, at: datetime | None = None, scheduled: np.ndarray | None = None,
         roster: Roster | None = None, think_as_output: bool = False) -> Ranking:
    """The text models of a spots frame that can serve the profile, cheapest first (ties by
    ticker), and those left out, with their first reason: out of scope (`scope_masks`) first,
    then unable to serve it (`unfit_masks`).

    `theta` (the mode's θ per row, shown as it is), `book` (`PriceBook.of(spots,
    rate_columns(mode))`) and `roster` (`Roster.of(spots)`) may be passed in by a caller that
    keeps them. With `forward_ratio` (each row's E[R_t] at the horizon, NaN where the model has
    no law) the forward cost is the spot cost times it and `scheduled`, each row's announced
    level at the horizon over today's (`scheduled.level_ratios`). Models priced by the hour are
    priced in `period`, or at time `at`, else in their standard period.

    With `think_as_output` (a shortlist: every model named is priced), a model that is not a
    reasoning model is not left out for thinking tokens: they are priced as that many more output
    tokens, what it would write if asked to reason in its answer, and every row says how its
    thinking tokens were billed (`note`).
    """
    book = book if book is not None else PriceBook.of(spots, rate_columns(mode))
    roster = roster if roster is not None else Roster.of(spots)
    in_scope, scope_rows, scope_entries = roster.left_out_of_scope(include_retired)  # out of scope first
    priced_rows = ~(np.isnan(book.beta) | np.isnan(book.input))  # what `model_rates` calls priced
    unfit = unfit_masks(profile, priced_rows, book.beta, roster.is_reasoning, roster.context_window)
    thinking_as_output = unfit[NO_THINKING] & think_as_output
    if think_as_output:
        unfit = {**unfit, NO_THINKING: np.zeros(len(spots), dtype=bool)}
    unfit_first = _first_reasons(len(spots), list(unfit.values()))  # per row, an index into REASONS
    unfit_rows = np.flatnonzero(in_scope & (unfit_first < len(unfit)))
    costs = task_costs(book, *profile.args, usage=profile.usage, period=period, at=at)
    if thinking_as_output.any():
        costs = _merged(costs, task_costs(book, *thinking_billed_as_output(profile).args, usage=profile.usage,
                                          period=period, at=at), thinking_as_output)
    fit = np.flatnonzero(in_scope & (unfit_first == len(unfit)))
    order = fit[np.lexsort((roster.tickers[fit], costs.spot_cost[fit]))]  # cheapest first, ties by ticker
    theta = np.full(len(spots), np.nan) if theta is None else np.asarray(theta, dtype=float)
    level = costs.spot_cost if scheduled is None else costs.spot_cost * scheduled
    forward = level * np.asarray(forward_ratio, dtype=float) if forward_ratio is not None else np.full(len(spots),
                                                                                                          np.nan)
    out = _left_out(roster, scope_rows, scope_entries, unfit_rows, unfit_first, profile, mode)
    note = None
    if think_as_output and profile.n_think > 0:
        note = np.where(thinking_as_output, thinking_note(profile, reasoning=False),
                        thinking_note(profile, reasoning=True)).astype(object)
    elif think_as_output:  # no thinking tokens: a reasoning model's cost is a floor, and its row says so
        note = np.where(roster.is_reasoning, ZERO_THINKING_NOTE, None).astype(object)
    return Ranking(order=order, spot_cost=costs.spot_cost, kappa=costs.kappa, beta=costs.beta_used,
                   r_in_eff=costs.r_in_eff, theta=theta, forward_cost=forward, excluded_rows=out, note=note)


def thinking_billed_as_output(profile: Profile) -> Profile:
    """The profile a model that does not think is priced on: its thinking tokens written as output."""
    return dataclasses.replace(profile, n_out=profile.n_out + profile.n_think, n_think=0.0)


ZERO_THINKING_NOTE = ("a reasoning model priced with no thinking tokens: it spends some on every request, so its "
                      "cost is a floor; send n_think to price them")


def thinking_note(profile: Profile, reasoning: bool) -> str:
    """How a shortlisted model's thinking tokens were billed, in words."""
    if reasoning:
        return f"a reasoning model: its {profile.n_think:,.0f} thinking tokens are billed at its reasoning rate"
    return (f"not a reasoning model: the {profile.n_think:,.0f} thinking tokens are priced as that many more "
            "output tokens, what it would write to reason in its answer")


def _merged(costs: TaskCosts, adjusted: TaskCosts, rows: np.ndarray) -> TaskCosts:
    """`costs` with the arrays of `adjusted` on `rows`."""
    return dataclasses.replace(costs, **{name: np.where(rows, getattr(adjusted, name), getattr(costs, name))
                                         for name in ("spot_cost", "kappa", "beta_used", "r_in_eff")})


def _first_reasons(rows: int, masks: list[np.ndarray]) -> np.ndarray:
    """Per row, the index of the first mask that holds there (len(masks) where none does): what
    `np.select` gives, written from the last mask to the first, at a fraction of its cost (it
    builds an array of strings per request)."""
    first = np.full(rows, len(masks))
    for index in range(len(masks) - 1, -1, -1):
        first[masks[index]] = index
    return first


def _left_out(roster: Roster, scope_rows: list[int], scope_entries: list[Entry], unfit_rows: np.ndarray,
              unfit_first: np.ndarray, profile: Profile, mode: str) -> list[Entry]:
    """The entries of every row left out, in row order: those out of scope (made once, by the
    roster) and those in scope that cannot serve the profile (a few, described here)."""
    if not unfit_rows.size:
        return list(scope_entries)
    rows = unfit_rows.tolist()
    reasons = [REASONS[first] for first in unfit_first[unfit_rows].tolist()]
    unable = [(roster.tickers[row], reason, describe(reason, profile, mode, roster.context_window[row]))
              for row, reason in zip(rows, reasons, strict=True)]
    if not scope_rows:
        return unable
    entries = scope_entries + unable
    by_row = sorted(range(len(entries)), key=(scope_rows + rows).__getitem__)  # row numbers are distinct
    return [entries[position] for position in by_row]


@dataclass(frozen=True)
class Origin:
    provider: str
    provider_model_id: str
    spot_cost: float


def provider_quotes(rows: pd.DataFrame, profile: Profile, period: str | None = None,
                    at: datetime | None = None) -> tuple[pd.DataFrame, Origin | None]:
    """Every provider row of one model and mode priced for the profile, cheapest first, with the
    spread to the origin provider's cost.

    `rows` are `providers` table rows (price_history column names). Where the maker lists more
    than one price (an old id and a new one), the reference is its latest, and of equally recent
    ones the cheapest. Rows without a price are left out.
    """
    quoted = rows.assign(spot_cost=spot_costs(rows, *profile.args, usage=profile.usage, period=period, at=at))
    quoted = quoted[quoted["spot_cost"].notna()]
    makers = quoted[quoted["is_origin"].astype(bool)].sort_values(
        ["effective_date", "spot_cost", "provider_model_id"], ascending=[False, True, True], kind="stable")
    origin = None
    if len(makers):
        first = makers.iloc[0]
        origin = Origin(str(first["provider"]), str(first["provider_model_id"]), float(first["spot_cost"]))
    if origin is not None and origin.spot_cost > 0:
        quoted = quoted.assign(spread_to_origin=quoted["spot_cost"] / origin.spot_cost - 1.0)
    else:
        quoted = quoted.assign(spread_to_origin=np.nan)
    quoted = quoted.assign(_maker=~quoted["is_origin"].astype(bool)).sort_values(
        ["spot_cost", "_maker", "provider", "provider_model_id"], kind="stable")
    return quoted.drop(columns="_maker").reset_index(drop=True), origin
