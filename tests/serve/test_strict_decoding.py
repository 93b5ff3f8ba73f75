"""One strict decoding for every request body: JSON only, numbers as numbers, bounded; a body that
is anything else is a clear 4xx naming what to fix, on every POST endpoint alike."""

import json

import pytest

SWAP = {"model": "SONNET-4", "taskType": "coding", "tenor": "3M", "notionalTokens": 5e6}
BODIES = {
    "/v1/price": {"model": "O3", "n_in": 1000, "n_out": 500},
    "/v1/swap": SWAP,
    "/v1/simulate": {"items": [{"model": "O3", "taskType": "reasoning", "requests_per_month": 1000}],
                     "horizon_months": 3},
    "/v1/keys": {"name": "strict"},
}
OK = {"/v1/keys": 201}


@pytest.mark.parametrize("path", BODIES)
def test_each_body_is_accepted_as_json(client, path):
    assert client.post(path, json=BODIES[path]).status_code == OK.get(path, 200)


@pytest.mark.parametrize("path", BODIES)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_that_is_not_json_is_a_415(client, path, content_type):
    response = client.post(path, content=json.dumps(BODIES[path]), headers={"Content-Type": content_type})
    assert response.status_code == 415, response.text
    problem = response.json()
    assert problem["code"] == "unsupported_media_type" and "application/json" in problem["detail"]


@pytest.mark.parametrize(("path", "field", "value"), [
    ("/v1/swap", "notionalTokens", "10000000"),
    ("/v1/swap", "fixedRate", "3.5"),
    ("/v1/simulate", "horizon_months", "3"),
    ("/v1/price", "n_in", "1000"),
])
def test_a_number_sent_as_a_string_is_a_400_naming_the_field(client, path, field, value):
    response = client.post(path, json={**BODIES[path], field: value})
    assert response.status_code == 400, response.text
    errors = response.json()["errors"]
    assert errors[0]["field"].endswith(field) and "Expected `" in errors[0]["message"]


def test_a_fixed_rate_beyond_any_price_is_a_400_not_null_greeks(client):
    response = client.post("/v1/swap", json={**SWAP, "fixedRate": 1.7e308})
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["field"] == "fixedRate"


@pytest.mark.parametrize("query", ["paths=1e5", "paths=100.0", "paths=1e2"])
def test_an_integer_query_written_otherwise_is_a_400(client, query):
    response = client.get(f"/v1/monte-carlo/O3?taskCategory=coding&horizonMonths=3&{query}")
    assert response.status_code == 400, response.text
    name, value = query.split("=")
    assert response.json()["errors"] == [{"field": name, "message": f"must be a whole number written in digits, "
                                                                  f"got '{value}'"}]


def test_integer_queries_in_digits_still_work(client):
    response = client.get("/v1/monte-carlo/O3?taskCategory=coding&horizonMonths=3&paths=100")
    assert response.status_code == 200 and response.json()["data"]["paths"] == 100
    assert client.get("/v1/events?limit=1e2").status_code == 400
    assert client.get("/v1/events?limit=100").status_code == 200
