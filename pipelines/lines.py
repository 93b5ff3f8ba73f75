"""Model lines: a maker's product line, its members in release order, and the evidence for each.

A team that budgets inference follows a line (the next Sonnet, the next Flash, the next mini), not
one model. The registry's `family` (`maker/` + the ticker without its version tokens, or a curated
rule) is nearly that; the line rule adds what the family leaves out (methodology §5, "Lines"):

1. The line is the family plus the ticker's variant tokens the family drops: a size
   (`70B`, `8B`, `A22B`: open-weight sizes are different products), a context variant (`32K`),
   and, where the family comes from a curated rule that names no variant (`openai/o-series`),
   the ticker's own variant words (`mini`, `pro`, `deep-research`); a version ending in `v` is a
   vision variant (`GLM-4.5V`: `zai/glm-v`). So LLAMA-3.1-70B and
   LLAMA-3.3-70B are one line (`meta/llama-70b`) and LLAMA-3.1-8B another; O3-MINI follows
   O1-MINI (`openai/o-series-mini`), not O3. A release word (`turbo`) is no variant under a
   curated family: the rule that put GPT-4-TURBO in `openai/gpt` says it is a later release of
   GPT-4, not a product of its own (QWEN-TURBO and GLM-5-TURBO, whose families name the word,
   keep their own lines).
2. Not a member (a member is a release a budget can move to):
   - a preview (`preview`, `exp`, `beta` in its API name): priced before its release; its general
     release is the member;
   - a pointer without a version in its ticker (`gpt-chat-latest`): it serves whatever is newest;
     one with a version (`gpt-5.1-chat-latest` as GPT-5.1-CHAT) names one generation and is a member;
   - a dated snapshot of another ticker of the same line (GPT-4O-2024-05-13 beside GPT-4O): the
     same release under its date.
3. Reasoning and tier do not split a line: SONNET-3.7 thinks where SONNET-3.5 did not, and a
   tier by price is a tier of a day. Siblings whose names differ by a word (`-thinking`,
   `-instruct`, `-reasoning`, `-mini`) are already in different families.
4. Release order: a member released after one with a higher version (GPT-5.3 first seen after
   GPT-5.5; MISTRAL-SMALL-3.1 after 3.2) is `out_of_order`: it stays a member, but no succession
   (no successor ratio, no count in the line's rate) and never the line's current model. The
   version is the ticker's first version token read as a decimal (`4.20` < `4.3`, `K2.5` = 2.5);
   four-digit tokens (`2512`) are dates, not versions, and a name without a version is never out
   of order.
5. Release date: `first_seen`, the first day any source states a price for the model (see
   `release_basis`). Where it cannot be a release date it is a bound and the member is not dated:
   `data_start` (first seen on the first day of the data: released then or before) and
   `before_retirement` (deprecated or retired before it was first seen: released before that day,
   which orders it). Members are ordered by that date, then ticker.

Each member's succession evidence: its first observed sync output price (β, the price the forward
curves use), when observed within LAUNCH_DAYS of its dated release, over its predecessor's price
on that day (its last observation on or before it): `successor_ratio`.

Everything is read as of a day: only members released by then, only prices observed by then, so
the walk-forward backtest builds the lines of each anchor with the same function.
"""

from __future__ import annotations

import re
from datetime import date

import numpy as np
import pandas as pd

from pipelines.change_panel import POINTER, PREVIEW, STAGE_WORDS, name_class
from pipelines.days import as_day
from pipelines.listings import CARRIED_FORWARD, SYNC
from pipelines.registry import CONTEXT_TOKEN, TRAILING_VERSION, VERSION_TOKEN, default_family
from pipelines.tickers import base_ticker

LAUNCH_DAYS = 31  # a first price observed this long after the release is still its launch price
SIZE_TOKEN = re.compile(r"^(\d+x)?[ae]?\d+(\.\d+)?[bm]$")  # 70b, 8x22b, a22b (active), e4b (effective), 360m
VISION_VERSION = re.compile(r"^\d+(\.\d+)*v$")  # 4.5v: the vision sibling of 4.5
RELEASE_WORDS = {"turbo"}  # a later release of a generation, where a curated family says so (rule 1)
NUMBER = re.compile(r"\d+(\.\d+)?")
DATED_VERSION = 1000  # a "version" this large is a date (2512: December 2025)

