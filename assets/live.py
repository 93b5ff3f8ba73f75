"""The live upstreams: one fetch asset per upstream, off unless enabled, keeping what it read.

Each fetch asset reads its upstream once per run (`assets.fetch`: bounded in time, attempts and
size, shape-checked) and keeps the body and a record of the fetch under the warehouse's `raw/`
area (`warehouse.raw_store`), failed fetches included. It returns no table: the source assets read
the kept copies back (`daily_copies`), so a refresh can be re-run from them alone (`replay`).

A fetch that fails, or that lists at most half the models of the source's last good fetch (a
broken fetch, not a mass retirement), leaves the source on its last good copy; the snapshot
records which sources fell back and why, and `/` reports it.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from dagster import AssetExecutionContext, AssetsDefinition, MaterializeResult, MetadataValue, asset

from assets.fetch import Fetched, FetchFailed, FetchPolicy, fetch
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from pipelines.listings import Listing
from pipelines.live import DailyCopy
from pipelines.open_weight import families_from, family_of
from pipelines.sources import maker_table
from pipelines.upstream_formats import (
    CHECKS,
    MODEL_PRICES,
    OPENROUTER,
    OPENROUTER_ENDPOINTS,
    UPSTREAMS,
    openrouter_endpoints,
)
from warehouse.raw_store import FAILED, OK, FetchRecord, RawStore, timestamp

GROUP = "live"
LIVE, FALLBACK = "live", "fallback"


def _model_prices_manifest(payload: object) -> int:
    if not (isinstance(payload, dict) and isinstance(payload.get("sha256"), str) and len(payload["sha256"]) == 64):
        raise ValueError("expected latest.json naming a snapshot by its sha256")
    return 0


def fetch_upstream(source: str, url: str, policy: FetchPolicy) -> Fetched:
    """Read one upstream. model-prices publishes a folder: `latest.json` names the current
    snapshot by its hash, which the snapshot must match (as the package's own `refresh()` checks);
    an address ending in `.json` is read as the snapshot itself (a mirror of one file)."""
    if source != MODEL_PRICES or url.endswith(".json"):
        return fetch(url, CHECKS[source], policy)
    folder = url if url.endswith("/") else url + "/"
    digest = json.loads(fetch(folder + "latest.json", _model_prices_manifest, policy).body)["sha256"]
    snapshot = fetch(folder + f"{digest}.json", CHECKS[source], policy)
    if hashlib.sha256(snapshot.body).hexdigest() != digest:
        raise FetchFailed(snapshot.url, "the snapshot does not match the hash latest.json gives", snapshot.attempts,
                          snapshot.status)
    return snapshot


def read_upstream(source: str, url: str, policy: FetchPolicy, raw: RawStore, day: str, run_id: str,
                  max_drop: float, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> FetchRecord:
    """Fetch, judge and keep one upstream's payload; the record says what happened."""
    previous = raw.last_good(source)
    try:
        fetched = fetch_upstream(source, url, policy)
    except FetchFailed as failure:
        return raw.save(FetchRecord(source, failure.url, timestamp(now()), FAILED, failure.status,
                                    attempts=failure.attempts, reason=failure.reason, as_of=day, run_id=run_id,
                                    fallback=previous.fetched_at if previous else ""))
    record = FetchRecord(source, fetched.url, timestamp(fetched.fetched_at), OK, fetched.status, models=fetched.models,
                         attempts=fetched.attempts, as_of=day, run_id=run_id)
    if previous is not None and previous.models and fetched.models <= previous.models * (1 - max_drop):
        reason = (f"lists {fetched.models} models against {previous.models} in the last good fetch "
                  f"({previous.fetched_at}): a broken fetch, not a mass retirement")
        record = FetchRecord(**{**vars(record), "outcome": FAILED, "reason": reason, "fallback": previous.fetched_at})
    return raw.save(record, fetched.body)  # kept as it came, a refused body too


def read_endpoints(models: FetchRecord, select: Callable[[list[str]], list[str]], policy: FetchPolicy,
                   raw: RawStore) -> list[FetchRecord]:
    """After a good read of OpenRouter's models list: the endpoint list of each model `select`
    keeps (the open-weight ones, whose hosts' prices make their median), each kept like any fetch."""
    listed = [model["id"] for model in json.loads(raw.body(models))["data"]]
    base = models.url.split("?", 1)[0].rstrip("/")
    out = []
    for model_id in select(listed):
        url = f"{base}/{model_id}/endpoints"
        previous = raw.last_good(OPENROUTER_ENDPOINTS, url=url)
        try:
            fetched = fetch(url, openrouter_endpoints, policy)
        except FetchFailed as failure:
            out.append(raw.save(FetchRecord(OPENROUTER_ENDPOINTS, url, timestamp(datetime.now(UTC)), FAILED,
                                            failure.status, attempts=failure.attempts, reason=failure.reason,
                                            as_of=models.as_of, run_id=models.run_id,
                                            fallback=previous.fetched_at if previous else "")))
            continue
        out.append(raw.save(FetchRecord(OPENROUTER_ENDPOINTS, url, timestamp(fetched.fetched_at), OK, fetched.status,
                                        models=fetched.models, attempts=fetched.attempts, as_of=models.as_of,
                                        run_id=models.run_id), fetched.body))
    return out


def open_weight_ids(sources: PriceSources) -> Callable[[list[str]], list[str]]:
    """Keeps the ids of open-weight models (`:free` and other tags are other offers of the same one)."""
    makers, families = maker_table(sources.seed_table("makers")), families_from(sources.seed_table("open_weight"))
    return lambda ids: [i for i in ids if ":" not in i and family_of(i, makers, families) is not None]


def active_sources(live: LiveSources, settings: RefreshSettings, raw: RawStore) -> tuple[str, ...]:
    """The upstreams this run reads: the enabled ones (OpenRouter's endpoint lists with its models
    list); on a replay, those read on the replayed day."""
    if settings.replay:
        day = settings.as_of_date().isoformat()
        return tuple(source for source in (*UPSTREAMS, OPENROUTER_ENDPOINTS) if raw.on_day(source, day))
    enabled = live.enabled()
    return enabled + ((OPENROUTER_ENDPOINTS,) if OPENROUTER in enabled else ())


def daily_copies(source: str, live: LiveSources, settings: RefreshSettings, warehouse: WarehouseResource,
                 parse: Callable[[bytes, date, FetchRecord], list[Listing]]) -> list[tuple[list[DailyCopy], bool]]:
    """Every day's kept copy of `source` up to the as-of date, parsed, as (copies, still current)
    series: one, whatever address it was read from, but one per model for OpenRouter's endpoint
    lists, where a model not read on the latest day (gone from OpenRouter, or no longer
    open-weight) keeps its history but states no current price. None when the source is not read."""
    raw, through = warehouse.raw(), settings.as_of_date().isoformat()
    if source not in active_sources(live, settings, raw):
        return []
    per_model = source == OPENROUTER_ENDPOINTS
    latest = max((r.as_of for r in raw.records(source) if r.as_of and r.as_of <= through), default="")
    series = []
    for url in raw.urls(source, through) if per_model else [None]:
        copies = []
        for record in raw.daily_good(source, through, url):
            day = date.fromisoformat(record.as_of)
            copies.append(DailyCopy(day, record.url, record.fetched_at, parse(raw.body(record), day, record)))
        current = not per_model or any(r.url == url for r in raw.on_day(source, latest))
        series.append((copies, current))
    return [(copies, current) for copies, current in series if copies]


@dataclass(frozen=True)
class SourceState:
    """How a read source stands on the as-of day: `live` (read that day) or `fallback` (on an
    earlier copy, `used`, or on the bundled data when none), with why."""

    source: str
    state: str
    reason: str = ""
    used: str = ""

    def describe(self) -> str:
        return f"{self.source} fell back to {self.used or 'the bundled data'}: {self.reason}"


def source_states(sources: tuple[str, ...], raw: RawStore, day: str) -> list[SourceState]:
    """Each read source's state, from the day's last fetch record (a replay reads the same ones)."""
    states = []
    for source in sources:
        records = raw.on_day(source, day)
        if source == OPENROUTER_ENDPOINTS and records:  # many addresses: each one's last fetch counts
            last_per_url = {r.url: r for r in records}.values()
            failed = [r for r in last_per_url if r.outcome != OK]
            states.append(SourceState(source, FALLBACK, f"{len(failed)} of {len(last_per_url)} endpoint lists failed, "
                                      f"e.g. {failed[0].url}: {failed[0].reason}", "their last good copies")
                          if failed else SourceState(source, LIVE))
            continue
        last = records[-1] if records else None
        if last is not None and last.outcome == OK:
            states.append(SourceState(source, LIVE))
        else:
            good = raw.daily_good(source, day)
            used = f"its copy of {good[-1].fetched_at}" if good else ""
            states.append(SourceState(source, FALLBACK, last.reason if last else "no fetch recorded", used))
    return states


def _fetch_asset(source: str) -> AssetsDefinition:
    name = "fetch_" + source.replace("-", "_")

    @asset(name=name, group_name=GROUP, kinds={"http"},
           description=f"Read {source} live (off unless ORACLE_LIVE_SOURCES or run config names it) and keep the "
                       "body and a record of the fetch under the warehouse's raw/ area.")
    def fetch_source(context: AssetExecutionContext, live: LiveSources, warehouse: WarehouseResource,
                     settings: RefreshSettings, sources: PriceSources) -> MaterializeResult:
        if source not in live.enabled() or settings.replay:
            why = "replaying kept copies" if settings.replay else "not enabled"
            return MaterializeResult(metadata={"read": MetadataValue.text(why)})
        raw = warehouse.raw()
        record = read_upstream(source, live.url(source), live.policy(), raw, settings.as_of_date().isoformat(),
                               context.run_id, live.max_drop)
        if record.outcome != OK:
            context.log.warning(f"{source}: {record.reason}; using its last good copy"
                                f"{' of ' + record.fallback if record.fallback else ' (none: the bundled data)'}")
        endpoints = {}
        if source == OPENROUTER and record.outcome == OK:
            read = read_endpoints(record, open_weight_ids(sources), live.policy(), raw)
            endpoints = {"endpoint_lists": len(read), "endpoint_lists_failed": sum(r.outcome != OK for r in read)}
        return MaterializeResult(metadata={**endpoints,
            "read": MetadataValue.text(record.outcome), "url": MetadataValue.url(record.url),
            "fetched_at": MetadataValue.text(record.fetched_at), "status": record.status or 0,
            "bytes": record.bytes, "models": record.models or 0, "attempts": record.attempts,
            "fallback_used": record.outcome != OK,
            "fallback_copy": MetadataValue.text(record.fallback or ("" if record.outcome == OK else "bundled data")),
            "reason": MetadataValue.text(record.reason), "sha256": MetadataValue.text(record.sha256 or ""),
        })

    return fetch_source


FETCH_ASSETS = {source: _fetch_asset(source) for source in UPSTREAMS}
