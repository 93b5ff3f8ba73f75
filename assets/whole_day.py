"""A published snapshot is whole and of its day, whatever subset of the graph a run materialised.

Every table in a snapshot is built by the publishing run for that run's `as_of`, or carried from
the current snapshot under the day it was built for (`extra["carried"]` of the manifest). A table
the run built may not stand on a carried one: `spots` for a new day built from yesterday's
`price_history` prices nothing, and would be published under the new date. Which tables a table
stands on is read from the asset graph (every table upstream of it, through any asset between),
not from a list kept by hand.

A re-execution of a failed run ("Re-execute from failure") runs only the failed steps and what
follows them; it takes over the tables its parent run (and that run's parents) staged for the
same day before it reads or writes any, so it builds on them rather than on the published
snapshot (`SnapshotStore.take_over`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from dagster import AssetKey, DagsterInstance, DagsterRun, Failure

from warehouse.index_record import RECORD_TABLES
from warehouse.schemas import SCHEMAS
from warehouse.snapshot import SnapshotStore

# Every table an asset builds, in pipeline order: the snapshot waits for each and publishes them
# all, with the index's record (RECORD_TABLES), which the snapshot itself writes.
TABLES = [name for name in SCHEMAS if name not in RECORD_TABLES]
SNAPSHOT = "snapshot"  # the asset (and step) that publishes

# Marks a run's refusal to publish, by design (in `Failure.metadata`): the run is shown failed in
# the UI with its reason, but the API's data is untouched, so nothing is recorded and nothing posted.
REFUSED = "publishes nothing"


def refusal(reason: str) -> Failure:
    return Failure(description=reason, metadata={REFUSED: "by design: the published snapshot stays current"},
                   allow_retries=False)


def upstream_tables(graph, tables: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each table → every table upstream of it in the asset graph (a job's
    `asset_layer.asset_graph`, which holds every asset even when the job runs a subset)."""
    names = set(tables)
    upstream = {}
    for name in names:
        seen: set[AssetKey] = set()
        waiting = [AssetKey(name)]
        while waiting:
            key = waiting.pop()
            parents = graph.get(key).parent_keys if graph.has(key) else set()
            for parent in parents - seen:
                seen.add(parent)
                waiting.append(parent)
        upstream[name] = frozenset(key.path[-1] for key in seen) & names
    return upstream


def standing_on_carried(built: Iterable[str], upstream: Mapping[str, frozenset[str]]) -> dict[str, list[str]]:
    """Each table built whose upstream tables were not all built in the run → those it lacks."""
    built = set(built)
    return {name: sorted(upstream.get(name, frozenset()) - built) for name in sorted(built)
            if upstream.get(name, frozenset()) - built}


def why_not_whole(built: Iterable[str], upstream: Mapping[str, frozenset[str]], as_of: str) -> str | None:
    """Why a run that built `built` cannot publish a whole day for `as_of`, or None when it can."""
    built = set(built)
    if not built:
        return ("this run built no table: publishing now would serve the current snapshot's tables under a new "
                "date. Materialise the tables with the snapshot (the `refresh` job).")
    lacking = standing_on_carried(built, upstream)
    if not lacking:
        return None
    needed = sorted({name for names in lacking.values() for name in names})
    what = ", ".join(sorted(built)) if len(built) <= 3 else f"{len(built)} tables"
    return (f"this run built {what} for {as_of} from tables it did not build ({', '.join(needed)}): published, "
            "they would be served computed from another day's data. Nothing was published; materialise those "
            "tables too, or run the `refresh` job.")


def planned_steps(run: DagsterRun, plan) -> list[str]:
    """The steps `run` executes: those a re-execution lists, else every step of its job (read from
    the run, since a step's own plan holds that step alone under a multiprocess executor)."""
    return list(run.step_keys_to_execute) if run.step_keys_to_execute is not None else [step.key
                                                                                          for step in plan.steps]


def planned_tables(run: DagsterRun, plan) -> set[str]:
    """The tables `run` builds."""
    return {output.properties.asset_key.path[-1] for key in planned_steps(run, plan)
            for output in plan.get_step_by_key(key).step_outputs
            if output.properties is not None and output.properties.asset_key is not None} & set(TABLES)


def earlier_runs(run: DagsterRun, instance: DagsterInstance | None) -> list[str]:
    """The runs this one re-executes, nearest first (its parent, the parent's parent, to the root)."""
    chain, parent = [], run.parent_run_id
    while parent and parent not in chain and instance is not None:
        chain.append(parent)
        earlier = instance.get_run_by_id(parent)
        parent = earlier.parent_run_id if earlier is not None else None
    return chain


def take_over_earlier(store: SnapshotStore, run: DagsterRun, instance: DagsterInstance | None, as_of: str) -> list[str]:
    """Stamp this run's staging with its day and take over what the runs it re-executes staged for
    that day, the nearest run's table first; returns the tables taken."""
    store.stamp_as_of(run.run_id, as_of)
    taken: list[str] = []
    for earlier in earlier_runs(run, instance):
        taken += store.take_over(run.run_id, earlier, as_of)
    return taken