# release_basis: how `released` was read
FIRST_SEEN, DATA_START, BEFORE_RETIREMENT = "first_seen", "data_start", "before_retirement"

LINE_COLUMNS = ["line", "maker", "family", "position", "members", "ticker", "model_id", "released", "release_basis",
                "dated", "out_of_order", "deprecated_on", "retired_on", "status", "is_reasoning", "evidence",
                "launch_date",
                "launch_price", "predecessor", "predecessor_price", "successor_ratio"]


MEMBER_COLUMNS = LINE_COLUMNS[:LINE_COLUMNS.index("launch_date")]


def variant_tokens(ticker: str, maker: str, family: str) -> list[str]:
    """The ticker's tokens that set it apart within its family: sizes and context variants the
    family rule drops, and words a curated family does not name (rule 1)."""
    named = set(family.split("/", 1)[-1].split("-"))
    curated = family != default_family(maker, ticker)
    out = []
    for token in ticker.lower().split("-"):
        stem = TRAILING_VERSION.sub("", token)
        if token in named or stem in named or token in STAGE_WORDS or stem == maker:
            continue
        if curated and stem in RELEASE_WORDS:
            continue
        if SIZE_TOKEN.match(token) or CONTEXT_TOKEN.match(token):
            out.append(token)
        elif VISION_VERSION.match(token):
            out.append("v")
        elif not VERSION_TOKEN.match(token) and not any(ch.isdigit() for ch in stem):
            out.append(stem)
    return out


def version_of(ticker: str) -> float:
    """The ticker's version as a decimal (NaN without one): its first version token that is no
    size, context or date (rule 4)."""
    for token in ticker.lower().split("-"):
        if VERSION_TOKEN.match(token) and not SIZE_TOKEN.match(token) and not CONTEXT_TOKEN.match(token):
            number = float(NUMBER.search(token).group())
            if number < DATED_VERSION:
                return number
    return float("nan")


def out_of_order(versions: list[float]) -> list[bool]:
    """For each member in release order: a version below one already released (rule 4)."""
    highest, out = float("-inf"), []
    for version in versions:
        out.append(bool(version < highest))
        if not np.isnan(version):
            highest = max(highest, version)
    return out


def line_of(ticker: str, maker: str, family: str) -> str:
    """The line a ticker belongs to: `maker/name`."""
    return "-".join([family, *variant_tokens(ticker, maker, family)])


def exclusion(ticker: str, model_id: str, line_tickers: set[str]) -> str | None:
    """Why a model is no member of its line (rule 2), or None."""
    kind = name_class(model_id)
    if kind == PREVIEW:
        return "preview"
    if kind == POINTER and not any(VERSION_TOKEN.match(t) for t in ticker.lower().split("-")):
        return "pointer"
    base = base_ticker(model_id)
    if base != ticker and base in line_tickers:
        return f"snapshot of {base}"
    return None


def _release(row, data_start) -> tuple[date, str]:
    """(released, release_basis) of one registry row (rule 5)."""
    seen = row.first_seen
    ended = [d for d in (row.deprecated_on, row.retired_on) if isinstance(d, date)]
    if ended and min(ended) < seen:
        return min(ended), BEFORE_RETIREMENT
    if seen <= data_start:
        return seen, DATA_START
    return seen, FIRST_SEEN


def _evidence(row, line: str, basis: str) -> str:
    variants = line[len(row.family):].lstrip("-")
    how = f"family {row.family}" + (f" + variant {variants}" if variants else "")
    when = {FIRST_SEEN: f"released {row.released} (first_seen)",
            DATA_START: f"released on or before {row.released} (first seen on the first day of the data)",
            BEFORE_RETIREMENT: f"released before {row.released} (deprecated or retired before its first_seen "
                               f"{row.first_seen})"}[basis]
    later = "; out of order: a higher version was released before it" if row.out_of_order else ""
    return f"{how}; {when}{later}"


