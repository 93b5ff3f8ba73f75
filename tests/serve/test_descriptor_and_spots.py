"""The descriptor, health, and the spot and Greek endpoints against the real snapshot."""

from datetime import UTC, datetime, timedelta

import pytest
from litestar.testing import TestClient

from serve.app import create_app
from tests.serve.conftest import api_settings
from warehouse.snapshot import SnapshotStore


def test_descriptor_lays_out_the_interface_spec_fields(client, store):
    body = client.get("/").json()
    assert list(body) == ["name", "description", "version", "runtime", "status", "status_reason", "oracle",
                          "endpoints", "documentation", "dashboard"]
    assert body["status"] == "ok" and body["status_reason"] == ""
    assert body["oracle"]["model_count"] == len(store.read_table("models"))
    assert body["oracle"]["last_update"].endswith("Z") and len(body["oracle"]["last_update"]) == 24
    assert body["endpoints"]["keys"] == {"create": "POST /v1/keys", "usage": "GET /v1/keys/usage",
                                         "revoke": "DELETE /v1/keys"}
    assert body["endpoints"]["price"] == "POST /v1/price"
    assert body["endpoints"]["forwards_all"] == "/v1/forwards?mode=sync or batch"
    assert client.get(body["dashboard"]).status_code == 200
    assert body["documentation"] == "http://testserver.local/schema"  # absolute, from the request's host


def test_the_descriptor_lists_every_endpoint(client):
    listed = set()
    for value in client.get("/").json()["endpoints"].values():
        for text in value.values() if isinstance(value, dict) else [value]:
            listed.add(text.split(" ")[-1].split("?")[0] if text.startswith(("POST", "GET", "DELETE")) else
                       text.split("?")[0])
    routes = {route.path.replace("{ticker:path}", ":ticker").replace("{table:str}", ":table")
              .replace("{webhook_id:str}", ":id").replace("{maker:str}", ":maker").replace("{name:str}", ":name")
              for route in client.app.routes
              if route.path.startswith("/v1/") or route.path == "/health"}
    assert routes == listed


def test_health_reports_the_snapshot(client, store):
    before = datetime.now(UTC).replace(microsecond=0)
    response = client.get("/health")
    after = datetime.now(UTC)
    assert response.status_code == 200
    assert response.json()["models_tracked"] == store.current().tables["models"].rows
    # `timestamp`, the original oracle's field: when the answer was made, in UTC to the millisecond.
    stamp = response.json()["timestamp"]
    assert stamp.endswith("Z") and len(stamp) == len("2026-11-26T12:00:00.000Z")
    assert before <= datetime.fromisoformat(stamp) <= after


def test_stale_data_makes_the_service_degraded(built_warehouse):
    with TestClient(create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=0))) as client:
        body = client.get("/").json()
    assert body["status"] == "degraded" and body["oracle"]["stale"] is True
    assert "old" in body["status_reason"]


def test_without_a_snapshot_health_is_503_and_data_endpoints_say_why(tmp_path):
    with TestClient(create_app(api_settings(warehouse=str(tmp_path)))) as client:
        assert client.get("/health").status_code == 503
        assert client.get("/").json()["status"] == "degraded"
        response = client.get("/v1/spots")
    assert response.status_code == 503
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "no_snapshot"


def test_spots_are_the_table_rows_in_an_envelope(client, store):
    response = client.get("/v1/spots")
    body = response.json()
    assert set(body) == {"data", "oracle_timestamp", "cache_age_seconds", "total", "next"}
    assert len(body["data"]) == len(store.read_table("spots")) == body["total"] and body["next"] is None
    sonnet = next(row for row in body["data"] if row["ticker"] == "SONNET-4")
    assert (sonnet["beta_sync"], sonnet["input_sync"], sonnet["cache_read_sync"]) == (15.0, 3.0, 0.3)
    assert sonnet["model_id"] == "claude-sonnet-4-20250514"


def test_a_model_is_found_by_ticker_model_id_alias_or_batch_ticker(client):
    for name in ["SONNET-4", "sonnet-4", "claude-sonnet-4-20250514", "claude-sonnet-4-0",
                 "anthropic/claude-sonnet-4", "SONNET-4.B"]:
        response = client.get(f"/v1/spots/{name}")
        assert response.status_code == 200, name
        assert response.json()["data"]["ticker"] == "SONNET-4"


