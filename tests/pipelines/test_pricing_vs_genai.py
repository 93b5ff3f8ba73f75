"""Our task cost against genai-prices' own calculator, on the catalogue's real first-party prices.

The rates reach `task_cost` the way the pipeline stores them (`price_fields` → tiers JSON →
`Rates.from_row`), so this checks the ingest, the tiers format and the maths together against an
independent implementation. genai-prices counts `input_tokens` as the whole prompt, cached tokens
included, and reasoning tokens inside `output_tokens`.
"""

from datetime import UTC, datetime

import numpy as np
import pytest
from genai_prices import Usage, calc_price, data_snapshot

from pipelines.ingest_genai import is_token_priced, price_fields
from pipelines.pricing import Rates, task_cost

# Midday UTC: outside DeepSeek's off-peak windows, so the standard price applies.
AT = datetime(2026, 11, 22, 12, tzinfo=UTC)
ORIGINS = {"openai", "anthropic", "google", "x-ai", "mistral", "deepseek", "cohere", "meta", "minimax",
           "moonshotai", "perplexity", "zai", "zhipuai", "arcee"}
MODELLED = {"input_mtok", "output_mtok", "cache_read_mtok", "output_reasoning_mtok"}
# Priced by genai-prices but driven by usage our profile never has, so they add nothing here.
ZERO_IN_PROFILE = {"cache_write_mtok", "cache_write_1h_mtok", "web_searches_kcount", "storage_searches_kcount",
                   "output_citation_mtok"}
DRAWS = 120
SEED = 20261122


def price_keys(price) -> set[str]:
    return {key for key, value in price.__dict__.items() if value is not None}


def comparable_models():
    """(provider id, model id, ModelPrice, rates) for models whose whole price we model."""
    out = []
    for provider in data_snapshot.get_snapshot().providers:
        if provider.id not in ORIGINS:
            continue
        for model in provider.models:
            price = model.get_prices(AT)
            # Per-request fees, audio, image and video prices are outside the token profile.
            if not is_token_priced(price) or not price_keys(price) <= MODELLED | ZERO_IN_PROFILE:
                continue
            try:
                resolved = calc_price(Usage(input_tokens=1, output_tokens=1), model.id, provider_id=provider.id,
                                      genai_request_timestamp=AT)
            except (LookupError, ValueError):
                continue  # the id does not resolve to itself in genai-prices' own lookup
            if resolved.model.id != model.id:
                continue
            base, tiers = price_fields(price)
            out.append((provider.id, model.id, Rates.from_row({**base, "tiers": tiers})))
    return sorted(out, key=lambda item: item[:2])


def draw_profile(rng, rates):
    """Integer tokens: a log-uniform prompt, sometimes right at or past a tier threshold."""
    thresholds = [int(above) for above, _ in rates.tiers]
    pick = rng.random()
    if thresholds and pick < 0.4:
        above = int(rng.choice(thresholds))
        n_in = above + int(rng.choice([0, 1, 50_000]))
    elif pick < 0.55:
        n_in = 250_000
    else:
        n_in = int(10 ** rng.uniform(1, 5.5))
    n_out = 0 if rng.random() < 0.1 else int(10 ** rng.uniform(0, 4.5))
    cached = int(rng.integers(0, n_in + 1)) if rng.random() < 0.6 else 0
    n_think = int(rng.integers(1, 20_000)) if rng.random() < 0.3 else 0
    return n_in, n_out, cached, n_think


def build_cases():
    models = comparable_models()
    # Few models have context tiers or a reasoning price; each of those is drawn on purpose too.
    tiered = [m for m in models if m[2].tiers]
    reasoning_priced = [m for m in models if m[2].reasoning is not None]
    rng = np.random.default_rng(SEED)
    chosen = [models[i] for i in rng.integers(0, len(models), DRAWS)] + tiered + reasoning_priced * 3
    cases = []
    for provider_id, model_id, rates in chosen:
        n_in, n_out, cached, n_think = draw_profile(rng, rates)
        if rates.reasoning is not None:
            n_think = max(n_think, 1000)
        cases.append(pytest.param(provider_id, model_id, rates, n_in, n_out, cached, n_think,
                                  id=f"{provider_id}/{model_id}-{n_in}-{n_out}-{cached}-{n_think}"))
    return cases


CASES = build_cases()


@pytest.mark.parametrize(("provider_id", "model_id", "rates", "n_in", "n_out", "cached", "n_think"), CASES)
def test_task_cost_matches_genai_prices(provider_id, model_id, rates, n_in, n_out, cached, n_think):
    eta = cached / n_in
    ours = task_cost(rates, n_in, n_out, eta=eta, n_think=n_think).spot_cost
    usage = Usage(input_tokens=n_in, cache_read_tokens=cached, output_tokens=n_out + n_think,
                  output_reasoning_tokens=n_think)
    theirs = float(calc_price(usage, model_id, provider_id=provider_id, genai_request_timestamp=AT).total_price)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=0 if theirs else 1e-15)


def test_the_comparison_covers_enough_and_the_hard_cases():
    params = [case.values for case in CASES]
    assert len(params) >= 50
    assert len({(p[0], p[1]) for p in params}) >= 30
    providers = {p[0] for p in params}
    assert {"openai", "anthropic", "google"} <= providers
    crossed = [p for p in params if p[2].tiers and p[3] > p[2].tiers[0][0]]
    at_threshold = [p for p in params if any(p[3] == above for above, _ in p[2].tiers)]
    assert len(crossed) >= 10 and len(at_threshold) >= 3
    assert sum(1 for p in params if p[5] > 0 and p[2].cache_read is not None) >= 20
    assert sum(1 for p in params if p[6] > 0 and p[2].reasoning is not None) >= 3
    assert sum(1 for p in params if p[4] == 0) >= 1
