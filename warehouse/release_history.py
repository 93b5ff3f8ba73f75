"""Readers for the dated evidence from package releases, shipped in warehouse/seed/.

- genai_release_history.csv.gz: each row is a span: consecutive releases of genai-prices that
  listed a (provider_id, model_id) at the same (input, output, cache_read, cache_write) price, with
  the first and last release's version and upload date. Built by
  scripts/build_genai_release_history.py.
- litellm_limits.csv.gz: each row is an entry of LiteLLM's map whose token limits are first
  stated, or changed, in a release read (the releases release_changes.csv.gz reads), or that a
  release read dropped, with that release's version and upload date. Built by scripts/build_litellm_limits.py.
- release_changes.csv.gz: each row is a change between consecutive releases read of model-prices
  or LiteLLM: a series first listed, repriced or delisted, with the release's version and upload
  date. Built by scripts/build_release_changes.py.

Like the other seed files they are checked on read: damage raises a ValueError naming the file.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from warehouse.seed_files import SEED_DIR, checked_prices, read_gzip_csv, read_meta, verified_bytes

GENAI_RELEASE_HISTORY = "genai_release_history.csv.gz"
GENAI_RELEASE_HISTORY_META = "genai_release_history.meta.json"
KEY_COLUMNS = ("provider_id", "model_id", "first_version", "last_version")
DATE_COLUMNS = ("first_released", "last_released")
PRICE_COLUMNS = ("input", "output", "cache_read", "cache_write")
GENAI_RELEASE_HISTORY_COLUMNS = (
    "provider_id", "model_id", "first_version", "first_released", "last_version", "last_released",
    *PRICE_COLUMNS, "deprecated", "name", "context_window", "aliases",
)

RELEASE_CHANGES = "release_changes.csv.gz"
RELEASE_CHANGES_META = "release_changes.meta.json"
RELEASE_CHANGES_COLUMNS = (
    "source", "provider", "model_id", "mode", "version", "released", "change", *PRICE_COLUMNS,
)
RELEASE_CHANGE_SOURCES = ("litellm", "model-prices")
RELEASE_CHANGE_MODES = ("sync", "batch")
LISTED, REPRICED, DELISTED = "listed", "price", "delisted"

LITELLM_LIMITS = "litellm_limits.csv.gz"
LITELLM_LIMITS_META = "litellm_limits.meta.json"
LIMIT_COLUMNS = ("max_input_tokens", "max_tokens", "max_output_tokens")
LITELLM_LIMITS_COLUMNS = ("litellm_provider", "key", *LIMIT_COLUMNS, "version", "released", "change")
STATED, DROPPED = "stated", "dropped"


def read_genai_release_history(seed_dir: Path = SEED_DIR) -> tuple[pd.DataFrame, dict]:
    """Price spans per (provider_id, model_id) across genai-prices releases, and their provenance.

    Columns: provider_id, model_id, first_version, last_version, name, aliases (str; aliases
    ";"-separated, "" when none), first_released, last_released (datetime.date),
    input, output, cache_read, cache_write (float64 USD per million tokens, NaN when the release
    states no price), deprecated (nullable boolean) and context_window (nullable Int64).
    Rows keep the file's order: provider_id, model_id, then release order. The dict is the meta
    JSON. Raises FileNotFoundError if either file is missing and ValueError if either is damaged.
    """
    path = Path(seed_dir) / GENAI_RELEASE_HISTORY
    meta = read_meta(Path(seed_dir) / GENAI_RELEASE_HISTORY_META)
    data = verified_bytes(path, meta, GENAI_RELEASE_HISTORY_META)
    raw = read_gzip_csv(data, path, GENAI_RELEASE_HISTORY_COLUMNS)

    frame = pd.DataFrame(index=raw.index)
    for col in KEY_COLUMNS:
        if (raw[col] == "").any():
            raise ValueError(f"{path}: empty {col}")
        frame[col] = raw[col]
    for col in DATE_COLUMNS:
        try:
            frame[col] = pd.to_datetime(raw[col], format="%Y-%m-%d").dt.date
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}: bad {col} ({str(e).splitlines()[0]})") from e
    if (frame["first_released"] > frame["last_released"]).any():
        raise ValueError(f"{path}: a span ends before it starts")

    for col in PRICE_COLUMNS:
        frame[col] = checked_prices(raw, col, path, "a finite number >= 0 or empty",
                                    lambda text, v: (text == "") | ((v >= 0) & (v < math.inf)))

    flags = raw["deprecated"].map({"true": True, "false": False, "": pd.NA})
    if flags.isna().to_numpy().sum() != (raw["deprecated"] == "").sum():
        raise ValueError(f"{path}: deprecated must be true, false or empty")
    frame["deprecated"] = flags.astype("boolean")
    frame["name"] = raw["name"]
    window = pd.to_numeric(raw["context_window"], errors="coerce")
    if ((raw["context_window"] != "") & ~((window > 0) & (window % 1 == 0))).any():
        raise ValueError(f"{path}: context_window must be a positive integer or empty")
    frame["context_window"] = window.astype("Int64")
    frame["aliases"] = raw["aliases"]

    if frame.duplicated(["provider_id", "model_id", "first_version"]).any():
        raise ValueError(f"{path}: duplicate (provider_id, model_id, first_version) rows")
    if "rows" in meta and meta["rows"] != len(frame):
        raise ValueError(
            f"{path}: {len(frame)} rows but {GENAI_RELEASE_HISTORY_META} says {meta['rows']}"
        )
    return frame.reset_index(drop=True), meta


def read_release_changes(seed_dir: Path = SEED_DIR) -> tuple[pd.DataFrame, dict]:
    """Changes between consecutive releases read of model-prices and LiteLLM, and their provenance.

    Columns: source ("litellm" or "model-prices"), provider and model_id (as the source names them:
    LiteLLM's litellm_provider and key), mode ("sync" or "batch"), version (str), released
    (datetime.date, the release's upload day), change ("listed", "price" or "delisted"), input,
    output, cache_read, cache_write (float64 USD per million tokens; NaN where not stated, always
    on a delisted row; input and output always stated otherwise). Rows keep the file's order:
    source, provider, model_id, mode, then release order. The dict is the meta JSON, with each
    source's releases read. Raises FileNotFoundError if either file is missing and ValueError
    naming the file if either is damaged.
    """
    path = Path(seed_dir) / RELEASE_CHANGES
    meta = read_release_changes_meta(seed_dir)
    raw = read_gzip_csv(verified_bytes(path, meta, RELEASE_CHANGES_META), path, RELEASE_CHANGES_COLUMNS)

    for col, allowed in (("source", RELEASE_CHANGE_SOURCES), ("mode", RELEASE_CHANGE_MODES),
                         ("change", (LISTED, REPRICED, DELISTED))):
        if not raw[col].isin(allowed).all():
            raise ValueError(f"{path}: {col} must be one of {allowed}")
    for col in ("provider", "model_id", "version"):
        if (raw[col] == "").any():
            raise ValueError(f"{path}: empty {col}")
    frame = raw[["source", "provider", "model_id", "mode", "version"]].copy()
    try:
        frame["released"] = pd.to_datetime(raw["released"], format="%Y-%m-%d").dt.date
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path}: bad released ({str(e).splitlines()[0]})") from e
    frame["change"] = raw["change"]
    for col in PRICE_COLUMNS:
        frame[col] = checked_prices(raw, col, path, "a finite number >= 0 or empty",
                                    lambda text, v: (text == "") | ((v >= 0) & (v < math.inf)))
    delisted = frame["change"] == DELISTED
    if frame.loc[delisted, list(PRICE_COLUMNS)].notna().any().any():
        raise ValueError(f"{path}: a delisted row states a price")
    if frame.loc[~delisted, ["input", "output"]].isna().any().any():
        raise ValueError(f"{path}: a listed or repriced row without an input and output price")
    if frame.duplicated(["source", "provider", "model_id", "mode", "version"]).any():
        raise ValueError(f"{path}: duplicate (source, provider, model_id, mode, version) rows")
    if meta.get("rows") != len(frame):
        raise ValueError(f"{path}: {len(frame)} rows but {RELEASE_CHANGES_META} says {meta.get('rows')}")
    return frame, meta


def read_release_changes_meta(seed_dir: Path = SEED_DIR) -> dict:
    """Where the change file comes from (the releases read per source, licences), without reading it."""
    return read_meta(Path(seed_dir) / RELEASE_CHANGES_META)


def read_litellm_limits(seed_dir: Path = SEED_DIR) -> tuple[pd.DataFrame, dict]:
    """The token limits LiteLLM's releases stated, and their provenance.

    Columns: litellm_provider and key (LiteLLM's), max_input_tokens, max_tokens, max_output_tokens
    (Int64, null where the release states none, else > 0; at least one stated on a `stated` row,
    none on a `dropped` one), version (str), released (datetime.date, the release's upload day)
    and change (STATED or DROPPED). Raises FileNotFoundError if either file is
    missing and ValueError naming the file if either is damaged.
    """
    path = Path(seed_dir) / LITELLM_LIMITS
    meta = read_meta(Path(seed_dir) / LITELLM_LIMITS_META)
    raw = read_gzip_csv(verified_bytes(path, meta, LITELLM_LIMITS_META), path, LITELLM_LIMITS_COLUMNS)
    for col in ("litellm_provider", "key", "version"):
        if (raw[col] == "").any():
            raise ValueError(f"{path}: empty {col}")
    frame = raw[["litellm_provider", "key"]].copy()
    for col in LIMIT_COLUMNS:
        frame[col] = checked_prices(raw, col, path, "a whole number > 0 or empty",
                                    lambda t, v: (t == "") | ((v > 0) & (v < math.inf) & (v % 1 == 0)))
        frame[col] = frame[col].astype("Int64")
    if not raw["change"].isin((STATED, DROPPED)).all():
        raise ValueError(f"{path}: change must be {STATED} or {DROPPED}")
    if (frame[list(LIMIT_COLUMNS)].isna().all(axis=1) != (raw["change"] == DROPPED)).any():
        raise ValueError(f"{path}: a stated row must state a limit, a dropped row none")
    frame["version"] = raw["version"]
    try:
        frame["released"] = pd.to_datetime(raw["released"], format="%Y-%m-%d").dt.date
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path}: bad released ({str(e).splitlines()[0]})") from e
    frame["change"] = raw["change"]
    if frame.duplicated(["litellm_provider", "key", "version"]).any():
        raise ValueError(f"{path}: duplicate (litellm_provider, key, version) rows")
    if meta.get("rows") != len(frame):
        raise ValueError(f"{path}: {len(frame)} rows but {LITELLM_LIMITS_META} says {meta.get('rows')}")
    return frame, meta
