"""Comparing two statements of a model's prices, and the classes of LiteLLM's disagreements.

A disagreement of LiteLLM with a spot falls in one of four classes:
- `source stale`: LiteLLM states a price the ticker had before (its `price_history`), or our
  price came in force after LiteLLM's release;
- `unit or tier`: LiteLLM's rate is one of our context-tier or peak rates, the other mode's rate,
  ours times a known factor (peak ×2, a regional +10%), or its key is a priority/flex/regional/
  batch/tier variant;
- `identity`: LiteLLM's entry for the id prices another of the maker's models (every rate both
  state equals another ticker's), typically a pointer (`-latest`) or an alias;
- `source error`: only from the curated file, with the evidence it rests on.
The curated file (`docs/agreement/litellm_disagreements.csv`) classifies what the rules cannot, one
row per (ticker, field) with the values it was written for, so a row stops applying when either
price moves; where a row exists it is taken before the rules (it rests on a reading of the
sources, a rule on a coincidence of numbers). The rules then decide in the order above.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pandas as pd

RTOL = 1e-6
STALE, UNIT_OR_TIER, IDENTITY, SOURCE_ERROR = "source stale", "unit or tier", "identity", "source error"
CLASSES = (STALE, UNIT_OR_TIER, IDENTITY, SOURCE_ERROR)
UNCLASSIFIED = "unclassified"
CURATED_COLUMNS = ["ticker", "field", "source_id", "ours", "theirs", "class", "evidence"]
# LiteLLM keys that name a variant of a model's price, not its standard rate.
VARIANT_KEY = re.compile(r"(priority|flex|batch|above|tier|regional|global|(^|/)(us|eu|apac|jp|au)[./])")
# theirs / ours ratios with a known cause.
FACTORS = {1.1: "theirs is a regional endpoint's +10%", 1 / 1.1: "ours is a regional endpoint's +10%"}
# Only for a maker that bills by the time of day (one of its spots states peak rates).
PEAK_FACTORS = {2.0: "the peak rate, twice the off-peak one", 0.5: "the off-peak rate, half the peak one"}
HISTORY_COLUMNS = {"output": "output"}  # spot field → price_history column where they differ


def close(a: float, b: float, rtol: float = RTOL) -> bool:
    """Equal to one part in a million (two zeros are equal)."""
    return abs(a - b) <= rtol * max(abs(a), abs(b))


def tiers_agree(ours: list[dict], theirs: list[dict]) -> bool:
    """Same thresholds, and every rate both state at a threshold equal."""
    mine = {int(t["above"]): t for t in ours}
    other = {int(t["above"]): t for t in theirs}
    if set(mine) != set(other):
        return False
    return all(close(mine[a][k], other[a][k]) for a in mine for k in mine[a]
               if k != "above" and k in other[a] and mine[a][k] is not None and other[a][k] is not None)


def peak_agree(ours: dict, theirs: dict) -> bool:
    """Every rate of every period both state equal (`peak`, `off_peak`)."""
    return all(close(ours[p][k], theirs[p][k]) for p in ("peak", "off_peak") if p in ours and p in theirs
               for k in ours[p] if k in theirs[p])


def field_agrees(name: str, ours, theirs) -> bool:
    """One field (`<mode>.<field>`) of two statements."""
    kind = name.split(".", 1)[1]
    if kind == "tiers":
        return tiers_agree(ours, theirs)
    if kind == "peak":
        return peak_agree(ours, theirs)
    return close(float(ours), float(theirs))


@dataclass
class Context:
    ours: dict[str, dict]  # ticker → the spot's statement
    makers: dict[str, str]  # ticker → maker
    history: pd.DataFrame  # price_history up to the snapshot's day
    source_released: date
    curated: dict[tuple[str, str], dict] = field(default_factory=dict)


def read_history(path: Path, as_of: date) -> pd.DataFrame:
    history = pd.read_parquet(path)
    history["date"] = pd.to_datetime(history["date"]).dt.date
    return history[history["date"] <= as_of].sort_values(["ticker", "mode", "date"])


def read_curated(path: Path) -> dict[tuple[str, str], dict]:
    """(ticker, field) → the curated row; a class outside the four is refused."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        if row["class"] not in CLASSES:
            raise ValueError(f"{path}: {row['ticker']} {row['field']}: class {row['class']!r} is not one of {CLASSES}")
        if not row["evidence"].strip():
            raise ValueError(f"{path}: {row['ticker']} {row['field']}: a curated class needs its evidence")
    return {(r["ticker"], r["field"]): r for r in rows}


