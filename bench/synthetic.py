"""Synthetic universes for the pipeline benchmark: the real sources, made larger.

`SyntheticSources(copies=k, history=m)` reads the same three sources as `PriceSources` and
- lists every model k times: copy 0 is the real model, copy i is the same model under a new id
  (the token `-s{i}` inserted before any snapshot suffix, so `claude-sonnet-4-20250514` becomes
  `claude-sonnet-4-s1-20250514` and still groups with `claude-sonnet-4-s1`), with the same
  prices; so k× the tickers, each with its real history;
- repeats the monthly archive m times back in time (each repeat the whole archive, shifted by its
  own span plus a month), so the series the archive backfills are m× as long.

Nothing here reaches a published snapshot of the bundled data: the universes exist only inside
a benchmark run, in a temporary warehouse. The prices are real prices under invented names.
"""

from __future__ import annotations

import dataclasses
import functools
from datetime import date, timedelta
from typing import Any

import pandas as pd

from assets.resources import PriceSources
from pipelines.identity import split_vendor, strip_snapshot


def copy_id(listed_id: str, index: int) -> str:
    """`listed_id` for copy `index` (0 is the id itself)."""
    if index == 0:
        return listed_id
    head, tail = _split_for_copies(listed_id)
    return f"{head}-s{index}{tail}"


@functools.cache  # every copy of an id splits it the same way; the archive names an id on every day
def _split_for_copies(listed_id: str) -> tuple[str, str]:
    """`listed_id` cut where a copy's token goes: before any snapshot suffix."""
    _, bare = split_vendor(listed_id)
    prefix = listed_id[: len(listed_id) - len(bare)] if listed_id.endswith(bare) else ""
    base = len(strip_snapshot(bare)) if bare.lower().startswith(strip_snapshot(bare)) else len(bare)
    return prefix + bare[:base], bare[base:]


class SyntheticSources(PriceSources):
    copies: int = 1
    history: int = 1

    def genai_prices(self) -> tuple[list[Any], str]:
        providers, version = super().genai_prices()
        return [dataclasses.replace(provider, models=[
            dataclasses.replace(model, id=copy_id(model.id, i), name=f"{model.name} s{i}" if i and model.name
                                else model.name)
            for model in provider.models for i in range(self.copies)]) for provider in providers], version

    def model_prices(self) -> tuple[dict[str, Any], str]:
        snapshot, version = super().model_prices()
        prices = {provider: {copy_id(model, i): modes for model, modes in models.items() for i in range(self.copies)}
                  for provider, models in snapshot["prices"].items()}
        status = {provider: {copy_id(model, i): state for model, state in models.items() for i in range(self.copies)}
                  for provider, models in snapshot.get("status", {}).items()}
        return {**snapshot, "prices": prices, "status": status}, version

    def price_archive(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        archive, meta = super().price_archive()
        days = pd.to_datetime(archive["date"])
        shift = (days.max() - days.min()) + pd.Timedelta(days=31)
        repeats = [archive.assign(date=(days - shift * j).dt.date) for j in range(self.history)]
        longer = pd.concat(repeats, ignore_index=True)
        listed = longer["model_id"].unique()
        copies = [longer.assign(model_id=longer["model_id"].map({m: copy_id(m, i) for m in listed}))
                  for i in range(self.copies)]
        return pd.concat(copies, ignore_index=True).sort_values(["date", "model_id"], ignore_index=True), meta


def first_archive_day(history: int) -> date:
    """Where the archive starts for a history factor (for reports)."""
    archive, _ = PriceSources().price_archive()
    days = pd.to_datetime(archive["date"])
    shift = (days.max() - days.min()) + timedelta(days=31)
    return (days.min() - shift * (history - 1)).date()
