"""Live fetches against a local server that answers like an upstream, fault by fault, and the
raw copies they leave. The payload is cut from LiteLLM 1.110.2's own
`model_prices_and_context_window.json` (two real entries, as the bundled seed records them)."""

import http.server
import json
import threading
import time

import pytest

from assets.fetch import FetchFailed, FetchPolicy, fetch
from pipelines.upstream_formats import CHECKS, LITELLM, OPENROUTER, litellm_models, model_prices_models
from warehouse.raw_store import FAILED, OK, FetchRecord, RawStore

LITELLM_PAYLOAD = json.dumps({
    "sample_spec": {"max_tokens": "LEGACY parameter"},
    "gpt-4.1": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 2e-06,
                "output_cost_per_token": 8e-06, "max_input_tokens": 1047576},
    "deepseek/deepseek-v4-pro": {"litellm_provider": "deepseek", "mode": "chat", "input_cost_per_token": 1.32e-06,
                                 "output_cost_per_token": 3.96e-06},
}).encode()
FAST = FetchPolicy(timeout_seconds=0.5, retries=2, backoff_seconds=0.0, max_bytes=10_000)


class Upstream(http.server.BaseHTTPRequestHandler):
    """Answers by path: /ok, /flaky (a 500, then the payload), /down (always 500), /slow (no answer
    in time), /truncated (half the JSON), /huge (over the cap), /missing (404)."""

    calls: dict[str, int] = {}

    def log_message(self, *args):  # keep the test output quiet
        pass

    def do_GET(self):  # noqa: N802 (the standard library's name)
        count = Upstream.calls[self.path] = Upstream.calls.get(self.path, 0) + 1
        if self.path == "/flaky" and count == 1 or self.path == "/down":
            return self.send_error(500)
        if self.path == "/missing":
            return self.send_error(404)
        if self.path == "/slow":
            time.sleep(1.5)
        body = {"/truncated": LITELLM_PAYLOAD[: len(LITELLM_PAYLOAD) // 2], "/huge": b" " * 20_000}.get(
            self.path, LITELLM_PAYLOAD)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (/slow): what the test is about


@pytest.fixture(scope="module")
def upstream():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_good_fetch_returns_the_body_and_counts_the_models(upstream):
    got = fetch(f"{upstream}/ok", litellm_models, FAST)
    assert (got.status, got.models, got.attempts, got.body) == (200, 2, 1, LITELLM_PAYLOAD)


@pytest.mark.slow  # waits out the retries' backoff
def test_a_server_error_is_retried_with_backoff(upstream):
    waits = []
    got = fetch(f"{upstream}/flaky", litellm_models, FetchPolicy(retries=2, backoff_seconds=0.25), sleep=waits.append)
    assert (got.attempts, waits) == (2, [0.25])
    with pytest.raises(FetchFailed) as failed:
        fetch(f"{upstream}/down", litellm_models, FetchPolicy(retries=2, backoff_seconds=0.5), sleep=waits.append)
    assert (failed.value.status, failed.value.attempts, failed.value.reason) == (500, 3, "server error 500")
    assert waits[1:] == [0.5, 1.0]


@pytest.mark.parametrize(("path", "reason", "attempts"), [
    pytest.param("/slow", "timed out after 0.5 s", 3, marks=pytest.mark.slow),  # three 0.5 s waits
    ("/truncated", "invalid payload", 1),
    ("/huge", "over the cap of 10,000 bytes", 1),
    ("/missing", "client error 404", 1),
])
def test_each_fault_is_a_failed_fetch_that_says_why(upstream, path, reason, attempts):
    with pytest.raises(FetchFailed) as failed:
        fetch(f"{upstream}{path}", litellm_models, FAST)
    assert reason in failed.value.reason and failed.value.attempts == attempts


def test_a_payload_of_another_upstreams_shape_is_invalid(upstream):
    with pytest.raises(FetchFailed, match="invalid payload: expected .*data"):
        fetch(f"{upstream}/ok", CHECKS[OPENROUTER], FAST)
    with pytest.raises(FetchFailed, match="only http and https"):
        fetch("file:///etc/passwd", CHECKS[LITELLM], FAST)


def test_the_bundled_model_prices_snapshot_has_the_published_shape():
    from importlib import resources

    import model_prices
    snapshot = json.loads(resources.files(model_prices).joinpath("snapshot.json").read_text())
    assert model_prices_models(snapshot) == 575


def test_raw_copies_are_kept_by_content_and_the_last_good_one_found(tmp_path, upstream):
    store = RawStore(tmp_path)
    got = fetch(f"{upstream}/ok", litellm_models, FAST)
    first = store.save(FetchRecord(LITELLM, got.url, "2026-11-23T06:00:00.000Z", OK, got.status, models=got.models,
                                   attempts=got.attempts), got.body)
    store.save(FetchRecord(LITELLM, f"{upstream}/down", "2026-11-24T06:00:00.000Z", FAILED, 500, attempts=3,
                           reason="server error 500"))
    again = store.save(FetchRecord(LITELLM, got.url, "2026-11-25T06:00:00.000Z", OK, 200, models=2), got.body)
    assert first.sha256 == again.sha256 and first.bytes == len(LITELLM_PAYLOAD)
    assert len(list((tmp_path / "raw" / LITELLM / "blobs").iterdir())) == 1  # one copy of one body
    assert [r.outcome for r in store.records(LITELLM)] == [OK, FAILED, OK]
    assert store.last_good(LITELLM, "2026-11-24T23:59:59.999Z") == first
    assert store.body(store.last_good(LITELLM)) == LITELLM_PAYLOAD
    blob = tmp_path / "raw" / LITELLM / "blobs" / f"{first.sha256}.json"
    blob.write_bytes(b"{}")
    with pytest.raises(ValueError, match="damaged"):
        store.body(first)


def test_live_sources_are_off_by_default_and_each_address_is_a_setting(monkeypatch):
    from assets.live_settings import DEFAULT_URLS, LiveSources, parse_sources
    monkeypatch.delenv("ORACLE_LIVE_SOURCES", raising=False)
    monkeypatch.delenv("ORACLE_SOURCE_URL_LITELLM", raising=False)
    settings = LiveSources()
    assert settings.enabled() == ()
    assert settings.url(LITELLM) == DEFAULT_URLS[LITELLM]
    assert DEFAULT_URLS["genai-prices"].endswith("/data.json")  # the address genai-prices' own updater reads
    monkeypatch.setenv("ORACLE_LIVE_SOURCES", " openrouter, LiteLLM ")
    monkeypatch.setenv("ORACLE_SOURCE_URL_LITELLM", "http://127.0.0.1:9/litellm.json")
    assert settings.enabled() == (LITELLM, OPENROUTER)
    assert settings.url(LITELLM) == "http://127.0.0.1:9/litellm.json"
    assert LiveSources(sources="model-prices", urls={LITELLM: "http://mirror/x.json"}).url(LITELLM) == "http://mirror/x.json"
    with pytest.raises(ValueError, match="unknown source bogus; valid: genai-prices, litellm, openrouter, model-prices"):
        parse_sources("litellm,bogus")
    assert settings.policy().retries == 2
