"""Every endpoint's real responses conform to the OpenAPI 3.1 document the server publishes."""

import re

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

# One real call per operation (and a few error answers), covering every path of the document.
CALLS = [
    ("GET", "/", None, 200),
    ("GET", "/health", None, 200),
    ("GET", "/v1/spots", None, 200),
    ("GET", "/v1/spots/SONNET-4", None, 200),
    ("GET", "/v1/greeks", None, 200),
    ("GET", "/v1/spots?fields=beta_sync,input_sync&limit=3", None, 200),  # records with only those fields
    ("GET", "/v1/greeks?fields=theta,sigma&provider=openai", None, 200),
    ("GET", "/v1/forwards?fields=ticker&limit=2", None, 200),
    ("GET", "/v1/greeks/O3", None, 200),
    ("GET", "/v1/disputes?ticker=deepseek-chat&field=output", None, 200),
    ("GET", "/v1/scheduled?ticker=GEMINI-4-ARGON", None, 200),
    ("GET", "/v1/models?status=retired", None, 200),
    ("GET", "/v1/models/mistral-small", None, 200),
    ("GET", "/v1/forwards/SONNET-4", None, 200),
    ("GET", "/v1/forwards?mode=batch", None, 200),
    ("GET", "/v1/forwards/SONNET-4.B", None, 200),
    ("GET", "/v1/history/O3?from=2025-06-01&to=2025-06-30", None, 200),
    ("GET", "/v1/lines", None, 200),
    ("GET", "/v1/lines/anthropic/haiku/forwards", None, 200),
    ("GET", "/v1/lines/haiku/forwards", None, 404),  # a line is maker/name: the closest names are suggested
    ("GET", "/v1/ici?type=sync", None, 200),
    ("GET", "/v1/ici?type=batch", None, 200),
    ("GET", "/v1/ici/constituents?type=batch&date=2025-08-01", None, 200),
    ("GET", "/v1/ici/published?type=unified", None, 200),
    ("GET", "/v1/events?since=2025-06-01&limit=20", None, 200),
    ("GET", "/v1/backtest?tenor=3M&limit=5", None, 200),
    ("GET", "/v1/accuracy", None, 200),
    ("GET", "/v1/task-types", None, 200),
    ("POST", "/v1/price", {"model": "SONNET-4", "n_in": 30000, "n_out": 800, "eta": 0.6, "horizon_months": 3}, 200),
    ("POST", "/v1/price", {"model": "DEEPSEEK-V4-PRO", "n_in": 2000, "n_out": 500, "at": "2026-11-23T02:30:00Z",
                           "n_web_searches": 1, "horizon_months": 1}, 200),
    ("POST", "/v1/price", {"model": "SONAR-DEEP-RESEARCH", "n_in": 2000, "n_out": 500, "n_citation": 300,
                           "n_web_searches": 4, "n_requests": 2}, 200),
    ("POST", "/v1/compare", {"n_in": 2000, "n_out": 500, "eta": 0.2, "horizon_months": 6}, 200),
    ("POST", "/v1/providers", {"model": "GPT-OSS-120B", "n_in": 2000, "n_out": 500}, 200),
    ("POST", "/v1/swap", {"model": "SONNET-4", "taskType": "coding", "tenor": "3M", "notionalTokens": 5e6,
                          "fixedRate": 40}, 200),
    ("GET", "/v1/monte-carlo/O3?taskCategory=reasoning&horizonMonths=3&paths=2000&seed=1", None, 200),
    ("POST", "/v1/simulate", {"items": [{"model": "O3", "taskType": "reasoning", "requests_per_month": 1000}],
                              "horizon_months": 3, "paths": 500, "seed": 2}, 200),
    ("POST", "/v1/keys", {"name": "schema check"}, 201),
    ("GET", "/v1/keys/usage", "WITH_KEY", 200),
    ("GET", "/v1/webhooks", "WITH_KEY", 200),
    ("POST", "/v1/webhooks", {"url": "http://127.0.0.1:9/hook"}, 401),  # registering is tested end to end
    ("DELETE", "/v1/webhooks/no-such-hook", "WITH_KEY", 404),
    ("DELETE", "/v1/keys", "WITH_KEY", 200),
    ("GET", "/v1/spots/NO-SUCH-MODEL", None, 404),
    ("GET", "/v1/export/no_such_table", None, 404),
    ("GET", "/v1/export/events?format=csv", None, 200),  # files, not JSON: their content is tests/serve/test_export.py
    ("GET", "/v1/export/spots?format=parquet", None, 200),
    ("GET", "/v1/events/stream?kind=cut", None, 400),  # a stream, not JSON: tests/e2e/test_event_stream.py
    ("POST", "/v1/price", {"model": "SONNET-4", "n_in": -1, "n_out": 1}, 400),
]


