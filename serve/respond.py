"""Success responses: the envelope of contract §8, and caching headers for snapshot data.

Snapshot GETs carry an ETag (the snapshot and the request's path and query) and Cache-Control;
an If-None-Match that matches is answered with 304 and no body. Their answers are kept, encoded,
for repeats (`serve.answers`).
"""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, date, datetime
from typing import Any

import msgspec
import numpy as np
import pandas as pd
from litestar import Request, Response

from serve.answers import Answer, Asked, answer_key, reply, shelf_of
from serve.state import LoadedSnapshot


def iso_millis(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def envelope_type(name: str, data_type: Any, snapshot_optional: bool = False,
                  beside: list[tuple[str, Any]] | None = None) -> type[msgspec.Struct]:
    """A named envelope struct, so the OpenAPI document shows each endpoint's exact shape.
    `snapshot_optional`: the answer exists before any snapshot, and then has null timestamp and age.
    `beside`: fields at the top level next to the envelope's (the original oracle's names)."""
    stamp, age = (str | None, int | None) if snapshot_optional else (str, int)
    return msgspec.defstruct(name, [("data", data_type), ("oracle_timestamp", stamp), ("cache_age_seconds", age),
                                    *(beside or [])])


SIGNIFICANT_DIGITS = 15


def tidy_float(value: float) -> float:
    """A float without binary noise: 0.053399999999999996 becomes 0.0534. Fifteen significant
    digits change nothing a price or a cost can mean (at most 5e-15 relative)."""
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}") if math.isfinite(value) else value


class TidyList(list):
    """A list whose floats are tidy already (made column by column), so `tidy` passes it as it is:
    walking the records of a long answer field by field costs more than computing them."""


def tidy_floats(values) -> list[float | None]:
    """A column of floats, each as `tidy_float` gives it, NaN as null: one formula for every
    number the API computes, whether it comes alone or in a column."""
    return [tidy_float(v) if v == v else None for v in np.asarray(values, dtype=float).tolist()]


def tidy_columns(columns: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """`tidy_floats` of each column."""
    return {name: tidy_floats(values) for name, values in columns.items()}


def tidy(value: Any) -> Any:
    """Every float in a computed answer, tidied (structs become plain mappings). Exact type
    checks first: this runs over every field of every computed answer."""
    kind = type(value)
    if kind is float:
        return tidy_float(value)
    if kind is str or kind is int or kind is bool or value is None or kind is TidyList:
        return value
    if kind is dict or isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()}
    if kind is list or kind is tuple or isinstance(value, list | tuple):
        return [tidy(v) for v in value]
    if isinstance(value, float):  # numpy's float64 among them
        return tidy_float(value)
    if isinstance(value, msgspec.Struct):
        return tidy(msgspec.to_builtins(value))
    return value


def computed_envelope(snapshot: LoadedSnapshot, data: Any) -> dict[str, Any]:
    """The envelope of an on-demand answer, its numbers tidied."""
    return envelope(snapshot, tidy(data))


def envelope(snapshot: LoadedSnapshot | None, data: Any) -> dict[str, Any]:
    if snapshot is None:  # only answers that need no snapshot get here (the key endpoints)
        return {"data": data, "oracle_timestamp": None, "cache_age_seconds": None}
    stamp = snapshot.cache.get("oracle_timestamp")
    if stamp is None:  # formatting a time costs more than the rest of a small envelope
        stamp = snapshot.cache["oracle_timestamp"] = iso_millis(snapshot.last_update)
    return {"data": data, "oracle_timestamp": stamp,
            "cache_age_seconds": snapshot.age_seconds()}


def etag(snapshot: LoadedSnapshot, request: Request) -> str:
    query = "&".join(sorted(f"{k}={v}" for k, values in request.query_params.dict().items() for v in values))
    digest = hashlib.sha256(f"{snapshot.snapshot_id}|{request.url.path}|{query}".encode()).hexdigest()[:24]
    return f'"{digest}"'


ENVELOPE_FIELDS = frozenset({"data", "oracle_timestamp", "cache_age_seconds"})


def snapshot_response(request: Request, snapshot: LoadedSnapshot, body: dict[str, Any], max_age: int) -> Response:
    """The envelope `body` with ETag and Cache-Control, or 304 when the client has it, compressed
    when the client accepts it (`serve.answers.reply`). Fields of `body` beyond the envelope's go
    after its timestamp (a list's `total` and `next`).

    The answer is kept, encoded, with the snapshot (`serve.answers`), so a repeat of the request
    is sent without running its handler.
    """
    tag = etag(snapshot, request)
    shelf = shelf_of(snapshot, request.app.state.settings.kept_answer_bytes)
    key = answer_key(request.scope)
    answer = shelf.get(key)
    if answer is None or answer.etag != tag:
        beside = {name: value for name, value in body.items() if name not in ENVELOPE_FIELDS}
        beside_bytes = b"," + msgspec.json.encode(beside)[1:-1] if beside else b""
        answer = Answer(tag, msgspec.json.encode(body["data"]), msgspec.json.encode(body["oracle_timestamp"]),
                        f"public, max-age={max_age}", beside=beside_bytes)
        shelf.keep(key, answer)
    return reply(snapshot, answer, Asked.of(request.scope))


def plain(value: Any) -> Any:
    """A table cell as JSON: NaN and NA as null, dates as ISO strings, numpy scalars as Python."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)  # exactly the table's value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, datetime):
        return iso_millis(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, np.ndarray | list | tuple):
        return [plain(v) for v in value]
    return value


def column_values(series: pd.Series) -> list[Any]:
    """A column as `plain` gives its cells, converted a column at a time where the type allows
    (numbers and flags straight from their array), cell by cell otherwise."""
    kind = series.dtype.kind
    if kind == "f":
        return [None if v != v else v for v in series.to_numpy(dtype=float, na_value=np.nan).tolist()]
    if kind in "iub":
        values = series.tolist()  # Python numbers, and pd.NA where a nullable column has a gap
        return [None if v is pd.NA else v for v in values] if series.hasnans else values
    if isinstance(series.dtype, pd.StringDtype):  # text, or a missing marker
        return [v if type(v) is str else None for v in series.tolist()]
    return [plain(v) for v in series.tolist()]


def records(frame: pd.DataFrame, columns: list[str] | None = None) -> list[dict[str, Any]]:
    columns = columns or list(frame.columns)
    values = [column_values(frame[c]) for c in columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)]
