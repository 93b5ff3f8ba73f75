"""No two tickers are the same model, judged by the sources' own alias knowledge.

genai-prices' match rules (the ids each model's clause lists, as the release history records them
for 0.2.3) and model-prices' alias table say which names are one model. Where one of them joins
two tickers, the pair must be explained: the maker prices them differently today, or the sources
list each id as a model of its own (a match rule is a price lookup, and groups a product's
variants that share a price, such as gpt-5 and gpt-5-codex). Any other pair is printed.
"""

import json
from importlib import resources

import pytest

from serve.lookup import ModelLookup
from warehouse.release_history import read_genai_release_history


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: this module's checks are about every model."""
    return full_store


@pytest.fixture(scope="module")
def lookup(store) -> ModelLookup:
    return ModelLookup(store.read_table("models"))


def _ticker(lookup: ModelLookup, name: str) -> str | None:
    try:
        return lookup.resolve(name).ticker
    except LookupError:
        return None


def joined_pairs(lookup: ModelLookup) -> dict[tuple[str, str], list[str]]:
    """Pairs of tickers that a source's alias knowledge calls one model, with the evidence."""
    pairs: dict[tuple[str, str], list[str]] = {}
    history, meta = read_genai_release_history()
    latest = history[(history["last_version"] == meta["last_version"]) & (history["aliases"] != "")]
    for provider, model_id, aliases in latest[["provider_id", "model_id", "aliases"]].itertuples(index=False):
        for alias in aliases.split(";"):
            a, b = _ticker(lookup, model_id), _ticker(lookup, alias)
            if a and b and a != b:
                pairs.setdefault(tuple(sorted((a, b))), []).append(f"genai-prices {provider}/{model_id} lists {alias}")
    snapshot = json.loads(resources.files("model_prices").joinpath("snapshot.json").read_text())
    for name, target in snapshot["aliases"]["models"].items():
        a, b = _ticker(lookup, target.split("/", 1)[1]), _ticker(lookup, name)
        if a and b and a != b:
            pairs.setdefault(tuple(sorted((a, b))), []).append(f"model-prices {name} -> {target}")
    return pairs


def test_every_pair_a_source_calls_one_model_is_explained(store, lookup):
    spots = store.read_table("spots").set_index("ticker")
    models = store.read_table("models").set_index("ticker")
    own = set()
    for table in ("genai_prices", "model_prices"):
        listed = store.read_table(table)
        own |= set(zip(listed["provider"], listed["source_model_id"].str.lower(), strict=True))
    pairs = joined_pairs(lookup)
    assert len(pairs) > 10  # the check has something to check
    unexplained = []
    for (a, b), evidence in sorted(pairs.items()):
        priced_apart = tuple(spots.loc[a, ["input_sync", "beta_sync"]]) != tuple(spots.loc[b, ["input_sync",
                                                                                               "beta_sync"]])
        listed_apart = all((models.loc[t, "provider"], models.loc[t, "model_id"]) in own for t in (a, b))
        if not (priced_apart or listed_apart):
            unexplained.append((a, b, evidence))
    assert unexplained == [], "\n".join(f"{a} = {b}? {'; '.join(e)}" for a, b, e in unexplained)
