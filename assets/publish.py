"""Publishing: the snapshot becomes current only after every table and blocking check passed."""

import re
from datetime import UTC, datetime

import pandas as pd
from dagster import (
    AssetExecutionContext,
    Failure,
    HookContext,
    MaterializeResult,
    MetadataValue,
    asset,
    failure_hook,
)

from assets.live import SourceState, active_sources, refuse_if_every_source_failed, source_states
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from pipelines.changes import Changes, what_changed
from pipelines.ici import METHODOLOGY_VERSION
from pipelines.ici_record import record_levels
from warehouse.index_record import RECORD_TABLES, IndexRecord, canonical
from warehouse.runs import RunStatus, publishing, record_run
from warehouse.schemas import SCHEMAS
from warehouse.snapshot import SnapshotStore, to_millis_utc

# Every table an asset builds, in pipeline order: the snapshot waits for each and publishes them
# all, with the index's record (RECORD_TABLES), which the snapshot itself writes.
TABLES = [name for name in SCHEMAS if name not in RECORD_TABLES]


def run_changes(store: SnapshotStore, run_id: str, sources_now: dict[str, str]) -> Changes:
    """What this run's snapshot changes against the current one (`pipelines.changes`)."""
    current = store.current()

    def before(name: str) -> pd.DataFrame:
        return store.read_table(name, current) if current is not None else pd.DataFrame(columns=SCHEMAS[name].names)

    def after(name: str) -> pd.DataFrame:
        staged = store.read_staged(run_id, name)
        return staged if staged is not None else before(name)

    return what_changed(before("spots"), after("spots"), before("events"), after("events"),
                        current.extra.get("sources", {}) if current is not None else {}, sources_now)


def stage_index_record(store: SnapshotStore, run_id: str, at: datetime) -> dict:
    """The index's record with this run's levels appended (`pipelines.ici_record`), staged into
    the snapshot about to be published as `at`; returned to be written beside it once published."""
    record = IndexRecord(store.storage)
    history = store.read_staged(run_id, "ici_history")
    if history is None:  # a run that did not rebuild the index: the current snapshot's levels
        history = store.read_table("ici_history")
    published, revisions = record_levels(history, record.read("ici_published"),
                                         record.read("ici_revisions"), at, store.snapshot_id_for(run_id, at),
                                         METHODOLOGY_VERSION)
    frames = {"ici_published": canonical("ici_published", published), "ici_revisions": canonical("ici_revisions",
                                                                                                   revisions)}
    for name, frame in frames.items():
        store.write_table(run_id, name, frame)
    return frames


def live_extra(states: list[SourceState]) -> dict:
    """The manifest's record of the live sources: each one's state, and why any fell back
    (`refuse_if_every_source_failed` first: a run without `source_fetches` reaches here)."""
    refuse_if_every_source_failed(states)
    return {state.source: {"state": state.state, "reason": state.reason, "used": state.used} for state in states}


@asset(deps=TABLES, group_name="publish")
def snapshot(context: AssetExecutionContext, warehouse: WarehouseResource, settings: RefreshSettings,
             sources: PriceSources, live: LiveSources):
    """Publish this run's tables as one snapshot: tables first, the manifest pointer last."""
    store = warehouse.store()
    if not any(store.staged_file(context.run_id, name) is not None for name in TABLES):
        raise Failure("this run built no table: publishing now would serve the current snapshot's tables "
                      "under a new date. Materialise the tables with the snapshot (the `refresh` job).")
    day, raw = settings.as_of_date().isoformat(), warehouse.raw()
    changes = run_changes(store, context.run_id, sources.versions())
    extra = {"as_of": day, "sources": sources.versions(),
             "live": live_extra(source_states(active_sources(live, settings, raw), raw, day)),
             "changes": changes.summary()}
    # Left behind if the process dies while publishing, so the API can say the run was cut short.
    record_run(store.storage, publishing(context.run_id, datetime.now(UTC)))
    at = to_millis_utc(datetime.now(UTC))  # as the manifest and the record keep it
    record = stage_index_record(store, context.run_id, at)
    manifest = store.publish(context.run_id, at, [*TABLES, *RECORD_TABLES], extra=extra)
    kept = IndexRecord(store.storage)  # beside the snapshots, where pruning never reaches
    for name, frame in record.items():
        kept.append(name, frame)
    record_run(store.storage, RunStatus("ok", manifest.last_update, run_id=context.run_id))
    return MaterializeResult(metadata={
        "snapshot_id": manifest.snapshot_id,
        "path": store.storage.address(store.storage.join(manifest.snapshot_id)),
        **{f"rows.{name}": info.rows for name, info in manifest.tables.items()},
        **{f"changed.{name}": n for name, n in changes.counts().items()},  # numbers Dagster plots run by run
        "changes": MetadataValue.md(changes.markdown()),
    })


_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[/\\][^\s'\"/\\:]+)+[/\\]([^\s'\"/\\:]+)")


def without_paths(text: str) -> str:
    """The text with each file path cut to its last part: the reason is shown by the public API,
    which says which file failed but not where the server keeps it."""
    return _PATH.sub(r"\1", text)


@failure_hook(required_resource_keys={"warehouse"})
def record_failure(context: HookContext):
    """A failed step (a source, a table or a blocking check) marks the run failed, with why, and
    removes what it staged; the published snapshot is untouched, and the API reports itself
    degraded."""
    detail = without_paths(f"{context.op.name} failed: {context.op_exception}")[:500]
    store = context.resources.warehouse.store()
    record_run(store.storage, RunStatus("failed", datetime.now(UTC), detail, context.run_id))
    store.discard(context.run_id)  # never published; steps still at work may stage more, which the next run removes
