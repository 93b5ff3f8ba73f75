"""`GET /v1/export/{table}`: the Parquet file byte for byte (its sha256 the manifest's), or CSV
that reads back to the same table, made in slices of bounded size; one request against the limit;
without a key, no CSV of a table longer than the keyless bound; bad names and formats are 4xx."""

import base64
import hashlib
import io
import json

import pandas as pd
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from serve import export
from serve.app import create_app
from tests.serve.conftest import api_settings


def test_parquet_is_the_published_file_and_names_its_checksum(client, store):
    manifest = store.current()
    response = client.get("/v1/export/events")
    assert response.status_code == 200 and response.headers["content-type"] == "application/vnd.apache.parquet"
    digest = hashlib.sha256(response.content).hexdigest()
    assert digest == manifest.tables["events"].sha256 == response.headers["X-Table-SHA256"]
    assert response.headers["Repr-Digest"] == f"sha-256=:{base64.b64encode(bytes.fromhex(digest)).decode()}:"
    assert response.headers["X-Snapshot-Id"] == manifest.snapshot_id
    assert int(response.headers["content-length"]) == len(response.content)
    assert f'filename="events-{manifest.snapshot_id}.parquet"' in response.headers["content-disposition"]
    assert pq.read_table(io.BytesIO(response.content)).num_rows == manifest.tables["events"].rows


@pytest.mark.parametrize("ask", [{"params": {"format": "csv"}}, {"headers": {"Accept": "text/csv"}}])
def test_csv_reads_back_to_the_table(client, store, ask):
    response = client.get("/v1/export/spots", **ask)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert response.headers["X-Table-SHA256"] == store.current().tables["spots"].sha256
    table, back = store.read_table("spots"), pd.read_csv(io.StringIO(response.text))
    assert list(back.columns) == list(table.columns) and len(back) == len(table)
    assert back["beta_sync"].tolist() == pytest.approx(table["beta_sync"].tolist(), nan_ok=True)
    assert back["ticker"].tolist() == table["ticker"].tolist()
    sonnet = back.set_index("ticker").loc["SONNET-4"]
    assert json.loads(sonnet["input_modalities"]) == list(table.set_index("ticker").loc["SONNET-4", "input_modalities"])


def test_a_long_table_streams_as_csv_in_slices_whole(client, store):
    response = client.get("/v1/export/price_history?format=csv")
    assert response.status_code == 200
    assert response.text.count("\n") == store.current().tables["price_history"].rows + 1  # the header
    assert response.text.splitlines()[0].startswith("ticker,mode,date,")


def test_bad_tables_and_formats(client):
    unknown = client.get("/v1/export/secrets")
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_table"
    assert "spots" in unknown.json()["tables"]
    assert client.get("/v1/export/../manifest.json").status_code == 404
    wrong = client.get("/v1/export/spots?format=xlsx")
    assert wrong.status_code == 400 and wrong.json()["allowed"] == ["parquet", "csv"]


def test_an_export_is_one_request_against_the_limit(client):
    first = client.get("/v1/export/ici")
    second = client.get("/v1/export/ici")
    assert int(first.headers["RateLimit-Remaining"]) - int(second.headers["RateLimit-Remaining"]) == 1


@pytest.mark.slow  # writes a long table as CSV
def test_csv_slices_are_bounded_by_the_chunk_size_not_the_table(store, monkeypatch):
    monkeypatch.setattr(export, "CHUNK_BYTES", 16 * 1024)
    table = store.read_table("price_history")
    chunks = list(export.csv_chunks(table))
    assert len(chunks) > 20 and max(len(chunk) for chunk in chunks) <= 2 * export.CHUNK_BYTES
    assert b"".join(chunks).decode() == table.to_csv(index=False, lineterminator="\n")  # no row lost or repeated


@pytest.fixture(scope="module")
def keyless_bound(built_warehouse):
    """An app whose keyless CSV bound (1,000 rows) the small universe's price history passes."""
    app = create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=24 * 365 * 100,
                                  export_keyless_csv_max_rows=1_000))
    with TestClient(app) as client:
        yield client


@pytest.mark.slow  # an app of its own with a long table
def test_without_a_key_csv_of_a_long_table_is_refused_saying_what_to_do(keyless_bound, store):
    refused = keyless_bound.get("/v1/export/price_history?format=csv")
    body = refused.json()
    assert refused.status_code == 401 and body["code"] == "key_required"
    assert (body["max_rows"], body["rows"]) == (1_000, store.current().tables["price_history"].rows)
    assert "format=parquet" in body["detail"] and "POST /v1/keys" in body["detail"]
    assert keyless_bound.get("/v1/export/price_history").status_code == 200  # Parquet: the file as it is
    assert keyless_bound.get("/v1/export/spots?format=csv").status_code == 200  # a short table
    key = keyless_bound.post("/v1/keys", json={"name": "exporter"}).json()["data"]["key"]
    keyed = keyless_bound.get("/v1/export/price_history?format=csv", headers={"X-API-Key": key})
    assert keyed.status_code == 200 and keyed.text.count("\n") == body["rows"] + 1
