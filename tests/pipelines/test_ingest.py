"""Source normalisation: genai-prices, model-prices and the OpenRouter archive into listings."""

import math
from datetime import date, time
from decimal import Decimal

import pandas as pd
import pytest
from genai_prices.types import (
    ClauseEquals,
    ConditionalPrice,
    ModelInfo,
    ModelPrice,
    PriceVariant,
    Provider,
    StartDateConstraint,
    Tier,
    TieredPrices,
    TimeOfDateConstraint,
)

from pipelines import listings as L
from pipelines.ingest_archive import archive_listings
from pipelines.ingest_genai import current_listings, dated_listings, price_fields
from pipelines.ingest_model_prices import BASIS_PROVENANCE, effective_day, model_prices_listings
from pipelines.release_dating import ReleaseDating

V = ReleaseDating("v")

D = Decimal
URL = "https://openai.com/api/pricing/"


def provider() -> Provider:
    return Provider(id="openai", name="OpenAI", api_pattern="api.openai.com", pricing_urls=[URL])


def model(model_id: str, prices, variants=None) -> ModelInfo:
    return ModelInfo(id=model_id, match=ClauseEquals(equals=model_id), name=model_id.upper(),
                     context_window=200000, prices=prices, price_variants=variants)


UNSTATED = ("cache_write", "cache_write_1h", "reasoning", "citation", "request_fee", "web_search_fee",
            "file_search_fee")


def test_price_fields_flat():
    base, tiers = price_fields(ModelPrice(input_mtok=D("2"), output_mtok=D("8"), cache_read_mtok=D("0.5")))
    assert base == {"input": 2.0, "output": 8.0, "cache_read": 0.5} | dict.fromkeys(UNSTATED)
    assert tiers is None


def test_price_fields_fees_and_extra_token_classes():
    """Sonar Deep Research's page: $2/M citation tokens and $5 per 1,000 search queries; Sonar's $12
    per 1,000 requests; a one-hour cache write; OpenAI's file search at $2.50 per 1,000 calls."""
    base, _ = price_fields(ModelPrice(input_mtok=D("2"), output_mtok=D("8"), output_citation_mtok=D("2"),
                                      web_searches_kcount=D("5"), requests_kcount=D("12"),
                                      cache_write_1h_mtok=D("6"), storage_searches_kcount=D("2.5")))
    assert (base["citation"], base["web_search_fee"], base["request_fee"]) == (2.0, 5.0, 12.0)
    assert (base["cache_write_1h"], base["file_search_fee"]) == (6.0, 2.5)


def test_fees_never_enter_the_tiers_but_a_tiered_one_hour_write_does():
    price = ModelPrice(input_mtok=TieredPrices(base=D("3"), tiers=[Tier(start=200000, price=D("6"))]),
                       output_mtok=D("15"), cache_write_1h_mtok=TieredPrices(base=D("6"), tiers=[Tier(200000, D("12"))]),
                       web_searches_kcount=D("10"))
    _, tiers = price_fields(price)
    assert tiers == '[{"above":200000,"cache_write_1h":12.0,"input":6.0,"output":15.0}]'


def test_price_fields_tiered_field_without_tier_keeps_its_base():
    price = ModelPrice(
        input_mtok=TieredPrices(base=D("3"), tiers=[Tier(start=200000, price=D("6"))]),
        output_mtok=TieredPrices(base=D("15"), tiers=[Tier(start=200000, price=D("22.5"))]),
        cache_read_mtok=D("0.3"),
    )
    base, tiers = price_fields(price)
    assert base == {"input": 3.0, "output": 15.0, "cache_read": 0.3} | dict.fromkeys(UNSTATED)
    assert tiers == '[{"above":200000,"cache_read":0.3,"input":6.0,"output":22.5}]'


def test_price_fields_two_thresholds_field_tiered_once_stays_on_base_below_its_tier():
    price = ModelPrice(input_mtok=TieredPrices(base=D("1"), tiers=[Tier(200000, D("4")), Tier(128000, D("2"))]),
                       output_mtok=TieredPrices(base=D("5"), tiers=[Tier(start=200000, price=D("10"))]))
    _, tiers = price_fields(price)
    assert tiers == '[{"above":128000,"input":2.0,"output":5.0},{"above":200000,"input":4.0,"output":10.0}]'


