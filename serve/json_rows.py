"""A JSON array of objects written from fragments made once: for answers that write hundreds of
rows of the same fields, most of which do not change from one answer to the next.

A comparison writes every model it ranks: thirteen fields, of which eight (its names, flags and
window) are the model's own and five are figures computed for the request. Made into a struct per
row and encoded whole, the rows cost about as much as ranking them. Here the unchanging part of
each row, keys and values, is encoded once per table (`RowsWriter`), the figures of an answer are
encoded in one call, and the answer is their interleaving, joined once: the same bytes (the same
encoder writes every value), at a fraction of the cost.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import msgspec

_encode = msgspec.json.encode


def pick(values: list, rows: list[int]) -> list:
    """`values[i]` for each i of `rows`, in order, picked in C: an answer picks each row's
    fragments, and a comparison its models' figures, for every model it ranks."""
    if len(rows) < 2:
        return [values[i] for i in rows]
    return list(itemgetter(*rows)(values))


class RowsWriter:
    """Rows of one table as a JSON array of objects with `fields` in order. `fixed` holds, by
    field, the values of the fields that do not change between answers, one per row of the table;
    each answer gives the others (numbers or None: what JSON writes without a comma)."""

    def __init__(self, fields: list[str], fixed: dict[str, list[Any]]):
        self.varying = [name for name in fields if name not in fixed]
        # segments[j]: what each row writes before its j-th varying value (the last: after the
        # last value, with the row's closing brace); a list per row, or one bytes shared by all rows.
        self.segments: list[list[bytes] | bytes] = []
        current: list[bytes] | bytes = b"{"
        for position, name in enumerate(fields):
            key = (b"," if position else b"") + _encode(name) + b":"
            if name in fixed:
                values = [_encode(value) for value in fixed[name]]
                current = [_part(current, row) + key + value for row, value in enumerate(values)]
            else:
                self.segments.append(_append(current, key))
                current = b""
        self.segments.append(_append(current, b"}"))

    def write(self, rows: list[int], varying: dict[str, list[float | int | None]]) -> bytes:
        """The rows `rows` (positions in the table), in that order, with each varying field's
        values given in the same order."""
        if not rows:
            return b"[]"
        count, stride = len(rows), 2 * len(self.varying) + 2  # each row ends with a separator
        pieces: list[bytes] = [b","] * (count * stride)
        for j, segment in enumerate(self.segments):
            pieces[2 * j::stride] = [segment] * count if isinstance(segment, bytes) else pick(segment, rows)
        for j, name in enumerate(self.varying):
            encoded = _encode(varying[name])[1:-1].split(b",")
            if len(encoded) != count:
                raise ValueError(f"{name}: {count} numbers expected, got {len(encoded)} pieces")
            pieces[2 * j + 1::stride] = encoded
        pieces[0] = b"[" + pieces[0]
        pieces[-1] = b"]"  # the last row's separator
        return b"".join(pieces)


def _part(segment: list[bytes] | bytes, row: int) -> bytes:
    return segment if isinstance(segment, bytes) else segment[row]


def _append(segment: list[bytes] | bytes, tail: bytes) -> list[bytes] | bytes:
    return segment + tail if isinstance(segment, bytes) else [part + tail for part in segment]
