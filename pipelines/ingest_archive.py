"""The monthly archive of OpenRouter's public catalogue → listings.

Each row is the price OpenRouter listed for a `vendor/model` id on the day a Wayback Machine
copy of its catalogue was taken: an `archived` observation of a host's list price.
"""

from __future__ import annotations

import functools

import pandas as pd

from pipelines.listings import ARCHIVED, SYNC, Listing, positive_or_none

SOURCE = "model-price-radar-mcp"
HOST = "openrouter"
CATALOGUE_URL = "https://openrouter.ai/api/v1/models"


@functools.cache  # one per archived day; the archive lists every model on each
def wayback_url(day) -> str:
    return f"https://web.archive.org/web/{day:%Y%m%d}/{CATALOGUE_URL}"


def archive_listings(archive: pd.DataFrame, version: str) -> list[Listing]:
    """One listing per (date, model id) with a usable input and output price."""
    out = []
    for row in archive.itertuples(index=False):
        price_in, price_out = positive_or_none(row.input), positive_or_none(row.output)
        if not price_in or not price_out:
            continue  # the archive writes 0 for free or variable-priced (router) entries
        out.append(
            Listing(
                provider=HOST,
                source_model_id=row.model_id,
                mode=SYNC,
                effective_date=row.date,
                input=price_in,
                output=price_out,
                source=SOURCE,
                source_version=version,
                provenance=ARCHIVED,
                source_url=wayback_url(row.date),
                source_released=row.date,
            )
        )
    return out
