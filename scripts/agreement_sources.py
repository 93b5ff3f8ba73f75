"""The two sources of `source_agreement.py`, each read through its own conventions.

genai-prices through its package: its data snapshot, its lookup of a model id at a provider
(`DataSnapshot.find_provider_model`, what `calc_price(..., provider_id=...)` uses) and its prices
in force at a time (`ModelInfo.get_prices`). LiteLLM from its price map as the seed ships it (or
as LiteLLM publishes it: USD per token under its own key names), looked up by its route and key.
Nothing here reads the oracle's ingest: the maker → source tables are this instrument's own.
"""

from __future__ import annotations

import gzip
import json
import re
from datetime import datetime, time, timedelta
from decimal import Decimal
from pathlib import Path

# Prices in force at noon UTC of the snapshot's day: outside DeepSeek's peak windows (01–04, 06–10),
# the period the spot's β is (`standard: off_peak`).
GENAI_CLOCK = time(12, 0)

# `maker/model` prefixes that name the maker itself (as hosts and catalogues spell it), so the
# tail is the maker's own id; any other prefix is a host route.
MAKER_PREFIXES = {
    "openai", "anthropic", "google", "x-ai", "xai", "mistral", "mistralai", "deepseek", "deepseek-ai", "cohere",
    "meta", "meta-llama", "minimax", "minimaxai", "moonshotai", "perplexity", "zai", "z-ai", "zai-org", "qwen",
    "alibaba", "amazon", "ai21", "bytedance", "bytedance-seed", "xiaomi", "xiaomimimo", "cognition", "inception",
    "cursor", "upstage", "stepfun", "stepfun-ai", "sakana", "thinkingmachines", "arcee-ai", "inclusionai",
    "meituan", "longcat", "tencent",
}

# Maker → genai-prices provider ids, asked in order (a maker genai-prices does not list is unmatched).
GENAI_PROVIDERS = {
    "openai": ("openai",), "anthropic": ("anthropic",), "google": ("google",), "xai": ("x-ai",),
    "mistral": ("mistral",), "deepseek": ("deepseek",), "cohere": ("cohere",), "meta": ("meta",),
    "minimax": ("minimax",), "moonshotai": ("moonshotai",), "perplexity": ("perplexity",), "zai": ("zai",),
    "amazon": ("aws",), "arcee": ("arcee",), "cursor": ("cursor",),
}
# genai-prices price key → the spot's field. Token rates are USD per million; `*_kcount` per 1,000.
GENAI_KEYS = {
    "input_mtok": "input", "output_mtok": "output", "cache_read_mtok": "cache_read",
    "cache_write_mtok": "cache_write", "cache_write_1h_mtok": "cache_write_1h",
    "output_citation_mtok": "citation", "requests_kcount": "request_fee",
    "web_searches_kcount": "web_search_fee", "storage_searches_kcount": "file_search_fee",
}
TIERED = ("input", "output", "cache_read", "cache_write")
PEAK_RATES = ("input", "output", "cache_read")
BATCH = {"processing": "batch"}

# Maker → LiteLLM routes (`litellm_provider`) that are the maker's own API, asked in order.
LITELLM_ROUTES = {
    "openai": ("openai", "text-completion-openai"), "anthropic": ("anthropic",),
    "google": ("gemini", "vertex_ai-language-models"), "xai": ("xai",),
    "mistral": ("mistral", "codestral", "text-completion-codestral"), "deepseek": ("deepseek",),
    "cohere": ("cohere_chat", "cohere"), "meta": ("meta_llama", "meta"), "minimax": ("minimax",),
    "moonshotai": ("moonshot",), "perplexity": ("perplexity",), "zai": ("zai",),
    "alibaba": ("dashscope", "qwen_ai_platform"), "amazon": ("amazon_nova", "bedrock_converse", "bedrock"),
    "ai21": ("ai21",), "bytedance": ("volcengine",), "xiaomi": ("xiaomi_mimo",), "cognition": ("cognition",),
    "inception": ("inception", "text-completion-inception"), "tencent": ("tencent",),
}
# LiteLLM's own per-token keys (as it publishes them) → the spot's field and mode.
LITELLM_PER_TOKEN = {
    "input_cost_per_token": "sync.input", "output_cost_per_token": "sync.output",
    "cache_read_input_token_cost": "sync.cache_read", "cache_creation_input_token_cost": "sync.cache_write",
    "cache_creation_input_token_cost_above_1hr": "sync.cache_write_1h",
    "output_cost_per_reasoning_token": "sync.reasoning",
    "input_cost_per_token_batches": "batch.input", "output_cost_per_token_batches": "batch.output",
    "cache_read_input_token_cost_batches": "batch.cache_read",
    "cache_creation_input_token_cost_batches": "batch.cache_write",
}
# The seed's compact names (already per million tokens) → the spot's field and mode.
LITELLM_COMPACT = {
    "input": "sync.input", "output": "sync.output", "cache_read": "sync.cache_read",
    "cache_write": "sync.cache_write", "cache_write_1h": "sync.cache_write_1h", "reasoning": "sync.reasoning",
    "batch_input": "batch.input", "batch_output": "batch.output", "batch_cache_read": "batch.cache_read",
    "batch_cache_write": "batch.cache_write",
}
TIER_KEY = re.compile(r"^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|"
                      r"cache_creation_input_token_cost)_above_(\d+)k_tokens(_batches)?$")
