"""The shape each live upstream's payload must have before anything is parsed from it.

A live fetch can return anything: an error page with status 200, a truncated body, a format the
upstream has since changed. Each check takes the decoded JSON and either returns how many models
the payload lists or raises ValueError saying what is wrong, so a bad fetch is refused whole
(and the source's last good copy used) rather than half-read.

The formats, as each upstream publishes them:
- genai-prices: its published `data.json` (the file its own opt-in updater downloads), a list
  of providers, each with an `id` and a list of `models`, each with an `id` and `prices`;
- LiteLLM: `model_prices_and_context_window.json`, an object of model key → entry, each entry an
  object (priced entries carry `litellm_provider`; `sample_spec` documents the schema);
- OpenRouter: the public models API, `{"data": [{"id", "pricing": {"prompt", "completion"}}]}`
  with prices as decimal strings in USD per token;
- model-prices: a published snapshot, an object with `schema` 1, `updated_at` and `prices`
  (provider → model → price records).
"""

from __future__ import annotations

from collections.abc import Callable

GENAI_PRICES, LITELLM, OPENROUTER, MODEL_PRICES = "genai-prices", "litellm", "openrouter", "model-prices"
UPSTREAMS = (GENAI_PRICES, LITELLM, OPENROUTER, MODEL_PRICES)
# OpenRouter's per-model endpoint lists, read after its models list: kept as a source of their own.
OPENROUTER_ENDPOINTS = "openrouter-endpoints"
MODEL_PRICES_SCHEMA = 1


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def genai_prices_models(payload: object) -> int:
    _require(isinstance(payload, list) and len(payload) > 0, "expected a non-empty list of providers")
    count = 0
    for i, provider in enumerate(payload):
        _require(isinstance(provider, dict) and isinstance(provider.get("id"), str),
                 f"provider {i}: expected an object with a string id")
        models = provider.get("models")
        _require(isinstance(models, list), f"provider {provider['id']!r}: expected a list of models")
        for model in models:
            _require(isinstance(model, dict) and isinstance(model.get("id"), str) and "prices" in model,
                     f"provider {provider['id']!r}: every model needs a string id and prices")
        count += len(models)
    return count


def litellm_models(payload: object) -> int:
    _require(isinstance(payload, dict) and len(payload) > 0, "expected a non-empty object of model entries")
    priced = 0
    for key, entry in payload.items():
        _require(isinstance(entry, dict), f"entry {key!r}: expected an object")
        priced += "litellm_provider" in entry
    _require(priced > 0, "no entry names its litellm_provider")
    return priced


def openrouter_models(payload: object) -> int:
    data = payload.get("data") if isinstance(payload, dict) else None
    _require(isinstance(data, list) and len(data) > 0, "expected {\"data\": [models]} with at least one model")
    for model in data:
        pricing = model.get("pricing") if isinstance(model, dict) else None
        _require(isinstance(model, dict) and isinstance(model.get("id"), str) and isinstance(pricing, dict)
                 and "prompt" in pricing and "completion" in pricing,
                 "every model needs a string id and pricing with prompt and completion")
    return len(data)


def openrouter_endpoints(payload: object) -> int:
    """One model's endpoint list: `{"data": {"id", "endpoints": [{"provider_name", "pricing"}]}}`;
    counts the endpoints (a model no host serves at the moment lists none)."""
    data = payload.get("data") if isinstance(payload, dict) else None
    _require(isinstance(data, dict) and isinstance(data.get("id"), str) and isinstance(data.get("endpoints"), list),
             "expected {\"data\": {\"id\", \"endpoints\": [...]}}")
    for endpoint in data["endpoints"]:
        pricing = endpoint.get("pricing") if isinstance(endpoint, dict) else None
        _require(isinstance(pricing, dict) and "prompt" in pricing and "completion" in pricing,
                 "every endpoint needs pricing with prompt and completion")
    return len(data["endpoints"])


def model_prices_models(payload: object) -> int:
    _require(isinstance(payload, dict), "expected a snapshot object")
    _require(payload.get("schema") == MODEL_PRICES_SCHEMA,
             f"expected schema {MODEL_PRICES_SCHEMA}, got {payload.get('schema')!r}")
    _require(isinstance(payload.get("updated_at"), str), "expected an updated_at time")
    prices = payload.get("prices")
    _require(isinstance(prices, dict) and len(prices) > 0, "expected prices by provider")
    _require(all(isinstance(models, dict) for models in prices.values()), "expected each provider's prices by model")
    return sum(len(models) for models in prices.values())


CHECKS: dict[str, Callable[[object], int]] = {
    GENAI_PRICES: genai_prices_models, LITELLM: litellm_models, OPENROUTER: openrouter_models,
    MODEL_PRICES: model_prices_models, OPENROUTER_ENDPOINTS: openrouter_endpoints,
}