def parse_value(text: str):
    """A curated value as written: a number, or JSON for tiers and peak rates."""
    text = text.strip()
    return json.loads(text) if text[:1] in "[{" else float(text)


def identity(row: dict, ctx: Context) -> str | None:
    """LiteLLM's entry prices another of the maker's models: that ticker states the disputed field
    as LiteLLM does, and agrees with the entry on every rate both state (input and output at least)."""
    entry = row["their_statement"]
    for other, statement in ctx.ours.items():
        if other == row["ticker"] or ctx.makers.get(other) != row["maker"] or row["field"] not in statement:
            continue
        if not field_agrees(row["field"], statement[row["field"]], row["theirs"]):
            continue
        shared = [f for f in entry if f in statement and f.split(".", 1)[1] not in ("tiers", "peak")]
        if {"sync.input", "sync.output"} <= set(shared) and all(
                field_agrees(f, statement[f], entry[f]) for f in shared):
            return (f"`{row['source_id']}` (asked as `{row['looked_up']}`) states {other}'s prices "
                    f"on all {len(shared)} fields both state")
    return None


def stale(row: dict, ctx: Context) -> str | None:
    """LiteLLM's value is one the ticker had before, or ours came in force after LiteLLM's release."""
    mode, kind = row["field"].split(".", 1)
    column = HISTORY_COLUMNS.get(kind, kind)
    days = ctx.history[(ctx.history["ticker"] == row["ticker"]) & (ctx.history["mode"] == mode)]
    if column not in days or days.empty:
        return None
    values = days[column]
    if kind in ("tiers", "peak"):
        same = values.map(lambda v: isinstance(v, str) and bool(json.loads(v))
                          and field_agrees(row["field"], json.loads(v), row["theirs"]))
        current = values.map(lambda v: isinstance(v, str) and bool(json.loads(v))
                             and field_agrees(row["field"], json.loads(v), row["ours"]))
    else:
        same = values.map(lambda v: pd.notna(v) and close(float(v), float(row["theirs"])))
        current = values.map(lambda v: pd.notna(v) and close(float(v), float(row["ours"])))
    if same.any():
        when = days.loc[same, "date"]
        return f"{row['ticker']} {row['field']} was {_show(row['theirs'])} from {when.min()} to {when.max()}"
    if row["field"] != f"{mode}.input" and (pair := _past_pair(row, days, mode)):
        return pair
    # the current run of our value: the days since it last differed
    run = days.loc[~current.to_numpy(), "date"]
    since = days["date"].min() if run.empty else run.max()
    if not run.empty and since >= ctx.source_released:
        return f"ours changed on {since}, after LiteLLM's release of {ctx.source_released}"
    return None


def _past_pair(row: dict, days: pd.DataFrame, mode: str) -> str | None:
    """The entry's input and output are together the ticker's prices of an earlier day: the rest
    of the entry (cache, tiers) is that price's too."""
    entry = row["their_statement"]
    a, b = entry.get(f"{mode}.input"), entry.get(f"{mode}.output")
    ours = row["ours_statement"]
    if a is None or b is None or (close(a, ours.get(f"{mode}.input", -1)) and close(b, ours.get(f"{mode}.output", -1))):
        return None
    hit = days[days["input"].map(lambda v: pd.notna(v) and close(v, a))
               & days["output"].map(lambda v: pd.notna(v) and close(v, b))]
    if hit.empty:
        return None
    return (f"`{row['source_id']}` states {_show(a)}/{_show(b)}, {row['ticker']}'s {mode} input/output "
            f"from {hit['date'].min()} to {hit['date'].max()}: its other rates are that price's")