TIER_RATE = {"input_cost_per_token": "input", "output_cost_per_token": "output",
             "cache_read_input_token_cost": "cache_read", "cache_creation_input_token_cost": "cache_write"}
# Fees in USD per request or query → the spot's USD per 1,000. Web search: the default (medium) size.
SEARCH_SIZES = ("search_context_size_medium", "search_context_size_low")


def _mtok(value) -> float:
    return float(Decimal(str(value)) * 1_000_000)


def compact_litellm(key: str, raw: dict) -> dict:
    """One entry of LiteLLM's published map (USD per token) in the seed's compact form."""
    entry = {"key": key, **{k: raw[k] for k in ("litellm_provider", "mode", "alias_of") if k in raw}}
    names = {v: k for k, v in LITELLM_COMPACT.items()}
    tiers: dict[tuple[bool, int], dict] = {}
    fees = {}
    for name, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if isinstance(value, dict) and name == "search_context_cost_per_query":
                fees[name] = value
            continue
        if name in LITELLM_PER_TOKEN:
            entry[names[LITELLM_PER_TOKEN[name]]] = _mtok(value)
        elif match := TIER_KEY.match(name):
            above = int(match[2]) * 1000
            tiers.setdefault((bool(match[3]), above), {"above": above})[TIER_RATE[match[1]]] = _mtok(value)
        elif name.endswith(("_cost_per_query", "_per_request")):
            fees[name] = value
    for batch in (False, True):
        found = [tiers[k] for k in sorted(tiers) if k[0] == batch]
        if found:
            entry["batch_tiers" if batch else "tiers"] = found
    if fees:
        entry["fees"] = fees
    return entry


def read_litellm(path: Path) -> list[dict]:
    """The seed's compact list, or LiteLLM's own map ({key: entry}) compacted the same way."""
    data = json.loads(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())
    if isinstance(data, dict):
        return [compact_litellm(k, v) for k, v in data.items() if isinstance(v, dict) and k != "sample_spec"]
    return data


def litellm_statement(entry: dict) -> dict:
    """Every spot field a LiteLLM entry states."""
    out = {LITELLM_COMPACT[k]: float(v) for k, v in entry.items() if k in LITELLM_COMPACT and v is not None}
    for name, mode in (("tiers", "sync"), ("batch_tiers", "batch")):
        if entry.get(name):
            out[f"{mode}.tiers"] = entry[name]
    fees = entry.get("fees") or {}
    if "input_cost_per_request" in fees:
        out["sync.request_fee"] = 1000 * float(fees["input_cost_per_request"])
    search = fees.get("search_context_cost_per_query")
    if isinstance(search, dict):
        size = next((s for s in SEARCH_SIZES if s in search), None)
        if size:
            out["sync.web_search_fee"] = 1000 * float(search[size])
    if "google_maps_grounding_cost_per_query" in fees:
        out["sync.grounding_fee"] = 1000 * float(fees["google_maps_grounding_cost_per_query"])
    return out


class LiteLLM:
    """LiteLLM's entries by (route, id): the key as written, else the key without its route prefix
    (an exact key wins: `perplexity/sonar` is not `perplexity/perplexity/sonar`)."""

    def __init__(self, entries: list[dict]):
        self.exact: dict[tuple[str, str], dict] = {}
        self.routed: dict[tuple[str, str], dict] = {}
        for entry in entries:
            route = entry.get("litellm_provider")
            if not route:
                continue  # a bare pointer (`alias_of`) at a reseller's route
            key = entry["key"].lower()
            head, sep, tail = key.partition("/")
            self.exact.setdefault((route, key), entry)
            if sep and (head == route or route.startswith(head)):
                self.routed.setdefault((route, tail), entry)

    def find(self, maker: str, ids: list[str]):
        for wanted in ids:
            for route in LITELLM_ROUTES.get(maker, ()):
                for table in (self.exact, self.routed):
                    entry = table.get((route, wanted.lower()))
                    statement = litellm_statement(entry) if entry is not None else None
                    if statement:
                        return entry["key"], wanted, statement
        return None


