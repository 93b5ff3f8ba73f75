"""A published table as a file: the Parquet file exactly as the snapshot holds it, or CSV.

The Parquet answer is the file's own bytes, so its sha256 is the manifest's checksum, which the
answer names (`X-Table-SHA256`, and `Repr-Digest` as RFC 9530 writes it): a client can check
what it got. CSV is made from the table a slice of rows at a time as it is sent, so an export
costs memory for a slice, not for the whole table; the checksum it names is that of the Parquet
file it was made from. A cell holding a list or a record (a model's modalities, its price tiers)
is written as JSON.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator

import numpy as np
import pandas as pd

from serve.problems import invalid

FORMATS = {"parquet": "application/vnd.apache.parquet", "csv": "text/csv"}  # the framework adds CSV's charset
CHUNK_BYTES = 1 << 20
CSV_ROWS = 20_000  # rows per slice of a CSV answer


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


def csv_chunks(table: pd.DataFrame) -> Iterator[bytes]:
    """The table as CSV (a header, then a slice of rows at a time); lists and records as JSON."""
    nested = [column for column in table.columns if table[column].dtype == object
              and table[column].map(lambda v: isinstance(v, list | dict | np.ndarray)).any()]
    for start in range(0, max(len(table), 1), CSV_ROWS):
        part = table.iloc[start:start + CSV_ROWS]
        if nested:
            part = part.assign(**{column: part[column].map(_json_cell) for column in nested})
        out = io.StringIO()
        part.to_csv(out, index=False, header=start == 0, lineterminator="\n")
        yield out.getvalue().encode("utf-8")
