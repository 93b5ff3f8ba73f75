"""The evidence behind each price: which sources agree, which do not, and why the price stands.

On the snapshot date each source's latest statement of the maker's own price for a model and
mode is compared with the price the history chose (`pipelines.history`: the latest dated
statement, the most authoritative one on a tie). Prices agree when equal to within one part in a
million. From that:

- on every spot, `sources_agreeing`, `sources_disagreeing`, `last_confirmed` (the newest
  publication date among the statements that agree) and an `evidence` grade: `disputed` when any
  source disagrees on any price it states (sync or batch; input, output, cache reads or writes),
  `confirmed` when two or more independent sources agree, else `single_source`;
- the `price_disputes` table: for every (ticker, mode, field) some source disagrees on, every
  source's value and dates beside the chosen value, each with the rule that decided between
  them (`RULES`).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.guard import UNCONFIRMED
from pipelines.listings import AGREEMENT_RTOL, prices_agree
from pipelines.observations import CROSS_CHECK_SOURCES, REJECTED_NOTE_PREFIX
from pipelines.price_rules import CONVERTED_LOSES_NOTE, MAJORITY, OUTVOTED_NOTE, USD_LIST

COMPARED_FIELDS = ("input", "output", "cache_read", "cache_write")

# The rule on each row of `price_disputes`: why this source's value is, or is not, the price.
RULES = {
    "agrees": "states the chosen value",
    "rejected": "rejected by rejected_statements.csv (the reason is on the row)",
    "unconfirmed": "held: a live source's big move, or any source's implausible price, that no second "
                   "statement has confirmed yet (the move is on the row)",
    "later_statement": "the chosen statement is dated later; a newer dated price supersedes an older one",
    "same_date_authority": "dated the same day; the chosen statement ranks higher (a documented price over a "
                           "catalogue, over a first sighting, over an archived list; then the source's rank)",
    "usd_list": "a price the source converted from yuan; the maker's USD list of the same model stands",
    "majority": "outvoted: a majority of the independent sources state another rate, and only this source this "
                "one (each source one vote, its routes together; the values are on the row's note)",
    "cross_check": "a cross-check source (undated, asserted as of its release) votes but never sets a price; "
                   "it does not win by holding the newest statement",
    "outranked": "outranked by the statement in force on the snapshot date",
}
DISPUTE_COLUMNS = ["ticker", "mode", "field", "source", "source_version", "provenance", "value", "asserted_on",
                   "published_on", "chosen_value", "chosen_source", "chosen_asserted_on", "rule", "reason"]
EVIDENCE_COLUMNS = ["sources_agreeing", "sources_disagreeing", "last_confirmed", "evidence"]


def latest_statements(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Each source's latest statement of the maker's own price per (ticker, mode) on `as_of`.

    Within one source and day, a statement that won its day is preferred to one that lost it
    (model-prices' recorded value beside its correction), then the more authoritative.
    """
    known = observations[observations["is_origin"] & (observations["effective_date"] <= as_of)]
    won = ~known["superseded"] | known["source"].isin(CROSS_CHECK_SOURCES)
    ordered = known.assign(_won=won).sort_values(["effective_date", "_won", "authority"], kind="stable")
    latest = ordered.groupby(["ticker", "mode", "source"], sort=True).tail(1)
    return latest.drop(columns="_won").reset_index(drop=True)


def _agree(a: pd.Series, b: pd.Series) -> pd.Series:
    return pd.Series(prices_agree(a.to_numpy(float, na_value=np.nan), b.to_numpy(float, na_value=np.nan),
                                  AGREEMENT_RTOL), index=a.index)


