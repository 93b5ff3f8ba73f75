"""Rebuild warehouse/seed/release_changes.csv.gz: what dated releases of model-prices and LiteLLM changed.

A package release is a dated statement: the files uploaded on day D list model M at price P.
This script reads every release of model-prices (0.0.1 to 0.0.5) and releases of LiteLLM sampled
at most a week apart by upload date, from 0.11.1 (2023-10-20), the first release whose wheel
ships `litellm/model_prices_and_context_window_backup.json` (earlier ones fetched the map from the
repository at run time; the script checks the release before it has no such file), to 1.110.2,
the release the shipped litellm_prices seed comes from. Each release is read with the project's
own readers: model-prices' data by `ingest_model_prices.model_prices_listings` (the price in force
on the upload day: the latest entry dated on or before it), LiteLLM's map by
`litellm_map.extract` and `ingest_litellm.litellm_listings`, one entry at a time so each row keeps
LiteLLM's own key and provider. A row is written only where a series (source, provider, model id,
mode) changes between consecutive releases read: `listed` (first seen, or seen again), `price`
(input, output, cache read or cache write differs) or `delisted`.

    python scripts/build_release_changes.py [--out DIR] [--wheel-dir DIR] [--jobs N]

LiteLLM's sample: releases that are not pre-releases, not yanked, and newer than every release
uploaded before them (a later patch of an older branch restates older prices); from the first,
each next one is the last such release uploaded within 7 days, or the next one after a longer
gap. The meta JSON lists those gaps: the package registry holds no LiteLLM release between
1.14.4 (2023-12-14) and 1.53.1 (2024-11-28), so nothing in that year is dated closer than that,
and a few later weeks have no stable release (gaps of 8 to 18 days).

Downloads: model-prices wheels whole, with pip, checked against the sha256 pinned below. From
LiteLLM's wheels (up to 42 MB each) only the price map is read, with HTTP range requests: the
zip's end record and central directory, then that one member, whose CRC-32 the zip reader checks.
The wheel's sha256 as the registry states it and the member's own sha256 go in the meta JSON.
The sample is drawn from the registry's release list at run time; its files never change, so a
rebuild gives the same bytes while the registry keeps those releases.

Rebuild cost, measured 2026-11-24 on the project's 2-core machine with the default --jobs 8:
33 to 37 s wall time (two runs). Downloads: the 5 model-prices wheels (321 KB), LiteLLM's release
list from the registry (2.6 MB) and 386 range requests against 125 LiteLLM wheels (40.4 MB):
43.4 MB in all, where those 125 whole wheels would be 1.6 GB.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import urllib.parse
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path

from packaging.version import Version

from pipelines.ingest_litellm import litellm_listings
from pipelines.ingest_model_prices import model_prices_listings
from pipelines.listings import same_price
from pipelines.litellm_map import extract
from warehouse.release_history import DELISTED, LISTED, REPRICED
from warehouse.release_history import PRICE_COLUMNS as PRICE_KEYS
from warehouse.release_history import RELEASE_CHANGES as OUT_FILE
from warehouse.release_history import RELEASE_CHANGES_COLUMNS as COLUMNS
from warehouse.release_history import RELEASE_CHANGES_META as META_FILE
from warehouse.seed_files import Release, check_wheel, download_wheel, gzip_csv, in_wheel_dir, write_seed

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "warehouse" / "seed"
MAX_GAP_DAYS = 7

MODEL_PRICES = "model-prices"
MODEL_PRICES_REPOSITORY = "https://github.com/wakamex/model-prices"
MODEL_PRICES_LICENCES = {"LICENSE.model-prices": "licenses/LICENSE",
                         "LICENSE.models.dev": "licenses/data/LICENSE.models.dev"}

LITELLM = "litellm"
LITELLM_REPOSITORY = "https://github.com/BerriAI/litellm"
LITELLM_FILE = "litellm/model_prices_and_context_window_backup.json"
LITELLM_FIRST, LITELLM_LAST = "0.11.1", "1.110.2"
RELEASE_LIST = "https://pypi.org/pypi/{package}/json"
BLOCK = 1 << 16  # bytes per range request at least: the end record and a small central directory in one


# Every wheel of model-prices, in release order. 0.0.1 and 0.0.2 ship `model_prices/data/prices.json`
# (schema_version 1); `model_prices/snapshot.json` replaces it from 0.0.3.
MODEL_PRICES_RELEASES: tuple[Release, ...] = (
    Release("0.0.1", "model_prices-0.0.1-py3-none-any.whl",
            "ca01abd995f80cb004e760bb09423a196ce967e3e9fa0dded22f139d63951ad3", "2026-10-01T20:06:21.867739Z"),
    Release("0.0.2", "model_prices-0.0.2-py3-none-any.whl",
            "330fdeda763f17619918e0d9a34b4466d10da9ee45346c10b4521ef9f165b3cc", "2026-10-03T20:07:49.878661Z"),
    Release("0.0.3", "model_prices-0.0.3-py3-none-any.whl",
            "a9c4671b044b625404685bca05b133397eff1c3bba132f78c4ff04b43b39fd46", "2026-10-04T01:46:41.335766Z"),
    Release("0.0.4", "model_prices-0.0.4-py3-none-any.whl",
            "685f36ec094ae03ebcbaeba54caa77e255056ab09842e33127ba4c7caef8a946", "2026-10-08T19:49:53.065153Z"),
    Release("0.0.5", "model_prices-0.0.5-py3-none-any.whl",
            "dd134760da4798fdac4b2c1ba050028871f95ed04b90343b09e8d920d0a9bad9", "2026-10-26T19:00:47.680934Z"),
)
MODEL_PRICES_FILES = ("model_prices/snapshot.json", "model_prices/data/prices.json")


class RangeFile(io.RawIOBase):
    """A remote file read through HTTP range requests, enough for zipfile to find and read one member.
    Keeps what it fetched, and counts requests and bytes."""

    def __init__(self, url: str, size: int):
        self.url, self.size, self.pos = url, size, 0
        self.blocks: list[tuple[int, bytes]] = []
        self.requests = self.fetched = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = (offset, self.pos + offset, self.size + offset)[whence]
        return self.pos

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.size - self.pos)
        if n <= 0:
            return 0
        block = next(((s, b) for s, b in self.blocks if s <= self.pos and self.pos + n <= s + len(b)), None)
        if block is None:  # reading near the end takes the whole last block: end record and central directory
            start = min(self.pos, max(0, self.size - BLOCK))
            block = self._fetch(start, min(self.size, max(self.pos + n, start + BLOCK)))
        start, data = block
        buffer[:n] = data[self.pos - start:self.pos - start + n]
        self.pos += n
        return n

    def _fetch(self, start: int, end: int) -> tuple[int, bytes]:
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={start}-{end - 1}"})
        for attempt in range(3):
            try:
                with urllib.request.urlopen(request, timeout=120) as response:
                    data = response.read()
                if response.status != 206 or len(data) != end - start:
                    raise SystemExit(f"{self.url}: range {start}-{end - 1}: {response.status}, {len(data)} bytes")
                break
            except OSError:
                if attempt == 2:
                    raise
        self.requests += 1
        self.fetched += len(data)
        self.blocks.append((start, data))
        return start, data


def read_member(release: Release, member: str) -> tuple[bytes | None, int, int]:
    """(the member's bytes or None where the wheel has none, range requests made, bytes fetched)."""
    remote = RangeFile(release.url, release.size)
    with zipfile.ZipFile(remote) as zf:
        data = zf.read(member) if member in zf.namelist() else None  # the CRC-32 is checked
    return data, remote.requests, remote.fetched


def litellm_releases(index: dict, index_url: str) -> list[Release]:
    """Every release that could be read, in upload order: one wheel each (the pure one where there is,
    else the first by name: the data file is the same in every wheel of a release)."""
    out = []
    for version, files in index["releases"].items():
        wheels = sorted((f for f in files if f["filename"].endswith(".whl") and not f.get("yanked")),
                        key=lambda f: (not f["filename"].endswith("-none-any.whl"), f["filename"]))
        if wheels and not Version(version).is_prerelease:
            w = wheels[0]
            out.append(Release(version, w["filename"], w["digests"]["sha256"], w["upload_time_iso_8601"],
                               urllib.parse.urljoin(index_url, w["url"]), int(w["size"])))
    return sorted(out, key=lambda r: r.uploaded)


def mainline(releases: list[Release]) -> list[Release]:
    """Releases newer than every release uploaded before them: a later patch of an old branch is left out."""
    out, newest = [], None
    for release in releases:
        if newest is None or Version(release.version) > newest:
            out.append(release)
            newest = Version(release.version)
    return out


def _day(release: Release) -> date:
    return date.fromisoformat(release.released)


def sample(releases: list[Release], max_gap: int = MAX_GAP_DAYS) -> list[Release]:
    """From the first release, each next one the last uploaded within `max_gap` days of the one
    before (or the next one, after a longer gap); the last release is always taken."""
    if not releases:
        return []
    picked, i = [releases[0]], 0
    while i < len(releases) - 1:
        reach = [j for j in range(i + 1, len(releases)) if (_day(releases[j]) - _day(releases[i])).days <= max_gap]
        i = reach[-1] if reach else i + 1
        picked.append(releases[i])
    return picked


def snapshot_of(data: dict) -> dict:
    """model-prices' data as `model_prices_listings` reads it. 0.0.1 and 0.0.2 (schema_version 1) list
    per model dated rates with the other modes nested; they are laid out as the later snapshot,
    unchanged in value, so one reader parses every release."""
    if "schema_version" not in data:
        return data
    prices: dict = {}
    for provider, models in data["providers"].items():
        for model, entries in models.items():
            modes = prices.setdefault(provider, {}).setdefault(model, {})
            for entry in entries:
                base = {k: v for k, v in entry["rates"].items() if k != "modes"}
                for mode, rates in [("standard", base), *entry["rates"].get("modes", {}).items()]:
                    modes.setdefault(mode, []).append(
                        {"rates": {**rates, "valid_from": entry["valid_from"]}, "start": None})
    return {"prices": prices, "updated_at": data.get("source_committed_at")}


Series = dict[tuple[str, str, str], tuple[float | None, ...]]  # (provider, model id, mode) -> prices


def model_prices_series(snapshot: dict, release: Release) -> Series:
    """The price of each (provider, model, mode) in force on the upload day, as the release states it:
    the latest entry dated on or before that day (corrections' replaced values left out)."""
    day, in_force = _day(release), {}
    for listing in model_prices_listings(snapshot, release.version):
        key = (listing.provider, listing.source_model_id, listing.mode)
        if listing.note is None and listing.effective_date <= day and (
                key not in in_force or listing.effective_date >= in_force[key].effective_date):
            in_force[key] = listing
    return {key: tuple(getattr(listing, k) for k in PRICE_KEYS) for key, listing in in_force.items()}


def litellm_series(blob: bytes, release: Release) -> Series:
    """Each priced text entry of the map and mode, by LiteLLM's own provider and key: the entries
    `litellm_listings` takes, at the prices it takes."""
    out = {}
    for entry in extract(blob):
        # Deprecation is not kept here, and older maps write some dates as "2025-1-6", which the
        # listing's deprecation check refuses.
        entry = {k: v for k, v in entry.items() if k != "deprecation_date"}
        for listing in litellm_listings([entry], release.version, _day(release)):
            prices = tuple(getattr(listing, k) for k in PRICE_KEYS)
            out[(entry["litellm_provider"], entry["key"], listing.mode)] = prices
    return out


def changes(source: str, releases: list[Release], series: list[Series]) -> list[tuple]:
    """A row where a series is first seen or seen again, changes price, or is gone."""
    rows, before = [], {}
    for release, now in zip(releases, series, strict=True):
        stamp = (release.version, release.released)
        for key, prices in now.items():
            if key not in before:
                rows.append((source, *key, *stamp, LISTED, *prices))
            elif not all(same_price(a, b) for a, b in zip(prices, before[key], strict=True)):
                rows.append((source, *key, *stamp, REPRICED, *prices))
        rows += [(source, *key, *stamp, DELISTED, *(None,) * len(PRICE_KEYS)) for key in before if key not in now]
        before = now
    order = {r.version: i for i, r in enumerate(releases)}
    return sorted(rows, key=lambda r: (r[1], r[2], r[3], order[r[4]]))


def read_model_prices(wheel_dir: Path) -> tuple[list[Series], list[dict], dict[str, bytes], int]:
    """Every model-prices release's series, its record for the meta JSON, the licences of the last
    wheel and the bytes downloaded."""
    series, records, downloaded = [], [], 0
    for release in MODEL_PRICES_RELEASES:
        path = wheel_dir / release.wheel
        if not path.exists() and download_wheel(MODEL_PRICES, release.version, wheel_dir, "--quiet") != path:
            raise SystemExit(f"pip did not fetch {release.wheel}")
        downloaded += len(check_wheel(path, release.sha256))
        with zipfile.ZipFile(path) as zf:
            member = next(m for m in MODEL_PRICES_FILES if m in zf.namelist())
            data = zf.read(member)
            dist_info = f"model_prices-{release.version}.dist-info/"
            if release == MODEL_PRICES_RELEASES[-1]:  # the licences as the newest release states them
                licences = {name: zf.read(dist_info + inner) for name, inner in MODEL_PRICES_LICENCES.items()}
        series.append(model_prices_series(snapshot_of(json.loads(data)), release))
        records.append(record(release, member, data, series[-1]))
    return series, records, licences, downloaded


def read_litellm(jobs: int) -> tuple[list[Release], list[Series], list[dict], dict]:
    """The sampled LiteLLM releases, their series, their records and what reading them cost."""
    index_url = RELEASE_LIST.format(package=LITELLM)
    with urllib.request.urlopen(index_url, timeout=120) as response:
        listing = response.read()
    releases = mainline(litellm_releases(json.loads(listing), index_url))
    versions = [r.version for r in releases]
    first, last = versions.index(LITELLM_FIRST), versions.index(LITELLM_LAST)
    picked = sample(releases[first:last + 1])
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        read = list(pool.map(lambda r: read_member(r, LITELLM_FILE), [releases[first - 1], *picked]))
    if read[0][0] is not None:
        raise SystemExit(f"{releases[first - 1].version} already ships {LITELLM_FILE}: move LITELLM_FIRST back")
    if any(data is None for data, _, _ in read[1:]):
        raise SystemExit(f"a sampled release lacks {LITELLM_FILE}")
    series = [litellm_series(data, r) for r, (data, _, _) in zip(picked, read[1:], strict=True)]
    records = [record(r, LITELLM_FILE, data, s) for r, (data, _, _), s in zip(picked, read[1:], series, strict=True)]
    cost = {"release_list_bytes": len(listing), "range_requests": sum(n for _, n, _ in read),
            "range_bytes": sum(b for _, _, b in read), "wheels": len(read)}
    return picked, series, records, cost


def record(release: Release, member: str, data: bytes, series: Series) -> dict:
    return {"version": release.version, "file": release.wheel, "sha256": release.sha256, "uploaded": release.uploaded,
            "member": member, "member_sha256": hashlib.sha256(data).hexdigest(), "series": len(series)}


def gaps(releases: list[Release]) -> list[dict]:
    """Consecutive releases read more than MAX_GAP_DAYS apart: the registry holds none between them."""
    return [{"after": a.version, "before": b.version, "days": (_day(b) - _day(a)).days}
            for a, b in zip(releases, releases[1:], strict=False) if (_day(b) - _day(a)).days > MAX_GAP_DAYS]


def build(wheel_dir: Path, out_dir: Path, jobs: int) -> dict:
    """Write the change file, its meta JSON and model-prices' licences; return the metadata written."""
    mp_series, mp_records, licences, mp_bytes = read_model_prices(wheel_dir)
    ll_releases, ll_series, ll_records, ll_cost = read_litellm(jobs)
    rows = (changes(MODEL_PRICES, list(MODEL_PRICES_RELEASES), mp_series)
            + changes(LITELLM, ll_releases, ll_series))
    data = gzip_csv(COLUMNS, rows)
    counts = {s: {c: sum(1 for r in rows if r[0] == s and r[6] == c) for c in (LISTED, REPRICED, DELISTED)}
              for s in (MODEL_PRICES, LITELLM)}
    meta = {
        "file": OUT_FILE,
        "file_sha256": hashlib.sha256(data).hexdigest(),
        "rows": len(rows),
        "rows_by_source": counts,
        "columns": list(COLUMNS),
        "sources": {
            MODEL_PRICES: {
                "repository": MODEL_PRICES_REPOSITORY, "licence": "MIT", "licence_files": sorted(licences),
                "data_from": "models.dev (MIT), with model-prices' sourced corrections",
                "releases": mp_records, "downloaded_bytes": mp_bytes,
                "selection": "every release",
                "price_rule": "the entry in force on the upload day: the latest dated on or before it",
            },
            LITELLM: {
                "repository": LITELLM_REPOSITORY, "licence": "MIT", "licence_files": ["LICENSE.litellm"],
                "releases": ll_records, "download": ll_cost,
                "selection": (f"releases from {LITELLM_FIRST} (the first wheel with {LITELLM_FILE}) to "
                              f"{LITELLM_LAST}, no pre-releases or later patches of older branches, at most "
                              f"{MAX_GAP_DAYS} days apart where the registry holds releases"),
                "gaps": gaps(ll_releases),
                "price_rule": "each entry's sync and batch prices as ingest_litellm.litellm_listings takes them",
            },
        },
        "price_rule": ("USD per million tokens. model-prices rows are keyed by its provider (as "
                       "ingest_model_prices names it) and model id; LiteLLM rows by its litellm_provider and key. "
                       "mode is sync or batch. change: listed (first seen in the releases read, or seen "
                       "again), price (a price differs from the previous release read) or delisted "
                       "(prices empty)."),
        "attribution": (f"Price changes derived from releases of {MODEL_PRICES} ({MODEL_PRICES_REPOSITORY}; its "
                        f"data from models.dev) and of LiteLLM by Berri AI ({LITELLM_REPOSITORY}), MIT licences."),
    }
    write_seed(out_dir, {OUT_FILE: data, **licences}, META_FILE, meta, attribution_md(meta))
    return meta


def attribution_md(meta: dict) -> str:
    """This file's section of ATTRIBUTION.md: the MIT notices have to travel with the copy."""
    mp, ll = meta["sources"][MODEL_PRICES], meta["sources"][LITELLM]
    return f"""# Attribution: {OUT_FILE}

`{OUT_FILE}` records how dated package releases restated model prices: {meta['rows']} rows, one
where a (source, provider, model id, mode) series is first listed, changes its input, output,
cache read or cache write price (USD per million tokens), or is delisted between consecutive
releases read, with that release's version and upload date.

## Sources

- model-prices by wakamex, <{MODEL_PRICES_REPOSITORY}>: all {len(mp['releases'])} releases from the
  package registry ({mp['releases'][0]['version']} to {mp['releases'][-1]['version']}), file
  `model_prices/data/prices.json` or `model_prices/snapshot.json`. Its data derive from models.dev
  (<https://github.com/sst/models.dev>).
- LiteLLM by Berri AI, <{LITELLM_REPOSITORY}>: {len(ll['releases'])} releases from the package registry
  ({ll['releases'][0]['version']} to {ll['releases'][-1]['version']}), at most {MAX_GAP_DAYS} days apart
  where the registry holds a release; file `{LITELLM_FILE}`.

Every wheel's name, sha256 and upload time and the data file's sha256 are in `{META_FILE}`.

## Changes

- Read with the project's ingest functions: model-prices' price in force on each upload day;
  LiteLLM's sync and batch prices of text models, converted from USD per token.
- Only changes between consecutive releases kept; other fields dropped.

## Licence

MIT; the original licence texts are in `LICENSE.model-prices` and `LICENSE.models.dev`
(model-prices and its data) and `LICENSE.litellm`.

## Regenerate

    python scripts/build_release_changes.py
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: warehouse/seed)")
    parser.add_argument("--wheel-dir", type=Path,
                        help="keep model-prices wheels here and reuse those already present (default: a temp dir)")
    parser.add_argument("--jobs", type=int, default=8, help="LiteLLM wheels read in parallel")
    args = parser.parse_args(argv)
    started = datetime.now()
    meta = in_wheel_dir(args.wheel_dir, lambda wheels: build(wheels, args.out, args.jobs))
    cost = meta["sources"][LITELLM]["download"]
    print(f"{meta['rows']} rows: {json.dumps(meta['rows_by_source'])}")
    print(f"model-prices: {len(meta['sources'][MODEL_PRICES]['releases'])} releases, "
          f"{meta['sources'][MODEL_PRICES]['downloaded_bytes']} bytes; litellm: "
          f"{len(meta['sources'][LITELLM]['releases'])} releases, {cost['range_requests']} range requests, "
          f"{cost['range_bytes']} bytes (+ {cost['release_list_bytes']} release list)")
    print(f"wrote {args.out} in {(datetime.now() - started).total_seconds():.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
