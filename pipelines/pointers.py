"""Pointer names (`mistral-medium-latest`, `gemini-flash-latest`): which model each served, when.

A pointer is not a model: the provider repoints it to a newer model now and then, and a source
that prices the pointer records the repoint as if it were a price change. So every price stated
for a pointer is read as a statement about the model the pointer served on that date:

- the candidates are the maker's models of the same line (the pointer's name without `-latest`
  and without version tokens: `mistral-medium-latest` → mistral, medium; `mistral-medium-3-5` and
  `mistral-medium-2312` are of that line, `mistral-medium-3-5-vision` is not);
- the target is the candidate that some source prices exactly as the pointer was priced (input
  and output, in the same mode); where several do, the one the source's own match rules name
  (genai-prices), else the newest that was known by that date;
- where no candidate has that price, the source's match rules decide if the model they name was
  known by that date, else the statement names no model we know, and stays out of the
  observations (it is still in its source's table).

The spans of one pointer's targets are the `model_aliases` table; a change of target is an
`alias_moved` event, never a price change.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache

import numpy as np
import pandas as pd

from pipelines.days import earliest
from pipelines.identity import NAME_MEMO, POINTER, normal_form, split_vendor
from pipelines.listings import SYNC, prices_agree

VERSION_TOKEN = re.compile(r"^(?:v?\d+|\d+x\d+b|\d{4})$")
PRICE_TOLERANCE = 1e-6
ALIAS_COLUMNS = ["alias", "maker", "model_id", "valid_from", "valid_to", "basis", "source"]


STAGE_WORDS = frozenset({"latest", "preview", "exp", "experimental", "beta"})


@lru_cache(maxsize=NAME_MEMO)  # every pointer is compared with every id of its maker
def line_of(model_id: str) -> frozenset[str]:
    """The name tokens that are not versions or release-stage words: the product line."""
    tokens = normal_form(model_id).split("-")
    return frozenset(t for t in tokens if t and t not in STAGE_WORDS and not VERSION_TOKEN.match(t))


# Words that say how a model is offered, not which model it is: Mistral's `open-` prefix of its
# open-weight models, and xAI's reasoning switch of one model (`grok-4.20-0309-reasoning`).
OFFERING_WORDS = frozenset({"open", "reasoning", "non"})


def identity_tokens(model_id: str) -> frozenset[str]:
    """The name tokens that tell one model from another: all but release-stage and offering
    words and four-digit build stamps (`-0309`)."""
    tokens = normal_form(model_id).split("-")
    return frozenset(t for t in tokens if t and t not in STAGE_WORDS | OFFERING_WORDS
                     and not re.fullmatch(r"\d{4}", t))


def versions_of(model_id: str) -> tuple[str, ...]:
    """The version numbers in a name (`mistral-medium-3-5` → 3, 5), build stamps left out."""
    return tuple(t for t in identity_tokens(model_id) if t.isdigit())


def is_candidate(pointer: str, model_id: str) -> bool:
    """Whether `model_id` could be what `pointer` serves: with a version in the pointer's name
    (`claude-3-7-sonnet-latest`), an id that starts with that name; without one
    (`mistral-medium-latest`), any id of the same line."""
    return candidate_test(pointer)(model_id)


def candidate_test(pointer: str) -> Callable[[str], bool]:
    """`is_candidate(pointer, ·)`, with the pointer's side read once (a pointer is tried against
    every id of its maker)."""
    stem = normal_form(POINTER.sub("", pointer))
    if any(VERSION_TOKEN.match(token) for token in stem.split("-")):
        return lambda model_id: normal_form(model_id).startswith(stem)
    line = line_of(pointer)
    return lambda model_id: line_of(model_id) == line


def _same_price(a_in, a_out, b_in, b_out) -> np.ndarray:
    return prices_agree(a_in, b_in, PRICE_TOLERANCE) & prices_agree(a_out, b_out, PRICE_TOLERANCE)


def resolve_pointers(pointers: pd.DataFrame, mapped: pd.DataFrame, source_match) -> pd.DataFrame:
    """Give each pointer statement the model it served (`_model`) and how that was decided.

    `pointers`: listings of pointer ids with `_maker` and `_pointer` (the bare pointer id).
    `mapped`: every other listing, mapped to its model (`_maker`, `_model`), with `source_model_id`.
    `source_match(maker, pointer)`: the model id the source's match rules give, or None.
    Returns `pointers` with `_model` (None where unresolved) and `_basis` (`price`, `source_match`).
    """
    out = pointers.copy()
    out["_model"], out["_basis"] = None, None
    if out.empty:
        return out
    origin = mapped[mapped["is_origin"]]
    ids = origin[["_maker", "_model", "source_model_id"]].drop_duplicates()
    ids = ids.assign(_bare=[split_vendor(i)[1] for i in ids["source_model_id"]])
    first_seen = earliest(origin["effective_date"], [origin["_maker"], origin["_model"]])
    for (maker, pointer), rows in out.groupby(["_maker", "_pointer"], sort=False):
        own = ids[ids["_maker"] == maker]
        serves = candidate_test(pointer)
        members = own.loc[[serves(i) for i in own["_bare"].to_numpy(dtype=object)], "_model"].unique()
        priced = origin[(origin["_maker"] == maker) & origin["_model"].isin(members)]
        named = source_match(maker, pointer)
        for index, row in rows.iterrows():
            same = priced[(priced["mode"] == row["mode"])]
            same = same[_same_price(same["input"], same["output"], row["input"], row["output"])]
            candidates = list(same["_model"].unique())
            if candidates:
                out.at[index, "_model"] = _pick(candidates, named, first_seen, maker, row["effective_date"])
                out.at[index, "_basis"] = "price"
            elif (named is not None and named in set(ids.loc[ids["_maker"] == maker, "_model"])
                  and first_seen.get((maker, named), row["effective_date"]) <= row["effective_date"]):
                # a pointer cannot have served a model no source knew yet (LiteLLM's 2023 price of
                # `mistral-medium` is not of the Medium 3 that genai-prices bills that id as today)
                out.at[index, "_model"], out.at[index, "_basis"] = named, "source_match"
    return out


def _pick(candidates: list[str], named: str | None, first_seen: pd.Series, maker: str, day) -> str:
    if named in candidates:
        return named
    known = [(first_seen[(maker, c)], c) for c in candidates if first_seen[(maker, c)] <= day]
    if known:
        return max(known)[1]
    return min((first_seen[(maker, c)], c) for c in candidates)[1]


def alias_spans(resolved: pd.DataFrame) -> pd.DataFrame:
    """Per pointer, the runs of consecutive sync statements that name the same model.

    A span starts on the first statement naming its model and ends the day before the next span
    starts (open when it is the last). Statements from every source are read in date order,
    the most authoritative first within a day.
    """
    rows = resolved[resolved["_model"].notna() & (resolved["mode"] == SYNC)]
    rows = rows.sort_values(["_maker", "_pointer", "effective_date", "authority"],
                            ascending=[True, True, True, False], kind="stable")
    rows = rows.drop_duplicates(["_maker", "_pointer", "effective_date"]).rename(
        columns={"_maker": "maker", "_pointer": "pointer", "_model": "target", "_basis": "basis"})
    spans = []
    for (maker, pointer), group in rows.groupby(["maker", "pointer"], sort=True):
        previous = None
        for row in group.itertuples(index=False):
            if previous is not None and previous["model_id"] == row.target:
                continue
            if previous is not None:
                previous["valid_to"] = row.effective_date - timedelta(days=1)
            previous = {"alias": pointer, "maker": maker, "model_id": row.target, "valid_from": row.effective_date,
                        "valid_to": None, "basis": row.basis, "source": row.source}
            spans.append(previous)
    return pd.DataFrame(spans, columns=ALIAS_COLUMNS)