O3_PRICES = [
    ConditionalPrice(prices=ModelPrice(input_mtok=D("10"), output_mtok=D("40"))),
    ConditionalPrice(constraint=StartDateConstraint(start_date=date(2025, 6, 10)),
                     prices=ModelPrice(input_mtok=D("2"), output_mtok=D("8"))),
    ConditionalPrice(constraint=TimeOfDateConstraint(start_time=time(16, 30), end_time=time(0, 30)),
                     prices=ModelPrice(input_mtok=D("1"), output_mtok=D("4"))),
]


def test_dated_listings_o3_like():
    out = dated_listings(provider(), model("o3", O3_PRICES), ReleaseDating("0.2.3", date(2026, 11, 10)))
    got = [(x.effective_date, x.input, x.output, x.provenance, x.mode, x.note) for x in out]
    assert got == [
        (date(2025, 6, 9), 10.0, 40.0, L.PUBLISHED, L.SYNC, "in force before 2025-06-10"),
        (date(2025, 6, 10), 2.0, 8.0, L.PUBLISHED, L.SYNC, None),
    ]
    meta = {(x.provider, x.source_model_id, x.source, x.source_version, x.source_url, x.source_released) for x in out}
    assert meta == {("openai", "o3", "genai-prices", "0.2.3", URL, date(2026, 11, 10))}


@pytest.mark.parametrize("prices", [ModelPrice(input_mtok=D("2.5"), output_mtok=D("10")), [O3_PRICES[0], O3_PRICES[2]]])
def test_dated_listings_without_a_start_date_gives_nothing(prices):
    assert dated_listings(provider(), model("m", prices), V) == []


def test_current_listings_uses_the_standard_price_at_midday():
    out = current_listings(provider(), model("o3", O3_PRICES), date(2025, 7, 1), V)
    got = [(x.mode, x.effective_date, x.input, x.output, x.provenance) for x in out]
    assert got == [(L.SYNC, date(2025, 7, 1), 2.0, 8.0, L.CURRENT)]  # not the 16:30-00:30 off-peak price
    assert out[0].note == "no release in the release history lists this price: dated on the snapshot day"


SINCE = ReleaseDating("0.2.3", date(2026, 11, 10), {("openai", "gpt-4.1"): (2.0, 8.0, date(2025, 7, 11))})


def test_a_current_price_is_dated_by_the_first_release_that_listed_it():
    standard = ModelPrice(input_mtok=D("2"), output_mtok=D("8"))
    [sync] = current_listings(provider(), model("gpt-4.1", standard), date(2026, 11, 22), SINCE)
    assert (sync.effective_date, sync.source_released, sync.note) == (date(2025, 7, 11), date(2026, 11, 10), None)


@pytest.mark.parametrize("price, as_of", [(("3", "8"), date(2026, 11, 22)),  # another price than the run's
                                          (("2", "8"), date(2025, 7, 1))])  # a snapshot before the release
def test_a_current_price_no_release_vouches_for_is_dated_on_the_snapshot_day(price, as_of):
    standard = ModelPrice(input_mtok=D(price[0]), output_mtok=D(price[1]))
    [sync] = current_listings(provider(), model("gpt-4.1", standard), as_of, SINCE)
    assert sync.effective_date == as_of and sync.note.startswith("no release")


def test_current_listings_batch_variant():
    standard = ModelPrice(input_mtok=D("2"), output_mtok=D("8"), cache_read_mtok=D("0.5"))
    batch = PriceVariant(when={"processing": "batch"}, prices=ModelPrice(input_mtok=D("1"), output_mtok=D("4")))
    out = current_listings(provider(), model("gpt-4.1", standard, [batch]), date(2026, 11, 22), SINCE)
    # the variant states only the keys it names: the batch cache price is not stated, not the sync one
    got = [(x.mode, x.effective_date, x.input, x.output, x.cache_read) for x in out]
    assert got == [(L.SYNC, date(2025, 7, 11), 2.0, 8.0, 0.5), (L.BATCH, date(2025, 7, 11), 1.0, 4.0, None)]


