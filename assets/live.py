"""The live upstreams: one fetch asset per upstream, off unless enabled, and the kept copies read back.

Each fetch asset reads its upstream once per run (`assets.live_read`) and keeps the body and a
record of the fetch under the warehouse's `raw/` area (`warehouse.raw_store`), failed fetches
included. It returns no table: the source assets read the kept copies back (`daily_copies`), so a
run can be rebuilt from them alone.

A run fetches only for today (UTC): a run for another day (a backfill, `oracle refresh --replay`)
fetches nothing and reads the copies kept up to its day, from the sources that were read on it;
otherwise today's catalogue would be filed under a past day. A fetch that fails, or is refused,
leaves the source on its last good copy; the snapshot records which sources fell back and why,
and `/` reports it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    AssetsDefinition,
    DataVersion,
    Failure,
    MaterializeResult,
    MetadataValue,
    asset,
)

from assets.live_read import Parse, open_weight_ids, parsers, read_endpoints, read_upstream
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from pipelines.live import DailyCopy
from pipelines.upstream_formats import OPENROUTER, OPENROUTER_ENDPOINTS, UPSTREAMS
from warehouse.raw_store import OK, RawStore, daily_good

GROUP = "live"
LIVE, FALLBACK = "live", "fallback"


def fetching(live: LiveSources, settings: RefreshSettings, today: Callable[[], date] = lambda: datetime.now(UTC).date()
             ) -> bool:
    """Whether this run reads the upstreams: not on a replay, and only for today unless told
    otherwise (`past_days`, for a mirror that serves a past day's files, and the tests)."""
    return not settings.replay and (live.past_days or settings.as_of_date() == today())


def active_sources(live: LiveSources, settings: RefreshSettings, raw: RawStore) -> tuple[str, ...]:
    """The sources this run reads: the enabled ones when it fetches, else those read on its day;
    OpenRouter's endpoint lists with its models list."""
    if fetching(live, settings):
        sources = live.enabled()
    else:
        day = settings.as_of_date().isoformat()
        sources = tuple(source for source in UPSTREAMS if raw.on_day(source, day))
    return sources + ((OPENROUTER_ENDPOINTS,) if OPENROUTER in sources else ())


def daily_copies(source: str, live: LiveSources, settings: RefreshSettings, warehouse: WarehouseResource,
                 parse: Parse) -> tuple[list[tuple[list[DailyCopy], bool]], list[str]]:
    """Every day's kept copy of `source` up to the as-of date, parsed, as (copies, still current)
    series: one, whatever address it was read from, but one per model for OpenRouter's endpoint
    lists, where a model not read on the latest day (gone from OpenRouter, or no longer
    open-weight) keeps its history but states no current price. None (two empty lists) when the
    source is not read. Also what could not be read (a copy its parser now refuses, after a
    package upgrade): skipped."""
    raw, through = warehouse.raw(), settings.as_of_date().isoformat()
    if source not in active_sources(live, settings, raw):
        return [], []
    per_model = source == OPENROUTER_ENDPOINTS
    records = raw.records(source)  # read once: every question below is asked of them
    seen = [r for r in records if r.as_of and r.as_of <= through]
    latest = max((r.as_of for r in seen), default="")
    read_latest = {r.url for r in seen if r.as_of == latest}
    series, unreadable = [], []
    for url in sorted({r.url for r in seen}) if per_model else [None]:
        copies = []
        for record in daily_good(records, through, url):
            day = date.fromisoformat(record.as_of)
            try:
                copies.append(DailyCopy(day, record.url, record.fetched_at, parse(raw.body(record), day, record.url)))
            except Exception as error:  # noqa: BLE001 (one unreadable copy must not stop the run)
                unreadable.append(f"{record.url} at {record.fetched_at}: {type(error).__name__}: {str(error)[:200]}")
        current = not per_model or url in read_latest
        if copies:
            series.append((copies, current))
    return series, unreadable


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


def refuse_if_every_source_failed(states: list[SourceState]) -> None:
    """A run whose every live source failed would be the bundled data alone, dressed as a fresh
    read: it publishes nothing, and says why."""
    if states and all(state.state == FALLBACK for state in states):
        raise Failure("every live source failed, so nothing is published: "
                      + "; ".join(state.describe() for state in states))


def _endpoints_state(raw: RawStore, day: str) -> SourceState:
    models = raw.on_day(OPENROUTER, day)
    if not models or models[-1].outcome != OK:
        return SourceState(OPENROUTER_ENDPOINTS, FALLBACK, "not read: OpenRouter's models list was not",
                           "their last good copies")
    last_per_url = list({r.url: r for r in raw.on_day(OPENROUTER_ENDPOINTS, day)}.values())
    failed = [r for r in last_per_url if r.outcome != OK]
    if not failed:
        return SourceState(OPENROUTER_ENDPOINTS, LIVE)
    return SourceState(OPENROUTER_ENDPOINTS, FALLBACK, f"{len(failed)} of {len(last_per_url)} endpoint lists failed, "
                       f"e.g. {failed[0].url}: {failed[0].reason}", "their last good copies")


def source_states(sources: tuple[str, ...], raw: RawStore, day: str) -> list[SourceState]:
    """Each read source's state on `day`, from that day's last fetch record (a replay reads the
    same ones); the copy a failed fetch fell back to is the one its record names."""
    states = []
    for source in sources:
        if source == OPENROUTER_ENDPOINTS:
            states.append(_endpoints_state(raw, day))
            continue
        records = raw.on_day(source, day)
        last = records[-1] if records else None
        if last is not None and last.outcome == OK:
            states.append(SourceState(source, LIVE))
        else:
            used = f"its copy of {last.fallback}" if last is not None and last.fallback else ""
            states.append(SourceState(source, FALLBACK, last.reason if last else "no fetch recorded", used))
    return states


NOT_READ = DataVersion("not read")


def fetched_version(sha256: str) -> DataVersion:
    """A fetch's data version: the content hash of the body read, so a new catalogue shows as
    "upstream changed" on the source asset that reads it; `not read` for a fetch that read no
    body (off, replaying, or failed: the source stays on its last good copy)."""
    return DataVersion(f"sha256:{sha256[:16]}") if sha256 else NOT_READ


READ = "read"  # the fetch asset's check: warns in the UI when the upstream could not be read


def _read_check(passed: bool, said: str) -> list[AssetCheckResult]:
    """The fetch's check result: a failed fetch is a warning, not a failed run (the source falls
    back to its last good copy and the others go on), so the step is never shown green over it."""
    return [AssetCheckResult(check_name=READ, passed=passed, severity=AssetCheckSeverity.WARN,
                             description=said, metadata={"said": MetadataValue.text(said)})]


def _fetch_asset(source: str) -> AssetsDefinition:
    name = "fetch_" + source.replace("-", "_")

    @asset(name=name, group_name=GROUP, kinds={"http"},
           check_specs=[AssetCheckSpec(READ, asset=name, description=f"{source} was read, or was not to be read "
                                                                       "(off, replaying, or another day)")],
           description=f"Read {source} live (off unless ORACLE_LIVE_SOURCES or run config names it) and keep the "
                       "body and a record of the fetch under the warehouse's raw/ area.")
    def fetch_source(context: AssetExecutionContext, live: LiveSources, warehouse: WarehouseResource,
                     settings: RefreshSettings, sources: PriceSources) -> MaterializeResult:
        if source not in live.enabled() or not fetching(live, settings):
            why = ("not enabled" if source not in live.enabled() else "replaying kept copies" if settings.replay
                   else "the as-of day is not today: reading kept copies only")
            return MaterializeResult(metadata={"read": MetadataValue.text(why)}, data_version=NOT_READ,
                                     check_results=_read_check(True, f"not read: {why}"))
        raw, day, read = warehouse.raw(), settings.as_of_date(), parsers(sources)
        record = read_upstream(source, live.url(source), live.policy(), raw, day, context.run_id, read[source],
                               live.max_drop)
        if record.outcome != OK:
            context.log.warning(f"{source}: {record.reason}; using its last good copy"
                                f"{' of ' + record.fallback if record.fallback else ' (none: the bundled data)'}")
        endpoints = {}
        if source == OPENROUTER and record.outcome == OK:
            lists = read_endpoints(record, open_weight_ids(sources), live.policy(), raw, read[OPENROUTER_ENDPOINTS])
            endpoints = {"endpoint_lists": len(lists), "endpoint_lists_failed": sum(r.outcome != OK for r in lists)}
        version = fetched_version(record.sha256 if record.outcome == OK else "")
        said = (f"read {record.models or 0} models from {record.url}" if record.outcome == OK else
                f"{record.outcome}: {record.reason}; using "
                + (f"its last good copy of {record.fallback}" if record.fallback else "the bundled data"))
        return MaterializeResult(data_version=version, check_results=_read_check(record.outcome == OK, said), metadata={
            **endpoints, "read": MetadataValue.text(record.outcome), "url": MetadataValue.url(record.url),
            "fetched_at": MetadataValue.text(record.fetched_at), "status": record.status or 0,
            "bytes": record.bytes, "models": record.models or 0, "attempts": record.attempts,
            "fallback_used": record.outcome != OK,
            "fallback_copy": MetadataValue.text(record.fallback or ("" if record.outcome == OK else "bundled data")),
            "reason": MetadataValue.text(record.reason), "sha256": MetadataValue.text(record.sha256 or ""),
        })

    return fetch_source


FETCH_ASSETS = {source: _fetch_asset(source) for source in UPSTREAMS}
