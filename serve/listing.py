"""Filters, fields and pages for the lists of every model (`/v1/spots`, `/v1/greeks`, `/v1/forwards`).

One set of query parameters, read by one dependency (`list_query`) and applied by one function
(`listed`), so the three lists filter alike. A model is chosen by its record in the spots table,
whatever the list: `provider`, `tier` and `status` match exactly (any case), `modality` matches a
model that takes or gives it, `q` is a case-insensitive substring of its ticker, batch ticker, model
id, display name or provider. A value no model has is a 400 that lists the values there are, not
an empty list that looks like an answer. `fields` keeps the named fields of each record (`ticker`
always). `limit` and `offset` page the list in ticker order; `total` counts the models chosen and
`next` is the path of the next page (null on the last), relative, so a kept answer is right for
any host it is asked through.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

import numpy as np
import pandas as pd
from litestar import Response
from litestar.di import Provide
from litestar.params import Parameter

from serve.deps import Reply
from serve.problems import invalid
from serve.respond import envelope

MAX_PAGE = 1000
PAGE_FIELDS = [("total", int), ("next", str | None)]  # beside a list's envelope
LIST_DESCRIPTION = ("`provider`, `tier`, `status`, `modality` and `q` choose models; `fields` keeps the named fields "
                    "of each record (`ticker` always); `limit` and `offset` page the list in ticker order. `total` "
                    "counts the models chosen and `next` is the path of the next page (null on the last). A filter "
                    "value no model has, an unknown field or an unknown query parameter is a 400.")
SEARCHED = ("ticker", "ticker_batch", "model_id", "display_name", "provider")
MATCHED = ("provider", "tier", "status")


@dataclass(frozen=True)
class ListQuery:
    provider: str | None = None
    tier: str | None = None
    status: str | None = None
    modality: str | None = None
    q: str | None = None
    fields: tuple[str, ...] | None = None
    limit: int | None = None
    offset: int = 0

    def params(self, **changes: Any) -> dict[str, Any]:
        """The query parameters that ask for this list (with `changes`), in a stable order."""
        values = {**vars(self), **changes}
        values["fields"] = ",".join(values["fields"]) if values["fields"] else None
        return {name: value for name, value in values.items() if value is not None and (name != "offset" or value)}


def list_query(
    provider: Annotated[str | None, Parameter(description="the maker, e.g. openai")] = None,
    tier: Annotated[str | None, Parameter(description="frontier, mid or efficient")] = None,
    status: Annotated[str | None, Parameter(description="active, deprecated or retired")] = None,
    modality: Annotated[str | None, Parameter(description="a modality the model takes or gives, e.g. text, "
                                                          "image, audio")] = None,
    q: Annotated[str | None, Parameter(description="text in the ticker, batch ticker, model id, display name or "
                                                   "provider (any case)")] = None,
    fields: Annotated[str | None, Parameter(description="comma-separated fields to keep in each record "
                                                        "(`ticker` always)")] = None,
    limit: Annotated[int | None, Parameter(ge=1, le=MAX_PAGE, description=f"at most this many models, 1 to "
                                                                            f"{MAX_PAGE}; default all")] = None,
    offset: Annotated[int, Parameter(ge=0, description="models to skip; default 0")] = 0,
) -> ListQuery:
    kept = tuple(dict.fromkeys(name.strip() for name in fields.split(",") if name.strip())) if fields else None
    if fields is not None and not kept:
        raise invalid("fields", "name at least one field, e.g. fields=ticker,beta_sync")
    return ListQuery(provider, tier, status, modality, q, kept, limit, offset)


def _one_known(field: str, value: str, known: list[str]) -> str:
    """`value` as the data spells it, matched in any case, or a 400 listing what there is."""
    spelled = {name.lower(): name for name in known}
    found = spelled.get(value.strip().lower())
    if found is None:
        close = difflib.get_close_matches(value.strip().lower(), list(spelled), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(spelled[c] for c in close)}?" if close else ""
        problem = invalid(field, f"no model has {field} '{value}'{hint} Known: {', '.join(sorted(known))}")
        problem.extra["allowed"] = sorted(known)
        raise problem
    return found


def chosen(spots: pd.DataFrame, query: ListQuery) -> set[str]:
    """The tickers of the models the query's filters choose."""
    keep = np.ones(len(spots), dtype=bool)
    for field in MATCHED:
        value = getattr(query, field)
        if value is not None:
            column = spots[field].astype(object)
            wanted = _one_known(field, value, [str(v) for v in column.dropna().unique()])
            keep &= (column == wanted).to_numpy(dtype=bool)
    if query.modality is not None:
        lists = [list(a if a is not None else []) + list(b if b is not None else [])
                 for a, b in zip(spots["input_modalities"], spots["output_modalities"], strict=True)]
        wanted = _one_known("modality", query.modality, sorted({m for both in lists for m in both}))
        keep &= np.array([wanted in both for both in lists], dtype=bool)
    if query.q is not None and query.q.strip():
        text = query.q.strip().lower()
        found = np.zeros(len(spots), dtype=bool)
        for field in SEARCHED:
            found |= spots[field].astype(object).fillna("").str.lower().str.contains(text, regex=False).to_numpy(bool)
        keep &= found
    return set(spots["ticker"][keep])


LIST_QUERY = {"listing": Provide(list_query, sync_to_thread=False)}


def listed(reply: Reply, records: list[dict[str, Any]], query: ListQuery) -> Response:
    """The page of `records` the query asks for, enveloped, with `total` (how many it chose) and
    `next` (the next page's path, or null on the last) beside it."""
    rows = records
    if query != ListQuery():
        tickers = chosen(reply.snapshot.table("spots"), query)
        rows = [row for row in records if row["ticker"] in tickers]
        if query.fields is not None and records:
            unknown = [name for name in query.fields if name not in records[0]]
            if unknown:
                raise invalid("fields", f"no field {', '.join(repr(n) for n in unknown)} in these records; fields "
                                        f"are {', '.join(records[0])}")
            names = ["ticker", *(name for name in query.fields if name != "ticker")]
            rows = [{name: row[name] for name in names} for row in rows]
    total, end = len(rows), len(rows) if query.limit is None else query.offset + query.limit
    following = f"{reply.request.url.path}?{urlencode(query.params(offset=end), safe=',')}" if end < total else None
    return reply.body({**envelope(reply.snapshot, rows[query.offset:end]), "total": total, "next": following})