def line_members(models: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Every member of every line released by `as_of`, in release order (LINE_COLUMNS without the
    succession prices). `models` is the registry as known on `as_of`."""
    known = models[pd.to_datetime(models["first_seen"]).dt.date <= as_of].copy()
    if known.empty:
        return pd.DataFrame(columns=MEMBER_COLUMNS)
    data_start = min(pd.to_datetime(models["first_seen"]).dt.date)
    known["line"] = [line_of(t, p, f) for t, p, f in zip(known["ticker"], known["provider"], known["family"],
                                                          strict=True)]
    by_line = known.groupby("line")["ticker"].agg(set).to_dict()
    known["excluded"] = [exclusion(t, m, by_line[line]) for t, m, line in
                         zip(known["ticker"], known["model_id"], known["line"], strict=True)]
    members = known[known["excluded"].isna()].copy()
    for column in ("first_seen", "deprecated_on", "retired_on"):
        members[column] = [as_day(d) for d in members[column]]
    released = [_release(row, data_start) for row in members.itertuples()]
    members["released"] = [r for r, _ in released]
    members["release_basis"] = [b for _, b in released]
    members["dated"] = members["release_basis"] == FIRST_SEEN
    members = members.sort_values(["line", "released", "ticker"], kind="stable")
    members["position"] = members.groupby("line").cumcount() + 1
    members["members"] = members.groupby("line")["ticker"].transform("size")
    members["out_of_order"] = np.concatenate([out_of_order([version_of(t) for t in rows])
                                              for _, rows in members.groupby("line", sort=False)["ticker"]]
                                             ) if len(members) else []
    members["evidence"] = [_evidence(row, row.line, row.release_basis) for row in members.itertuples()]
    members = members.rename(columns={"provider": "maker"})
    return members[MEMBER_COLUMNS].reset_index(drop=True)


def observed_sync_prices(history: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """(ticker, date, output) of every observed positive sync output price by `as_of`, by ticker and date."""
    rows = history[(history["mode"] == SYNC) & (history["provenance"] != CARRIED_FORWARD)
                   & (history["output"] > 0) & (pd.to_datetime(history["date"]).dt.date <= as_of)]
    rows = rows[["ticker", "date", "output"]].copy()
    rows["date"] = pd.to_datetime(rows["date"]).dt.date
    return rows.sort_values(["ticker", "date"], kind="stable").reset_index(drop=True)


def _price_on(prices: dict[str, pd.DataFrame], ticker: str, day: date) -> float:
    series = prices.get(ticker)
    if series is None:
        return np.nan
    before = series[series["date"] <= day]
    return float(before["output"].iloc[-1]) if len(before) else np.nan


def with_successions(members: pd.DataFrame, prices: pd.DataFrame) -> pd.DataFrame:
    """`members` with each one's launch price and its predecessor's price that day (LINE_COLUMNS)."""
    series = {ticker: rows for ticker, rows in prices.groupby("ticker", sort=False)}
    out = members.copy()
    launch_date, launch_price, predecessor, predecessor_price = [], [], [], []
    in_order = out["ticker"].where(~out["out_of_order"].astype(bool))
    previous = in_order.groupby(out["line"]).transform(lambda t: t.ffill().shift(1))
    for row, before in zip(out.itertuples(), previous, strict=True):
        first = series.get(row.ticker)
        launched = (first is not None and row.dated and not row.out_of_order
                    and (first["date"].iloc[0] - row.released).days <= LAUNCH_DAYS)
        day = first["date"].iloc[0] if launched else None
        launch_date.append(day)
        launch_price.append(float(first["output"].iloc[0]) if launched else np.nan)
        predecessor.append(before if isinstance(before, str) and not row.out_of_order else None)
        predecessor_price.append(_price_on(series, before, day) if launched and isinstance(before, str) else np.nan)
    out["launch_date"], out["launch_price"] = launch_date, launch_price
    out["predecessor"], out["predecessor_price"] = predecessor, predecessor_price
    out["successor_ratio"] = out["launch_price"] / out["predecessor_price"]
    return out[LINE_COLUMNS]


def build_lines(models: pd.DataFrame, history: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The `lines` table on `as_of`: every line's members in release order, with the evidence of
    each membership and of each succession's price (`history`: rows of the daily price history,
    at least its observed ones)."""
    return lines_from_prices(models, observed_sync_prices(history, as_of), as_of)


def lines_from_prices(models: pd.DataFrame, prices: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """`build_lines` on `as_of` from `observed_sync_prices` read once for a later day (a backtest
    builds the lines of every anchor): only the prices observed by `as_of` count."""
    return with_successions(line_members(models, as_of), prices[(prices["date"] <= as_of).to_numpy(dtype=bool)])
