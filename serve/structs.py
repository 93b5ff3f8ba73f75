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
                       extra: list[tuple[str, Any]] | None = None) -> type[msgspec.Struct]:
    """A msgspec struct with one field per column (nullable columns may be null)."""
    fields = []
    for field in schema:
        if field.name in exclude:
            continue
        kind = python_type(field.type)
        fields.append((field.name, kind | None if field.nullable else kind))
    return msgspec.defstruct(name, fields + (extra or []), kw_only=True)
