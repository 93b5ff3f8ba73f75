"""LiteLLM's price map → listings and model metadata.

LiteLLM (BerriAI) is an LLM gateway library; to bill the calls it routes, it keeps a
hand-maintained map of some 4,800 model ids across ~120 providers and routes to per-token prices,
context windows, output limits, modalities and deprecation dates. It is a fourth source,
independent of the other three, read from the compact extract scripts/build_litellm_prices.py
ships in warehouse/seed (already in USD per million tokens; litellm itself is never imported).

What is taken, and why:
- list prices (sync, and batch where stated) as `current` listings: a cross-check on the other
  sources and one more vote when observations are adjudicated — never a silent override;
- context windows, maximum output, input and output modalities, deprecation dates, reasoning
  support and flat fees (per request, per web-search query), which the other sources state for
  fewer models; and the mode of every entry, so a consumer can tell an embedding, image or
  audio model from a text model.

LiteLLM's prices carry no date of their own: they are asserted as of the release, so every
listing is dated the release day.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pandas as pd

from pipelines.listings import BATCH, CURRENT, SYNC, Listing, Tier, canonical_provider, tiers_json

SOURCE = "litellm"
DATA_URL = "https://github.com/BerriAI/litellm/blob/v{version}/model_prices_and_context_window.json"
TEXT_MODES = ("chat", "completion", "responses")

# LiteLLM's provider (route) names → the spellings genai-prices, model-prices and
# listings.PROVIDER_ALIASES use, where they differ. genai-prices files Vertex AI under "google"
# (its google provider cites both the Gemini API and the Vertex AI price pages and lists
# Claude-on-Vertex ids), and Bedrock under "aws". Every `vertex_ai-*_models` route is Vertex too
# (see provider_id). Names not listed here go through canonical_provider unchanged; qwencloud
# (a separate Qwen storefront) keeps its own name.
PROVIDERS = {
    "text-completion-openai": "openai",
    "gemini": "google",
    "vertex_ai": "google",
    "codestral": "mistral",
    "text-completion-codestral": "mistral",
    "bedrock": "aws",
    "bedrock_converse": "aws",
    "bedrock_mantle": "aws",  # Bedrock's OpenAI-compatible endpoint
    "azure_text": "azure",
    "azure_ai": "azure",  # Azure AI Foundry; genai-prices' azure lists Foundry models too
    "together_ai": "together",
    "fireworks_ai": "fireworks",
    "cohere_chat": "cohere",
    "dashscope": "alibaba",
    "qwen_ai_platform": "alibaba",  # Alibaba Cloud Model Studio, the same price page as dashscope
    "amazon_nova": "amazon",
    "meta_llama": "meta",
    "github_copilot": "github-copilot",
    "bigmodel": "zhipuai",
    "text-completion-inception": "inception",
    "xiaomi_mimo": "xiaomi",
}

# Input and output modalities assumed by mode when an entry states none. Other modes (rerank,
# moderation, search, ocr, ...) get no default: their mode says what they are.
MODE_MODALITIES = {
    "chat": (["text"], ["text"]),
    "completion": (["text"], ["text"]),
    "responses": (["text"], ["text"]),
    "embedding": (["text"], ["embedding"]),
    "image_generation": (["text"], ["image"]),
    "image_edit": (["text", "image"], ["image"]),
    "video_generation": (["text"], ["video"]),
    "audio_speech": (["text"], ["audio"]),
    "audio_transcription": (["audio"], ["text"]),
}
# The web-search fee of the default search context size (what OpenAI bills unless asked otherwise).
SEARCH_SIZES = ("search_context_size_medium", "search_context_size_low")

METADATA_COLUMNS = ["litellm_key", "provider", "source_model_id", "mode", "context_window", "max_output_tokens",
                    "input_modalities", "output_modalities", "deprecation_date", "deprecated", "is_reasoning"]


def provider_id(litellm_provider: str) -> str:
    name = litellm_provider.strip().lower()
    if name.startswith("vertex_ai-"):  # vertex_ai-anthropic_models, vertex_ai-language-models, ...
        return "google"
    return PROVIDERS.get(name, canonical_provider(name))


def _route(name: str) -> str:
    return name.lower().replace("-", "_")


def source_model_id(key: str, litellm_provider: str) -> str:
    """The key without LiteLLM's route prefix: `xai/grok-4` → `grok-4`, `vertex_ai/claude-x` →
    `claude-x`, `openrouter/anthropic/claude-3.5-sonnet` → `anthropic/claude-3.5-sonnet` (the id
    the host uses). Only the entry's own route is stripped (its provider, or the family a
    `vertex_ai-*`/`bedrock_*`/`azure_*` provider belongs to), never a maker's name."""
    head, sep, rest = key.partition("/")
    provider = _route(litellm_provider)
    if sep and rest and (_route(head) == provider or provider.startswith(_route(head) + "_")):
        return rest
    return key


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def is_deprecated(entry: dict, released: date) -> bool | None:
    """True once the deprecation date is reached; None where LiteLLM gives no date."""
    day = _date(entry.get("deprecation_date"))
    return None if day is None else day <= released


