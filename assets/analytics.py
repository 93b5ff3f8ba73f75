"""Analytics assets: spots, the Greek sheet, forward curves, model lines and their forwards, the index, events
and the backtest."""

from functools import partial

import pandas as pd
from dagster import AssetOut, asset, multi_asset

from assets.history_rows import backtest_rows, observed_rows, spot_rows
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings
from assets.worker_processes import ordered_map, spare_cores
from pipelines.backtest import Anchors, backtest_parts, realised_sync
from pipelines.change_panel import Histories, change_points
from pipelines.events import build_events, price_moves
from pipelines.evidence import compared, spot_evidence
from pipelines.forecast import FittedLaw, build_change_laws, build_processes
from pipelines.forwards import build_forward_curves
from pipelines.greeks import build_greeks, process_fields
from pipelines.guard import unconfirmed_moves, vanished
from pipelines.ici import (
    as_known,
    basket_on,
    build_ici,
    build_ici_constituents,
    build_ici_history,
    last_rebalance,
    levels_on,
)
from pipelines.line_backtest import line_accuracy, run_line_backtest
from pipelines.line_forwards import build_line_forwards
from pipelines.lines import build_lines
from pipelines.registry import Rules
from pipelines.scheduled import build_scheduled_changes
from pipelines.scorecard import accuracy_table, reliability_table, summarise
from pipelines.spots import build_spots
from warehouse.large_tables import TableFile, TableParts

GROUP = "analytics"
# From this many observations the backtest's anchors are shared with other processes: below it, a
# worker's start (its imports, its copy of the data) costs about what it saves.
SHARED_BACKTEST_OBSERVATIONS = 50_000


@asset(group_name=GROUP, kinds={"parquet"})
def spots(price_history: TableFile, models, price_observations, settings: RefreshSettings):
    """Each model's sync and batch price on the snapshot date, with the observation behind it and
    the evidence for it (which sources agree)."""
    as_of = settings.as_of_date()
    today = spot_rows(price_history, as_of)
    evidence = spot_evidence(compared(price_observations, today, as_of), models["ticker"], as_of)
    return build_spots(today, models, as_of, evidence)


@asset(group_name=GROUP, kinds={"parquet"})
def scheduled_changes(price_observations, spots, settings: RefreshSettings):
    """Price changes the makers announce for a date after the snapshot, field by field."""
    return build_scheduled_changes(price_observations, spots, settings.as_of_date())


def _histories(price_history: TableFile, models: pd.DataFrame, events: pd.DataFrame, sources: PriceSources,
               settings: RefreshSettings) -> Histories:
    """Every model's observed sync price changes to the snapshot date (`pipelines.change_panel`),
    only the events' own price changes counted as changes."""
    rules = Rules.from_frame(sources.seed_table("model_rules"))
    return Histories(change_points(observed_rows(price_history), settings.as_of_date(), price_moves(events)),
                     models, rules)


def _priced_modes(spots: pd.DataFrame) -> pd.DataFrame:
    """(ticker, mode) of every positive spot price."""
    return pd.concat([spots.loc[spots[f"beta_{mode}"] > 0, ["ticker"]].assign(mode=mode) for mode in ("sync", "batch")],
                     ignore_index=True)


@multi_asset(group_name=GROUP, outs={
    "processes": AssetOut(kinds={"parquet"}, description="The forecast law per ticker and mode: the chance of a "
                                                         "change by the end of each month 1–12, and its change law."),
    "change_laws": AssetOut(kinds={"parquet"}, description="Each change law: the ratios new/old of a change and "
                                                           "their weights."),
})
def processes(price_history: TableFile, models, spots, events, sources: PriceSources, settings: RefreshSettings):
    """The forecast law fitted on the history to the snapshot date (`pipelines.forecast`)."""
    histories = _histories(price_history, models, events, sources, settings)
    fitted = FittedLaw.fit(histories, settings.as_of_date())
    return (build_processes(histories, fitted, _priced_modes(spots), settings.as_of_date()),
            build_change_laws(fitted))


@asset(group_name=GROUP, kinds={"parquet"})
def greeks(spots, processes, change_laws, price_history: TableFile, models, events, sources: PriceSources,
           settings: RefreshSettings):
    """The Greek sheet: spot record and a summary of the forecast law per ticker (contract §4)."""
    histories = _histories(price_history, models, events, sources, settings)
    return build_greeks(spots, process_fields(processes, change_laws, histories, settings.as_of_date()))


@asset(group_name=GROUP, kinds={"parquet"})
def forward_curves(processes, change_laws, spots, scheduled_changes, settings: RefreshSettings):
    """Mean, median, 90% band and chance of change at 1M–12M, sync and batch, from any announced price."""
    return build_forward_curves(processes, change_laws, spots, scheduled_changes, settings.as_of_date())


