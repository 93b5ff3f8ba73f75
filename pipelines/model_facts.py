"""The makers' own pages → statements of names and limits (`warehouse/seed/model_facts.csv`).

Where no package states a model's context window, maximum output or name, the maker's own
documentation may. Each row of `model_facts.csv` is one such statement as read on the maker's
page: (provider, model_id, field, value, source_url, published_on or checked_on, note). A row is
knowable from the day it states (`published_on`, the page's own date, else `checked_on`, the day
it was read): a build for an earlier day reads none of it. The maker's page ranks first among the
sources (`model_metadata.SOURCE_ORDER`): it is the maker's own word.
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipelines.listings import canonical_provider

FIELDS = ("context_window", "max_output_tokens", "display_name")
LIMIT_FIELDS = ("context_window", "max_output_tokens")
COLUMNS = ("provider", "model_id", "field", "value", "source_url", "published_on", "checked_on", "note")
STATEMENT_COLUMNS = ["provider", "source_model_id", "display_name", *LIMIT_FIELDS, "stated_in"]


def fact_day(published_on: str, checked_on: str) -> date:
    """The day a row is known from: the page's own date, else the day it was read."""
    return date.fromisoformat((published_on or "").strip() or checked_on.strip())


def check_facts(table: pd.DataFrame) -> None:
    """ValueError naming the first row that is not a statement the pipeline can read."""
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"model_facts: missing columns {missing}")
    for number, row in enumerate(table.itertuples(index=False), start=1):
        where = f"model_facts row {number} ({row.provider}/{row.model_id} {row.field})"
        if row.field not in FIELDS:
            raise ValueError(f"{where}: field must be one of {FIELDS}")
        if row.field in LIMIT_FIELDS and not (str(row.value).isdigit() and int(row.value) > 0):
            raise ValueError(f"{where}: a limit is a whole number of tokens > 0")
        if not str(row.value).strip() or not str(row.source_url).startswith("https://"):
            raise ValueError(f"{where}: a value and an https source_url are required")
        fact_day(row.published_on, row.checked_on)  # raises on a bad or missing day
    if table.duplicated(["provider", "model_id", "field"]).any():
        raise ValueError("model_facts: two rows state one field of one model")


def maker_statements(table: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """One statement per row known on `as_of` (only its field set), in `models_dev_metadata`'s
    columns for names and limits, with `stated_in`: the page and its day ("https://... (2023-07-06)"),
    so each field names its own page."""
    check_facts(table)
    rows = []
    for row in table.itertuples(index=False):
        day = fact_day(row.published_on, row.checked_on)
        if day <= as_of:
            value = int(row.value) if row.field in LIMIT_FIELDS else str(row.value).strip()
            rows.append({"provider": canonical_provider(row.provider.strip().lower()),
                         "source_model_id": row.model_id.strip(), row.field: value,
                         "stated_in": f"{row.source_url} ({day.isoformat()})"})
    frame = pd.DataFrame(rows, columns=STATEMENT_COLUMNS)
    for column in LIMIT_FIELDS:
        frame[column] = frame[column].astype("Int64")
    return frame
