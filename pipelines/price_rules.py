"""Choosing a price when the sources disagree about the same model, mode and field.

Three rules, applied after each day's statements are ranked (`observations.mark_superseded`):

1. `MAJORITY`: a rate stated by a majority of independent sources beats a rate only one of them
   states. Each independent source casts one vote per (ticker, mode): its latest statement of
   the maker's own price known on the day. Sources are independent when neither takes its prices
   from the other: model-prices counts as models.dev (`SAME_ORIGIN`), and one source's several
   routes of a model (regions, aliases, a maker's several platforms) are one vote. A cross-check
   votes; a rejected or held statement does not.
2. `USD_LIST`: a price the source itself converted from yuan (`CONVERTED_NOTE`) loses to a
   disagreeing USD list of the same model and mode, whatever their dates.
3. The newest dated statement of a price-setting source sets the price unless a maker list is
   newer (`observations.mark_superseded`, `history`); a cross-check never sets it, even when it
   holds the newest statement, and a newest statement outvoted under rule 1 does not stand.

A losing statement stays in the table, superseded, its note naming the rule (`OUTVOTED_NOTE`,
`CONVERTED_LOSES_NOTE`), and in `price_disputes` under the rule's name (`evidence.RULES`).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.listings import AGREEMENT_RTOL, prices_agree

MAJORITY = "majority"
USD_LIST = "usd_list"
OUTVOTED_NOTE = "outvoted"
CONVERTED_NOTE = "converted from CNY"  # set by a source's ingest where the source says so
CONVERTED_LOSES_NOTE = "a USD list stands beside this conversion from CNY"
VOTED_FIELDS = ("input", "output", "cache_read", "cache_write")
SAME_ORIGIN = {"model-prices": "models.dev"}  # a source → the dataset its prices come from


def independent_source(source: pd.Series) -> pd.Series:
    return source.map(lambda s: SAME_ORIGIN.get(s, s))


def _known(frame: pd.DataFrame, as_of: date | None) -> np.ndarray:
    own = frame["is_origin"].to_numpy(dtype=bool)
    if as_of is None:
        return own
    return own & (pd.to_datetime(frame["effective_date"]) <= pd.Timestamp(as_of)).to_numpy()


def _latest(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    ordered = frame.sort_values(["effective_date", "authority"], kind="stable")
    return ordered.groupby(by, sort=False).tail(1)


def ballots(frame: pd.DataFrame, voting: np.ndarray, as_of: date | None, field: str) -> pd.DataFrame:
    """Each independent source's latest statement of the maker's own `field` per (ticker, mode),
    with the day its source last asserted it (`_asserted`: the release read, else the date)."""
    rows = frame[voting & _known(frame, as_of) & frame[field].notna().to_numpy()]
    rows = rows.assign(_voter=independent_source(rows["source"]),
                       _asserted=pd.to_datetime(rows["source_released"].fillna(rows["effective_date"])))
    return _latest(rows, ["ticker", "mode", "_voter"])


def majority(values: dict[str, float]) -> tuple[float, list[str]] | None:
    """The value a strict majority (two or more) of the voters stating a field give, with them."""
    for value in values.values():
        with_it = sorted(v for v, other in values.items() if prices_agree(value, other, AGREEMENT_RTOL))
        if len(with_it) >= 2 and 2 * len(with_it) > len(values):
            return value, with_it
    return None


def outvoted(frame: pd.DataFrame, setting: np.ndarray, voting: np.ndarray,
             as_of: date | None = None) -> pd.Series:
    """Rule 1. The note of each price-setting statement outvoted, by row (None elsewhere).

    For each (ticker, mode), the statement that would set the price (the latest one known) is
    outvoted on a field when it is the only voter giving its value and a majority give another,
    which a price-setting statement states: then every statement of its source giving that value
    for that ticker and mode loses (so the next one does not restore it). A voter whose source
    last asserted its value before the statement's date does not vote: it cannot have seen the
    change (a maker's dated rise is not outvoted by the lists that predate it).
    """
    notes = pd.Series(None, index=frame.index, dtype="object")
    known = setting & _known(frame, as_of)
    by_group = {field: dict(tuple(ballots(frame, voting, as_of, field).groupby(["ticker", "mode"], sort=False)))
                for field in VOTED_FIELDS}
    for _, chosen in _latest(frame[known], ["ticker", "mode"]).iterrows():
        mine = SAME_ORIGIN.get(chosen["source"], chosen["source"])
        same = (frame["ticker"] == chosen["ticker"]) & (frame["mode"] == chosen["mode"])
        for field in VOTED_FIELDS:
            group = by_group[field].get((chosen["ticker"], chosen["mode"]))
            if group is None:
                continue
            current = (group["_voter"] == mine) | (group["_asserted"] >= pd.Timestamp(chosen["effective_date"]))
            stated = dict(zip(group.loc[current, "_voter"], group.loc[current, field].astype(float), strict=True))
            ours = chosen[field]
            if ours is None or ours != ours or mine not in stated:
                continue
            won = majority(stated)
            agreeing = [v for v, value in stated.items() if prices_agree(value, ours, AGREEMENT_RTOL)]
            if won is None or agreeing != [mine] or mine in won[1]:
                continue
            stands = known & same.to_numpy() & prices_agree(frame[field].to_numpy(float, na_value=np.nan), won[0],
                                                            AGREEMENT_RTOL)
            if not stands.any():  # only a cross-check states the majority's value: nothing could set it
                continue
            losers = known & same.to_numpy() & (frame["source"] == chosen["source"]).to_numpy() & prices_agree(
                frame[field].to_numpy(float, na_value=np.nan), ours, AGREEMENT_RTOL)
            notes[losers] = (f"{OUTVOTED_NOTE}: {field} {ours:g} against {won[0]:g} stated by "
                             f"{', '.join(won[1])}")
            break
    return notes


def converted_loses(frame: pd.DataFrame, setting: np.ndarray, voting: np.ndarray | None = None,
                    as_of: date | None = None) -> pd.Series:
    """Rule 2. The note of each price-setting statement converted from yuan that a USD list of
    the same ticker and mode (the latest one known) contradicts on a field both state (None
    elsewhere). `voting` is unused: the rule weighs the currency, not the count."""
    notes = pd.Series(None, index=frame.index, dtype="object")
    known = setting & _known(frame, as_of)
    converted = frame["note"].fillna("").astype(str).str.contains(CONVERTED_NOTE, regex=False).to_numpy()
    listed = _latest(frame[known & ~converted], ["ticker", "mode"]).set_index(["ticker", "mode"])
    for index, row in frame[known & converted].iterrows():
        key = (row["ticker"], row["mode"])
        if key not in listed.index:
            continue
        usd = listed.loc[key]
        differ = [f for f in VOTED_FIELDS if row[f] == row[f] and usd[f] == usd[f]
                  and not prices_agree(float(row[f]), float(usd[f]), AGREEMENT_RTOL)]
        if differ:
            notes[index] = (f"{CONVERTED_LOSES_NOTE}: {differ[0]} {row[differ[0]]:g} against {usd[differ[0]]:g} "
                            f"listed in USD by {usd['source']}")
    return notes
