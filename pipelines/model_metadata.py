"""What the sources say about each model besides its price: names, limits, modalities, lifecycle.

Every source statement is keyed by (provider, model id); `price_observations` says which ticker
each such id belongs to (makers and hosts alike), so a statement about any of a model's ids, at
any provider, is a statement about the model. Where sources differ, the maker's own listing is
preferred, then genai-prices, model-prices, the genai-prices release history, LiteLLM.

- display_name: the first source name that is not just the id (a host's "Vendor: Name" loses
  its vendor prefix); else a name spelt from the ticker (`name_from_ticker`), and
  `display_name_source` says which;
- context_window, max_output_tokens: the maker's statement first, else the largest any host states;
- input_modalities, output_modalities: LiteLLM's (inputs: the union of the entries of every id
  of the model at its maker, else at its hosts, with the inputs their capability flags add;
  outputs: the maker's entry first); else
  curated pattern rules (`model_rules.csv`, kinds `input` and `output`); else text in, text out;
- status, read from each of the model's `lifecycle_ids` (its own id, and its other ids at its
  maker unless another of them lives on): `retired` when a source says the model was removed or
  a retirement date has passed; `deprecated` when a source marks it deprecated or a retirement date is announced; else
  `active`. The retirement dates are LiteLLM's and the makers' own notices
  (`warehouse/seed/lifecycle_notices.csv`, for models the price sources list without saying they
  were retired), the earlier where both give one; a maker's notice that names no retirement date
  deprecates the model. `retired_on` is that date (it may lie after the
  snapshot date for a deprecated model: the announced date); `deprecated_on` the first date a
  source shows the model deprecated (the release of genai-prices that first lists it so, or the
  day a maker's notice was published), else the retirement date once passed.
"""

from __future__ import annotations

import re
from datetime import date

import pandas as pd

from pipelines.identity import is_pointer
from pipelines.listings import canonical_provider
from pipelines.registry import MAKER

TEXT = "text"
NAME_ACRONYMS = {"gpt", "glm", "ai", "r1", "asr", "tts", "vl", "oss", "xl", "moe", "swe", "mt"}


def id_keys(observations: pd.DataFrame) -> pd.DataFrame:
    """(provider, id lower case) → ticker, with whether the provider is the model's maker."""
    keys = observations[["provider", "provider_model_id", "ticker", "is_origin"]].assign(
        id=observations["provider_model_id"].str.lower())
    return keys.sort_values("is_origin", ascending=False, kind="stable").drop_duplicates(["provider", "id"])[
        ["provider", "id", "ticker", "is_origin"]]


def keyed(frame: pd.DataFrame, keys: pd.DataFrame, provider: str = "provider", model: str = "source_model_id"):
    """`frame` rows whose (provider, id) names a ticker, with `ticker` and `is_origin`."""
    frame = frame.assign(provider=frame[provider], id=frame[model].str.lower())
    return frame.merge(keys, on=["provider", "id"], how="inner")


def name_from_ticker(ticker: str) -> str:
    """`GPT-5-CODEX` → "GPT-5 Codex", `QWEN2.5-14B-INSTRUCT` → "Qwen2.5 14B Instruct": the
    ticker (dotted versions, no date suffix) in words: capitalised, acronyms and sizes upper
    case, a version kept with an acronym before it."""
    words = []
    for token in re.split(r"[-_/]+", ticker.lower()):
        if not token:
            continue
        if token in NAME_ACRONYMS or re.fullmatch(r"\d+(\.\d+)?[bkmt]", token):
            word = token.upper()
        elif re.fullmatch(r"[\d.]+[a-z]?", token) or re.fullmatch(r"[a-z]\d+(\.\d+)*", token):
            word = token  # versions (4.1, 2507, 3b) and o-series ids (o3) stay as written
        else:
            word = token[:1].upper() + token[1:]
        size = re.fullmatch(r"\d+(\.\d+)?[bkmt]", token)
        if words and words[-1].isupper() and re.fullmatch(r"[\d.]+[a-z]?", token) and not size:
            words[-1] = f"{words[-1]}-{word}"  # GPT-5, GLM-4.6
        else:
            words.append(word)
    return " ".join(words)


def _real_name(name: object, model_id: str) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return None
    name = re.sub(r"^[^:]{1,40}:\s+", "", name.strip())  # "Qwen: Qwen3 Max" → "Qwen3 Max"
    return name if name != model_id else None  # "GPT-5" is a name; "gpt-5" is the id again