def compared(observations: pd.DataFrame, price_history: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Every source's latest statement beside the chosen price on `as_of` (columns `chosen_*`)."""
    today = price_history[price_history["date"] == as_of]
    chosen = today[["ticker", "mode", *COMPARED_FIELDS, "source", "observed_on"]].rename(
        columns={c: f"chosen_{c}" for c in [*COMPARED_FIELDS, "source"]} | {"observed_on": "chosen_asserted_on"})
    return latest_statements(observations, as_of).merge(chosen, on=["ticker", "mode"], how="inner")


def spot_evidence(pairs: pd.DataFrame, tickers: pd.Series, as_of: date) -> pd.DataFrame:
    """The evidence columns of each ticker's spot (`EVIDENCE_COLUMNS`), one row per ticker. A
    source agrees when every price it states of the model, sync and batch, input, output and
    cache, equals the one published: a batch or cache price in dispute disputes the spot too.
    A statement read from a release published after `as_of` (a build of an earlier day) confirms
    its price on the day it was first known, never on a later one."""
    # A rejected or held statement is not evidence either way (it stays in the disputes).
    stated = pairs[~pairs["note"].fillna("").str.startswith((REJECTED_NOTE_PREFIX, UNCONFIRMED))]
    agrees = pd.Series(True, index=stated.index)
    for field in COMPARED_FIELDS:  # a field either side leaves unstated is no evidence either way
        both = stated[field].notna() & stated[f"chosen_{field}"].notna()
        agrees &= ~both | _agree(stated[field], stated[f"chosen_{field}"])
    read = stated["source_released"].fillna(stated["effective_date"])
    published = read.where(pd.to_datetime(read) <= pd.Timestamp(as_of), stated["known_from"])
    by_source = pd.DataFrame({"ticker": stated["ticker"], "source": stated["source"], "agrees": agrees,
                              "day": pd.to_datetime(published)}).groupby(["ticker", "source"], sort=True)
    per_source = by_source.agg(agrees=("agrees", "all"), day=("day", "max")).reset_index()
    # One pass over plain values: a frame per ticker costs more than the work on it.
    agreeing: dict[str, list[str]] = {}
    disagreeing: dict[str, list[str]] = {}
    confirmed: dict[str, date] = {}
    for ticker, source, agree, day in zip(per_source["ticker"], per_source["source"], per_source["agrees"],
                                          per_source["day"], strict=True):
        (agreeing if agree else disagreeing).setdefault(ticker, []).append(source)
        if agree and pd.notna(day):
            confirmed[ticker] = max(confirmed.get(ticker, day.date()), day.date())
    rows = []
    for ticker in tickers:
        agreed, disputed = agreeing.get(ticker, []), disagreeing.get(ticker, [])
        grade = "disputed" if disputed else "confirmed" if len(agreed) >= 2 else "single_source"
        rows.append({"ticker": ticker, "sources_agreeing": agreed, "sources_disagreeing": disputed,
                     "last_confirmed": confirmed.get(ticker), "evidence": grade})
    return pd.DataFrame(rows, columns=["ticker", *EVIDENCE_COLUMNS])


def price_disputes(pairs: pd.DataFrame) -> pd.DataFrame:
    """Every (ticker, mode, field) some source disagrees on: every stating source's row."""
    frames = []
    for field in COMPARED_FIELDS:
        stated = pairs[pairs[field].notna() & pairs[f"chosen_{field}"].notna()]
        agrees = _agree(stated[field], stated[f"chosen_{field}"])
        disputed = (~agrees).groupby([stated["ticker"], stated["mode"]]).transform("any")
        rows = stated[disputed].assign(_agrees=agrees[disputed])
        frames.append(pd.DataFrame({
            "ticker": rows["ticker"], "mode": rows["mode"], "field": field, "source": rows["source"],
            "source_version": rows["source_version"], "provenance": rows["provenance"], "value": rows[field],
            "asserted_on": rows["effective_date"], "published_on": rows["source_released"],
            "chosen_value": rows[f"chosen_{field}"], "chosen_source": rows["chosen_source"],
            "chosen_asserted_on": rows["chosen_asserted_on"], "rule": _rules(rows), "_note": rows["note"],
        }))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=DISPUTE_COLUMNS[:-1])
    out["reason"] = out["rule"].map(RULES).where(~out["rule"].isin(["rejected", UNCONFIRMED, MAJORITY, USD_LIST]),
                                                 out.get("_note"))
    order = {field: i for i, field in enumerate(COMPARED_FIELDS)}
    out = out.assign(_field=out["field"].map(order)).sort_values(
        ["ticker", "mode", "_field", "source"], kind="stable")
    return out.reset_index(drop=True)[DISPUTE_COLUMNS]


def _rules(rows: pd.DataFrame) -> list[str]:
    note = rows["note"].fillna("")
    day, chosen_day = rows["effective_date"], rows["chosen_asserted_on"]
    return np.select(
        [rows["_agrees"], note.str.startswith(REJECTED_NOTE_PREFIX), note.str.startswith(UNCONFIRMED),
         note.str.startswith(CONVERTED_LOSES_NOTE), note.str.startswith(OUTVOTED_NOTE),
         rows["source"].isin(CROSS_CHECK_SOURCES), day < chosen_day, day == chosen_day],
        ["agrees", "rejected", UNCONFIRMED, USD_LIST, MAJORITY, "cross_check", "later_statement",
         "same_date_authority"],
        default="outranked",
    ).tolist()
