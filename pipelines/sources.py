"""Helpers shared by the source assets: curated seed tables into the forms the transforms use."""

from __future__ import annotations

import pandas as pd

from pipelines.identity import MakerTable


def maker_table(makers: pd.DataFrame) -> MakerTable:
    return MakerTable(makers[["pattern", "maker"]].itertuples(index=False, name=None))


def ticker_overrides(overrides: pd.DataFrame) -> dict[tuple[str, str], str]:
    return {(p, m): t for p, m, t in overrides[["provider", "model_id", "ticker"]].itertuples(index=False)}


def all_listings(*frames: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([f for f in frames if len(f)], ignore_index=True)