SOURCE_ORDER = {"genai-prices": 0, "model-prices": 1, "genai-prices releases": 2, "litellm": 3}


def _statements(listings: pd.DataFrame, history: pd.DataFrame, litellm: pd.DataFrame,
                keys: pd.DataFrame) -> pd.DataFrame:
    """Every source's (name, window, max output) statement per ticker, best first."""
    frames = [
        keyed(listings, keys)[["ticker", "is_origin", "source", "display_name", "context_window"]],
        keyed(history.assign(source="genai-prices releases"), keys, "provider", "model_id")[
            ["ticker", "is_origin", "source", "name", "context_window"]].rename(columns={"name": "display_name"}),
        keyed(litellm.assign(source="litellm"), keys)[
            ["ticker", "is_origin", "source", "context_window", "max_output_tokens"]],
    ]
    out = pd.concat(frames, ignore_index=True)
    out["_order"] = out["source"].map(SOURCE_ORDER)
    return out.sort_values(["ticker", "is_origin", "_order"], ascending=[True, False, True], kind="stable")


def _limits(statements: pd.DataFrame, column: str) -> pd.Series:
    """The maker's own statement where there is one, else the largest any provider states."""
    known = statements[statements[column].notna()]
    origin = known[known["is_origin"]].groupby("ticker")[column].first()
    hosts = known[~known["is_origin"]].groupby("ticker")[column].max()
    return origin.combine_first(hosts)


def names_and_limits(models: pd.DataFrame, statements: pd.DataFrame) -> pd.DataFrame:
    """display_name, display_name_source, context_window, max_output_tokens per ticker."""
    rows = []
    # Each ticker's statements by position, in order (a frame per ticker cost more than the names).
    positions = statements.groupby("ticker", sort=False).indices
    names, sources = statements["display_name"].to_numpy(dtype=object), statements["source"].to_numpy(dtype=object)
    for ticker, model_id in models[["ticker", "model_id"]].itertuples(index=False):
        found = next(((names[i], sources[i]) for i in positions.get(ticker, ()) if _real_name(names[i], model_id)),
                     None)
        rows.append({"ticker": ticker,
                     "display_name": _real_name(found[0], model_id) if found else name_from_ticker(ticker),
                     "display_name_source": found[1] if found else "derived from the ticker"})
    out = pd.DataFrame(rows)
    out["context_window"] = out["ticker"].map(_limits(statements, "context_window")).astype("Int64")
    out["max_output_tokens"] = out["ticker"].map(_limits(statements, "max_output_tokens")).astype("Int64")
    return out


def modalities(models: pd.DataFrame, litellm: pd.DataFrame, keys: pd.DataFrame, rules) -> pd.DataFrame:
    """input_modalities and output_modalities per ticker (LiteLLM, then rules, then text). The
    inputs are the union over the LiteLLM entries of every id of the model at its maker (one
    entry often states less than another: a dated id's says vision, the undated one's not), or,
    with none at its maker, at its hosts; the outputs are the maker's entry's first."""
    entries = keyed(litellm, keys).sort_values("is_origin", ascending=False, kind="stable")
    stated = entries.drop_duplicates("ticker").set_index("ticker")
    # The maker's entries speak for the model where there are any; else every host's.
    own = entries[entries["is_origin"] | ~entries["ticker"].isin(set(entries.loc[entries["is_origin"], "ticker"]))]
    union = own.groupby("ticker")["input_modalities"].agg(lambda lists: sorted({m for x in lists for m in x}))
    rows = []
    for ticker, maker, model_id in models[["ticker", "provider", "model_id"]].itertuples(index=False):
        subject = f"{maker}/{model_id}"
        ins = outs = None
        if ticker in stated.index and len(union[ticker]):
            ins = ",".join(union[ticker])
            outs = ",".join(stated.at[ticker, "output_modalities"]) or TEXT
        ins = ins or rules.first("input", subject)
        outs = outs or rules.first("output", subject)
        rows.append({"ticker": ticker, "input_modalities": sorted((ins or TEXT).split(",")),
                     "output_modalities": sorted((outs or TEXT).split(","))})
    return pd.DataFrame(rows)


