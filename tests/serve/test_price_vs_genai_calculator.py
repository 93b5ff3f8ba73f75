"""POST /v1/price against genai-prices' own calculator, over every model of the snapshot that
genai-prices prices at its maker, with profiles that bill every component: plain tokens; cache
reads and 5-minute and 1-hour cache writes; web and file searches and citation tokens; a prompt
past the first context tier; and a peak hour. Fees are in both (genai-prices bills one request
per call). A model whose spot is not genai-prices' current price must be a documented dispute.
"""

import json
from collections import Counter
from datetime import UTC, datetime

import pandas as pd
import pytest
from genai_prices import Usage, calc_price, data_snapshot

from pipelines.ingest_genai import price_fields
from pipelines.listings import canonical_provider

# A Monday: 12:00 UTC is outside DeepSeek's peak windows, 02:30 inside them (genai-prices has no
# weekday condition, so a weekday is where both sides mean the same thing).
OFF_PEAK_AT = datetime(2026, 11, 23, 12, tzinfo=UTC)
PEAK_AT = datetime(2026, 11, 23, 2, 30, tzinfo=UTC)


def genai_models():
    """{(our provider, model id): (genai provider id, model)} of the bundled catalogue."""
    return {(canonical_provider(p.id), m.id): (p.id, m) for p in data_snapshot.get_snapshot().providers
            for m in p.models}


def profiles(spot):
    """(name, body, at) of the profiles one model can serve (within its context window)."""
    think = 1500 if spot["is_reasoning"] else 0
    out = [("plain", {"n_in": 2000, "n_out": 500}, OFF_PEAK_AT),
           ("cache", {"n_in": 12000, "n_out": 800, "eta": 4000 / 12000, "n_cache_write_5m": 2000,
                      "n_cache_write_1h": 1000, "n_think": think}, OFF_PEAK_AT),
           ("tools", {"n_in": 3000, "n_out": 400, "n_web_searches": 3, "n_file_searches": 2, "n_citation": 200},
            OFF_PEAK_AT)]
    if isinstance(spot["tiers_sync"], str):
        above = min(tier["above"] for tier in json.loads(spot["tiers_sync"]))
        out.append(("tier", {"n_in": above + 1000, "n_out": 300, "eta": 20000 / (above + 1000),
                             "n_cache_write_5m": 500}, OFF_PEAK_AT))
    if isinstance(spot["peak_sync"], str):
        out.append(("peak", {"n_in": 5000, "n_out": 700, "eta": 0.3}, PEAK_AT))
    window = spot["context_window"]
    return [p for p in out if pd.isna(window) or p[1]["n_in"] + p[1]["n_out"] + p[1].get("n_think", 0) <= window]


# What each of our price fields bills in a profile: a profile that uses a field the spot states and
# genai-prices does not is not "the same usage" for genai-prices' calculator.
USES = {"cache_read": "eta", "cache_write": "n_cache_write_5m", "cache_write_1h": "n_cache_write_1h",
        "reasoning": "n_think", "citation": "n_citation", "web_search_fee": "n_web_searches",
        "file_search_fee": "n_file_searches"}


def unpriced_by_genai(spot, stated, body):
    """The fields the profile uses that the spot prices and genai-prices' price leaves out (a
    cache write stated as 0 is no price of its own: such writes bill as input)."""
    def priced(field):
        value = spot[f"{field}_sync"]
        return not pd.isna(value) and not (field.startswith("cache_write") and value == 0)

    return sorted(field for field, count in USES.items() if body.get(count) and stated.get(field) is None
                  and priced(field))


def genai_usage(body):
    cached = round(body["n_in"] * body.get("eta", 0.0))
    writes_5m, writes_1h = body.get("n_cache_write_5m", 0), body.get("n_cache_write_1h", 0)
    think, citation = body.get("n_think", 0), body.get("n_citation", 0)
    return Usage(input_tokens=body["n_in"], cache_read_tokens=cached, cache_write_tokens=writes_5m + writes_1h,
                 cache_write_1h_tokens=writes_1h, output_tokens=body["n_out"] + think + citation,
                 output_reasoning_tokens=think, output_citation_tokens=citation,
                 web_searches=body.get("n_web_searches", 0), storage_searches=body.get("n_file_searches", 0))


