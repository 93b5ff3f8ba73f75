"""What each live fetch read, kept as it came, so that a refresh can be rebuilt and a bad day
investigated (the live sources' `raw/` area).

Under the warehouse root (a local folder or any fsspec URL, `warehouse.storage`):

    raw/<source>/blobs/<sha256>.json          the body, named by its content (one copy however
                                              many fetches return it)
    raw/<source>/fetches/<time>-<outcome>-<address hash>.json
                                              one record per fetch: address, time, status,
                                              bytes, sha256, models counted, attempts, outcome
                                              and the reason a failed one failed

A failed fetch has a record and no body. Reading a body back checks its hash.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from datetime import datetime

import pandas as pd

from warehouse.storage import Storage

RAW = "raw"
OK, FAILED = "ok", "failed"


@dataclass(frozen=True)
class FetchRecord:
    source: str
    url: str
    fetched_at: str  # ISO 8601 UTC with milliseconds and Z
    outcome: str  # ok or failed
    status: int | None = None
    bytes: int = 0
    sha256: str | None = None
    models: int | None = None
    attempts: int = 0
    reason: str = ""
    as_of: str = ""  # the day the fetch observes: the run's as-of date (ISO), the day its prices are dated
    run_id: str = ""
    fallback: str = ""  # for a failed fetch: the time of the good copy used instead, if any


def timestamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class RawStore:
    def __init__(self, root: str | os.PathLike | Storage):
        self.storage = Storage.of(root)

    def _folder(self, source: str, kind: str) -> str:
        return self.storage.join(RAW, source, kind)

    def save(self, record: FetchRecord, body: bytes | None = None) -> FetchRecord:
        """Keep a fetch: its body (if any) by content, then its record; returns the record as kept."""
        if body is not None:
            digest = hashlib.sha256(body).hexdigest()
            record = FetchRecord(**{**asdict(record), "sha256": digest, "bytes": len(body)})
            self.storage.makedirs(self._folder(record.source, "blobs"))
            blob = self.storage.join(RAW, record.source, "blobs", f"{digest}.json")
            if not self.storage.exists(blob):
                self.storage.write_bytes(blob, body)
        self.storage.makedirs(self._folder(record.source, "fetches"))
        # The address's hash too: two fetches can end in the same millisecond (a mirror's quick 404s).
        address = hashlib.sha256(record.url.encode()).hexdigest()[:12]
        name = f"{record.fetched_at.replace(':', '')}-{record.outcome}-{address}.json"
        self.storage.write_bytes(self.storage.join(RAW, record.source, "fetches", name),
                                 json.dumps(asdict(record), sort_keys=True, indent=1).encode())
        return record

    def records(self, source: str) -> list[FetchRecord]:
        """Every fetch of `source`, oldest first."""
        folder = self._folder(source, "fetches")
        if not self.storage.exists(folder):
            return []
        found = [FetchRecord(**json.loads(self.storage.read_text(self.storage.join(RAW, source, "fetches", name))))
                 for name, is_dir in self.storage.entries(folder) if not is_dir and name.endswith(".json")]
        return sorted(found, key=lambda r: (r.fetched_at, r.outcome))

    def body(self, record: FetchRecord) -> bytes:
        """The body a successful fetch read, checked against its hash."""
        if record.sha256 is None:
            raise ValueError(f"the {record.outcome} fetch of {record.url} at {record.fetched_at} kept no body")
        data = self.storage.read_bytes(self.storage.join(RAW, record.source, "blobs", f"{record.sha256}.json"))
        if hashlib.sha256(data).hexdigest() != record.sha256:
            raise ValueError(f"raw copy {record.sha256} of {record.source} is damaged: its hash does not match")
        return data

    def on_day(self, source: str, day: str) -> list[FetchRecord]:
        """Every fetch of `source` that observed `day` (ISO), oldest first."""
        return [r for r in self.records(source) if r.as_of == day]

    def daily_good(self, source: str, through: str, url: str | None = None) -> list[FetchRecord]:
        """`daily_good` of every fetch of `source`."""
        return daily_good(self.records(source), through, url)

    def last_good(self, source: str, at_or_before: str | None = None, url: str | None = None) -> FetchRecord | None:
        """`last_good` of every fetch of `source`."""
        return last_good(self.records(source), at_or_before, url)


# Questions of a source's fetch records, oldest first (`RawStore.records`), for a caller that
# asks several of the same records without reading them again.

def daily_good(records: list[FetchRecord], through: str, url: str | None = None) -> list[FetchRecord]:
    """The last successful fetch of each day read on (of `url`, when given), for days up to
    `through` (ISO), oldest day first: one catalogue per day, the oracle's own dated archive."""
    by_day: dict[str, FetchRecord] = {}
    for record in records:
        if record.outcome == OK and record.as_of and record.as_of <= through and url in (None, record.url):
            by_day[record.as_of] = record  # records come oldest first: the day's last wins
    return [by_day[day] for day in sorted(by_day)]


def last_good(records: list[FetchRecord], at_or_before: str | None = None,
              url: str | None = None) -> FetchRecord | None:
    """The newest successful fetch (at or before an ISO time, and of `url`, when given)."""
    good = [r for r in records if r.outcome == OK and url in (None, r.url)
            and (at_or_before is None or r.fetched_at <= at_or_before)]
    return good[-1] if good else None


FETCH_COLUMNS = ["source", "as_of", "fetched_at", "outcome", "url", "status", "bytes", "sha256", "models", "attempts",
                 "reason", "fallback", "run_id"]


def fetch_table(records: list[FetchRecord]) -> pd.DataFrame:
    """Fetch records as the `source_fetches` table, by day, source and time."""
    frame = pd.DataFrame([asdict(r) for r in records], columns=FETCH_COLUMNS)
    frame["as_of"] = pd.to_datetime(frame["as_of"]).dt.date
    frame["fetched_at"] = pd.to_datetime(frame["fetched_at"], utc=True)
    for column in ("status", "models"):
        frame[column] = frame[column].astype("Int64")
    return frame.sort_values(["as_of", "source", "fetched_at"], kind="stable").reset_index(drop=True)