ACTIVE, DEPRECATED, RETIRED = "active", "deprecated", "retired"


def lifecycle_ids(models: pd.DataFrame, keys: pd.DataFrame, listed: set[tuple[str, str]],
                  pointers: set[str] = frozenset()) -> pd.DataFrame:
    """(ticker, provider, id): the ids at its maker whose lifecycle is the model's.

    A model's own id always. Every other id the maker prices it under too (a dated snapshot, the
    API id beside an undated name, a `-latest` form), where the model is the maker's to sell
    (`pricing_basis` maker: an open-weight model lives on at its hosts whatever its maker's API
    does) and no other of its ids is still listed without a status by model-prices, the source
    of statuses (`listed`: the (provider, id) pairs it lists alive). A pointer (`-latest`, or an
    id in `pointers`, the `model_aliases` table's) is no such evidence: it serves whatever model is newest. So a model retired under its dated id is
    retired, and one of several snapshots retired while another lives is not the model's."""
    own = models[["ticker", "provider", "model_id"]].rename(columns={"model_id": "id"})
    basis = models.assign(pricing_basis=models.get("pricing_basis", MAKER))[["ticker", "provider", "pricing_basis"]]
    others = keys[keys["is_origin"]].merge(basis, on=["ticker", "provider"])
    others = others[others["pricing_basis"] == MAKER]
    alive = [(p, i) in listed and not (is_pointer(i) or i in pointers)
             for p, i in zip(others["provider"], others["id"], strict=True)]
    living = set(others.loc[alive, "ticker"])
    others = others[~others["ticker"].isin(living)][["ticker", "provider", "id"]]
    return pd.concat([own, others], ignore_index=True).drop_duplicates()


def _of_model(frame: pd.DataFrame, ids: pd.DataFrame, provider: str, model: str) -> pd.DataFrame:
    """Rows of `frame` about one of a model's `lifecycle_ids`, with the model's `ticker`."""
    return keyed(frame, ids, provider, model).drop(columns="is_origin", errors="ignore")


def lifecycle_notices(table: pd.DataFrame) -> pd.DataFrame:
    """`lifecycle_notices.csv` as `lifecycle` reads it: ids lower case, dates as dates (an empty
    retired_on, a deprecation without a shutdown day, as None)."""
    def day(text):
        return date.fromisoformat(text) if isinstance(text, str) and text.strip() else None

    return table.assign(provider=table["provider"].map(canonical_provider), model_id=table["model_id"].str.lower(),
                        published_on=table["published_on"].map(day),
                        retired_on=pd.Series([day(t) for t in table["retired_on"]], index=table.index, dtype=object))