@pytest.fixture(scope="module")
def comparison(full_client, full_store):
    """Every model of the whole bundled data against genai-prices' own calculator."""
    client, store = full_client, full_store
    spots = store.read_table("spots").set_index("ticker")
    observations = store.read_table("price_observations")
    disputes = store.read_table("price_disputes")
    disputed = set(disputes[(disputes["mode"] == "sync") & (disputes["source"] == "genai-prices")
                            & (disputes["field"].isin(["input", "output"]))]["ticker"])
    catalogue = genai_models()
    current = observations[(observations["source"] == "genai-prices") & observations["is_origin"]
                           & (observations["mode"] == "sync") & (observations["provenance"] == "current")
                           & ~observations["superseded"]]
    current = current.sort_values("effective_date").drop_duplicates("ticker", keep="last").set_index("ticker")
    compared, skipped, kinds = [], {}, Counter()
    for ticker, row in current.iterrows():
        spot = spots.loc[ticker]
        provider_id, model = catalogue[(row["provider"], row["provider_model_id"])]
        standard, _ = price_fields(model.get_prices(OFF_PEAK_AT))
        if (standard["input"], standard["output"]) != (spot["input_sync"], spot["beta_sync"]):
            skipped[ticker] = "genai-prices states another price"
            continue
        for name, body, at in profiles(spot):
            missing = unpriced_by_genai(spot, price_fields(model.get_prices(at))[0], body)
            if missing:
                skipped[f"{ticker} {name}"] = f"genai-prices does not price {', '.join(missing)}"
                continue
            try:
                theirs = calc_price(genai_usage(body), model.id, provider_id=provider_id, genai_request_timestamp=at)
            except LookupError:
                theirs = None
            if theirs is None or theirs.model.id != model.id:
                skipped[ticker] = "genai-prices' lookup resolves the id to another model"
                break
            response = client.post("/v1/price", json={"model": ticker, **body, "at": at.isoformat()})
            assert response.status_code == 200, (ticker, body, response.text)
            compared.append((ticker, name, response.json()["data"]["spot_cost"], float(theirs.total_price)))
            kinds.update(line["line"] for line in response.json()["data"]["cost_lines"] if line["cost"] > 0)
            kinds[name] += 1
    return compared, skipped, disputed, kinds


def test_every_price_equals_genai_prices_calculator(comparison):
    compared, _, _, _ = comparison
    wrong = [(ticker, name, ours, theirs) for ticker, name, ours, theirs in compared
             if ours != pytest.approx(theirs, rel=1e-9, abs=0 if theirs else 1e-15)]
    assert wrong == []


def test_a_model_left_out_is_a_documented_dispute(comparison):
    _, skipped, disputed, _ = comparison
    undocumented = {t: why for t, why in skipped.items() if why.startswith("genai-prices states") and t not in disputed}
    assert undocumented == {}


def test_the_comparison_covers_every_component(comparison):
    """Measured on the bundled data: 241 models compared, 28 past a context tier; every kind of
    line billed somewhere (request fees on the four Sonar models, tool fees on 75 and 30, the
    1-hour write on 28 Claude and Kimi models, citations on Sonar Deep Research, peak hours on
    the three DeepSeek V4 models)."""
    compared, skipped, _, kinds = comparison
    cases = {(ticker, name) for ticker, name, *_ in compared}
    assert len({ticker for ticker, _ in cases}) >= 230
    assert len(skipped) <= 30, skipped
    assert {("SONAR-REASONING", "plain"), ("SONAR-PRO", "tools"), ("SONAR-DEEP-RESEARCH", "tools"),
            ("GPT-4.1", "tools"), ("SONNET-4.5", "cache"), ("HAIKU-5.5", "tier"), ("DEEPSEEK-V4-PRO", "peak"),
            ("GEMINI-2.5-PRO", "tier")} <= cases
    for line, floor in {"request_fee": 8, "web_search": 70, "file_search": 25, "cache_write_5m": 200,
                        "cache_write_1h": 200, "thinking": 100, "tier": 25, "peak": 3}.items():
        assert kinds[line] >= floor, (line, kinds[line])

