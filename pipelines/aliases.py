"""What the sources themselves say about which ids name the same model.

Two kinds of statement, in this order of precedence:

1. Curated aliases (`warehouse/seed/model_aliases.csv`), each with the evidence for it: ids no
   source maps, such as xAI's beta and experimental names of Grok 4.20.
2. genai-prices' match rules: each of its models lists the ids it answers to (`grok-4.20` also
   matches `grok-4.20-0309-reasoning`; `gemini-2.5-pro` every `gemini-2.5-pro-preview-*`). Its
   own matcher is asked, per maker, which of its models an id from another source names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pandas as pd

from pipelines.listings import canonical_provider
from pipelines.pointers import identity_tokens, versions_of


@dataclass(frozen=True)
class CuratedAlias:
    maker: str
    alias_id: str
    model_id: str
    reason: str


def curated_aliases(frame: pd.DataFrame) -> list[CuratedAlias]:
    """Rows of `model_aliases.csv`; a row without a reason is refused, since a curated alias
    is only as good as the evidence written beside it."""
    rows = []
    for maker, alias_id, model_id, reason in frame[["maker", "alias_id", "model_id", "reason"]].itertuples(
            index=False):
        if not str(reason).strip():
            raise ValueError(f"model_aliases.csv: {maker}/{alias_id} has no reason")
        rows.append(CuratedAlias(maker, alias_id.lower(), model_id.lower(), reason))
    return rows


def curated_pointers(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """(maker, pointer id) of each row of `pointer_ids.csv`: ids without `-latest` that the maker
    repoints; a row without a reason is refused, like a curated alias."""
    rows = []
    for maker, pointer_id, reason in frame[["maker", "pointer_id", "reason"]].itertuples(index=False):
        if not str(reason).strip():
            raise ValueError(f"pointer_ids.csv: {maker}/{pointer_id} has no reason")
        rows.append((maker, pointer_id.lower()))
    return rows


def _stated_ids(clause) -> list[str]:
    """The ids a match clause names exactly (`equals`, directly or inside an `or`)."""
    if hasattr(clause, "equals"):
        return [clause.equals.lower()]
    return [i for inner in getattr(clause, "or_", None) or [] for i in _stated_ids(inner)]


def names_same_model(alias: str, model_id: str) -> bool:
    """An alias names a model when it names nothing the model's id does not, and no other
    version (`mistral-medium` and `mistral-small-2506` may name a versioned model;
    `mistral-medium-3` does not name `mistral-medium-3-5`)."""
    versions = sorted(versions_of(alias))
    return identity_tokens(alias) <= identity_tokens(model_id) and (
        not versions or versions == sorted(versions_of(model_id)))


def genai_matcher(providers: Iterable) -> Callable[[str, str], str | None]:
    """(maker, bare id) → the id of the genai-prices model of that maker that the id names, or None.

    genai-prices' rules say which price an id is billed at, which is not always which model it is:
    it bills `gpt-5-codex` as `gpt-5`. So an id the rules name exactly (`equals`) joins the model
    only when it names nothing the model's id does not (`names_same_model`: `gpt-5.6` joins `gpt-5.6-sol`,
    `codestral-2501` joins `codestral`; `gpt-5-codex` stays a product of its own), and an id only
    a pattern accepts (`starts_with`, `contains`) only when both name the same thing, up to
    release-stage words and build stamps (`gemini-2.5-pro-preview-03-25` joins `gemini-2.5-pro`;
    `gemini-1.5-flash-8b` and `minimax-m2.1` do not join `gemini-1.5-flash` and `MiniMax-M2`).
    Only the maker's own catalogue is asked: a host's rules say what the host bills, not what the
    maker calls its models.
    """
    by_maker: dict[str, list] = {}
    stated: dict[tuple[str, str], str] = {}
    for provider in providers:
        maker = canonical_provider(provider.id)
        by_maker.setdefault(maker, []).append(_first_of_each_rule(provider))
        for model in provider.models:
            for listed in _stated_ids(model.match):
                stated.setdefault((maker, listed), model.id)
    cache: dict[tuple[str, str], str | None] = {}

    def match(maker: str, bare: str) -> str | None:
        key = (maker, bare.lower())
        if key not in cache:
            named = stated.get(key)
            if named is not None and not names_same_model(bare, named):
                named = None
            cache[key] = named or (None if key in stated else _pattern_match(by_maker.get(maker, []), bare.lower()))
        return cache[key]

    return match


def _first_of_each_rule(provider):
    """The provider with the first of its models under each match rule only: a search returns the
    first model whose rule matches, so a later one under the same rule is never found, and a
    catalogue that lists many models under one rule is searched once per rule, not per model."""
    seen, models = set(), []
    for model in provider.models:
        rule = repr(model.match)
        if rule not in seen:
            seen.add(rule)
            models.append(model)
    return dataclasses.replace(provider, models=models) if len(models) < len(provider.models) else provider


def _pattern_match(providers: list, bare: str) -> str | None:
    for provider in providers:
        model = provider.find_model(bare)
        if model is not None:
            return model.id if identity_tokens(bare) == identity_tokens(model.id) else None
    return None
