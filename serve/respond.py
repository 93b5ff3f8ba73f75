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


SPLITTER = 134217729.0  # 2^27 + 1: Veltkamp's split of a double into two halves of 26 bits


def _product_error(a: np.ndarray, b: np.ndarray, product: np.ndarray) -> np.ndarray:
    """The rounding error of each `product` = fl(a·b), exactly: a·b = product + error (Dekker's
    two-product, for values far from overflow and underflow)."""
    def split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = SPLITTER * x
        high = c - (c - x)
        return high, x - high
    a_high, a_low = split(a)
    b_high, b_low = split(b)
    return ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


POWERS_OF_TEN = 10.0 ** np.arange(23)  # each exact: 10^22 is the largest power of ten a double holds
# The product m = fl(v·10^k) is below 10^15 < 2^50, so its rounding error is at most 2^-4: where m
# lies within 0.4 of a whole number, m + error has the same nearest whole number, and only the
# rest (a fifth of random values, fewer of real prices) need the error worked out.
FAR_FROM_HALF = 0.4


def tidy_floats(values: np.ndarray) -> list[float | None]:
    """A column of floats exactly as `tidy_float` gives them, NaN as null, a column at a time.

    Fifteen significant digits of v are the integer nearest v·10^k, k = 14 − ⌊log10 |v|⌋, ties to
    even (as formatting rounds), and the tidy float is that integer over 10^k, the division
    rounded once, as parsing its digits would be. The product m = fl(v·10^k) is off by its exact
    rounding error e (`_product_error`), at most a sixteenth below 10^15; the nearest integer to
    m + e is that to m unless m lies within e of a half, which is decided exactly where m is not
    far from one. Values whose k is not an exact power of ten (|v| under 1e-8 or from 1e15) take
    the formatting way, one at a time.
    """
    v = np.asarray(values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        k = 14.0 - np.floor(np.log10(np.abs(v)))  # NaN for NaN, +inf for 0, −inf for ±inf
        usable = (k >= 0) & (k <= 22)
        scale = POWERS_OF_TEN[np.where(usable, k, 0.0).astype(np.intp)]
        m = v * scale
        digits = np.rint(m)
        magnitude = np.abs(digits)
        usable &= (magnitude >= 1e14) & (magnitude < 1e15)  # k right despite log10's rounding
        below = m - digits  # exact: both are within a half of each other
        near = np.flatnonzero(usable & (np.abs(below) > FAR_FROM_HALF))
        if near.size:
            digits[near] = _nearest_whole(v[near], scale[near], m[near], digits[near], below[near])
        out = np.where(usable, digits / scale, v)  # NaN, ±0 and ±inf stay as they are
    odd = np.flatnonzero(~usable & np.isfinite(v) & (v != 0))
    if odd.size:
        out[odd] = [tidy_float(x) for x in v[odd].tolist()]
    tidied = out.tolist()
    return [x if x == x else None for x in tidied] if np.isnan(out).any() else tidied


def _nearest_whole(v: np.ndarray, scale: np.ndarray, m: np.ndarray, digits: np.ndarray,
                   below: np.ndarray) -> np.ndarray:
    """The whole number nearest the exact v·scale = m + e, ties to even, given `digits` = rint(m)
    and `below` = m − digits (m close to a half)."""
    error = _product_error(v, scale, m)
    above_half = below - 0.5  # exact where it matters (below near a half)
    under_half = below + 0.5
    up = (below > 0) & (above_half > -error)  # m + e beyond digits + ½
    down = (below < 0) & (under_half < -error)  # m + e below digits − ½
    tie = ((below > 0) & (above_half == -error)) | ((below < 0) & (under_half == -error))
    if tie.any():  # rare, and parity costs more than the rest (digits are whole and below 2^53)
        tie &= np.floor(digits * 0.5) * 2.0 != digits  # ties go to the even neighbour: move odd ones only
    return digits + (up | (tie & (below > 0))) - (down | (tie & (below < 0)))


def tidy_columns(columns: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """`tidy_floats` of several columns of one length in one pass: a comparison tidies six, and
    numpy's fixed cost per call outweighs the work on a few hundred values."""
    names = list(columns)
    if not names:
        return {}
    length = len(columns[names[0]])
    tidied = tidy_floats(np.concatenate([np.asarray(columns[name], dtype=float) for name in names]))
    return {name: tidied[i * length:(i + 1) * length] for i, name in enumerate(names)}


def tidy(value: Any) -> Any:
    """Every float in a computed answer, tidied (structs become plain mappings). Exact type
    checks first: this runs over every field of every computed answer."""
    kind = type(value)
    if kind is float:
        return tidy_float(value)
    if kind is str or kind is int or kind is bool or value is None or kind is TidyList:
        return value
    if kind is dict:
        return {k: tidy(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [tidy(v) for v in value]
    if isinstance(value, float):
        return tidy_float(value)
    if isinstance(value, dict):
        return {k: tidy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [tidy(v) for v in value]
    if isinstance(value, msgspec.Struct):
        return tidy(msgspec.to_builtins(value))
    return value


def computed_envelope(snapshot: LoadedSnapshot, data: Any) -> dict[str, Any]:
    """The envelope of an on-demand answer, its numbers tidied."""
    return envelope(snapshot, tidy(data))


def envelope(snapshot: LoadedSnapshot | None, data: Any, now: datetime | None = None) -> dict[str, Any]:
    if snapshot is None:  # only answers that need no snapshot get here (the key endpoints)
        return {"data": data, "oracle_timestamp": None, "cache_age_seconds": None}
    now = now or datetime.now(UTC)
    stamp = snapshot.cache.get("oracle_timestamp")
    if stamp is None:  # formatting a time costs more than the rest of a small envelope
        stamp = snapshot.cache["oracle_timestamp"] = iso_millis(snapshot.last_update)
    return {"data": data, "oracle_timestamp": stamp,
            "cache_age_seconds": max(0, int((now - snapshot.last_update).total_seconds()))}


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
