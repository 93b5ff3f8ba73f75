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
    # Read from object arrays: iterating rows of Arrow strings makes each value through pandas.
    columns = (archive[name].to_numpy(dtype=object) for name in ("model_id", "date", "input", "output"))
    for model_id, day, listed_in, listed_out in zip(*columns, strict=True):
        price_in, price_out = positive_or_none(listed_in), positive_or_none(listed_out)
        if not price_in or not price_out:
            continue  # the archive writes 0 for free or variable-priced (router) entries
        out.append(
            Listing(
                provider=HOST,
                source_model_id=model_id,
                mode=SYNC,
                effective_date=day,
                input=price_in,
                output=price_out,
                source=SOURCE,
                source_version=version,
                provenance=ARCHIVED,
                source_url=wayback_url(day),
                source_released=day,
            )
        )
    return out
