"""Rebuild warehouse/seed/litellm_prices.json.gz from the pinned LiteLLM release.

LiteLLM (BerriAI) ships `model_prices_and_context_window.json`, a hand-maintained map of a few
thousand model ids to their per-token prices, context windows and capabilities, as a backup copy
inside its Python package. We keep a compact, per-million-token extract of it in the repo, so the
service never depends on litellm (a large package) at run time; this script is how the copy is made.

    python scripts/build_litellm_prices.py [--out DIR] [--wheel PATH]

The sdist cannot be fetched with `pip download --no-binary :all:` without building it: the 1.110.2
sdist is a maturin (Rust) project, and pip preparing its metadata needs maturin, a Rust toolchain and
crates.io. So the pinned manylinux x86_64 wheel is taken instead; the data file is pure JSON, the
same in every wheel of the release, and the wheel's sha256 is checked against the constant below.
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from pathlib import Path

from pipelines.litellm_map import extract
from warehouse.seed_files import LITELLM_PRICES as OUT_NAME
from warehouse.seed_files import LITELLM_PRICES_META as META_NAME
from warehouse.seed_files import check_wheel, gzip_bytes, one_wheel_script, write_seed

PACKAGE = "litellm"
VERSION = "1.110.2"
RELEASED = "2026-11-20"  # upload date of the release's files on PyPI (2026-11-20T04:05Z)
WHEEL = f"litellm-{VERSION}-cp310-abi3-manylinux_2_28_x86_64.whl"
# pip options that select exactly that wheel, whatever machine runs this.
PLATFORM = ("--platform", "manylinux_2_28_x86_64", "--python-version", "3.11", "--implementation", "cp")
WHEEL_SHA256 = "9d94d1c7d524b6fd10c14f9c8c6c4f0ac31705f9964ac59dcfd8337c046d8917"
DATA_FILE = "litellm/model_prices_and_context_window_backup.json"
LICENCE_FILE = f"litellm-{VERSION}.dist-info/licenses/LICENSE"
REPOSITORY = "https://github.com/BerriAI/litellm"
REPO_DATA_FILE = "model_prices_and_context_window.json"
LICENCE_NAME = "LICENSE.litellm"

ATTRIBUTION = (
    f"Model prices and context windows derived from LiteLLM {VERSION} by Berri AI "
    f"({REPOSITORY}, file {REPO_DATA_FILE}), MIT licence."
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_wheel(wheel: Path) -> tuple[bytes, bytes]:
    """The data file and the licence, after checking the wheel is the pinned one."""
    check_wheel(wheel, WHEEL_SHA256)
    with zipfile.ZipFile(wheel) as zf:
        data, licence = zf.read(DATA_FILE), zf.read(LICENCE_FILE)
    check_licence(licence.decode("utf-8"))
    return data, licence


def check_licence(text: str) -> None:
    """MIT outside `enterprise/`; the data file lives in `litellm/`, so MIT is the licence we take."""
    if "MIT License" not in text or "Permission is hereby granted, free of charge" not in text:
        raise SystemExit(f"{LICENCE_FILE} is no longer the MIT licence; review before shipping")
    if DATA_FILE.startswith("enterprise/"):
        raise SystemExit(f"{DATA_FILE} is under enterprise/, which has another licence")


def json_gz(entries: list[dict]) -> bytes:
    """One entry per line, keys sorted, gzip with mtime=0 and no file name: same input, same bytes."""
    lines = ",\n".join(json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for e in entries)
    return gzip_bytes(f"[\n{lines}\n]\n".encode())


def attribution_md(meta: dict) -> str:
    """The LiteLLM section of ATTRIBUTION.md: the MIT notice has to travel with the copy."""
    return f"""# Attribution: {OUT_NAME}

`{OUT_NAME}` is a compact extract of LiteLLM's model price map: {meta['rows']} entries, one per
model key, with prices in USD per million tokens (JSON, one entry per line).

## Source

- Project: LiteLLM by Berri AI, <{REPOSITORY}>, file `{REPO_DATA_FILE}`
- Package: [{PACKAGE}](https://pypi.org/project/{PACKAGE}/) {VERSION}, released {RELEASED};
  read from `{DATA_FILE}` in `{meta['downloaded_file']}`
  (wheel sha256 `{meta['downloaded_sha256']}`, data file sha256 `{meta['package_file_sha256']}`)

## Changes

- Prices converted from USD per token to USD per million tokens (exact decimal arithmetic).
- Kept per entry: provider, mode, base, cache, reasoning and batch prices, context tiers, token
  limits, deprecation date, modalities, reasoning support and flat per-request/per-query fees.
  Other fields (priority and flex prices, per-image/audio/second prices, capability flags) dropped.
- Context tiers stated as `tiered_pricing` ranges are written as tiers; their first range gives
  the base price where the entry states none.
- Alias keys (`alias_of`, e.g. `bedrock/claude-opus-latest`) are kept as alias-only entries.
- `sample_spec` and `fallback_generalizations` (not models) dropped. Ids and values otherwise unchanged.

## Licence

MIT (LiteLLM's `enterprise/` folder has another licence; nothing from it is used); the original
licence text is in `{LICENCE_NAME}`.

## Regenerate

    python scripts/build_litellm_prices.py

Details are recorded in `{META_NAME}`.
"""


def build(wheel: Path, out_dir: Path) -> dict:
    """Write the extract, its meta and licence, update ATTRIBUTION.md; return the meta written."""
    data, licence = read_wheel(wheel)
    entries = extract(data)
    blob = json_gz(entries)
    meta = {
        "source": PACKAGE,
        "source_version": VERSION,
        "released": RELEASED,
        "repository": REPOSITORY,
        "data_file": REPO_DATA_FILE,
        "package_file": DATA_FILE,
        "package_file_sha256": sha256(data),
        "downloaded_file": wheel.name,
        "downloaded_kind": "wheel (manylinux_2_28_x86_64): the sdist needs a Rust toolchain to prepare",
        "downloaded_sha256": WHEEL_SHA256,
        "file": OUT_NAME,
        "file_sha256": sha256(blob),
        "rows": len(entries),
        "units": "USD per million tokens; fees in USD per request or query as stated",
        "licence": "MIT",
        "attribution": ATTRIBUTION,
    }
    write_seed(out_dir, {OUT_NAME: blob, LICENCE_NAME: licence}, META_NAME, meta, attribution_md(meta))
    return meta


def main(argv: list[str] | None = None) -> int:
    return one_wheel_script(argv, __doc__, PACKAGE, VERSION, WHEEL, build, "entries", *PLATFORM)

if __name__ == "__main__":
    sys.exit(main())
