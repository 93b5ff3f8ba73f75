"""Rebuild warehouse/seed/litellm_limits.csv.gz: the token limits LiteLLM's dated releases stated.

LiteLLM's map states, beside prices, each entry's `max_input_tokens`, `max_tokens` and
`max_output_tokens`. The shipped map (1.110.2) states them only for the entries it still has;
models LiteLLM dropped earlier (`command`, `text-davinci-003`, `gpt-3.5-turbo-0301`,
`gpt-4.5-preview`) had them stated in the releases that listed them. This script reads the same
LiteLLM releases as scripts/build_release_changes.py (pinned there: version, wheel, sha256 and the
data file's sha256 in `release_changes.meta.json`) and writes a row wherever an entry's three
limits are first stated or differ from the previous release read that stated them (`stated`), and
where an entry that stated limits is missing from a release read (`dropped`, limits empty), with
that release's version and upload day. A build of day D reads, per entry dropped by D, the limits
its last release stated (`pipelines.ingest_litellm.release_limits`).

    python scripts/build_litellm_limits.py [--out DIR] [--jobs N]

Downloads: LiteLLM's release list from the registry (for the wheels' addresses) and, from each
pinned wheel, only the data file, by HTTP range requests (as build_release_changes.py does); the
data file's sha256 must be the one `release_changes.meta.json` pins, else nothing is written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scripts.build_release_changes import (
    LITELLM,
    LITELLM_FILE,
    LITELLM_REPOSITORY,
    RELEASE_LIST,
    litellm_releases,
    read_member,
)
from warehouse.release_history import DROPPED, RELEASE_CHANGES_META, STATED, read_release_changes_meta
from warehouse.release_history import LITELLM_LIMITS as OUT_FILE
from warehouse.release_history import LITELLM_LIMITS_COLUMNS as COLUMNS
from warehouse.release_history import LITELLM_LIMITS_META as META_FILE
from warehouse.seed_files import gzip_csv, write_seed

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "warehouse" / "seed"
LIMITS = ("max_input_tokens", "max_tokens", "max_output_tokens")
NOT_MODELS = ("sample_spec", "fallback_generalizations")


def whole(value: object) -> int | None:
    """A limit as a whole number of tokens; None where absent, not a number or not above 0."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return int(number) if number > 0 and number == int(number) else None


def limits_of(data: bytes) -> dict[tuple[str, str], tuple[int | None, ...]]:
    """(litellm_provider, key) → its three limits, for every entry stating at least one."""
    out = {}
    for key, raw in json.loads(data).items():
        if key in NOT_MODELS or not isinstance(raw, dict) or not isinstance(raw.get("litellm_provider"), str):
            continue
        limits = tuple(whole(raw.get(name)) for name in LIMITS)
        if any(v is not None for v in limits):
            out[(raw["litellm_provider"], key)] = limits
    return out


def changes(releases: list[dict], stated: list[dict]) -> list[tuple]:
    """A `stated` row where an entry's limits are first stated, or differ from the last release
    that stated them; a `dropped` row where an entry listed in the release before is missing."""
    rows, last, before = [], {}, {}
    for release, now in zip(releases, stated, strict=True):
        stamp = (release["version"], release["uploaded"][:10])
        for key, limits in now.items():
            if last.get(key) != limits or key not in before:
                rows.append((*key, *limits, *stamp, STATED))
                last[key] = limits
        rows += [(*key, None, None, None, *stamp, DROPPED) for key in before if key not in now]
        before = now
    order = {r["version"]: i for i, r in enumerate(releases)}
    return sorted(rows, key=lambda r: (r[0], r[1], order[r[5]]))


