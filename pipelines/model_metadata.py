"""What the sources say about each model besides its price: names, limits, modalities, lifecycle.

Every source statement is keyed by (provider, model id); `price_observations` says which ticker
each such id belongs to (makers and hosts alike), so a statement about any of a model's ids, at
any provider, is a statement about the model. models.dev's rows at providers the project does not
follow count too where their id, without a vendor prefix, is a maker's own id (`elsewhere`).
Statements are ranked by standing (the maker's own, a followed host's, elsewhere), then by
`SOURCE_ORDER`: the maker's page (`model_facts.csv`), genai-prices, model-prices, the genai-prices
release history, LiteLLM, LiteLLM's older releases (entries it has dropped), models.dev, and
models.dev's older copy in tokenlens.

- display_name: the first source name that is not just the id (a host's "Vendor: Name" loses
  its vendor prefix; a maker's page's name counts even where it is the id); else a name spelt
  from the ticker (`name_from_ticker`), and `display_name_source` says which;
- context_window, max_output_tokens (`_limits`): the maker's statement first, else the largest
  any followed host states, else the value most other providers state; `<limit>_source` says
  which ("<source> at <provider>", or `UNKNOWN`), and `metadata_disputes` every difference;
- input_modalities, output_modalities: the union of LiteLLM's and models.dev's entries of every
  id of the model at its maker (else, where no source has one there, at its hosts) and the curated
  pattern rules (`model_rules.csv`, kinds `input` and `output`); else text in, text out;
  `<side>_modalities_source` names each source and what it said;
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

import numpy as np
import pandas as pd

from pipelines.identity import is_pointer
from pipelines.ingest_models_dev import METADATA_COLUMNS as MODELS_DEV_COLUMNS
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
    # An empty source (a build before its first statement) has no string column to lower-case.
    frame = frame.assign(provider=frame[provider].astype(object), id=frame[model].astype(object).str.lower())
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


def _real_name(name: object, model_id: str, by_maker: bool = False) -> str | None:
    """The name a source gives, or None where it gives only an id. The maker's page's name counts
    even where it is the id: `babbage-002` is what OpenAI calls that model."""
    if not isinstance(name, str) or not name.strip():
        return None
    if by_maker:
        return name.strip()
    name = re.sub(r"^[^:]{1,40}:\s+", "", name.strip())  # "Qwen: Qwen3 Max" → "Qwen3 Max"
    if "/" in name and " " not in name:
        return None  # "Qwen/Qwen3-VL-32B-Thinking" is an id, not a name
    return name if name != model_id else None  # "GPT-5" is a name; "gpt-5" is the id again


# The order that decides between sources of one standing: the maker's own page first (a row of
# `model_facts.csv`, read from the maker's documentation), then the price sources' own catalogues,
# genai-prices' older releases, LiteLLM, LiteLLM's older releases (the last limits a release
# stated for an entry, as known on the build's day), then models.dev and its older copy in
# tokenlens last: models.dev's catalogue is the oldest of the current ones (2026-08-18) and states
# what an id serves today, so a repointed id (`deepseek-chat`) would give its newer model's limits
# to the model the project files under it; they fill what the others leave unstated, and where
# they differ the difference is published (`metadata_disputes`).
MAKER_PAGE, LITELLM_RELEASES, TOKENLENS = "maker's page", "litellm releases", "tokenlens"
SOURCE_ORDER = {MAKER_PAGE: 0, "genai-prices": 1, "model-prices": 2, "genai-prices releases": 3, "litellm": 4,
                LITELLM_RELEASES: 5, "models.dev": 6, TOKENLENS: 7}
# Who states it: the model's maker, a host the project follows (one of `price_observations`'
# providers), or another provider of models.dev's catalogue stating the maker's own id.
BY_MAKER, BY_HOST, ELSEWHERE = 0, 1, 2
LIMIT_FIELDS = ("context_window", "max_output_tokens")
UNKNOWN = "unknown: no source states it"
# How `_limits` chose a value, by the standing of the statements it chose among.
LIMIT_RULES = {BY_MAKER: "maker_first", BY_HOST: "largest_host", ELSEWHERE: "most_stated_elsewhere"}
# `stated_in`: where a source has several statements, the one read (a release, a page and its day).
STATEMENT_COLUMNS = ["ticker", "standing", "source", "stated_in", "provider", "source_model_id", "display_name",
                     *LIMIT_FIELDS]


def elsewhere(models_dev: pd.DataFrame, keys: pd.DataFrame) -> pd.DataFrame:
    """models.dev's rows at providers the project does not follow whose id, without a vendor
    prefix (`ai21/jamba-large` → `jamba-large`), is a maker's own id of exactly one ticker."""
    origin = keys[keys["is_origin"]].drop_duplicates(["id", "ticker"])
    origin = origin[~origin["id"].duplicated(keep=False)][["id", "ticker"]]
    rows = models_dev[~models_dev["provider"].isin(set(keys["provider"]))]
    rows = rows.assign(id=rows["source_model_id"].str.lower().str.rsplit("/", n=1).str[-1])
    return rows.merge(origin, on="id", how="inner").assign(is_origin=False)