def test_a_batch_price_is_dated_no_earlier_than_its_variant():
    standard = ModelPrice(input_mtok=D("2"), output_mtok=D("8"))
    batch = PriceVariant(when={"processing": "batch"}, prices=ModelPrice(input_mtok=D("1"), output_mtok=D("4")),
                         constraint=StartDateConstraint(start_date=date(2026, 10, 14)))
    out = current_listings(provider(), model("gpt-4.1", standard, [batch]), date(2026, 11, 22), SINCE)
    assert [x.effective_date for x in out] == [date(2025, 7, 11), date(2026, 10, 14)]
    assert current_listings(provider(), model("gpt-4.1", standard, [batch]), date(2026, 10, 13), SINCE)[1:] == []


@pytest.mark.parametrize("price", [ModelPrice(input_mtok=D("1")), ModelPrice(output_mtok=D("1")),
                                   ModelPrice(requests_kcount=D("5"))])
def test_current_listings_not_token_priced(price):
    assert current_listings(provider(), model("x", price), date(2026, 1, 1), V) == []


# An earlier start gives way to the evidence date (valid_from); a later start wins.
@pytest.mark.parametrize("start, expected", [(None, date(2025, 6, 11)), ("2024-04-15T00:00:00Z", date(2025, 6, 11)),
                                             ("2025-06-17T22:26:49Z", date(2025, 6, 17))])
def test_effective_day(start, expected):
    assert effective_day({"start": start}, {"valid_from": "2025-06-11T20:51:05Z"}) == expected


def test_basis_provenance():
    assert BASIS_PROVENANCE == {"documented": L.PUBLISHED, "first observed": L.FIRST_OBSERVED,
                                "models.dev commit": L.FIRST_OBSERVED}


def rates(i, o, day, basis, source="https://example.com/p", **extra):
    return {"input": i, "output": o, "valid_from": f"{day}T10:00:00Z", "valid_from_basis": basis,
            "source": source, **extra}


O3_TIMELINE = {
    "standard": [
        {"rates": rates(10, 40, "2025-04-16", "documented", cache_read=2.5,
                        tiers=[{"above": 200000, "input": 20, "output": 80}]), "start": None},
        {"rates": rates(2, 8, "2025-06-10", "documented"), "start": "2025-06-10T00:00:00Z",
         "recorded": rates(2, 9, "2025-06-11", "models.dev commit", source="https://github.com/c")},
    ],
    "batch": [
        {"rates": None, "start": None},
        {"rates": {"input": None, "output": None}, "start": None},
        {"rates": rates(1, 4, "2025-06-11", "models.dev commit", cache_read=-1), "start": "2024-04-15T00:00:00Z"},
    ],
    "fast": [{"rates": rates(3.5, 14, "2026-10-01", "documented"), "start": None}],
}
SNAPSHOT = {"updated_at": "2026-10-26T18:46:35Z", "status": {"openai": {"o3": "removed"}}, "prices": {
    "openai": {"o3": O3_TIMELINE},
    "x-ai": {"grok-4": {"standard": [{"rates": rates(3, 15, "2025-07-09", "first observed"), "start": None}]}},
}}


def test_model_prices_listings():
    out = model_prices_listings(SNAPSHOT, "0.0.5")
    got = [(x.provider, x.source_model_id, x.mode, x.effective_date, x.input, x.output, x.cache_read,
            x.provenance, x.deprecated, x.note) for x in out]
    note = "models.dev value, replaced by a correction citing https://example.com/p"
    assert got == [
        ("openai", "o3", L.SYNC, date(2025, 4, 16), 10.0, 40.0, 2.5, L.PUBLISHED, True, None),
        ("openai", "o3", L.SYNC, date(2025, 6, 10), 2.0, 8.0, None, L.PUBLISHED, True, None),
        ("openai", "o3", L.SYNC, date(2025, 6, 10), 2.0, 9.0, None, L.FIRST_OBSERVED, True, note),
        ("openai", "o3", L.BATCH, date(2025, 6, 11), 1.0, 4.0, None, L.FIRST_OBSERVED, True, None),
        ("xai", "grok-4", L.SYNC, date(2025, 7, 9), 3.0, 15.0, None, L.FIRST_OBSERVED, None, None),
    ]
    assert out[0].tiers == '[{"above":200000,"input":20.0,"output":80.0}]'
    assert (out[2].source_url, {x.source for x in out}) == ("https://github.com/c", {"model-prices"})
    assert {x.source_released for x in out} == {date(2026, 10, 26)}  # the data's updated_at