def context_window(entry: dict) -> int | None:
    value = entry.get("max_input_tokens") or entry.get("max_tokens")
    return int(value) if value is not None else None


def _tiers(tiers: list[dict] | None) -> str | None:
    return tiers_json([Tier(above=int(t["above"]), rates={k: v for k, v in t.items() if k != "above"})
                       for t in tiers or []])


def _rates(entry: dict, prefix: str) -> dict[str, float | None] | None:
    """input/output/cache rates of one mode (`prefix` "" or "batch_"), None when unpriced.

    LiteLLM writes 0 for both prices on self-hosted runtimes (ollama, sagemaker) and on entries
    it has no price for; that is no list price, so such an entry gives no listing.
    """
    rates = {
        "input": entry.get(f"{prefix}input"),
        "output": entry.get(f"{prefix}output"),
        "cache_read": entry.get(f"{prefix}cache_read"),
        "cache_write": entry.get(f"{prefix}cache_write"),
    }
    if rates["input"] is None or rates["output"] is None or rates["input"] == rates["output"] == 0:
        return None
    return rates


def writes_text(entry: dict) -> bool:
    """False for a chat-mode entry that only outputs audio (Gemini TTS, Lyria): its token prices
    are not text prices. An entry that states no output modality is taken at its mode's word."""
    outputs = entry.get("supported_output_modalities")
    return not outputs or "text" in outputs


def key_preference(key: str) -> tuple[int, str]:
    """The order that decides between keys naming one model at one provider (smallest first).

    LiteLLM lists some models under several routes that land on one (provider, id): `deepseek-chat`
    and `deepseek/deepseek-chat`, Vertex's `gemini-2.5-pro` and `gemini/gemini-2.5-pro`, Bedrock's
    `anthropic.claude-…` and `bedrock_mantle/anthropic.claude-…`. The shortest key (LiteLLM's
    default route for the model) comes first, then alphabetical order.
    """
    return len(key), key


def _preferred(entries: list[dict]) -> list[dict]:
    """Entries with a provider, in `key_preference` order."""
    return sorted((e for e in entries if e.get("litellm_provider")), key=lambda e: key_preference(e["key"]))


def litellm_listings(entries: list[dict], version: str, released: date) -> list[Listing]:
    """A sync listing per priced text model (chat, completion, responses) and a batch listing
    where LiteLLM states batch prices, all `current` as of the release day."""
    out, seen = [], set()
    for entry in _preferred(entries):
        if entry.get("mode") not in TEXT_MODES or not writes_text(entry):
            continue
        provider = provider_id(entry["litellm_provider"])
        model = source_model_id(entry["key"], entry["litellm_provider"])
        for mode, prefix, tiers, reasoning in ((SYNC, "", entry.get("tiers"), entry.get("reasoning")),
                                               (BATCH, "batch_", entry.get("batch_tiers"), None)):
            rates = _rates(entry, prefix)
            if rates is None or (provider, model, mode) in seen:
                continue
            if mode == SYNC:
                rates |= {"cache_write_1h": entry.get("cache_write_1h"), **fees(entry)}
            seen.add((provider, model, mode))
            out.append(Listing(
                provider=provider, source_model_id=model, mode=mode, effective_date=released,
                source=SOURCE, source_version=version, source_released=released, provenance=CURRENT,
                source_url=DATA_URL.format(version=version), display_name=None,
                context_window=context_window(entry), deprecated=is_deprecated(entry, released),
                tiers=_tiers(tiers), reasoning=reasoning, **rates,
            ))
    return sorted(out, key=lambda r: (r.provider, r.source_model_id, r.mode))


def _per_thousand(value: object) -> float | None:
    """A fee per request or query → per 1,000 of them, exact to the decimal stated (0.005 → 5.0)."""
    if value is None:
        return None
    return float(Decimal(str(value)) * 1000)


def search_fee(entry: dict) -> float | None:
    """USD per 1,000 web-search queries at the medium search context size (low where no medium)."""
    sizes = (entry.get("fees") or {}).get("search_context_cost_per_query") or {}
    return next((_per_thousand(sizes[s]) for s in SEARCH_SIZES if sizes.get(s) is not None), None)


def fees(entry: dict) -> dict[str, float | None]:
    """The entry's fees in our fields, USD per 1,000 requests or calls."""
    stated = entry.get("fees") or {}
    return {"request_fee": _per_thousand(stated.get("input_cost_per_request")),
            "web_search_fee": search_fee(entry),
            "file_search_fee": stated.get("file_search_cost_per_1k_calls"),
            "grounding_fee": _per_thousand(stated.get("google_maps_grounding_cost_per_query"))}


