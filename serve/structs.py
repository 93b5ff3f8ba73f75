"""Response structs derived from the warehouse's table schemas, so the OpenAPI document states
exactly the fields and types the Parquet tables hold (one source of truth for both)."""

from __future__ import annotations

from typing import Any

import msgspec
import pyarrow as pa


def python_type(arrow_type: pa.DataType) -> Any:
    if pa.types.is_string(arrow_type) or pa.types.is_date(arrow_type) or pa.types.is_timestamp(arrow_type):
        return str  # dates and times travel as ISO 8601 text
    if pa.types.is_floating(arrow_type):
        return float
    if pa.types.is_integer(arrow_type):
        return int
    if pa.types.is_boolean(arrow_type):
        return bool
    if pa.types.is_list(arrow_type):
        return list[python_type(arrow_type.value_type)]
    raise TypeError(f"no JSON type for {arrow_type}")


def struct_from_schema(name: str, schema: pa.Schema, exclude: tuple[str, ...] = (),
                       extra: list[tuple[str, Any]] | None = None,
                       only: tuple[str, ...] | None = None) -> type[msgspec.Struct]:
    """A msgspec struct with one field per column (nullable columns may be null): the columns `only`
    names, in that order, or else every column but `exclude`; then the fields `extra`."""
    columns = [schema.field(column) for column in only] if only else [f for f in schema if f.name not in exclude]
    fields = [(field.name, python_type(field.type) | None if field.nullable else python_type(field.type))
              for field in columns]
    return msgspec.defstruct(name, fields + (extra or []), kw_only=True)