@pytest.fixture(scope="module")
def document(client):
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    spec = response.json()
    assert spec["openapi"].startswith("3.1")
    return spec


def _operation(document, method, url):
    path = url.split("?")[0]
    for template, operations in document["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "(.+)", template) + "$"
        if re.match(pattern, path) and method.lower() in operations:
            # Prefer the literal path over a template that also matches it.
            if template == path or not any(t == path for t in document["paths"]):
                return template, operations[method.lower()]
    raise AssertionError(f"{method} {path} is not in the OpenAPI document")


def _validator(document, schema):
    registry = Registry().with_resource("urn:oracle", Resource.from_contents(
        {**document, "$schema": "https://json-schema.org/draft/2020-12/schema"}))
    rebased = _rebase(schema)
    return Draft202012Validator(rebased, registry=registry)


def _rebase(node):
    if isinstance(node, dict):
        return {k: (f"urn:oracle{v}" if k == "$ref" and v.startswith("#") else _rebase(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_rebase(v) for v in node]
    return node


def _values(call):
    return call.values if hasattr(call, "values") else call


@pytest.mark.parametrize("method, url, body, status", CALLS, ids=[f"{_values(c)[0]} {_values(c)[1]}" for c in CALLS])
def test_real_responses_conform_to_the_served_document(client, document, method, url, body, status):
    headers = {}
    if body == "WITH_KEY":  # the key endpoints act on the key presented
        key = client.post("/v1/keys", json={"name": "schema check"}).json()["data"]["key"]
        headers, body = {"X-API-Key": key}, None
    response = client.request(method, url, json=body, headers=headers)
    assert response.status_code == status, response.text
    template, operation = _operation(document, method, url)
    responses = operation["responses"]
    if str(status) not in responses:
        assert status >= 400, f"{template} documents no {status} response"
        return  # problem details are checked by their own tests
    content = responses[str(status)].get("content", {})
    media_type = response.headers["content-type"].split(";")[0]
    assert media_type in content, f"{template} answered {media_type}, documented {list(content)}"
    if media_type != "application/json":
        return
    schema = content[media_type]["schema"]
    errors = sorted(_validator(document, schema).iter_errors(response.json()), key=lambda e: e.path)
    assert not errors, f"{method} {url}: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_every_documented_operation_is_exercised(document):
    exercised = {(_operation(document, m, u)[0], m.lower()) for m, u, _, _ in map(_values, CALLS)}
    documented = {(path, method) for path, ops in document["paths"].items() for method in ops
                  if method in {"get", "post", "put", "delete", "patch"}}
    assert documented - exercised == set()


def test_the_document_names_both_ways_to_present_a_key(document):
    schemes = document["components"]["securitySchemes"]
    assert schemes["apiKey"] == {**schemes["apiKey"], "type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
    operations = {(path, method): op for path, ops in document["paths"].items() for method, op in ops.items()}
    assert operations[("/v1/spots", "get")]["security"] == [{"apiKey": []}, {"bearer": []}, {}]  # a key is optional
    assert operations[("/v1/keys/usage", "get")]["security"] == [{"apiKey": []}, {"bearer": []}]
    assert operations[("/v1/keys", "delete")]["security"] == [{"apiKey": []}, {"bearer": []}]


def test_operation_ids_are_the_handlers_names_once_each(document):
    ids = [op["operationId"] for ops in document["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids))
    assert {"listSpots", "oneSpot", "price", "compare", "monteCarlo", "createKey", "export"} <= set(ids)


def test_every_operation_has_examples_for_what_it_takes(document):
    for path, ops in document["paths"].items():
        for method, op in ops.items():
            for parameter in op.get("parameters", []):
                assert "example" in parameter, (path, method, parameter["name"])
            for content in op.get("requestBody", {}).get("content", {}).values():
                assert "example" in content, (path, method)


@pytest.mark.parametrize("method, url, body, status", [c for c in CALLS if _values(c)[3] == 200],
                         ids=[f"{_values(c)[0]} {_values(c)[1]}" for c in CALLS if _values(c)[3] == 200])
def test_the_documented_headers_are_sent(client, document, method, url, body, status):
    if body == "WITH_KEY":
        return  # the key endpoints are checked for their rate headers in test_access.py
    response = client.request(method, url, json=body)
    _, operation = _operation(document, method, url)
    documented = operation["responses"][str(status)].get("headers", {}) if url.startswith("/v1") else {}
    for name in documented:
        assert name in response.headers, (url, name)
    if "ETag" in documented:
        again = client.request(method, url, headers={"If-None-Match": response.headers["ETag"]})
        assert again.status_code == 304 and "304" in operation["responses"]


def test_the_schema_page_needs_no_script_from_anywhere(client):
    page = client.get("/schema")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "<script" not in page.text and "https://" not in page.text.split("</head>")[0]
    assert "POST /v1/price" in page.text and "listSpots" in page.text
