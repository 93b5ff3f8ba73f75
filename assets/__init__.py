"""The Dagster code location: assets that call `pipelines` and write the warehouse."""

import warnings

# Two of Dagster 1.13's features the refresh uses on purpose are marked beta: observing several
# source assets in one function, and a job's selection that includes them. Their behaviour here is
# pinned by tests/assets, so the warning would only repeat on every load of the code location.
for beta in ("multi_observable_source_asset", "include_sources"):
    warnings.filterwarnings("ignore", message=f".*`{beta}`.*is currently in beta")