class GenaiPrices:
    """genai-prices' bundled data, asked the way its `calc_price` asks it."""

    def __init__(self, clock: datetime):
        import genai_prices
        from genai_prices import data_snapshot

        self.version = genai_prices.__version__
        self.snapshot = data_snapshot.get_snapshot()
        self.clock = clock
        # maker → {id asked: the entry another model's prices were found under}, for the report
        self.elsewhere: dict[str, dict[str, str]] = {}

    def at(self, clock: datetime) -> GenaiPrices:
        """The same data asked at another time (prices in force then)."""
        other = object.__new__(GenaiPrices)
        other.version, other.snapshot, other.clock, other.elsewhere = self.version, self.snapshot, clock, {}
        return other

    def find(self, maker: str, ids: list[str]):
        for wanted in ids:
            for provider_id in GENAI_PROVIDERS.get(maker, ()):
                try:
                    provider, model = self.snapshot.find_provider_model(wanted, None, provider_id, None)
                except LookupError:
                    continue
                if not lists(model, wanted):
                    self.elsewhere.setdefault(maker, {})[wanted] = f"{provider.id}:{model.id}"
                    continue
                statement = genai_statement(model, self.clock)
                if statement:
                    return f"{provider.id}:{model.id}", wanted, statement
        return None


# What may follow a prefix genai-prices matches on and still name the same model: a date or build
# stamp (`magistral-small-` + `2506`, `-001`, `:0`), never a word or a size (`-8b`, `-vision-exp`).
STAMP_TAIL = re.compile(r"^[-_:@.]?v?[0-9][0-9\-_:.@]*$|^$")


def lists(model, wanted: str) -> bool:
    """Whether a genai-prices entry lists `wanted` as its own id: its id, an `equals` clause, or a
    prefix or substring clause that leaves no more than a date or build stamp. Its lookup also
    lands on an entry whose prefix merely begins the id (`gemini-1.5-flash` for
    `gemini-1.5-flash-8b`): that prices another model, and is no match of this one."""
    wanted = wanted.lower()
    if model.id.lower() == wanted:
        return True
    return any(_names(clause, wanted) for clause in _clauses(model.match))


def _clauses(clause):
    for child in getattr(clause, "or_", None) or getattr(clause, "and_", None) or ():
        yield from _clauses(child)
    if not hasattr(clause, "or_") and not hasattr(clause, "and_"):
        yield clause


def _names(clause, wanted: str) -> bool:
    if hasattr(clause, "equals"):
        return clause.equals.lower() == wanted
    for attr in ("starts_with", "contains"):
        text = getattr(clause, attr, None)
        if text is not None:
            text = text.lower()
            at = wanted.find(text) if attr == "contains" else (0 if wanted.startswith(text) else -1)
            return at == 0 and bool(STAMP_TAIL.match(wanted[len(text):]))
    return False


def _flat(prices, out: dict, mode: str, tiers: dict) -> None:
    """A ModelPrice's stated keys into `out` (`<mode>.<field>`), tier rates into `tiers`."""
    for key, value in vars(prices).items():
        name = GENAI_KEYS.get(key)
        if name is None or value is None:
            continue
        base = getattr(value, "base", value)
        out[f"{mode}.{name}"] = float(base)
        for tier in getattr(value, "tiers", None) or []:
            if name in TIERED:
                tiers.setdefault(int(tier.start), {"above": int(tier.start)})[name] = float(tier.price)


def genai_statement(model, clock: datetime) -> dict:
    """Every spot field genai-prices states for a model at `clock`: the sync prices in force, the
    keys its batch variant lists (a key it leaves out is a fallback, not a batch price), and the
    peak and off-peak rates where its prices change with the time of day."""
    out: dict = {}
    tiers: dict[int, dict] = {}
    _flat(model.get_prices(clock), out, "sync", tiers)
    if tiers:
        out["sync.tiers"] = [tiers[a] for a in sorted(tiers)]
    batch_out: dict = {}
    batch_tiers: dict[int, dict] = {}
    for variant in model.price_variants or ():
        if dict(variant.when) == BATCH and (variant.constraint is None or variant.constraint.active(clock)):
            _flat(variant.prices, batch_out, "batch", batch_tiers)
            break
    out.update(batch_out)
    if batch_tiers:
        out["batch.tiers"] = [batch_tiers[a] for a in sorted(batch_tiers)]
    peak = _peak(model, clock)
    if peak:
        out["sync.peak"] = peak
    return out


def _peak(model, clock: datetime) -> dict | None:
    """{"peak": rates, "off_peak": rates} where the model's prices in force change with the time of
    day: the rates at `clock` and inside each time-of-day window, the dearer set named peak."""
    windows = [c.constraint for c in (model.prices if isinstance(model.prices, list) else [])
               if type(c.constraint).__name__ == "TimeOfDateConstraint"]
    times = [clock] + [datetime.combine(clock.date(), w.start_time, tzinfo=clock.tzinfo) + timedelta(minutes=30)
                       for w in windows]
    sets = []
    for when in times:
        flat: dict = {}
        _flat(model.get_prices(when), flat, "sync", {})
        rates = {k.split(".", 1)[1]: v for k, v in flat.items() if k.split(".", 1)[1] in PEAK_RATES}
        if rates not in sets:
            sets.append(rates)
    if len(sets) != 2:
        return None  # one price all day (or a shape this instrument does not read)
    off_peak, peak = sorted(sets, key=lambda r: r.get("input", 0.0))
    return {"peak": peak, "off_peak": off_peak}
