"""Host ids read as one open-weight model, variants named, and the median of the hosts' offers."""

import re
from datetime import date

import pandas as pd
import pytest

from pipelines.identity import MakerTable
from pipelines.listings import LISTING_COLUMNS
from pipelines.open_weight import Family, host_median_listings, open_weight_id

MAKERS = MakerTable([(r"^(llama-3|meta-llama-)", "meta")])
FAMILIES = (Family("meta", re.compile("^llama-"), "Llama Community License"),)


@pytest.mark.parametrize(("listed", "model_id", "variant"), [
    ("meta-llama/Llama-3.3-70B-Instruct-Turbo", "llama-3.3-70b", ("instruct", "turbo")),
    ("@cf/meta/llama-3.3-70b-instruct-fp8-fast", "llama-3.3-70b", ("instruct", "fp8", "fast")),
    ("Meta-Llama-3.3-70B-Instruct", "llama-3.3-70b", ("instruct",)),
    ("llama-3.3-70b-versatile", "llama-3.3-70b", ("versatile",)),
    ("meta-llama/llama-3.1-405b-base", "llama-3.1-405b-base", ()),  # a base model is another model
    ("nvidia.nemotron-nano-12b-v2:0", "nemotron-nano-12b-v2", ()),
])
def test_an_id_without_its_host_prefix_and_serving_variant(listed, model_id, variant):
    assert open_weight_id(listed)[1:] == (model_id, variant)


def offer(provider, listed_id, input_, output, day=date(2026, 10, 1), source="genai-prices"):
    return dict.fromkeys(LISTING_COLUMNS) | {
        "provider": provider, "source_model_id": listed_id, "mode": "sync", "effective_date": day, "input": input_,
        "output": output, "source": source, "source_version": "v", "provenance": "current"}


def never(provider, listed_id):
    return False


def test_each_host_counts_once_at_its_cheapest_and_the_median_is_decimal():
    listings = pd.DataFrame([
        offer("groq", "llama-3.3-70b-versatile", 0.59, 0.79), offer("groq", "llama-3.3-70b-specdec", 0.59, 0.99),
        offer("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", 0.88, 0.88),
        offer("huggingface_together", "meta-llama/Llama-3.3-70B-Instruct", 0.10, 0.10),  # together again
        offer("deepinfra", "meta-llama/Llama-3.3-70B-Instruct", 0.10, 0.11),
        offer("openrouter", "meta-llama/llama-3.3-70b-instruct:free", 0.0, 0.0),  # no price
    ])
    (statement,), names = host_median_listings(listings, MAKERS, FAMILIES, never)
    # Hosts: deepinfra (0.10/0.11), groq (0.59/0.79), together (0.10/0.10 through Hugging Face).
    assert (statement.provider, statement.source_model_id, statement.source) == ("meta", "llama-3.3-70b", "host-median")
    assert (statement.input, statement.output) == (0.10, 0.11)
    assert statement.note.startswith("median of 3 hosts (deepinfra, groq, together)")
    assert len(names[("meta", "llama-3.3-70b")]) == 4  # the distinct ids that name it (not the free one)


def test_fewer_than_three_hosts_or_a_model_its_maker_sells_gives_no_statement():
    two = pd.DataFrame([offer("groq", "llama-3.1-8b-instant", 0.05, 0.08),
                        offer("deepinfra", "meta-llama/Llama-3.1-8B-Instruct", 0.02, 0.05)])
    assert host_median_listings(two, MAKERS, FAMILIES, never) == ([], {})
    three = pd.concat([two, pd.DataFrame([offer("novita", "meta-llama/llama-3.1-8b-instruct", 0.02, 0.05)])])
    assert host_median_listings(three, MAKERS, FAMILIES, lambda p, i: i == "llama-3.1-8b-instant") == ([], {})


def test_one_statement_on_each_day_the_offers_known_change():
    listings = pd.DataFrame([offer("a", "llama-3.1-8b", 0.1, 0.1, date(2026, 1, 1)),
                             offer("b", "llama-3.1-8b", 0.2, 0.2, date(2026, 1, 1)),
                             offer("c", "llama-3.1-8b", 0.3, 0.3, date(2026, 1, 1)),
                             offer("d", "llama-3.1-8b", 0.4, 0.4, date(2026, 3, 1))])
    statements, _ = host_median_listings(listings, MAKERS, FAMILIES, never)
    assert [(s.effective_date, s.output) for s in statements] == [(date(2026, 1, 1), 0.2), (date(2026, 3, 1), 0.25)]
    statements, _ = host_median_listings(listings, MAKERS, FAMILIES, never, as_of=date(2026, 2, 1))
    assert [(s.effective_date, s.output) for s in statements] == [(date(2026, 1, 1), 0.2)]


def test_an_id_without_its_parameter_counts_joins_the_one_sized_model():
    listings = pd.DataFrame([offer(host, listed, 0.2, 0.8) for host, listed in [
        ("groq", "llama-4-maverick-17b-128e-instruct"), ("novita", "llama-4-maverick-17b-128e-instruct-fp8"),
        ("kyma", "llama-4-maverick"), ("vercel", "meta/llama-4-maverick"), ("or", "meta-llama/llama-4-maverick-17b")]])
    makers = MakerTable([(r"^(llama-4|meta-llama-)", "meta")])
    statements, _ = host_median_listings(listings, makers, FAMILIES, never)
    assert [s.source_model_id for s in statements] == ["llama-4-maverick-17b-128e"]
    assert statements[0].note.startswith("median of 5 hosts")