@pytest.mark.parametrize("status, expected", [("removed", True), ("deprecated", True), ("active", False)])
def test_model_prices_lifecycle(status, expected):
    snap = {"status": {"openai": {"o3": status}}, "prices": {"openai": {"o3": O3_TIMELINE}}}
    assert {x.deprecated for x in model_prices_listings(snap, "v")} == {expected}


def archive(*rows):
    return pd.DataFrame(rows, columns=["date", "model_id", "input", "output"])


def test_archive_listing_fields():
    out = archive_listings(archive((date(2023, 7, 26), "openai/gpt-4", 30.0, 60.0)), "0.1.0")
    assert out == [L.Listing(
        provider="openrouter", source_model_id="openai/gpt-4", mode=L.SYNC, effective_date=date(2023, 7, 26),
        input=30.0, output=60.0, source="model-price-radar-mcp", source_version="0.1.0", provenance=L.ARCHIVED,
        source_url="https://web.archive.org/web/20230726/https://openrouter.ai/api/v1/models",
        source_released=date(2023, 7, 26),  # a capture is published on the day it is taken
    )]


@pytest.mark.parametrize("price_in, price_out", [(-1.0, 2.0), (1.0, -1.0), (math.nan, 2.0), (1.0, math.nan), (None, 2.0),
                                                (0.0, 2.0),
                                                (1.0, 0.0)])
def test_archive_drops_unusable_prices(price_in, price_out):
    rows = archive((date(2024, 1, 1), "openai/gpt-4o", 5.0, 15.0), (date(2024, 1, 1), "x/bad", price_in, price_out))
    assert [x.source_model_id for x in archive_listings(rows, "v")] == ["openai/gpt-4o"]


@pytest.mark.parametrize("value, expected", [(None, None), (-1, None), (math.nan, None), (0, 0.0), (2, 2.0),
                                             ("1.25", 1.25), (D("0.3"), 0.3)])
def test_positive_or_none(value, expected):
    assert L.positive_or_none(value) == expected


def test_tiers_json_sorts_thresholds_and_keys():
    tiers = [L.Tier(200000, {"output": 10.0, "input": 4.0}), L.Tier(128000, {"output": 6.0, "cache_read": 0.2})]
    assert L.tiers_json(tiers) == '[{"above":128000,"cache_read":0.2,"output":6.0},{"above":200000,"input":4.0,"output":10.0}]'
    assert L.tiers_json([]) is None


@pytest.mark.parametrize("raw, expected", [
    ("x-ai", "xai"), (" MistralAI ", "mistral"), ("meta-llama", "meta"), ("qwen", "alibaba"),
    ("amazon-bedrock", "amazon"), ("openai", "openai"), ("together", "together"),
])
def test_canonical_provider(raw, expected):
    assert L.canonical_provider(raw) == expected


def test_a_batch_variant_without_any_price_states_the_standard_rates():
    # gpt-3.5-turbo-1106 in 0.2.3: "The Batch table lists the same rates as standard".
    standard = ModelPrice(input_mtok=D("1"), output_mtok=D("2"))
    empty = PriceVariant(when={"processing": "batch"}, prices=ModelPrice())
    out = current_listings(provider(), model("gpt-4.1", standard, [empty]), date(2026, 11, 22), SINCE)
    assert [(x.mode, x.input, x.output) for x in out] == [(L.SYNC, 1.0, 2.0), (L.BATCH, 1.0, 2.0)]


def test_the_batch_variant_in_force_is_used_not_one_that_starts_later():
    standard = ModelPrice(input_mtok=D("2"), output_mtok=D("8"))
    later = PriceVariant(when={"processing": "batch"}, prices=ModelPrice(input_mtok=D("0.5"), output_mtok=D("2")),
                         constraint=StartDateConstraint(start_date=date(2027, 1, 1)))
    now = PriceVariant(when={"processing": "batch"}, prices=ModelPrice(input_mtok=D("1"), output_mtok=D("4")))
    out = current_listings(provider(), model("gpt-4.1", standard, [later, now]), date(2026, 11, 22), SINCE)
    assert [(x.mode, x.input, x.output) for x in out] == [(L.SYNC, 2.0, 8.0), (L.BATCH, 1.0, 4.0)]
