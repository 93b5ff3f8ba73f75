"""A guard against bad prints: a live source's big move is held until something confirms it.

A live catalogue can print a wrong price (a typo, a unit slip, a half-finished edit). A price a
live source states (`pipelines.live`) is compared with the last accepted price that source stated
for the same ticker, provider, listed id and mode. It is a *big move* when input or output moves
by more than `max_move` (a share; default 0.5, so a halving, or a rise of half again), or to or
from zero. A big move is accepted when
- a later fetch of the same source states it again (it was no slip): for a catalogue price, the
  source's next statement, from another fetch, agrees; for a dated statement (a documented
  change, model-prices' timeline), it was first read on a day before the fetch it comes from
  (`pipelines.live` dates it so); or
- another source's latest statement of the same provider's price for the ticker and mode, as of
  that day, agrees with it (LiteLLM's cross-check votes here too).
Otherwise the statement is held `unconfirmed`: it stays in the observations, marked superseded
with a note that starts `unconfirmed`, so the history and the spots pass over it; the disputes
list it; it is an `unconfirmed` event. The next run re-reads the same copies: a print the next
day's fetch repeats is accepted then, on the day it was first seen.

A model that vanishes from a live source is never read as a retirement (only a source's explicit
status retires a model): it keeps its last price, and the disappearance is an `unconfirmed` event
(`vanished`) until the next fetch confirms it. A fetch that drops most of a source's models is
refused whole (`assets.live`).

Every other statement, from the bundled sources too, is guarded with the same hold and the same
confirmations, against an *implausible* price rather than a big one: an input or output price
more than `IMPLAUSIBLE_FACTOR` (100) times, or less than a hundredth of,
- the same source's last accepted price for the key (an implausible move), or
- every price another source or provider stated for the ticker and mode by that day (out of line:
  such a price is confirmed only by another source's statement of the same provider, never by the
  same source repeating it, since a slip a source carries from release to release is still a slip).
The bundled sources are dated histories read monthly, where a host's price moves up to 35 times
between readings when its routing changes; the unit slips they carry (a price per token or per
thousand written as per million) are 1,400 to 400,000 times off. A hundred sits between. Moves to
or from zero are left alone here: models launch free and hosts run free offers. A held bundled
statement stays in the observations with its note; it is no event, since no one charged it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.listings import AGREEMENT_RTOL, ARCHIVED, CURRENT, prices_agree
from pipelines.live import is_live, read_on
from pipelines.observations import REJECTED_NOTE_PREFIX

UNCONFIRMED = "unconfirmed"
MAX_MOVE = 0.5
IMPLAUSIBLE_FACTOR = 100.0
MOVE_FIELDS = ("input", "output")
_KEY = ["ticker", "provider", "provider_model_id", "mode"]
MOVE_COLUMNS = ["ticker", "mode", "field", "before", "after", "date", "source", "source_version", "source_url",
                "provenance", "detail"]


def broken_fetch(models: int, last_good: int | None, last_refused: int | None, max_drop: float) -> str | None:
    """Why a fetch counting `models` is refused as broken, or None: it lists at most (1 − max_drop)
    of the models of the source's last good fetch (`last_good`), unless the fetch before it was
    refused with the same count (two fetches in a row agree: the source did shrink)."""
    if not last_good or models > last_good * (1 - max_drop) or models == last_refused:
        return None
    return f"lists {models} models against {last_good} in the last good fetch: a broken fetch, not a mass retirement"


def moved_fields(before: pd.Series, after: pd.Series, max_move: float) -> list[str]:
    """The fields of `after` that moved too far from `before` to be taken on one word."""
    out = []
    for field in MOVE_FIELDS:
        old, new = before[field], after[field]
        if pd.isna(old) or pd.isna(new):
            continue
        if (old == 0) != (new == 0) or (old > 0 and abs(new / old - 1) > max_move):
            out.append(field)
    return out


def implausible_fields(before: pd.Series, after: pd.Series, factor: float) -> list[str]:
    """The fields of `after` more than `factor` times from `before`, either way (positive prices only)."""
    return [field for field in MOVE_FIELDS
            if before[field] > 0 and after[field] > 0 and max(after[field] / before[field],
                                                              before[field] / after[field]) > factor]


def out_of_line(stated: pd.DataFrame, voters: pd.DataFrame, factor: float) -> dict[int, list[str]]:
    """For each statement of `stated` with a field out of line, those fields: a positive price more
    than `factor` times from every positive price of that field that another source, or another
    provider, stated for the ticker and mode by the statement's day (`voters`). A statement with no
    such price to compare is never out of line."""
    out: dict[int, list[str]] = {}
    limit = np.log(factor)
    by_model = dict(tuple(voters.groupby(["ticker", "mode"], sort=False)))
    for key, rows in stated.groupby(["ticker", "mode"], sort=False):
        others = by_model.get(key)
        if others is None:
            continue
        known = others["effective_date"].to_numpy()[None, :] <= rows["effective_date"].to_numpy()[:, None]
        elsewhere = ((others["source"].to_numpy()[None, :] != rows["source"].to_numpy()[:, None])
                     | (others["provider"].to_numpy()[None, :] != rows["provider"].to_numpy()[:, None]))
        for field in MOVE_FIELDS:
            mine, theirs = rows[field].to_numpy(float), others[field].to_numpy(float)
            comparable = known & elsewhere & (theirs > 0)[None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                distance = np.abs(np.log(mine[:, None] / theirs[None, :]))
            lonely = (mine > 0) & comparable.any(axis=1) & ~(comparable & (distance <= limit)).any(axis=1)
            for index in rows.index[lonely]:
                out.setdefault(index, []).append(field)
    return out


def _agrees(row: pd.Series, other: pd.Series) -> bool:
    stated = [f for f in MOVE_FIELDS if pd.notna(row[f]) and pd.notna(other[f])]
    return bool(stated) and all(prices_agree(row[f], other[f], AGREEMENT_RTOL) for f in stated)


def _confirmed_elsewhere(row: pd.Series, others: pd.DataFrame) -> bool:
    """Another source's latest statement of the same provider's price, as of the row's day, agrees
    (any of a source's statements on its latest day: it may list the model under two ids)."""
    known = others[(others["provider"] == row["provider"]) & (others["effective_date"] <= row["effective_date"])]
    latest = known[known["effective_date"] == known.groupby("source")["effective_date"].transform("max")]
    return any(_agrees(row, other) for _, other in latest.iterrows())


def _read_again(row: pd.Series, following: pd.Series | None, live: bool) -> bool:
    """A later fetch of the row's source states it again (see the module); for a bundled source, its
    next statement for the key, of a later day or release, agrees."""
    if not live:
        return (following is not None and _agrees(row, following)
                and (following["effective_date"], following["source_version"])
                != (row["effective_date"], row["source_version"]))
    if row["provenance"] not in (CURRENT, ARCHIVED):  # a dated statement: first read before this fetch?
        return pd.notna(row["source_released"]) and row["source_released"] < read_on(row["source_version"])
    return (following is not None and following["source_version"] != row["source_version"]
            and _agrees(row, following))


def _note(before: pd.Series, after: pd.Series, fields: list[str]) -> str:
    moves = ", ".join(f"{f} {before[f]:.6g} → {after[f]:.6g}" for f in fields)
    return (f"{UNCONFIRMED}: {moves} on {after['source']} alone; held until a second source or the "
            f"next fetch confirms it")


def _out_of_line_note(row: pd.Series, fields: list[str], factor: float) -> str:
    prices = ", ".join(f"{f} {row[f]:.6g}" for f in fields)
    return (f"{UNCONFIRMED}: {prices} on {row['source']} is more than {factor:g} times from every other "
            f"price stated for the model by then; held until another source states it")


def hold_unconfirmed(observations: pd.DataFrame, max_move: float = MAX_MOVE,
                     factor: float = IMPLAUSIBLE_FACTOR) -> pd.DataFrame:
    """The observations with every unconfirmed big move of a live source, and every unconfirmed
    implausible price of any source, held (see the module)."""
    frame = observations.copy()
    stated = frame[~frame["superseded"]].sort_values([*_KEY, "effective_date", "authority"], kind="stable")
    live = is_live(frame["source_version"])
    voters = frame[~frame["note"].fillna("").str.startswith((REJECTED_NOTE_PREFIX, UNCONFIRMED))]
    lonely = out_of_line(stated, voters, factor)
    for _ in range(3):  # a slip must not vouch for a later one: ask again without the prices out of line
        again = out_of_line(stated, voters.drop(index=list(lonely), errors="ignore"), factor)
        if again.keys() == lonely.keys():
            break
        lonely = again
    held: dict[int, str] = {}
    for (ticker, _, _, mode), rows in stated.groupby(_KEY, sort=False):
        for source, series in rows.groupby("source", sort=False):
            if len(series) < 2 and series.index[0] not in lonely:
                continue
            def others(ticker=ticker, mode=mode, source=source) -> pd.DataFrame:  # read only when needed
                return voters[(voters["ticker"] == ticker) & (voters["mode"] == mode) & (voters["source"] != source)]
            accepted = None
            for position in range(len(series)):
                row = series.iloc[position]
                if row.name in lonely and not _confirmed_elsewhere(row, others()):
                    held[row.name] = _out_of_line_note(row, lonely[row.name], factor)
                    continue
                if accepted is not None:
                    is_live_row = bool(live.loc[row.name])
                    fields = (moved_fields(accepted, row, max_move) if is_live_row
                              else implausible_fields(accepted, row, factor))
                    following = series.iloc[position + 1] if position + 1 < len(series) else None
                    if fields and not (_read_again(row, following, is_live_row)
                                       or _confirmed_elsewhere(row, others())):
                        held[row.name] = _note(accepted, row, fields)
                        continue
                accepted = row
    if held:
        index = list(held)
        frame.loc[index, "superseded"] = True
        frame.loc[index, "note"] = [held[i] for i in index]
    return frame


def unconfirmed(observations: pd.DataFrame) -> pd.DataFrame:
    """The held statements, one row per statement."""
    return observations[observations["note"].fillna("").str.startswith(UNCONFIRMED)]


def unconfirmed_moves(observations: pd.DataFrame, max_move: float = MAX_MOVE) -> pd.DataFrame:
    """One row per held live statement and moved field: before (the source's last accepted price,
    which the scan compared it with), after, the day and the statement's source columns and note.
    A held bundled statement is no event (see the module)."""
    rows = []
    accepted = observations[~observations["superseded"]]
    held = unconfirmed(observations)
    for _, row in held[is_live(held["source_version"])].iterrows():
        same = (accepted[[*_KEY, "source"]] == row[[*_KEY, "source"]].to_numpy()).all(axis=1)
        earlier = accepted[same & (accepted["effective_date"] < row["effective_date"])]
        if earlier.empty:
            continue
        before = earlier.sort_values(["effective_date", "authority"], kind="stable").iloc[-1]
        for field in moved_fields(before, row, max_move):
            rows.append({"ticker": row["ticker"], "mode": row["mode"], "field": field, "before": before[field],
                         "after": row[field], "date": row["effective_date"], "source": row["source"],
                         "source_version": row["source_version"], "source_url": row["source_url"],
                         "provenance": row["provenance"], "detail": row["note"]})
    return pd.DataFrame(rows, columns=MOVE_COLUMNS)


LISTED = "listed"  # the field of a disappearance: the model is no longer in the source's catalogue


def vanished(observations: pd.DataFrame) -> pd.DataFrame:
    """One row per model a live source stopped listing, unconfirmed: gone from the source's
    catalogue on a day it was read, and either that is the newest day read or the model came back
    later (a next fetch that still lacks it confirms it gone, which retires nothing: only a
    source's explicit status does). `before` is the last output price listed; `after` is empty."""
    live = observations[is_live(observations["source_version"])
                        & observations["provenance"].isin([CURRENT, ARCHIVED])]
    rows = []
    # Per address: OpenRouter's endpoint lists are one copy per model, and a list that failed to
    # load is not a model gone.
    for (source, _), stated in live.groupby(["source", "source_url"], sort=True):
        days = sorted(stated["effective_date"].unique())
        listed = {day: group for day, group in stated.groupby("effective_date")}
        keys = {day: set(map(tuple, group[_KEY].to_numpy().tolist())) for day, group in listed.items()}
        for position in range(1, len(days)):
            day, previous = days[position], days[position - 1]
            later = set().union(*(keys[d] for d in days[position + 1:]))
            newest = position == len(days) - 1
            for key in sorted(keys[previous] - keys[day]):
                if not newest and key not in later:
                    continue
                last = listed[previous][(listed[previous][_KEY] == list(key)).all(axis=1)].iloc[-1]
                rows.append({"ticker": key[0], "mode": key[3], "field": LISTED, "before": last["output"],
                             "after": float("nan"), "date": day, "source": source,
                             "source_version": last["source_version"], "source_url": last["source_url"],
                             "provenance": last["provenance"],
                             "detail": f"{UNCONFIRMED}: {key[2]} is no longer listed by {source} on {day} (it was "
                                       f"on {previous}); its last price stands, and nothing is retired for it"})
    return pd.DataFrame(rows, columns=MOVE_COLUMNS)
