"""Asset checks. Blocking ones stop the run before the snapshot is published; warnings flag a
surprise for an operator to look at (a table shrinking, the index jumping) and publish anyway."""

from dagster import AssetCheckResult, AssetCheckSeverity, asset_check

from assets.resources import RefreshSettings, WarehouseResource
from pipelines import quality
from warehouse.large_tables import TableFile

# A surprise worth a warning: a table losing more than this share of its rows against the
# published snapshot, or an index level moving more than this share in a day.
SURPRISE_SHARE = 0.10


def _result(problems: list[str], severity: AssetCheckSeverity = AssetCheckSeverity.ERROR,
            **metadata) -> AssetCheckResult:
    return AssetCheckResult(
        passed=not problems,
        severity=severity,
        metadata={"problems": len(problems), "first_problems": "\n".join(problems[:20]), **metadata},
    )


def _published_rows(warehouse: WarehouseResource, name: str) -> int | None:
    current = warehouse.store().current()
    return current.tables[name].rows if current is not None and name in current.tables else None


@asset_check(asset="price_observations", blocking=True)
def observation_prices_valid(price_observations):
    """No observation has a negative price or lacks its input or output price."""
    return _result(quality.negative_or_missing_prices(price_observations), rows=len(price_observations))


@asset_check(asset="models", blocking=True)
def tickers_unique(models):
    """Every ticker names one model, and no batch ticker repeats."""
    problems = quality.duplicate_values(models["ticker"]) + quality.duplicate_values(models["ticker_batch"].dropna())
    return _result(problems, tickers=len(models))


@asset_check(asset="models", blocking=True)
def names_unique(models):
    """Every name a model answers to (its ticker, model id, aliases) names that model alone."""
    return _result(quality.names_on_several_tickers(models), tickers=len(models))


@asset_check(asset="models", blocking=True)
def coverage_floor(models, settings: RefreshSettings):
    """The registry reaches the configured floors of tickers and origin providers."""
    problems = quality.coverage_shortfall(models, settings.min_tickers, settings.min_providers)
    return _result(problems, tickers=len(models), origin_providers=int(models["provider"].nunique()))


@asset_check(asset="price_history", blocking=True)
def history_complete(price_history: TableFile, settings: RefreshSettings):
    """Every series has a point for every day up to the snapshot date, and no bad price (read a
    row group at a time: each holds whole series)."""
    problems, rows = quality.history_problems(price_history.row_groups(columns=quality.HISTORY_CHECK_COLUMNS),
                                              settings.as_of_date())
    return _result(problems, rows=rows)


CHECKS = [observation_prices_valid, tickers_unique, names_unique, coverage_floor, history_complete]


@asset_check(asset="ici", blocking=True)
def ici_weights_sum_to_one(ici):
    """Each variant's constituent weights sum to 1 and its value to the sum of contributions."""
    return _result(quality.index_inconsistencies(ici), variants=int(ici["type"].nunique()))


@asset_check(asset="forward_curves", blocking=True)
def forwards_well_formed(forward_curves):
    """Every forward, median and band bound is a positive, finite price, each band holds its
    median (p05 ≤ median ≤ p95), and every chance of change is a probability."""
    return _result(quality.malformed_forwards(forward_curves), rows=len(forward_curves))


CHECKS += [ici_weights_sum_to_one, forwards_well_formed]


@asset_check(asset="models", blocking=False)
def registry_did_not_shrink(models, warehouse: WarehouseResource):
    """Warns when the registry has over a tenth fewer models than the published snapshot's."""
    return _result(quality.shrunk("models", _published_rows(warehouse, "models"), len(models), SURPRISE_SHARE),
                   AssetCheckSeverity.WARN, models=len(models))


@asset_check(asset="ici_history", blocking=False)
def index_moved_little(ici_history):
    """Warns when a variant's newest level moved over a tenth from the day before."""
    return _result(quality.index_jumps(ici_history, SURPRISE_SHARE), AssetCheckSeverity.WARN)


CHECKS += [registry_did_not_shrink, index_moved_little]