def lifecycle(models: pd.DataFrame, listings: pd.DataFrame, history: pd.DataFrame, litellm: pd.DataFrame,
              notices: pd.DataFrame, removed: set[tuple[str, str]], removed_as_of: date | None,
              as_of: date, ids: pd.DataFrame | None = None) -> pd.DataFrame:
    """status, deprecated_on, retired_on and retired_by per ticker (see the module's docstring),
    judged on the model's `lifecycle_ids` (default: its own id at its maker alone).

    `removed`: (provider, id) pairs a source says were removed, without a date (model-prices'
    status `removed`), as of `removed_as_of` (that source's publication date). `retired_by` is
    the first date the model is known to be retired: `retired_on` once passed, else the
    publication date of the source that says it was removed. `notices`: makers' notices
    (provider, model_id, published_on, retired_on), as `lifecycle_notices.csv` holds them; one
    without a retired_on deprecates the model from published_on and retires it never.
    """
    if ids is None:
        ids = models[["ticker", "provider", "model_id"]].rename(columns={"model_id": "id"})
    noticed = _of_model(notices[notices["published_on"] <= as_of], ids, "provider", "model_id")
    undated = noticed[noticed["retired_on"].isna()]  # deprecated, no shutdown day named
    noticed = noticed[noticed["retired_on"].notna()]
    flags = _of_model(listings[listings["deprecated"].fillna(False).astype(bool)], ids, "provider", "source_model_id")
    flagged = _first_word(pd.concat([flags[["ticker"]], undated[["ticker"]]], ignore_index=True),
                          [f"{s} lists {i} as deprecated" for s, i in zip(flags["source"], flags["id"], strict=True)]
                          + [f"the maker's notice of {p} deprecates {i}, naming no retirement date" for i, p in
                             zip(undated["id"], undated["published_on"], strict=True)])
    removals = _of_model(pd.DataFrame(sorted(removed), columns=["provider", "id"]), ids, "provider", "id")
    gone = _first_word(removals, [f"model-prices gives {i} the status removed" for i in removals["id"]])
    dated = _of_model(litellm[litellm["deprecation_date"].notna()], ids, "provider", "source_model_id")
    dated = pd.concat([
        dated[["ticker", "deprecation_date"]].assign(
            word=[f"litellm dates {i}'s deprecation {d}" for i, d in zip(dated["id"], dated["deprecation_date"],
                                                                         strict=True)]),
        noticed[["ticker", "retired_on"]].rename(columns={"retired_on": "deprecation_date"}).assign(
            word=[f"the maker's notice of {p} retires {i} on {d}" for i, p, d in
                  zip(noticed["id"], noticed["published_on"], noticed["retired_on"], strict=True)])])
    dated = dated.sort_values(["ticker", "deprecation_date", "word"], kind="stable").drop_duplicates("ticker")
    dated_word = dated.set_index("ticker")["word"]
    dated = dated.set_index("ticker")["deprecation_date"]
    first_flag = pd.concat([
        _of_model(history[history["deprecated"].fillna(False).astype(bool)], ids, "provider",
                  "model_id")[["ticker", "first_released"]],
        pd.concat([noticed, undated])[["ticker", "published_on"]].rename(columns={"published_on": "first_released"})])
    first_flag = first_flag.groupby("ticker")["first_released"].min()
    rows = []
    for ticker in models["ticker"]:
        retired_on = dated.get(ticker)
        passed = retired_on is not None and retired_on <= as_of
        retired = ticker in gone or passed
        deprecated = retired or ticker in flagged or retired_on is not None
        known = [d for d in (first_flag.get(ticker), retired_on if passed else None) if d is not None]
        said = (dated_word.get(ticker) if passed or (not retired and retired_on is not None)
                else gone.get(ticker) if retired else flagged.get(ticker) if deprecated else None)
        rows.append({"ticker": ticker, "status": RETIRED if retired else DEPRECATED if deprecated else ACTIVE,
                     "deprecated_on": min(known) if deprecated and known else None, "retired_on": retired_on,
                     "retired_by": retired_on if passed else removed_as_of if retired else None,
                     "status_source": said})
    return pd.DataFrame(rows, columns=LIFECYCLE_COLUMNS)


LIFECYCLE_COLUMNS = ["ticker", "status", "deprecated_on", "retired_on", "retired_by", "status_source"]


def _first_word(rows: pd.DataFrame, words: list[str]) -> dict[str, str]:
    """Per ticker of `rows`, the first (alphabetically) of the sentences that say why."""
    return rows.assign(word=words).sort_values(["ticker", "word"]).drop_duplicates("ticker").set_index("ticker")[
        "word"].to_dict() if len(rows) else {}


def enrich_models(models: pd.DataFrame, observations: pd.DataFrame, listings: pd.DataFrame,
                  history: pd.DataFrame, litellm: pd.DataFrame, notices: pd.DataFrame,
                  removed: set[tuple[str, str]], removed_as_of: date | None, rules, as_of: date,
                  listed: set[tuple[str, str]] = frozenset(), pointers: set[str] = frozenset()) -> pd.DataFrame:
    """`models` (`registry.build_models`) with what every source says of each model: display_name
    and display_name_source, context_window, max_output_tokens, input_modalities,
    output_modalities, status, deprecated_on, retired_on and retired_by.

    `listings`: the price sources' listings; `history`: the genai-prices release history;
    `litellm`: `ingest_litellm.litellm_metadata`; `notices` and `removed`: see `lifecycle`;
    `listed`, `pointers`: see `lifecycle_ids`.
    """
    keys = id_keys(observations)
    history = history.assign(provider=history["provider_id"].map(canonical_provider))
    parts = [names_and_limits(models, _statements(listings, history, litellm, keys)),
             modalities(models, litellm, keys, rules),
             lifecycle(models, listings, history, litellm, notices, removed, removed_as_of, as_of,
                       lifecycle_ids(models, keys, listed, pointers))]
    out = models
    for part in parts:
        out = out.merge(part, on="ticker", how="left", validate="one_to_one")
    return out
