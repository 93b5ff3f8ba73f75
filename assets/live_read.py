"""Reading the live upstreams and keeping what was read: one fetch, judged and kept.

A body is kept as it came (`warehouse.raw_store`) and recorded `ok` only when every check passed:
the upstream's shape (`pipelines.upstream_formats`), the same parser the source asset reads it
with (so a body the parser refuses never reaches a run again), and the broken-fetch rule
(`pipelines.guard.broken_fetch`). A refused body is kept too, recorded `failed` with why and
which good copy the source falls back to.
"""

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import cache

from assets.fetch import Fetched, FetchFailed, FetchPolicy, fetch
from assets.resources import PriceSources
from pipelines.guard import broken_fetch
from pipelines.ingest_genai import genai_listings, providers_from_payload
from pipelines.ingest_litellm import litellm_listings
from pipelines.ingest_model_prices import model_prices_listings
from pipelines.ingest_openrouter import endpoint_listings, openrouter_listings
from pipelines.listings import Listing
from pipelines.litellm_map import extract
from pipelines.open_weight import families_from, family_of
from pipelines.peak import peak_days
from pipelines.release_dating import ReleaseDating
from pipelines.sources import maker_table
from pipelines.upstream_formats import (
    CHECKS,
    GENAI_PRICES,
    LITELLM,
    MODEL_PRICES,
    OPENROUTER,
    OPENROUTER_ENDPOINTS,
)
from warehouse.raw_store import FAILED, OK, FetchRecord, RawStore, last_good, timestamp

Parse = Callable[[bytes, date, str], list[Listing]]


def parsers(sources: PriceSources) -> dict[str, Parse]:
    """Each live source's parser: (body, the day it observes, the address read) → listings, by the
    same code that reads the bundled data. Building them reads nothing: every run builds them,
    and most read no live source; what they need of the bundled data is read once, when first
    needed, for every copy they parse."""
    versions, peak_table = cache(sources.versions), cache(lambda: sources.seed_table("peak_days"))
    return {
        GENAI_PRICES: lambda body, day, url: genai_listings(
            providers_from_payload(json.loads(body)), day, ReleaseDating(versions()[GENAI_PRICES]),
            peak_days(peak_table(), day)),
        MODEL_PRICES: lambda body, day, url: model_prices_listings(json.loads(body), versions()[MODEL_PRICES]),
        LITELLM: lambda body, day, url: litellm_listings(extract(body), "", day),
        OPENROUTER: lambda body, day, url: openrouter_listings(json.loads(body), day, "", url),
        OPENROUTER_ENDPOINTS: lambda body, day, url: endpoint_listings(json.loads(body), day, "", url),
    }


def _model_prices_manifest(payload: object) -> int:
    if not (isinstance(payload, dict) and isinstance(payload.get("sha256"), str) and len(payload["sha256"]) == 64):
        raise ValueError("expected latest.json naming a snapshot by its sha256")
    return 0


def fetch_upstream(source: str, url: str, policy: FetchPolicy) -> Fetched:
    """Read one upstream. model-prices publishes a folder: `latest.json` names the current
    snapshot by its hash, which the snapshot must match (as the package's own `refresh()` checks);
    an address ending in `.json` is read as the snapshot itself (a mirror of one file)."""
    if source != MODEL_PRICES or url.endswith(".json"):
        return fetch(url, CHECKS[source], policy)
    folder = url if url.endswith("/") else url + "/"
    digest = json.loads(fetch(folder + "latest.json", _model_prices_manifest, policy).body)["sha256"]
    snapshot = fetch(folder + f"{digest}.json", CHECKS[source], policy)
    if hashlib.sha256(snapshot.body).hexdigest() != digest:
        raise FetchFailed(snapshot.url, "the snapshot does not match the hash latest.json gives", snapshot.attempts,
                          snapshot.status)
    return snapshot


def read_upstream(source: str, url: str, policy: FetchPolicy, raw: RawStore, day: date, run_id: str,
                  parse: Parse, max_drop: float | None = None,
                  now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> FetchRecord:
    """Fetch, judge and keep one payload; the record says what happened. `max_drop`: the share of
    models a fetch may lose against the last good one before it is refused (None: no such rule)."""
    records = raw.records(source)
    previous = last_good(records, url=url if source == OPENROUTER_ENDPOINTS else None)
    fallback = previous.fetched_at if previous else ""  # the copy a failed fetch leaves in use
    kept = dict(source=source, as_of=day.isoformat(), run_id=run_id)
    try:
        fetched = fetch_upstream(source, url, policy)
    except FetchFailed as failure:  # a body read whole but refused is kept too, to see what came
        return raw.save(FetchRecord(url=failure.url, fetched_at=timestamp(now()), outcome=FAILED, status=failure.status,
                                    attempts=failure.attempts, reason=failure.reason, fallback=fallback, **kept),
                        failure.body)
    reason = ""
    try:
        parse(fetched.body, day, fetched.url)
    except Exception as error:  # noqa: BLE001 (whatever the parser refuses, the body is not used)
        reason = f"its parser refused the payload: {type(error).__name__}: {str(error)[:300]}"
    if not reason and max_drop is not None and previous is not None:
        refused = [r for r in records if r.outcome == FAILED and r.models is not None
                   and r.fetched_at > previous.fetched_at]
        reason = broken_fetch(fetched.models, previous.models, refused[-1].models if refused else None,
                              max_drop) or ""
    record = FetchRecord(url=fetched.url, fetched_at=timestamp(fetched.fetched_at), outcome=FAILED if reason else OK,
                         status=fetched.status, models=fetched.models, attempts=fetched.attempts, reason=reason,
                         fallback=fallback if reason else "", **kept)
    return raw.save(record, fetched.body)  # kept as it came, a refused body too


def open_weight_ids(sources: PriceSources) -> Callable[[list[str]], list[str]]:
    """Keeps the ids of open-weight models (`:free` and other tags are other offers of the same one)."""
    makers, families = maker_table(sources.seed_table("makers")), families_from(sources.seed_table("open_weight"))
    return lambda ids: [i for i in ids if ":" not in i and family_of(i, makers, families) is not None]


def read_endpoints(models: FetchRecord, select: Callable[[list[str]], list[str]], policy: FetchPolicy,
                   raw: RawStore, parse: Parse) -> list[FetchRecord]:
    """After a good read of OpenRouter's models list: the endpoint list of each model `select`
    keeps (the open-weight ones, whose hosts' prices make their median), each kept like any fetch."""
    listed = [model["id"] for model in json.loads(raw.body(models))["data"]]
    base = models.url.split("?", 1)[0].rstrip("/")
    day = date.fromisoformat(models.as_of)
    return [read_upstream(OPENROUTER_ENDPOINTS, f"{base}/{model_id}/endpoints", policy, raw, day, models.run_id,
                          parse) for model_id in select(listed)]