def _statements(listings: pd.DataFrame, history: pd.DataFrame, litellm: pd.DataFrame,
                keys: pd.DataFrame, models_dev: pd.DataFrame | None = None,
                more: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Every source's (name, window, max output) statement per ticker, best first: by standing
    (maker, followed host, elsewhere), then SOURCE_ORDER. `more`: further sources by name
    (MAKER_PAGE, LITELLM_RELEASES, TOKENLENS), each in `models_dev_metadata`'s columns, with
    `stated_in` where it has it; a catalogue of models.dev's (TOKENLENS) counts elsewhere too."""
    catalogues = {"models.dev": _or_empty(models_dev), **{k: v for k, v in (more or {}).items() if k == TOKENLENS}}
    followed = [
        keyed(listings, keys),
        keyed(history.assign(source="genai-prices releases"), keys, "provider", "model_id").rename(
            columns={"name": "display_name", "model_id": "source_model_id"}),
        keyed(litellm.assign(source="litellm"), keys),
        *[keyed(frame.assign(source=name), keys) for name, frame in catalogues.items()],
        *[keyed(frame.assign(source=name), keys) for name, frame in (more or {}).items() if name != TOKENLENS],
    ]
    frames = [f.assign(standing=[BY_MAKER if origin else BY_HOST for origin in f["is_origin"]]) for f in followed]
    frames += [elsewhere(frame.assign(source=name), keys).assign(standing=ELSEWHERE)
               for name, frame in catalogues.items()]
    out = pd.concat([f.reindex(columns=STATEMENT_COLUMNS) for f in frames], ignore_index=True)
    out["_order"] = out["source"].map(SOURCE_ORDER)
    out = out.sort_values(["ticker", "standing", "_order"], kind="stable")
    return out[STATEMENT_COLUMNS].reset_index(drop=True)


def said_by(source: str, stated_in: object) -> str:
    """A source as a statement's provenance names it: "litellm releases 1.53.1 (2024-11-28)"."""
    return f"{source} {stated_in}" if isinstance(stated_in, str) and stated_in else source


def _or_empty(models_dev: pd.DataFrame | None) -> pd.DataFrame:
    return pd.DataFrame(columns=MODELS_DEV_COLUMNS) if models_dev is None else models_dev


def _limits(statements: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per ticker: `column`'s value, its source ("<source> at <provider>") and the rule that chose
    (`LIMIT_RULES`), from the statements of the best standing that states it: the maker's own,
    first by SOURCE_ORDER; else the largest a followed host states (the first source stating it);
    else the value most of models.dev's other providers state for the maker's id (ties: the
    smaller, the cautious reading)."""
    known = statements[statements[column].notna()]
    known = known.assign(value=known[column].astype("int64"))
    known = known[known["standing"] == known.groupby("ticker")["standing"].transform("min")]
    stated_by = known.groupby(["ticker", "value"])["value"].transform("size")
    host, other = known["standing"] == BY_HOST, known["standing"] == ELSEWHERE
    known = known.assign(_first=np.where(host, -known["value"], np.where(other, -stated_by, 0)),
                         _then=np.where(other, known["value"], 0))
    chosen = known.sort_values(["ticker", "_first", "_then"], kind="stable").drop_duplicates("ticker")
    return pd.DataFrame({"value": chosen["value"].to_numpy(),
                         "source": [f"{said_by(s, i)} at {p}" for s, i, p in
                                    zip(chosen["source"], chosen["stated_in"], chosen["provider"], strict=True)],
                         "rule": chosen["standing"].map(LIMIT_RULES).to_numpy()},
                        index=pd.Index(chosen["ticker"], name="ticker"))


def names_and_limits(models: pd.DataFrame, statements: pd.DataFrame) -> pd.DataFrame:
    """display_name, display_name_source, and per limit its value and `<limit>_source` per ticker
    (UNKNOWN where no source states it)."""
    rows = []
    # Each ticker's statements by position, in order (a frame per ticker cost more than the names).
    positions = statements.groupby("ticker", sort=False).indices
    names, sources = statements["display_name"].to_numpy(dtype=object), statements["source"].to_numpy(dtype=object)
    stated_in = statements["stated_in"].to_numpy(dtype=object)
    for ticker, model_id in models[["ticker", "model_id"]].itertuples(index=False):
        found = next(((_real_name(names[i], model_id, sources[i] == MAKER_PAGE), said_by(sources[i], stated_in[i]))
                      for i in positions.get(ticker, ())
                      if _real_name(names[i], model_id, sources[i] == MAKER_PAGE)), None)
        rows.append({"ticker": ticker,
                     "display_name": found[0] if found else name_from_ticker(ticker),
                     "display_name_source": found[1] if found else "derived from the ticker"})
    out = pd.DataFrame(rows)
    for column in LIMIT_FIELDS:
        chosen = _limits(statements, column)
        out[column] = out["ticker"].map(chosen["value"]).astype("Int64")
        out[f"{column}_source"] = out["ticker"].map(chosen["source"]).fillna(UNKNOWN)
    return out


def metadata_disputes(statements: pd.DataFrame) -> pd.DataFrame:
    """Every (ticker, limit) on which the sources state different values: one row per statement
    (source, provider, the id it is about, value) with the value chosen, its source and the rule
    (`LIMIT_RULES`). The maker's and followed hosts' statements always count; models.dev's other
    providers' only where they decided."""
    frames = []
    for column in LIMIT_FIELDS:
        chosen = _limits(statements, column)
        known = statements[statements[column].notna() & statements["ticker"].isin(chosen.index)]
        decided_elsewhere = known["ticker"].map(chosen["rule"]) == LIMIT_RULES[ELSEWHERE]
        known = known[(known["standing"] != ELSEWHERE) | decided_elsewhere]
        values = known.groupby("ticker")[column].transform("nunique")
        known = known[values > 1]
        frames.append(pd.DataFrame({
            "ticker": known["ticker"], "field": column, "source": known["source"], "provider": known["provider"],
            "provider_model_id": known["source_model_id"], "value": known[column].astype("int64"),
            "chosen_value": known["ticker"].map(chosen["value"]).astype("int64"),
            "chosen_source": known["ticker"].map(chosen["source"]), "rule": known["ticker"].map(chosen["rule"])}))
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(["ticker", "field", "source", "provider", "provider_model_id"],
                           ignore_index=True).drop_duplicates(ignore_index=True)


def modalities(models: pd.DataFrame, litellm: pd.DataFrame, keys: pd.DataFrame, rules,
               models_dev: pd.DataFrame | None = None) -> pd.DataFrame:
    """input_modalities and output_modalities per ticker: the union of what the sources state
    (LiteLLM's entries with their capability flags, models.dev's entries) of any of the model's
    ids at its maker, or, where no source has an entry at the maker, at its hosts (one entry often
    states less than another: a dated id's says vision, the undated one's not; a host's claim
    does not count beside the maker's own entries), with the curated rules of `model_rules.csv`;
    text where none states any. `input_modalities_source` and `output_modalities_source` name
    each source and what it stated ("litellm: image, text; models.dev: image, text")."""
    entries = pd.concat([keyed(frame, keys).assign(source=source) for source, frame in
                         (("litellm", litellm), ("models.dev", _or_empty(models_dev)))], ignore_index=True)
    makers = set(entries.loc[entries["is_origin"].astype(bool), "ticker"])
    entries = entries[entries["is_origin"].astype(bool) | ~entries["ticker"].isin(makers)]
    stated = {side: entries.groupby(["ticker", "source"])[f"{side}_modalities"].agg(
        lambda lists: sorted({m for x in lists for m in x})) for side in ("input", "output")}
    rows = []
    for ticker, maker, model_id in models[["ticker", "provider", "model_id"]].itertuples(index=False):
        row = {"ticker": ticker}
        for side in ("input", "output"):
            said = {source: stated[side].get((ticker, source)) for source in ("litellm", "models.dev")}
            rule = rules.first(side, f"{maker}/{model_id}")
            said["model_rules"] = sorted(rule.split(",")) if rule else None
            said = {source: values for source, values in said.items() if values is not None and len(values)}
            row[f"{side}_modalities"] = sorted({m for values in said.values() for m in values}) or [TEXT]
            row[f"{side}_modalities_source"] = ("; ".join(f"{s}: {', '.join(v)}" for s, v in said.items())
                                                or "default: text (no source states any)")
        rows.append(row)
    return pd.DataFrame(rows, columns=["ticker", "input_modalities", "input_modalities_source", "output_modalities",
                                       "output_modalities_source"])


def reasoning(models: pd.DataFrame, litellm: pd.DataFrame, keys: pd.DataFrame, rules) -> pd.DataFrame:
    """is_reasoning per ticker, with `is_reasoning_source`: the curated rule of `model_rules.csv`
    where one matches the model's id (it decides either way: a `non-reasoning` id is not one);
    else LiteLLM's `supports_reasoning` of the model's ids at its maker, a reasoning model if any
    of those entries says so (a dated id's entry often states more than the undated one's); else
    at its hosts, if most of the hosts' entries that state it say so; else not one (the default,
    no source stating it)."""
    entries = keyed(litellm, keys)
    entries = entries[entries["is_reasoning"].notna()]
    makers = set(entries.loc[entries["is_origin"].astype(bool), "ticker"])
    entries = entries[entries["is_origin"].astype(bool) | ~entries["ticker"].isin(makers)]
    said = entries.groupby("ticker")["is_reasoning"].agg(["sum", "size"])
    rows = []
    for ticker, maker, model_id in models[["ticker", "provider", "model_id"]].itertuples(index=False):
        rule = rules.first("reasoning", f"{maker}/{model_id}")
        if rule is not None:
            rows.append((ticker, rule == "true", f"model_rules: {rule}"))
        elif ticker in said.index:
            yes, stated = int(said.loc[ticker, "sum"]), int(said.loc[ticker, "size"])
            at_maker = ticker in makers
            is_one = yes > 0 if at_maker else 2 * yes > stated
            where = "its maker's entries" if at_maker else "its hosts' entries"
            rows.append((ticker, is_one, f"litellm supports_reasoning: {yes} of {stated} of {where}"))
        else:
            rows.append((ticker, False, "default: false (no source states it)"))
    return pd.DataFrame(rows, columns=["ticker", "is_reasoning", "is_reasoning_source"])


ACTIVE, DEPRECATED, RETIRED = "active", "deprecated", "retired"


def lifecycle_ids(models: pd.DataFrame, keys: pd.DataFrame, listed: set[tuple[str, str]],
                  pointers: set[str] = frozenset()) -> pd.DataFrame:
    """(ticker, provider, id): the ids at its maker whose lifecycle is the model's.

    A model's own id always. Every other id the maker prices it under too (a dated snapshot, the
    API id beside an undated name, a `-latest` form), where the model is the maker's to sell
    (`pricing_basis` maker: an open-weight model lives on at its hosts whatever its maker's API
    does) and no other of its ids is still listed without a status by model-prices, the source
    of statuses (`listed`: the (provider, id) pairs it lists alive). A pointer (`-latest`, or an
    id in `pointers`, the `model_aliases` table's) is no such evidence: it serves whatever model
    is newest. So a model retired under its dated id is retired, and one of several snapshots
    retired while another lives is not the model's."""
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


def metadata_statements(observations: pd.DataFrame, listings: pd.DataFrame, history: pd.DataFrame,
                        litellm: pd.DataFrame, models_dev: pd.DataFrame | None = None,
                        more: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Every source's name and limits statements per ticker, best first (see `_statements`)."""
    history = history.assign(provider=history["provider_id"].map(canonical_provider))  # idempotent
    return _statements(listings, history, litellm, id_keys(observations), models_dev, more)


def enrich_models(models: pd.DataFrame, observations: pd.DataFrame, listings: pd.DataFrame,
                  history: pd.DataFrame, litellm: pd.DataFrame, notices: pd.DataFrame,
                  removed: set[tuple[str, str]], removed_as_of: date | None, rules, as_of: date,
                  listed: set[tuple[str, str]] = frozenset(), pointers: set[str] = frozenset(),
                  models_dev: pd.DataFrame | None = None, more: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """`models` (`registry.build_models`) with what every source says of each model: display_name
    and display_name_source, context_window and max_output_tokens with their sources,
    input_modalities and output_modalities with theirs, is_reasoning with its source (`reasoning`),
    status, deprecated_on, retired_on and retired_by.

    `listings`: the price sources' listings; `history`: the genai-prices release history;
    `litellm`: `ingest_litellm.litellm_metadata`; `notices` and `removed`: see `lifecycle`;
    `listed`, `pointers`: see `lifecycle_ids`; `models_dev`: `ingest_models_dev.models_dev_metadata`,
    as known on the build's day (`ingest_models_dev.known_statements`); `more`: the further sources
    of names and limits by name (see `_statements`), as known on the build's day.
    """
    keys = id_keys(observations)
    history = history.assign(provider=history["provider_id"].map(canonical_provider))
    # The keys and the history's providers made above serve the statements too (`metadata_statements`
    # makes them itself for a caller without them).
    parts = [names_and_limits(models, _statements(listings, history, litellm, keys, models_dev, more)),
             modalities(models, litellm, keys, rules, models_dev), reasoning(models, litellm, keys, rules),
             lifecycle(models, listings, history, litellm, notices, removed, removed_as_of, as_of,
                       lifecycle_ids(models, keys, listed, pointers))]
    out = models
    for part in parts:
        out = out.merge(part, on="ticker", how="left", validate="one_to_one")
    return out
