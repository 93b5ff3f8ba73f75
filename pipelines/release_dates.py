"""Each model's release date, as models.dev states it, checked against the model's first price.

models.dev states a release date per (provider, model id) (`ingest_models_dev.models_dev_releases`).
Its statements are keyed to tickers as its windows are (`model_metadata.keyed`, `elsewhere`):
every id of the model at its maker, else at a host the project follows, else the maker's own id
at a provider the project does not follow. Of the statements of the best of those standings:
at the maker, the earliest date counts (a model's first id, its first snapshot, began it; a
later id is a later snapshot or a pointer); at hosts, the date most of them state, ties the
earlier, and only a date at least HOST_AGREEMENT of them state (a host's date is often the day
it listed the model, and one host's typo must not decide: helicone dates GROK-3 2024-06-01,
GitHub Models 2024-12-09, Poe 2025-04-11; azure alone dates GROK-4.1-FAST 2025-06-27).

A stated date yields to the model's first price (`first_seen`) where the evidence contradicts it,
and the disagreement is published in `metadata_disputes` (field `released_on`) under its rule:

- `RULE`: the date lies after the first price (the model had a price, so it was out);
- `ID_MONTH_RULE`: the date lies before the month the stated id names (`command-r7b-12-2024`,
  dated 2024-02-27 at Cohere; `mistral-large-2512`, dated 2024-11-01): a release is not older
  than its own name.

Where models.dev states nothing, or no date enough hosts agree on, `released_on` is null: the
release date is unknown, never guessed.
"""

from __future__ import annotations

import re
from datetime import date

import pandas as pd

from pipelines.ingest_models_dev import SOURCE as MODELS_DEV
from pipelines.model_metadata import BY_HOST, BY_MAKER, ELSEWHERE, UNKNOWN, elsewhere, keyed

FIELD = "released_on"
RULE = "earlier_of_release_and_first_price"
ID_MONTH_RULE = "not_before_the_month_its_id_names"
HOST_AGREEMENT = 2  # hosts that must state a date for it to count
# The month an id names: -MM-YYYY (Cohere), -YYYY-MM-DD or -YYYYMMDD (OpenAI, Anthropic), -YYMM (Mistral).
ID_MONTHS = (
    (re.compile(r"-(0[1-9]|1[0-2])-(20\d\d)(?:-|$)"), lambda m: (int(m[2]), int(m[1]))),
    (re.compile(r"-(20\d\d)-?(0[1-9]|1[0-2])-?(?:0[1-9]|[12]\d|3[01])(?:-|$)"), lambda m: (int(m[1]), int(m[2]))),
    (re.compile(r"-(2[3-9])(0[1-9]|1[0-2])(?:-|$)"), lambda m: (2000 + int(m[1]), int(m[2]))),
)
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
    earliest; at hosts the date most of them state, ties the earlier, a ticker whose hosts agree
    on no date by HOST_AGREEMENT left out."""
    best = statements[statements["standing"] == statements.groupby("ticker")["standing"].transform("min")]
    stated_by = best.groupby(["ticker", "released_on"])["released_on"].transform("size")
    by_host = best["standing"] != BY_MAKER
    agreed = (~by_host | (stated_by >= HOST_AGREEMENT)).groupby(best["ticker"]).transform("any")
    best = best[agreed].assign(_votes=by_host[agreed] * -stated_by[agreed])
    return best.sort_values(["ticker", "_votes", "released_on", "provider", "source_model_id"],
                            kind="stable").drop(columns="_votes")


def id_month(model_id: str) -> date | None:
    """The first day of the month a model id names (`command-r7b-12-2024`: 2024-12-01), or None."""
    for pattern, year_month in ID_MONTHS:
        found = pattern.search(model_id.lower())
        if found:
            year, month = year_month(found)
            return date(year, month, 1)
    return None


def contradiction(stated, first_seen: date) -> str | None:
    """The rule under which a chosen statement (`_best`'s row) yields to the first price, or None."""
    if stated["released_on"] > first_seen:
        return RULE
    named = id_month(stated["source_model_id"])
    if named is not None and stated["released_on"] < named:
        return ID_MONTH_RULE
    return None


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
        if contradiction(stated, first_seen) is not None:
            first = firsts.loc[ticker]
            rows.append({"ticker": ticker, FIELD: first_seen,
                         f"{FIELD}_source": f"{_priced(first)}, before {_said(stated)}"})
        else:
            rows.append({"ticker": ticker, FIELD: stated["released_on"], f"{FIELD}_source": _said(stated)})
    return pd.DataFrame(rows, columns=["ticker", FIELD, f"{FIELD}_source"])


def release_disputes(statements: pd.DataFrame, firsts: pd.DataFrame) -> pd.DataFrame:
    """Every model whose chosen release date the evidence contradicts (`contradiction`): one row
    per statement of the standing chosen (models.dev at each provider and id) and one for the
    first price, with the date each states (`value_date`), the date chosen (the first price's)
    and the rule."""
    best = _best(statements)
    chosen = best.drop_duplicates("ticker").set_index("ticker")
    rules = {ticker: contradiction(stated, firsts.loc[ticker, "first_seen"]) for ticker, stated in chosen.iterrows()}
    late = chosen[[rules[ticker] is not None for ticker in chosen.index]]
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
                      rule=out["ticker"].map(rules))[DISPUTE_COLUMNS].sort_values(
        ["ticker", "source", "provider", "provider_model_id"], ignore_index=True)