# Capability flags that say an input modality where `supported_modalities` is not given (most
# entries: gpt-4o states only `supports_vision`). A PDF input is a file, not a modality here.
INPUT_FLAGS = (("image", "supports_vision"), ("audio", "supports_audio_input"))


def _inputs_stated(entry: dict, by_mode: list[str]) -> list[str]:
    """The entry's input modalities: its list, else its mode's, with every modality a capability flag adds."""
    inputs = list(entry.get("supported_modalities") or by_mode)
    return inputs + [name for name, flag in INPUT_FLAGS if entry.get(flag) and name not in inputs]


def _metadata_row(entry: dict, released: date) -> dict:
    mode = entry.get("mode")
    inputs, outputs = MODE_MODALITIES.get(mode, ([], []))
    return {
        "litellm_key": entry["key"],
        "provider": provider_id(entry["litellm_provider"]),
        "source_model_id": source_model_id(entry["key"], entry["litellm_provider"]),
        "mode": mode,
        "context_window": context_window(entry),
        "max_output_tokens": entry.get("max_output_tokens"),
        "input_modalities": _inputs_stated(entry, inputs),
        "output_modalities": list(entry.get("supported_output_modalities") or outputs),
        "deprecation_date": _date(entry.get("deprecation_date")),
        "deprecated": is_deprecated(entry, released),
        "is_reasoning": entry.get("supports_reasoning"),
    }


def litellm_metadata(entries: list[dict], released: date) -> pd.DataFrame:
    """One row per (provider, model id) of every mode, text or not, with what LiteLLM says about it.

    `deprecated` is whether the deprecation date is reached on `released`. (Fees are stated on the
    listings, with the prices.)
    Alias-only entries (`bedrock/claude-opus-latest` → another key) carry nothing and are left out.
    """
    rows, seen = [], set()
    for entry in _preferred(entries):
        row = _metadata_row(entry, released)
        if (row["provider"], row["source_model_id"]) not in seen:
            seen.add((row["provider"], row["source_model_id"]))
            rows.append(row)
    frame = pd.DataFrame(rows, columns=METADATA_COLUMNS)
    for col in ("context_window", "max_output_tokens"):
        frame[col] = frame[col].astype("Int64")
    for col in ("deprecated", "is_reasoning"):
        frame[col] = frame[col].astype("boolean")
    return frame.sort_values(["provider", "source_model_id"], kind="stable").reset_index(drop=True)


RELEASE_LIMIT_COLUMNS = ["provider", "source_model_id", "context_window", "max_output_tokens", "stated_in"]


def release_limits(stated: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The limits LiteLLM's releases stated for the entries it had dropped by `as_of`
    (`read_litellm_limits`: a `stated` row where an entry's limits were first stated or changed, a
    `dropped` row where a release no longer had it): per entry whose latest row on or before
    `as_of` is `dropped`, its last stated limits, read as `litellm_metadata` reads an entry
    (window: max_input_tokens, else max_tokens), in the project's provider and model ids, with
    `stated_in` the release that stated them ("1.53.1 (2024-11-28)"). An entry LiteLLM still lists
    speaks through its current map, not its history. Where two entries name one id, the later
    release's, then the first key."""
    known = stated[stated["released"] <= as_of].sort_values("released", kind="stable")
    latest = known.drop_duplicates(["litellm_provider", "key"], keep="last")
    dropped = latest.loc[latest["change"] == "dropped", ["litellm_provider", "key"]]
    known = known[known["change"] == "stated"].merge(dropped, on=["litellm_provider", "key"])
    known = known.drop_duplicates(["litellm_provider", "key"], keep="last")
    frame = pd.DataFrame({
        "provider": known["litellm_provider"].map(provider_id),
        "source_model_id": [source_model_id(key, route) for key, route in
                            zip(known["key"], known["litellm_provider"], strict=True)],
        "context_window": known["max_input_tokens"].fillna(known["max_tokens"]).astype("Int64"),
        "max_output_tokens": known["max_output_tokens"].astype("Int64"),
        "stated_in": [f"{v} ({d.isoformat()})" for v, d in zip(known["version"], known["released"], strict=True)],
        "_released": known["released"], "_key": known["key"],
    }, columns=[*RELEASE_LIMIT_COLUMNS, "_released", "_key"])
    frame = frame.sort_values(["_released", "_key"], ascending=[False, True], kind="stable")
    frame = frame.drop_duplicates(["provider", "source_model_id"])
    return frame[RELEASE_LIMIT_COLUMNS].sort_values(["provider", "source_model_id"]).reset_index(drop=True)