def test_an_unknown_model_is_a_404_that_suggests_tickers(client):
    response = client.get("/v1/greeks/SONET-4")
    assert response.status_code == 404
    problem = response.json()
    assert problem["code"] == "unknown_model" and "SONNET-4" in problem["suggestions"]
    assert problem["detail"] == problem["error"] and problem["ticker"] == "SONET-4"  # the original oracle's


def test_snapshot_gets_carry_an_etag_and_answer_if_none_match_with_304(client):
    first = client.get("/v1/greeks/O3")
    assert first.status_code == 200 and first.headers["cache-control"].startswith("public, max-age=")
    again = client.get("/v1/greeks/O3", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/v1/greeks/SONNET-4").headers["etag"] != first.headers["etag"]


@pytest.mark.slow  # publishes a second snapshot
def test_a_new_snapshot_is_picked_up_without_a_restart(warehouse_copy):
    store = SnapshotStore(warehouse_copy)
    with TestClient(create_app(api_settings(warehouse=str(warehouse_copy), stale_after_hours=1e6))) as client:
        before = client.get("/v1/spots").json()["oracle_timestamp"]
        manifest = store.current()
        run = "republish"
        for name in manifest.tables:
            store.write_table(run, name, store.read_table(name))
        store.publish(run, manifest.last_update + timedelta(seconds=5), list(manifest.tables))
        after = client.get("/v1/spots").json()["oracle_timestamp"]
    assert after != before


def test_unknown_paths_and_methods_are_problems(client):
    missing = client.get("/v1/nothing-here")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    assert missing.json()["path"] == "/v1/nothing-here"  # the original oracle's context member
    wrong = client.delete("/v1/spots")
    assert wrong.status_code == 405 and wrong.json()["code"] == "method_not_allowed"


def test_disputes_list_each_source_beside_the_chosen_price(client, store):
    body = client.get("/v1/disputes?ticker=deepseek-chat&field=output").json()["data"]
    assert (body["ticker"], body["field"]) == ("DEEPSEEK-V3", "output")
    table = store.read_table("price_disputes")
    table = table[(table["ticker"] == "DEEPSEEK-V3") & (table["field"] == "output")]
    assert body["count"] == len(body["disputes"]) == len(table) > 0
    by_source = {row["source"]: row for row in body["disputes"] if row["mode"] == "sync"}
    assert (by_source["genai-prices"]["value"], by_source["genai-prices"]["rule"]) == (1.10, "later_statement")
    assert by_source["genai-prices"]["asserted_on"] == "2025-07-11"
    assert by_source["model-prices"]["chosen_value"] == 0.28
    assert set(body["rules"]) >= {"agrees", "later_statement", "cross_check", "rejected"}
    everything = client.get("/v1/disputes").json()["data"]
    assert everything["count"] == len(store.read_table("price_disputes"))


def test_disputes_refuse_an_unknown_field_and_an_unknown_model(client):
    response = client.get("/v1/disputes?field=price")
    assert response.status_code == 400 and "input, output, cache_read, cache_write" in response.json()["detail"]
    assert client.get("/v1/disputes?ticker=NO-SUCH-MODEL").status_code == 404


def test_spots_carry_their_evidence(client):
    sonnet = client.get("/v1/spots/SONNET-4").json()["data"]
    assert sonnet["sources_agreeing"] == ["genai-prices", "model-prices"] and sonnet["sources_disagreeing"] == []
    assert (sonnet["evidence"], sonnet["last_confirmed"]) == ("confirmed", "2026-11-10")


def test_models_list_and_one_record(client, store):
    table = store.read_table("models")
    body = client.get("/v1/models").json()["data"]
    assert len(body) == len(table)
    retired = client.get("/v1/models?status=retired").json()["data"]
    assert len(retired) == (table["status"] == "retired").sum() and {r["status"] for r in retired} == {"retired"}
    one = client.get("/v1/models/babbage-002").json()["data"]
    assert (one["ticker"], one["status"], one["retired_on"], one["deprecated_on"]) == (
        "BABBAGE-002", "retired", "2026-09-28", "2026-09-28")
    asr = client.get("/v1/models/QWEN3-ASR-FLASH").json()["data"]
    assert (asr["input_modalities"], asr["output_modalities"]) == (["audio"], ["text"])
    assert client.get("/v1/models?status=gone").status_code == 400


def test_disputes_of_a_batch_ticker_are_its_batch_disputes(client):
    body = client.get("/v1/disputes?ticker=SONNET-4.B").json()["data"]
    assert body["ticker"] == "SONNET-4" and all(row["mode"] == "batch" for row in body["disputes"])
