"""The checks every hand-kept seed CSV passes on read (`seed_files.read_seed_csv`), row by row.

These tables are edited by hand, so a slip (a stray comma, a pattern that is not a regular
expression, a day that is not a date) must fail at its own file and line, with what is wrong,
not later as a puzzling error about another table (a row with one field too many would
otherwise shift every column of the table).
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path


@dataclass(frozen=True)
class TableRules:
    """What one seed table's rows must hold: its columns, which must not be empty, and which are
    regular expressions, ISO days (empty allowed unless required) or numbers."""

    columns: tuple[str, ...]
    required: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    days: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()


TABLE_RULES: dict[str, TableRules] = {
    "makers.csv": TableRules(("pattern", "maker"), required=("pattern", "maker"), patterns=("pattern",)),
    "model_aliases.csv": TableRules(("maker", "alias_id", "model_id", "reason"),
                                    required=("maker", "alias_id", "model_id", "reason")),
    "model_overrides.csv": TableRules(("provider", "model_id", "ticker"), required=("provider", "model_id", "ticker")),
    "model_rules.csv": TableRules(("kind", "pattern", "value"), required=("kind", "pattern", "value"),
                                  patterns=("pattern",)),
    "open_weight.csv": TableRules(("maker", "pattern", "licence"), required=("maker", "pattern"),
                                  patterns=("pattern",)),
    "pointer_ids.csv": TableRules(("maker", "pointer_id", "reason"), required=("maker", "pointer_id", "reason")),
    "published_tickers.csv": TableRules(("ticker", "maker", "model_id"), required=("ticker", "maker", "model_id")),
    "rejected_statements.csv": TableRules(("source", "provider", "model_id", "field", "value", "reason"),
                                          required=("source", "provider", "model_id", "field", "value", "reason"),
                                          numbers=("value",)),
    "peak_days.csv": TableRules(("provider", "model_id", "days", "since", "evidence"),
                                required=("provider", "model_id", "days", "since", "evidence"), days=("since",)),
    "lifecycle_notices.csv": TableRules(("provider", "model_id", "published_on", "retired_on", "source_url", "note"),
                                        required=("provider", "model_id", "published_on", "source_url"),
                                        days=("published_on", "retired_on")),
    "model_facts.csv": TableRules(("provider", "model_id", "field", "value", "source_url", "published_on",
                                   "checked_on", "note"),
                                  required=("provider", "model_id", "field", "value", "source_url", "checked_on"),
                                  days=("published_on", "checked_on")),
}


def numbered_rows(text: str) -> list[tuple[int, list[str]]]:
    """The CSV's rows (header first) with the file line each starts on; comment lines (first
    non-blank character #) and blank lines are skipped, as the table reader skips them."""
    kept = [(number, line) for number, line in enumerate(text.splitlines(keepends=True), 1)
            if not line.lstrip().startswith("#")]
    reader = csv.reader(line for _, line in kept)
    rows, consumed = [], 0
    try:
        for fields in reader:
            start, consumed = kept[consumed][0], reader.line_num
            if fields:
                rows.append((start, fields))
    except csv.Error as e:
        raise ValueError(f"line {kept[min(reader.line_num, len(kept)) - 1][0]}: not valid CSV ({e})") from e
    return rows


def check_seed_rows(path: Path, text: str) -> None:
    """Raise a ValueError naming the file, the line and what is wrong at the first row that breaks
    the table's shape (as many fields as the header) or its `TABLE_RULES`."""
    try:
        rows = numbered_rows(text)
    except ValueError as e:
        raise ValueError(f"{path}, {e}") from e
    if not rows:
        raise ValueError(f"{path}: no header row")
    header_line, header = rows[0]
    if any(not name.strip() for name in header) or len(set(header)) != len(header):
        raise ValueError(f"{path}, line {header_line}: the header {header} has an empty or repeated column name")
    rules = TABLE_RULES.get(Path(path).name)
    missing = [c for c in rules.columns if c not in header] if rules else []
    if missing:
        raise ValueError(f"{path}, line {header_line}: the header lacks the columns {missing}")
    for line, fields in rows[1:]:
        if len(fields) != len(header):
            count = f"{len(fields)} field{'s' if len(fields) != 1 else ''}"
            raise ValueError(f"{path}, line {line}: {count} where the header has {len(header)} "
                             f"({','.join(header)}); a value holding a comma must be in double quotes")
        problem = rules and _row_problem(rules, dict(zip(header, fields, strict=True)))
        if problem:
            raise ValueError(f"{path}, line {line}: {problem}")


def _row_problem(rules: TableRules, row: dict[str, str]) -> str | None:
    """What is wrong with one row by its table's rules, or None."""
    for column in rules.required:
        if not row[column].strip():
            return f"{column} is empty"
    checks: list[tuple[tuple[str, ...], Callable[[str], object], str]] = [
        (rules.patterns, re.compile, "a regular expression"),
        (rules.days, date.fromisoformat, "a day as YYYY-MM-DD"),
        (rules.numbers, _finite, "a finite number"),
    ]
    for columns, parse, what in checks:
        for column in columns:
            value = row[column]
            if not value.strip():
                continue
            try:
                parse(value.strip() if parse is not re.compile else value)
            except (ValueError, re.error) as e:
                return f"{column} {value!r} is not {what} ({e})"
    return None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not finite")
    return value
