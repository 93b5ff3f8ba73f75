"""Which upstreams are read live, and from where (the live sources are opt-in).

`ORACLE_LIVE_SOURCES` is a comma list of `genai-prices`, `litellm`, `openrouter`,
`model-prices` (empty by default: the bundled data alone). Each upstream's address is a setting,
`ORACLE_SOURCE_URL_GENAI_PRICES`, `ORACLE_SOURCE_URL_LITELLM`, `ORACLE_SOURCE_URL_OPENROUTER`,
`ORACLE_SOURCE_URL_MODEL_PRICES`, so that tests, a mirror or a proxy can stand in; the defaults
are the addresses the upstreams publish at (genai-prices' and model-prices' from their own
packages' updaters). Run config overrides the environment. Read when a run uses them, never at
import time.
"""

from __future__ import annotations

import os

import model_prices
from dagster import ConfigurableResource
from genai_prices.update_prices import DEFAULT_UPDATE_URL

from assets.fetch import FetchPolicy
from pipelines.guard import MAX_MOVE
from pipelines.upstream_formats import GENAI_PRICES, LITELLM, MODEL_PRICES, OPENROUTER, UPSTREAMS

DEFAULT_URLS = {
    GENAI_PRICES: DEFAULT_UPDATE_URL,
    LITELLM: "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json",
    OPENROUTER: "https://openrouter.ai/api/v1/models",
    # The folder of published snapshots: `latest.json` names the current one by its hash.
    MODEL_PRICES: model_prices.SNAPSHOT_URL,
}
URL_VARIABLES = {source: f"ORACLE_SOURCE_URL_{source.upper().replace('-', '_')}" for source in UPSTREAMS}


def parse_sources(text: str) -> tuple[str, ...]:
    """A comma list of upstream names → those names, in UPSTREAMS order; ValueError names any
    unknown one and the valid ones."""
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(UPSTREAMS))
    if unknown:
        raise ValueError(f"ORACLE_LIVE_SOURCES: unknown source {', '.join(unknown)}; valid: {', '.join(UPSTREAMS)}")
    return tuple(source for source in UPSTREAMS if source in names)


class LiveSources(ConfigurableResource):
    """The live upstreams a run reads: `sources` (a comma list; empty means `ORACLE_LIVE_SOURCES`,
    else none) and each address (`urls`, else its `ORACLE_SOURCE_URL_*` variable, else the
    published address), with the fetch policy's limits."""

    sources: str = ""
    urls: dict[str, str] = {}
    timeout_seconds: float = 20.0
    retries: int = 2
    backoff_seconds: float = 1.0
    max_bytes: int = 64 * 1024 * 1024
    # A fetch listing at most (1 − max_drop) of the models of the source's last good fetch is
    # refused as broken; a live price moving by more than max_move (a share) is held until
    # confirmed (`pipelines.guard`).
    max_drop: float = 0.5
    max_move: float = MAX_MOVE
    # Fetch for a run whose as-of day is not today (a mirror serving a past day's files; tests).
    past_days: bool = False

    def enabled(self) -> tuple[str, ...]:
        return parse_sources(self.sources or os.environ.get("ORACLE_LIVE_SOURCES", ""))

    def url(self, source: str) -> str:
        if source not in UPSTREAMS:
            raise ValueError(f"unknown source {source!r}; valid: {', '.join(UPSTREAMS)}")
        return self.urls.get(source) or os.environ.get(URL_VARIABLES[source]) or DEFAULT_URLS[source]

    def policy(self) -> FetchPolicy:
        return FetchPolicy(self.timeout_seconds, self.retries, self.backoff_seconds, self.max_bytes)
