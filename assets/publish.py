"""Publishing: the snapshot becomes current only after every table and blocking check passed, and
only as a whole day (`assets.whole_day`)."""

import re
from datetime import UTC, datetime

import pandas as pd
from dagster import (
    AssetExecutionContext,
    HookContext,
    MaterializeResult,
    MetadataValue,
    asset,
    failure_hook,
)

from assets.causes import cause_of_step, refused, run_link
from assets.live import SourceState, active_sources, refuse_if_every_source_failed, source_states
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from assets.whole_day import TABLES, refusal, take_over_earlier, upstream_tables, why_not_whole
from pipelines.changes import Changes, what_changed
from pipelines.ici import METHODOLOGY_VERSION
from pipelines.ici_record import record_levels
from warehouse.index_record import RECORD_TABLES, IndexRecord, canonical
from warehouse.runs import REFUSED, RunStatus, last_run, publishing, record_run
from warehouse.schemas import SCHEMAS
from warehouse.snapshot import SnapshotStore, to_millis_utc


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
    day, raw = settings.as_of_date().isoformat(), warehouse.raw()
    take_over_earlier(store, context.run, context.instance, day)  # a re-execution of the snapshot alone
    why_not = why_not_whole(store.staged_names(context.run_id) & set(TABLES),
                            upstream_tables(context.job_def.asset_layer.asset_graph, TABLES), day)
    if why_not:
        refuse(store, context.run_id, why_not)
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


def refuse(store: SnapshotStore, run_id: str, why: str) -> None:
    """Stop the run, publishing nothing, by design: the current snapshot stays, and so does the
    record of the last refresh (unless this run wrote it, when it says what happened instead)."""
    recorded = last_run(store.storage)
    if recorded is not None and recorded.run_id == run_id:
        record_run(store.storage, RunStatus(REFUSED, datetime.now(UTC), why, run_id))
    raise refusal(why)


@failure_hook(required_resource_keys={"warehouse", "alerts"})
def record_failure(context: HookContext):
    """A failed step (a source, a table or a blocking check) marks the run failed, with the step's
    own error and the run's link; the published snapshot is untouched, and the API reports itself
    degraded. What the run staged is kept for a re-execution to build on (the next run that
    publishes removes it). A refusal to publish by design records nothing."""
    if refused(context.op_exception):
        return
    cause = cause_of_step(context.op.name, context.op_exception, context.instance, context.run_id)
    detail = f"{without_paths(cause)[:500]} (run {run_link(context.run_id, context.resources.alerts.ui_url())})"
    store = context.resources.warehouse.store()
    record_run(store.storage, RunStatus("failed", datetime.now(UTC), detail, context.run_id))