def read_pinned(jobs: int) -> tuple[list[dict], list[dict], dict]:
    """The pinned releases' records, each one's limits, and what reading them cost."""
    pinned = read_release_changes_meta()["sources"][LITELLM]["releases"]
    index_url = RELEASE_LIST.format(package=LITELLM)
    with urllib.request.urlopen(index_url, timeout=120) as response:
        listing = response.read()
    by_file = {r.wheel: r for r in litellm_releases(json.loads(listing), index_url)}
    missing = [p["file"] for p in pinned if p["file"] not in by_file or by_file[p["file"]].sha256 != p["sha256"]]
    if missing:
        raise SystemExit(f"the registry no longer serves these pinned wheels as pinned: {missing}")
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        read = list(pool.map(lambda p: read_member(by_file[p["file"]], p["member"]), pinned))
    for p, (data, _, _) in zip(pinned, read, strict=True):
        if data is None or hashlib.sha256(data).hexdigest() != p["member_sha256"]:
            raise SystemExit(f"{p['file']}: {p['member']} is not the file {RELEASE_CHANGES_META} pins")
    cost = {"release_list_bytes": len(listing), "range_requests": sum(n for _, n, _ in read),
            "range_bytes": sum(b for _, _, b in read), "wheels": len(read)}
    return pinned, [limits_of(data) for data, _, _ in read], cost


def build(out_dir: Path, jobs: int) -> dict:
    pinned, stated, cost = read_pinned(jobs)
    rows = changes(pinned, stated)
    data = gzip_csv(COLUMNS, rows)
    meta = {
        "file": OUT_FILE,
        "file_sha256": hashlib.sha256(data).hexdigest(),
        "rows": len(rows),
        "columns": list(COLUMNS),
        "source": LITELLM,
        "repository": LITELLM_REPOSITORY,
        "licence": "MIT",
        "licence_files": ["LICENSE.litellm"],
        "member": LITELLM_FILE,
        "releases": [{k: p[k] for k in ("version", "file", "sha256", "uploaded", "member_sha256")} for p in pinned],
        "releases_pinned_in": RELEASE_CHANGES_META,
        "download": cost,
        "rule": ("LiteLLM's litellm_provider and key; max_input_tokens, max_tokens, max_output_tokens as the "
                 "release states them (whole numbers above 0, else empty); change `stated` where an entry's "
                 "limits are first stated, stated again after a gap, or differ from the last release read that "
                 "stated them; `dropped` (limits empty) where an entry of the release read before is missing; "
                 "version and released (upload day) of that release."),
        "attribution": f"Token limits from releases of LiteLLM by Berri AI ({LITELLM_REPOSITORY}), MIT licence.",
    }
    write_seed(out_dir, {OUT_FILE: data}, META_FILE, meta, attribution_md(meta))
    return meta


def attribution_md(meta: dict) -> str:
    first, last = meta["releases"][0]["version"], meta["releases"][-1]["version"]
    return f"""# Attribution: {OUT_FILE}

`{OUT_FILE}` records the token limits LiteLLM's releases stated: {meta['rows']} rows, one where
an entry's (litellm_provider, key) `max_input_tokens`, `max_tokens` and `max_output_tokens` are
first stated or change between consecutive releases read, or where the entry is dropped, with that
release's version and upload day.

## Source

- LiteLLM by Berri AI, <{LITELLM_REPOSITORY}>: the {len(meta['releases'])} releases from the package
  registry ({first} to {last}) that `release_changes.csv.gz` reads, file `{LITELLM_FILE}`; every
  wheel's name, sha256 and upload time and the data file's sha256 are in `{META_FILE}`.

## Changes

- Only the three limit fields kept, and only where they change between releases read, or the
  entry is dropped.

## Licence

MIT; the original licence text is in `LICENSE.litellm`.

## Regenerate

    python scripts/build_litellm_limits.py
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: warehouse/seed)")
    parser.add_argument("--jobs", type=int, default=8, help="LiteLLM wheels read in parallel")
    args = parser.parse_args(argv)
    meta = build(args.out, args.jobs)
    cost = meta["download"]
    print(f"{meta['rows']} rows from {len(meta['releases'])} releases: {cost['range_requests']} range requests, "
          f"{cost['range_bytes']} bytes (+ {cost['release_list_bytes']} release list)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
