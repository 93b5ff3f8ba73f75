"""The small test universe: a deliberate cut of the bundled sources, about 40 models, that still
exercises every rule the full data does.

`SmallUniverse` reads the same bundled sources as `PriceSources` and keeps only the statements
about the model ids in `tests/fixtures/small_universe.json`: every id any source lists for one of
`TICKERS` (in any source, under any provider, as an alias or a pointer), so each kept model keeps
its whole evidence, disputes and history. The refresh builds it through its own path
(`assets.refresh.refresh(sources=...)`), with the registry's coverage floor set to its size.

Regenerate the id list after a change of the bundled data or of a ticker here, from a full
snapshot of the bundled data:

    python -m tests.small_universe WAREHOUSE
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from assets.resources import PriceSources
from pipelines.ingest_litellm import source_model_id

IDS_FILE = Path(__file__).parent / "fixtures" / "small_universe.json"

# Each ticker is here for a rule the tests must see; the comment says which.
TICKERS = (
    # cache writes, batch prices, dated history with real changes, an alias (claude-3-7-sonnet-latest)
    "SONNET-4", "SONNET-4.5", "SONNET-3.7", "HAIKU-5.5", "HAIKU-4.5", "OPUS-4.1", "OPUS-4.5",
    # batch prices and a real cut (O3, 2025-06-10); a retirement (BABBAGE-002); context tiers (GPT-5.4)
    "O3", "GPT-4O", "GPT-4.1", "GPT-4.1-MINI", "GPT-OSS-120B", "BABBAGE-002", "GPT-5.4",
    # context tiers, search fees, a pointer id moving by date (gemini-flash-latest), scheduled
    # changes (GEMINI-4-ARGON announced 2026-11-10 for 2026-12-01), a rejected statement
    "GEMINI-2.5-PRO", "GEMINI-2.5-FLASH", "GEMINI-3.5-FLASH", "GEMINI-3.6-FLASH", "GEMINI-3.7-FLASH",
    "GEMINI-3.8-FLASH", "GEMINI-4-ARGON", "GEMINI-OMNI-1.1-FLASH",
    # a family that rose (GEMINI-1.5-FLASH, 2024-11-04), so a scheduled price meets a rising law;
    # a maker that raised its price twice (SOLAR-PRO4: 0.12 -> 0.36 -> 1.2), so the law of the
    # families that rose rises on average, as on the full data
    "GEMINI-1.5-FLASH", "SOLAR-PRO4",
    # peak hours, disputes between sources, an id override (deepseek-chat) and a retirement
    "DEEPSEEK-V4-PRO", "DEEPSEEK-V3",
    # request fees and citation tokens
    "SONAR-PRO", "SONAR-REASONING", "SONAR-DEEP-RESEARCH",
    # open-weight models priced at the median of their hosts
    "LLAMA-3.2-1B", "LLAMA-3.3-70B", "LLAMA-3.1-8B", "LLAMA-3.1-405B", "LLAMA-4-SCOUT-17B-16E",
    "LLAMA-4-MAVERICK-17B-128E", "GEMMA-3-27B", "NEMOTRON-3-ULTRA-550B-A55B", "QWEN3-CODER-480B-A35B-INSTRUCT",
    # a price converted from CNY, with context tiers; a maker's model with no text output rate
    "DOUBAO-SEED-1.6", "QWEN3-ASR-FLASH",
    # an undated id (mistral-small) that names one version of several
    "MISTRAL-SMALL-3.2-24B-INSTRUCT",
)
# The curated tables whose rows name one model (`model_id`): kept only for the kept ids, since a
# curated alias of a model no source lists stops the refresh (`pipelines.observations`).
PER_MODEL_TABLES = ("model_aliases", "model_overrides", "lifecycle_notices", "peak_days", "published_tickers",
                    "rejected_statements")


@functools.cache
def kept_ids() -> frozenset[str]:
    return frozenset(json.loads(IDS_FILE.read_text())["ids"])


def _kept(model_id: object) -> bool:
    return str(model_id).lower() in kept_ids()


class SmallUniverse(PriceSources):
    """The bundled sources, cut to the small universe's model ids."""

    def genai_prices(self) -> tuple[list[Any], str]:
        providers, version = super().genai_prices()
        return [dataclasses.replace(p, models=[m for m in p.models if _kept(m.id)]) for p in providers], version

    def model_prices(self) -> tuple[dict[str, Any], str]:
        snapshot, version = super().model_prices()
        cut = {part: {provider: {model: value for model, value in models.items() if _kept(model)}
                      for provider, models in snapshot.get(part, {}).items()} for part in ("prices", "status")}
        return {**snapshot, **cut}, version

    def price_archive(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        archive, meta = super().price_archive()
        return kept_rows(archive), meta

    def genai_release_history(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        spans, meta = super().genai_release_history()
        return kept_rows(spans), meta

    def release_changes(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        changes, meta = super().release_changes()
        return kept_rows(changes), meta

    def litellm_prices(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        entries, meta = super().litellm_prices()
        return [e for e in entries if _kept(source_model_id(e["key"], e.get("litellm_provider") or ""))], meta

    def models_dev(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        catalogue, meta = super().models_dev()
        # A kept id, or a kept id behind a vendor prefix (`ai21/jamba-large`): models.dev's other
        # providers name a model by its maker's id.
        kept = [_kept(i) or _kept(i.rsplit("/", 1)[-1]) for i in catalogue["model_id"]]
        return catalogue[kept].reset_index(drop=True), meta

    def seed_table(self, name: str) -> pd.DataFrame:
        table = super().seed_table(name)
        return kept_rows(table) if name.removesuffix(".csv") in PER_MODEL_TABLES else table


def kept_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a source table (its `model_id` column) that name a kept model."""
    return frame[frame["model_id"].map(_kept)].reset_index(drop=True)


# The registry's coverage floor for the small universe (`RefreshSettings.min_tickers`, `min_providers`).
FLOORS = {"min_tickers": 30, "min_providers": 8}


def refresh_small_universe(root, as_of: str, **options) -> None:
    """A refresh of the small universe into `root`, through the refresh's own path; fails with
    what the refresh said when it publishes nothing. `options` go to `refresh` (`live`, `replay`)."""
    from assets.refresh import refresh

    said: list[str] = []
    assert refresh(str(root), as_of, write=said.append, sources=SmallUniverse(), floors=FLOORS, **options), \
        "\n".join(said)


def ids_of(warehouse: str) -> list[str]:
    """Every id any source lists for one of `TICKERS`, read from a full snapshot of the bundled data."""
    from warehouse.snapshot import SnapshotStore

    store = SnapshotStore(warehouse)
    observations, aliases = store.read_table("price_observations"), store.read_table("model_aliases")
    missing = set(TICKERS) - set(store.read_table("models")["ticker"])
    if missing:
        raise SystemExit(f"not tickers of the full snapshot: {sorted(missing)}")
    ids = set(observations.loc[observations["ticker"].isin(TICKERS), "provider_model_id"].str.lower())
    ids |= set(aliases.loc[aliases["ticker"].isin(TICKERS), "alias"].str.lower())
    return sorted(ids)


if __name__ == "__main__":
    IDS_FILE.write_text(json.dumps({"tickers": list(TICKERS), "ids": ids_of(sys.argv[1])}, indent=1) + "\n")
    print(f"wrote {IDS_FILE}")