def unit_or_tier(row: dict, ctx: Context) -> str | None:
    """A variant key, one of our tier or peak rates, the other mode's rate, or a known factor."""
    if VARIANT_KEY.search(row["source_id"].lower()):
        return f"`{row['source_id']}` is a variant key, not the standard rate"
    mode, kind = row["field"].split(".", 1)
    if kind in ("tiers", "peak"):
        return None
    theirs, ours = float(row["theirs"]), float(row["ours"])
    statement = ctx.ours[row["ticker"]]
    for tier in statement.get(f"{mode}.tiers", []):
        if kind in tier and close(tier[kind], theirs):
            return f"our {kind} rate above {tier['above']:,} tokens"
    for period, rates in statement.get(f"{mode}.peak", {}).items():
        if isinstance(rates, dict) and kind in rates and close(rates[kind], theirs):
            return f"our {period.replace('_', '-')} {kind} rate"
    other = "batch" if mode == "sync" else "sync"
    if f"{other}.{kind}" in statement and close(statement[f"{other}.{kind}"], theirs):
        return f"our {other} {kind} rate"
    factors = dict(FACTORS)
    if any("sync.peak" in ctx.ours[t] for t, maker in ctx.makers.items() if maker == row["maker"]):
        factors.update(PEAK_FACTORS)
    if ours:
        for factor, cause in factors.items():
            if close(theirs / ours, factor):
                return f"ours × {factor:g}: {cause}"
    return None


def threshold(row: dict, ctx: Context) -> str | None:
    """The same tiers but for thresholds one token apart: "above 199,999" and "above 200,000"
    differ only on a prompt of exactly 200,000 tokens (a unit-or-tier convention, before the
    history is asked whether either threshold was ours once)."""
    if not row["field"].endswith(".tiers"):
        return None
    ours, theirs = row["ours"], row["theirs"]
    if len(ours) != len(theirs) or not ours:
        return None
    shifted = [dict(t, above=o["above"]) for t, o in zip(theirs, ours, strict=True)]
    near = all(abs(int(t["above"]) - int(o["above"])) <= 1 for t, o in zip(theirs, ours, strict=True))
    if near and tiers_agree(ours, shifted):
        return f"the same tier rates, above {_thresholds(ours)} tokens against above {_thresholds(theirs)}"
    return None


RULES = ((UNIT_OR_TIER, threshold), (STALE, stale), (UNIT_OR_TIER, unit_or_tier), (IDENTITY, identity))


def classify(row: dict, ctx: Context) -> tuple[str, str]:
    """(class, evidence) of one disagreement: its curated row while the values it was written for
    still hold (a person's reading with its evidence), else the first rule that decides, else
    unclassified."""
    curated = ctx.curated.get((row["ticker"], row["field"]))
    if (curated and _same(row["field"], curated["ours"], row["ours"])
            and _same(row["field"], curated["theirs"], row["theirs"])):
        return curated["class"], curated["evidence"] + " (curated)"
    for name, rule in RULES:
        evidence = rule(row, ctx)
        if evidence:
            return name, evidence
    return UNCLASSIFIED, ""


def _same(name: str, written: str, value) -> bool:
    try:
        return field_agrees(name, parse_value(written), value)
    except (ValueError, KeyError, TypeError):
        return False


def _thresholds(tiers: list[dict]) -> str:
    return ", ".join(f"{int(t['above']):,}" for t in tiers)


def _show(value) -> str:
    return json.dumps(value, separators=(",", ":")) if isinstance(value, (list, dict)) else f"{float(value):g}"