@asset(group_name=GROUP, kinds={"parquet"})
def lines(price_history: TableFile, models, settings: RefreshSettings):
    """Every maker's product lines: members in release order, the evidence of each membership and
    each successor's launch price over its predecessor's."""
    return build_lines(models, observed_rows(price_history), settings.as_of_date())


@asset(group_name=GROUP, kinds={"parquet"})
def line_forwards(lines, processes, change_laws, spots, scheduled_changes, settings: RefreshSettings):
    """Mean, median and 90% band of each line's then-current model at 1–12 months, sync and batch."""
    return build_line_forwards(lines, processes, change_laws, spots, scheduled_changes, settings.as_of_date())


@asset(group_name=GROUP, kinds={"parquet"})
def ici(price_history: TableFile, models, ici_constituents, ici_history, settings: RefreshSettings):
    """The inference cost index today, per variant, with constituents and a verification hash: the
    basket of the last rebalance, as it was chosen then, at today's prices, at the chained level
    of the history."""
    as_of = settings.as_of_date()
    return build_ici(spot_rows(price_history, as_of), models, None, as_of,
                     basket=basket_on(ici_constituents, last_rebalance(as_of)), levels=levels_on(ici_history, as_of))


@multi_asset(group_name=GROUP, outs={
    "ici_history": AssetOut(kinds={"parquet"}, description="Each variant's daily chained level since 2024-01-01, "
                                                           "with the composition effect of each change of basket "
                                                           "and the age of its inputs."),
    "ici_constituents": AssetOut(kinds={"parquet"}, description="Every basket of that history: each "
                                                                "constituent with the tier, hosts and price "
                                                                "of its rebalance date."),
})
def ici_history(models, price_observations, settings: RefreshSettings):
    """The index's daily history and its baskets, each day priced and each basket chosen with what
    was known on its date (`pipelines.ici.as_known`)."""
    as_of = settings.as_of_date()
    rows, baskets = as_known(price_observations, models, as_of)
    return (build_ici_history(rows, models, price_observations, as_of, baskets=baskets),
            build_ici_constituents(rows, baskets))


@asset(group_name=GROUP, kinds={"parquet"})
def events(price_history: TableFile, models, model_aliases, scheduled_changes, price_observations,
           settings: RefreshSettings, live: LiveSources):
    """Every price change in the history, with before, after and provenance; every repoint of an
    alias; every announced change; every live print held unconfirmed; changes undone within a
    month flagged `reverted`."""
    held = [f for f in (unconfirmed_moves(price_observations, live.max_move), vanished(price_observations)) if len(f)]
    return build_events(observed_rows(price_history), models, settings.as_of_date(), model_aliases,
                        scheduled_changes, pd.concat(held, ignore_index=True) if held else None, price_observations)


@multi_asset(group_name=GROUP, outs={
    "backtest": AssetOut(kinds={"parquet"}, description="Every walk-forward prediction of the oracle and both "
                                                        "baselines, scored (written an anchor at a time)."),
    "line_backtest": AssetOut(kinds={"parquet"}, description="Every walk-forward forecast of a line's price (the "
                                                             "line forward, the fixed model's own forecast and "
                                                             "flat) at 1, 3 and 6 months, scored against what the "
                                                             "line offered then."),
})
def backtests(price_observations, price_history: TableFile, models, events, sources: PriceSources,
              settings: RefreshSettings):
    """Both walk-forward backtests, from one reading of what each anchor knew (`Anchors.known`)."""
    rules = Rules.from_frame(sources.seed_table("model_rules"))
    as_of = settings.as_of_date()
    workers = spare_cores() if len(price_observations) >= SHARED_BACKTEST_OBSERVATIONS else 0
    anchors = Anchors.known(price_observations, models, as_of)
    realised = backtest_rows(price_history, as_of)
    observed = observed_rows(price_history)
    scored = TableParts(backtest_parts(price_observations, realised, observed, models, rules, as_of,
                                       map_anchors=partial(ordered_map, workers=workers), moves=price_moves(events),
                                       anchors=anchors))
    return scored, run_line_backtest(anchors, observed, realised_sync(realised), models, rules, as_of)


@asset(group_name=GROUP, kinds={"parquet"})
def backtest_summary(backtest):
    """Per tenor and method: every score of the scorecard, revisions left out."""
    return summarise(backtest, ["tenor", "method"])


@asset(group_name=GROUP, kinds={"parquet"})
def backtest_families(backtest):
    """The same figures per family."""
    return summarise(backtest, ["family", "tenor", "method"])


@asset(group_name=GROUP, kinds={"parquet"})
def backtest_reliability(backtest):
    """How often a change came, per tenor and bin of the predicted chance of change."""
    return reliability_table(backtest)


@asset(group_name=GROUP, kinds={"parquet"})
def accuracy(backtest, line_backtest):
    """The headline: the oracle against both baselines per tenor, every model and fixed names
    apart, and line forwards against flat and the fixed model, with standard errors and a
    verdict in words."""
    return pd.concat([accuracy_table(backtest), line_accuracy(line_backtest)], ignore_index=True)
