"""Filters, fields and pages of the lists of every model (serve/listing.py), each answer checked
against the spots table filtered here with pandas, and unknown query parameters refused."""

import pytest

SLOW = pytest.mark.slow


@pytest.fixture(scope="module")
def spots(store):
    return store.read_table("spots")


def _get(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.text
    return response.json()


def _modalities(row):
    return {*(row["input_modalities"] if row["input_modalities"] is not None else []),
            *(row["output_modalities"] if row["output_modalities"] is not None else [])}


def test_no_filter_is_every_model_with_its_total(client, spots):
    body = _get(client, "/v1/spots")
    assert [row["ticker"] for row in body["data"]] == list(spots["ticker"])
    assert (body["total"], body["next"]) == (len(spots), None)


def test_provider_tier_and_status_match_in_any_case(client, spots):
    body = _get(client, "/v1/spots?provider=Anthropic&tier=FRONTIER&status=active")
    expected = spots[(spots["provider"] == "anthropic") & (spots["tier"] == "frontier") & (spots["status"] == "active")]
    assert [row["ticker"] for row in body["data"]] == list(expected["ticker"]) and body["total"] == len(expected) > 0


def test_modality_matches_what_a_model_takes_or_gives(client, spots):
    body = _get(client, "/v1/greeks?modality=audio")
    expected = [row["ticker"] for row in spots.to_dict("records") if "audio" in _modalities(row)]
    assert [row["ticker"] for row in body["data"]] == expected and 0 < len(expected) < len(spots)


def test_q_searches_names_in_any_case(client, spots):
    body = _get(client, "/v1/spots?q=SONNET")
    names = spots[["ticker", "ticker_batch", "model_id", "display_name", "provider"]].fillna("")
    hit = names.apply(lambda column: column.str.lower().str.contains("sonnet", regex=False)).any(axis=1)
    assert [row["ticker"] for row in body["data"]] == list(spots["ticker"][hit]) and body["total"] == int(hit.sum()) > 2


def test_fields_keep_the_ticker_and_the_fields_named(client, spots):
    body = _get(client, "/v1/spots?provider=openai&fields=beta_sync,input_sync")
    expected = spots[spots["provider"] == "openai"]
    assert body["data"] == [{"ticker": t, "beta_sync": b, "input_sync": i}
                            for t, b, i in zip(expected["ticker"], expected["beta_sync"], expected["input_sync"])]


def test_pages_follow_next_to_the_whole_list(client, spots):
    first = _get(client, "/v1/spots?status=retired&limit=5")
    expected = list(spots["ticker"][spots["status"] == "retired"])
    pages, body = [first], first
    while body["next"] is not None:
        body = _get(client, body["next"])
        pages.append(body)
    assert [row["ticker"] for page in pages for row in page["data"]] == expected
    assert all(page["total"] == len(expected) for page in pages) and len(pages) == -(-len(expected) // 5) > 1
    assert first["next"] == "/v1/spots?status=retired&limit=5&offset=5"
    beyond = _get(client, f"/v1/spots?status=retired&offset={len(expected) + 5}")
    assert (beyond["data"], beyond["total"], beyond["next"]) == ([], len(expected), None)


@SLOW
def test_the_forward_list_filters_alike_and_each_curve_is_the_models(client, spots):
    body = _get(client, "/v1/forwards?provider=anthropic&tier=frontier&limit=3")
    expected = spots[(spots["provider"] == "anthropic") & (spots["tier"] == "frontier")]["ticker"]
    assert [curve["ticker"] for curve in body["data"]] == sorted(expected)[:3] and body["total"] == len(expected)
    for curve in body["data"]:
        assert curve == _get(client, f"/v1/forwards/{curve['ticker']}")["data"]


def test_a_filtered_list_has_its_own_etag_and_304(client):
    first = client.get("/v1/spots?provider=openai&limit=5")
    other = client.get("/v1/spots?provider=google&limit=5")
    assert first.headers["etag"] != other.headers["etag"]
    again = client.get("/v1/spots?provider=openai&limit=5", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.parametrize(("url", "field", "says"), [
    ("/v1/spots?provider=opnai", "provider", "did you mean openai?"),
    ("/v1/greeks?tier=huge", "tier", "Known: efficient, frontier, mid"),
    ("/v1/spots?status=alive", "status", "Known: active, deprecated, retired"),
    ("/v1/forwards?modality=smell", "modality", "no model has modality 'smell'"),
    ("/v1/spots?fields=beta,ticker", "fields", "no field 'beta' in these records"),
    ("/v1/spots?fields=,", "fields", "name at least one field"),
    ("/v1/spots?limit=0", "limit", ""),
    ("/v1/spots?limit=1001", "limit", ""),
    ("/v1/spots?offset=-1", "offset", ""),
    ("/v1/spots?limit=1e2", "limit", "whole number"),
    ("/v1/spots?providr=openai", "providr", "it takes fields, limit, modality, offset, provider, q, status, tier"),
    ("/v1/spots/O3?provider=openai", "provider", "it takes no query parameters"),
    ("/v1/events?tickr=O3", "tickr", "it takes cursor, kind, limit, since, ticker"),
])
def test_bad_list_queries_are_400s_that_say_what_to_send(client, url, field, says):
    response = client.get(url)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["code"] == "invalid_input" and body["errors"][0]["field"] == field and says in body["detail"]


def test_a_post_takes_no_query_parameters(client):
    response = client.post("/v1/price?debug=1", json={"model": "O3", "n_in": 1, "n_out": 1})
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "debug"
