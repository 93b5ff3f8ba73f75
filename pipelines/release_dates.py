"""Each model's release date, as models.dev states it, checked against the model's first price.

models.dev states a release date per (provider, model id) (`ingest_models_dev.models_dev_releases`).
Its statements are keyed to tickers as its windows are (`model_metadata.keyed`, `elsewhere`):
every id of the model at its maker, else at a host the project follows, else the maker's own id
at a provider the project does not follow. Of the statements of the best of those standings:
at the maker, the earliest date counts (a model's first id, its first snapshot, began it; a
later id is a later snapshot or a pointer); at hosts, the date most of them state, ties the
earlier (a host's date is often the day it listed the model, and one host's typo must not
decide, as with the limits models.dev's other providers state).

A model is released before it is priced. Where the date chosen lies after the model's first
price (`first_seen`), the two disagree: the earlier counts (the model had a price, so it was
out), `released_on_source` says so, and the disagreement is published in `metadata_disputes`
(field `released_on`, rule `RULE`). Where models.dev states nothing, `released_on` is null: the
release date is unknown, never guessed.
"""

from __future__ import annotations

import pandas as pd

from pipelines.ingest_models_dev import SOURCE as MODELS_DEV
from pipelines.model_metadata import BY_HOST, BY_MAKER, ELSEWHERE, UNKNOWN, elsewhere, keyed

FIELD = "released_on"
RULE = "earlier_of_release_and_first_price"
STATEMENT_COLUMNS = ["ticker", "standing", "provider", "source_model_id", "released_on", "stated"]
FIRST_PRICE_COLUMNS = ["first_seen", "source", "provider", "provider_model_id"]
DISPUTE_COLUMNS = ["ticker", "field", "source", "provider", "provider_model_id", "value", "chosen_value",
                   "value_date", "chosen_date", "chosen_source", "rule"]


def release_statements(releases: pd.DataFrame | None, keys: pd.DataFrame) -> pd.DataFrame:
    """models.dev's release dates about each ticker (`keys`: `model_metadata.id_keys`), with the
    standing of who states it (BY_MAKER, BY_HOST, ELSEWHERE)."""
    if releases is None or releases.empty:
        return pd.DataFrame(columns=STATEMENT_COLUMNS)
    followed = keyed(releases, keys)
    followed = followed.assign(standing=[BY_MAKER if origin else BY_HOST for origin in followed["is_origin"]])
    other = elsewhere(releases, keys).assign(standing=ELSEWHERE)
    return pd.concat([followed[STATEMENT_COLUMNS], other[STATEMENT_COLUMNS]], ignore_index=True)


def _best(statements: pd.DataFrame) -> pd.DataFrame:
    """The statements of each ticker's best standing, the chosen one first: at the maker the
    earliest; at hosts the date most of them state, ties the earlier."""
    best = statements[statements["standing"] == statements.groupby("ticker")["standing"].transform("min")]
    stated_by = best.groupby(["ticker", "released_on"])["released_on"].transform("size")
    best = best.assign(_votes=(best["standing"] != BY_MAKER) * -stated_by)
    return best.sort_values(["ticker", "_votes", "released_on", "provider", "source_model_id"],
                            kind="stable").drop(columns="_votes")


def first_prices(observations: pd.DataFrame) -> pd.DataFrame:
    """Per ticker, its first price: the day (`first_seen`, as `registry.build_models` finds it),
    and the source, provider and id that stated it (the maker's own first on the same day)."""
    rows = observations.sort_values(["effective_date", "is_origin", "source", "provider", "provider_model_id"],
                                    ascending=[True, False, True, True, True], kind="stable")
    first = rows.drop_duplicates("ticker").set_index("ticker")
    return first.rename(columns={"effective_date": "first_seen"})[FIRST_PRICE_COLUMNS]


def _said(row) -> str:
    return f"{MODELS_DEV} at {row.provider} ({row.source_model_id}: {row.stated})"


def _priced(first) -> str:
    return f"first price ({first.source} at {first.provider}, {first.provider_model_id}: {first.first_seen})"


def release_dates(models: pd.DataFrame, statements: pd.DataFrame, firsts: pd.DataFrame) -> pd.DataFrame:
    """released_on and released_on_source per ticker of `models` (see the module's docstring)."""
    chosen = _best(statements).drop_duplicates("ticker").set_index("ticker")
    rows = []
    for ticker, first_seen in models[["ticker", "first_seen"]].itertuples(index=False):
        if ticker not in chosen.index:
            rows.append({"ticker": ticker, FIELD: None, f"{FIELD}_source": UNKNOWN})
            continue
        stated = chosen.loc[ticker]
        if stated["released_on"] > first_seen:
            first = firsts.loc[ticker]
            rows.append({"ticker": ticker, FIELD: first_seen,
                         f"{FIELD}_source": f"{_priced(first)}, before {_said(stated)}"})
        else:
            rows.append({"ticker": ticker, FIELD: stated["released_on"], f"{FIELD}_source": _said(stated)})
    return pd.DataFrame(rows, columns=["ticker", FIELD, f"{FIELD}_source"])


def release_disputes(statements: pd.DataFrame, firsts: pd.DataFrame) -> pd.DataFrame:
    """Every model whose chosen release date lies after its first price: one row per statement
    of the standing chosen (models.dev at each provider and id) and one for the first price,
    with the date each states (`value_date`), the date chosen (the first price's) and RULE."""
    best = _best(statements)
    chosen = best.drop_duplicates("ticker").set_index("ticker")
    late = chosen[[released > firsts.loc[ticker, "first_seen"] for ticker, released in chosen["released_on"].items()]]
    if late.empty:
        return pd.DataFrame(columns=DISPUTE_COLUMNS)
    said = best[best["ticker"].isin(late.index)]
    first = firsts.loc[late.index]
    sources = {ticker: f"{_priced(first.loc[ticker])}, before {_said(late.loc[ticker])}"
               for ticker in late.index}
    stated_rows = pd.DataFrame({"ticker": said["ticker"], "source": MODELS_DEV, "provider": said["provider"],
                                "provider_model_id": said["source_model_id"], "value_date": said["released_on"]})
    price_rows = pd.DataFrame({"ticker": first.index, "source": first["source"].to_numpy(),
                               "provider": first["provider"].to_numpy(),
                               "provider_model_id": first["provider_model_id"].to_numpy(),
                               "value_date": first["first_seen"].to_numpy()})
    out = pd.concat([stated_rows, price_rows], ignore_index=True)
    return out.assign(field=FIELD, value=pd.NA, chosen_value=pd.NA,
                      chosen_date=out["ticker"].map(first["first_seen"]), chosen_source=out["ticker"].map(sources),
                      rule=RULE)[DISPUTE_COLUMNS].sort_values(
        ["ticker", "source", "provider", "provider_model_id"], ignore_index=True)
