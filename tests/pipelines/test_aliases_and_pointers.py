"""Aliases and pointers: which ids name one model, and which model a pointer served when."""

from datetime import date

import pandas as pd
import pytest

from pipelines.aliases import curated_aliases, genai_matcher, names_same_model
from pipelines.pointers import alias_spans, identity_tokens, is_candidate, line_of, resolve_pointers


@pytest.mark.parametrize("alias, model_id, expected", [
    ("gpt-5.6", "gpt-5.6-sol", True),  # the shorter name of the same model
    ("codestral-2501", "codestral", True),  # a build stamp is not another model
    ("mistral-small-2506", "mistral-small-3.2-24b-instruct", True),  # Mistral's API id of Small 3.2
    ("grok-4.20-0309-reasoning", "grok-4.20", True),  # xAI's reasoning switch of one model
    ("open-mistral-7b", "mistral-7b", True),  # Mistral's open- prefix
    ("gpt-5-codex", "gpt-5", False),  # billed as gpt-5 by genai-prices, but a product of its own
    ("mistral-medium-3", "mistral-medium-3-5", False),  # another version
    ("gemini-1.5-flash-8b", "gemini-1.5-flash", False),  # another size
])
def test_names_same_model(alias, model_id, expected):
    assert names_same_model(alias, model_id) is expected


def test_identity_tokens_and_lines():
    assert identity_tokens("gemini-2.5-pro-preview-03-25") == identity_tokens("gemini-2.5-pro")
    assert line_of("mistral-medium-latest") == line_of("mistral-medium-2312") == line_of("mistral-medium-3-5")
    assert line_of("mistral-medium-latest") != line_of("mistral-medium-3-5-vision")


@pytest.mark.parametrize("pointer, model_id, expected", [
    ("mistral-medium-latest", "mistral-medium-3-5", True),  # no version in the pointer: any of the line
    ("gemini-flash-latest", "gemini-3.8-flash", True),
    ("gemini-flash-latest", "gemini-3.5-flash-lite", False),
    ("claude-3-7-sonnet-latest", "claude-3-7-sonnet-20250219", True),  # a version: ids that start with it
    ("claude-3-7-sonnet-latest", "claude-3-sonnet", False),
])
def test_pointer_candidates(pointer, model_id, expected):
    assert is_candidate(pointer, model_id) is expected


class _Model:
    def __init__(self, model_id, equals=(), prefix=None):
        self.id, self._prefix = model_id, prefix
        self.match = type("Or", (), {"or_": [type("Eq", (), {"equals": e})() for e in equals]})()

    def accepts(self, ref):
        return ref == self.id or ref in [c.equals for c in self.match.or_] or (
            self._prefix is not None and ref.startswith(self._prefix))


class _Provider:
    def __init__(self, provider_id, models):
        self.id, self.models = provider_id, models

    def find_model(self, ref):
        return next((m for m in self.models if m.accepts(ref)), None)


def test_genai_matcher_believes_stated_ids_only_when_they_name_the_model():
    providers = [_Provider("openai", [_Model("gpt-5", equals=["gpt-5-codex"], prefix="gpt-5")]),
                 _Provider("google", [_Model("gemini-2.5-pro", prefix="gemini-2.5-pro")])]
    match = genai_matcher(providers)
    assert match("openai", "gpt-5-codex") is None  # stated, but another product
    assert match("openai", "gpt-5-2025-08-07") == "gpt-5"  # a pattern, same model up to the date
    assert match("google", "gemini-2.5-pro-preview-03-25") == "gemini-2.5-pro"
    assert match("google", "gemini-2.5-pro-tts") is None
    assert match("anthropic", "gpt-5") is None  # only the maker's own catalogue is asked


def test_a_curated_alias_needs_its_evidence():
    frame = pd.DataFrame({"maker": ["xai"], "alias_id": ["Grok-Beta"], "model_id": ["grok-4"], "reason": [" "]})
    with pytest.raises(ValueError, match="no reason"):
        curated_aliases(frame)


def _listing(model_id, model, day, price_in, price_out, source="model-prices", mode="sync"):
    return {"_maker": "mistral", "_model": model, "source_model_id": model_id, "is_origin": True, "mode": mode,
            "effective_date": day, "input": price_in, "output": price_out, "source": source, "authority": 20}


def test_a_pointer_serves_the_model_priced_as_it_was_and_moves_with_it():
    """mistral-medium-latest: 0.4/2 (Medium 3.1) until Mistral repointed it to Medium 3.5 at 1.5/7.5."""
    models = pd.DataFrame([
        _listing("mistral-medium-3-1", "mistral-medium-3-1", date(2025, 9, 4), 0.4, 2.0),
        _listing("mistral-medium-3-5", "mistral-medium-3-5", date(2026, 6, 6), 1.5, 7.5),
        _listing("mistral-medium-2312", "mistral-medium-2312", date(2024, 3, 26), 2.7, 8.1),
    ])
    statements = pd.DataFrame([
        {**_listing("mistral-medium-latest", None, date(2025, 6, 10), 0.4, 2.0), "_pointer": "mistral-medium-latest"},
        {**_listing("mistral-medium-latest", None, date(2026, 6, 16), 1.5, 7.5), "_pointer": "mistral-medium-latest"},
        {**_listing("mistral-medium-latest", None, date(2026, 7, 1), 9.0, 9.0), "_pointer": "mistral-medium-latest"},
    ])
    resolved = resolve_pointers(statements, models, lambda maker, pointer: None)
    assert list(resolved["_model"]) == ["mistral-medium-3-1", "mistral-medium-3-5", None]  # 9/9: no model
    assert list(resolved["_basis"]) == ["price", "price", None]
    spans = alias_spans(resolved)
    assert spans[["model_id", "valid_from", "valid_to"]].values.tolist() == [
        ["mistral-medium-3-1", date(2025, 6, 10), date(2026, 6, 15)],
        ["mistral-medium-3-5", date(2026, 6, 16), None],
    ]


def test_a_pointer_priced_as_two_models_serves_the_newest_known_on_its_day():
    """Two Medium versions at one price: the pointer serves the newest one known on the day of
    its statement, a version first listed that very day included, and never one listed later."""
    models = pd.DataFrame([
        _listing("mistral-medium-3", "mistral-medium-3", date(2025, 5, 7), 0.4, 2.0),
        _listing("mistral-medium-3-1", "mistral-medium-3-1", date(2025, 8, 12), 0.4, 2.0),
    ])
    pointer = {"_pointer": "mistral-medium-latest"}
    statements = pd.DataFrame([
        {**_listing("mistral-medium-latest", None, date(2025, 8, 11), 0.4, 2.0), **pointer},
        {**_listing("mistral-medium-latest", None, date(2025, 8, 12), 0.4, 2.0), **pointer},
    ])
    resolved = resolve_pointers(statements, models, lambda maker, pointer: None)
    assert list(resolved["_model"]) == ["mistral-medium-3", "mistral-medium-3-1"]
