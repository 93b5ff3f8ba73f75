"""A published table as a file: the Parquet file exactly as the snapshot holds it, or CSV.

The Parquet answer is the file's own bytes, so its sha256 is the manifest's checksum, which the
answer names (`X-Table-SHA256`, and `Repr-Digest` as RFC 9530 writes it): a client can check
what it got. CSV is made from the table a slice of rows at a time as it is sent, each slice sized
to about `CHUNK_BYTES` of text (at most twice that), so an export costs memory for a slice, not for the whole table,
and a reader that stops reading holds one slice (the server writes the next only once the
connection takes it); the checksum it names is that of the Parquet file it was made from. A cell
holding a list or a record (a model's modalities, its price tiers) is written as JSON.

What an export costs, and who may ask for it: the Parquet file costs reading and sending its bytes,
and anyone may have it. CSV costs CPU in proportion to the rows (about 1.5 CPU-s for the full
price history), so without a key it is made only of a table of at most
`Settings.export_keyless_csv_max_rows` rows; a longer one is a 401 that says to ask for Parquet or
present a key, whose hourly limit then counts the export (one request, as any export is).
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator

import numpy as np
import pandas as pd

from serve.problems import Problem, invalid

FORMATS = {"parquet": "application/vnd.apache.parquet", "csv": "text/csv"}  # the framework adds CSV's charset
CHUNK_BYTES = 256 * 1024  # what one reader holds at most, about: a file's chunk, a CSV slice's text
FIRST_SLICE_ROWS = 16  # before a table's width is known; later slices are sized from the ones before
MAX_SLICE_GROWTH = 4  # a slice of short rows does not make the next, perhaps of long ones, huge


def chosen_format(asked: str | None, accept: str) -> str:
    """`asked` (`?format=`) when given, else CSV when the client accepts text/csv and not Parquet,
    else Parquet."""
    if asked is not None:
        if asked.lower() not in FORMATS:
            problem = invalid("format", f"'{asked}' is not an export format; use {' or '.join(FORMATS)}")
            problem.extra["allowed"] = list(FORMATS)
            raise problem
        return asked.lower()
    accept = accept.lower()
    return "csv" if "text/csv" in accept and "parquet" not in accept else "parquet"


def check_csv_allowed(table: str, rows: int, keyed: bool, max_rows: int) -> None:
    """A 401 for a CSV export of more than `max_rows` rows asked for without a key."""
    if keyed or rows <= max_rows:
        return
    raise Problem(401, "key_required",
                  f"without an API key, CSV is made only of tables of at most {max_rows:,} rows, and '{table}' has "
                  f"{rows:,} (CSV costs the server CPU in proportion to the rows); ask for format=parquet, the "
                  "published file itself, which needs no key, or present a key (POST /v1/keys makes one)",
                  max_rows=max_rows, rows=rows)


def repr_digest(sha256_hex: str) -> str:
    return f"sha-256=:{base64.b64encode(bytes.fromhex(sha256_hex)).decode()}:"


def file_chunks(handle) -> Iterator[bytes]:
    """An open file's bytes, a chunk at a time, closing it at the end."""
    with handle:
        yield from iter(lambda: handle.read(CHUNK_BYTES), b"")


def _json_cell(value):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return json.dumps(value, default=str) if isinstance(value, list | dict) else value


def nested_columns(table: pd.DataFrame) -> list[str]:
    """The columns of lists or records. A column holds one type (as Parquet stores it), so its first
    value that is not null tells, without a look at every cell."""
    found = []
    for column in table.columns:
        values = table[column]
        if values.dtype != object:
            continue
        present = values.notna().to_numpy()
        if present.any() and isinstance(values.iat[int(present.argmax())], list | dict | np.ndarray):
            found.append(column)
    return found


def _csv(part: pd.DataFrame, nested: list[str], header: bool) -> bytes:
    if nested:
        part = part.assign(**{column: part[column].map(_json_cell) for column in nested})
    out = io.StringIO()
    part.to_csv(out, index=False, header=header, lineterminator="\n")
    return out.getvalue().encode("utf-8")


def csv_chunks(table: pd.DataFrame) -> Iterator[bytes]:
    """The table as CSV (a header, then a slice of rows at a time, each about `CHUNK_BYTES` and at
    most twice that, unless one row is longer); lists and records as JSON."""
    nested = nested_columns(table)
    start, rows = 0, FIRST_SLICE_ROWS
    while True:
        chunk = _csv(table.iloc[start:start + rows], nested, header=start == 0)
        if len(chunk) > 2 * CHUNK_BYTES and rows > 1:
            rows //= 2  # rows wider than the slices before them: fewer of them
            continue
        yield chunk
        start += rows
        if start >= len(table):
            return
        rows = max(1, min(rows * MAX_SLICE_GROWTH, rows * CHUNK_BYTES // max(1, len(chunk))))
