"""Who sells each model, and at what price today: the maker and every host or reseller."""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipelines.history import carry_unstated
from pipelines.listings import CURRENT, PRICE_FIELDS

PROVIDER_COLUMNS = ["ticker", "provider", "provider_model_id", "is_origin", "mode", "effective_date",
                    *PRICE_FIELDS, "tiers", "peak", "source", "source_version", "source_url", "provenance"]


def build_providers(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The latest authoritative price per (ticker, provider, provider id, mode) known on `as_of`.

    The archive's host prices are history, not a current offer, so only offers in today's data
    count: a catalogue's `current` listing (dated by the release that first listed it, but in
    the catalogue today), or a dated listing on the newest date its provider has for any model.
    An older dated listing is an offer that has ended, and is left out. A field the latest
    statement leaves out and its source never states (a dataset without fees or tiers) keeps the
    provider's earlier statement of it, as in the price history (`history.carry_unstated`).
    """
    known = observations[~observations["superseded"] & (observations["effective_date"] <= as_of)]
    offer = ["ticker", "provider", "provider_model_id", "mode"]
    points = known.sort_values([*offer, "effective_date", "authority"], ascending=[True] * 5 + [False],
                               kind="stable").drop_duplicates([*offer, "effective_date"], keep="first")
    latest = carry_unstated(points, tuple(offer)).groupby(offer, sort=True).tail(1)
    newest_by_provider = latest.groupby("provider")["effective_date"].transform("max")
    current = latest[(latest["provenance"] == CURRENT) | (latest["effective_date"] == newest_by_provider)]
    origin = latest[latest["is_origin"]]  # the maker's own latest price always stays, dated
    out = pd.concat([origin, current[~current["is_origin"]]], ignore_index=True)
    return out.sort_values(["ticker", "is_origin", "provider", "mode"], ascending=[True, False, True, True],
                           kind="stable").reset_index(drop=True)[PROVIDER_COLUMNS]


HOST_SPREAD_COLUMNS = ["ticker", "host_min_input", "host_max_input", "host_min_output", "host_max_output"]


def host_spread(providers: pd.DataFrame) -> pd.DataFrame:
    """The lowest and highest sync input and output price among each model's hosts (not its
    maker) in the providers table, one row per ticker that has a host."""
    hosts = providers[~providers["is_origin"].astype(bool) & (providers["mode"] == "sync") & (providers["output"] > 0)]
    grouped = hosts.groupby("ticker", sort=True)
    out = pd.DataFrame({"host_min_input": grouped["input"].min(), "host_max_input": grouped["input"].max(),
                        "host_min_output": grouped["output"].min(), "host_max_output": grouped["output"].max()})
    return out.reset_index()[HOST_SPREAD_COLUMNS]
