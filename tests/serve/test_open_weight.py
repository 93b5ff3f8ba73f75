"""Open-weight models priced at the median of their hosts (contract §1), on the real snapshot:
host offers from genai-prices 0.2.3 and, for hosts it does not price, LiteLLM 1.110.2."""

import statistics

import pytest

from tests.serve.test_pricing import post


@pytest.fixture(scope="module")
def tables(store):
    return {name: store.read_table(name) for name in ("models", "spots", "providers", "price_observations")}


def host_rows(providers, ticker):
    rows = providers[(providers["ticker"] == ticker) & (providers["mode"] == "sync") & ~providers["is_origin"]]
    return rows[rows["output"] > 0]


def test_at_least_thirty_open_weight_models_each_with_three_hosts(tables):
    models = tables["models"].set_index("ticker")
    open_weight = models[models["pricing_basis"] == "host_median"]
    assert len(open_weight) >= 8  # 8 in the small universe, 37 on the bundled data
    for ticker, model in open_weight.iterrows():
        hosts = host_rows(tables["providers"], ticker)
        assert model["host_count"] >= 3 and hosts["provider"].nunique() >= 3, ticker
        assert (model["host_min_output"], model["host_max_output"]) == (hosts["output"].min(), hosts["output"].max())
    assert {"LLAMA-3.3-70B", "LLAMA-3.1-8B", "LLAMA-4-MAVERICK-17B-128E", "LLAMA-4-SCOUT-17B-16E",
            "LLAMA-3.1-405B", "GEMMA-3-27B", "NEMOTRON-3-ULTRA-550B-A55B"} <= set(open_weight.index)
    assert (models.loc[models["pricing_basis"] == "maker", "provider"] != "").all()
    # A model its maker sells keeps the maker's price, whatever its hosts charge.
    assert models.loc["QWEN3-CODER-480B-A35B-INSTRUCT", "pricing_basis"] == "maker"
    assert models.loc["GPT-OSS-120B", "pricing_basis"] == "maker"


def test_the_price_is_the_median_of_each_hosts_cheapest_offer(tables):
    """Recomputed from the providers table: one offer per host (Hugging Face's route to a host is
    that host; genai-prices before LiteLLM; the cheapest by output, then input), then the median."""
    spot = tables["spots"].set_index("ticker").loc["LLAMA-3.3-70B"]
    rows = host_rows(tables["providers"], "LLAMA-3.3-70B")
    rows = rows.assign(host=rows["provider"].str.replace(r"^huggingface_", "", regex=True).replace(
        {"fireworks-ai": "fireworks"}), rank=(rows["source"] != "genai-prices").astype(int))
    best = rows.sort_values(["rank", "output", "input", "provider", "provider_model_id"]).drop_duplicates("host")
    assert len(best) == 23
    assert spot["input_sync"] == pytest.approx(statistics.median(best["input"]), rel=1e-12)
    assert spot["beta_sync"] == pytest.approx(statistics.median(best["output"]), rel=1e-12)
    assert (spot["input_sync"], spot["beta_sync"], spot["source_sync"]) == (0.59, 0.72, "host-median")


def test_providers_lists_every_host_cheapest_first_against_the_median(client, tables):
    data = post(client, "/v1/providers", {"model": "llama-3.3-70b", "n_in": 2000, "n_out": 500})
    assert data["ticker"] == "LLAMA-3.3-70B"
    assert data["origin"]["provider"] == "meta"  # the host-median statement, in the maker's name
    assert data["origin"]["spot_cost"] == pytest.approx((2000 * 0.59 + 500 * 0.72) * 1e-6, rel=1e-12)
    costs = [p["spot_cost"] for p in data["providers"]]
    assert costs == sorted(costs) and data["count"] >= 25
    assert len({p["provider"] for p in data["providers"] if not p["is_origin"]}) >= 25


def test_host_ids_in_many_spellings_name_one_model(client, tables):
    observations = tables["price_observations"]
    ids = set(observations.loc[observations["ticker"] == "LLAMA-3.3-70B", "provider_model_id"])
    assert {"meta-llama/Llama-3.3-70B-Instruct-Turbo", "llama-3.3-70b-versatile",
            "@cf/meta/llama-3.3-70b-instruct-fp8-fast", "Meta-Llama-3.3-70B-Instruct"} <= ids
    for name in ("LLAMA-3.3-70B", "meta-llama/llama-3.3-70b-instruct", "llama-3.3-70b"):
        assert post(client, "/v1/price", {"model": name, "n_in": 1000, "n_out": 100})["model"] == "LLAMA-3.3-70B"
    note = observations.loc[(observations["ticker"] == "LLAMA-3.3-70B") & (observations["source"] == "host-median"),
                            "note"].iloc[-1]
    assert note.startswith("median of 23 hosts") and "host variants:" in note and "fp8" in note
