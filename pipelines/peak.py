"""Peak and off-peak prices: a model whose rates depend on the hour of the request.

A provider that prices by the hour (DeepSeek) bills its *peak* rates inside daily windows, on
some weekdays, and its *off-peak* rates at every other hour. A statement of such a price keeps
both rate sets and the windows in one JSON value (`Listing.peak`):

    {"hours_utc": [["01:00", "04:00"], ["06:00", "10:00"]], "days": "mon-fri",
     "peak": {"input": 1.32, "output": 3.96, "cache_read": 0.044},
     "off_peak": {"input": 0.66, "output": 1.98, "cache_read": 0.022},
     "standard": "off_peak"}

Windows are half-open `[start, end)` in UTC and may wrap past midnight; `days` is `daily` or
`mon-fri` (judged on the UTC date, which for windows inside 01:00–16:00 UTC is also the date in
Beijing, where DeepSeek's calendar runs). The statement's own rates, and so the model's β, are
those of the `standard` period: the period in force for more hours of the week. A request priced
at a given time (`period_at`) takes the rates of the period it falls in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, time

PEAK, OFF_PEAK = "peak", "off_peak"
PERIODS = (PEAK, OFF_PEAK)
DAILY, WEEKDAYS = "daily", "mon-fri"
HOURS_PER_WEEK = 7 * 24


def _clock(text: str) -> time:
    return time.fromisoformat(text)


@dataclass(frozen=True)
class PeakHours:
    """When the peak rates apply: daily windows (UTC, half-open) on `days`."""

    windows: tuple[tuple[time, time], ...]
    days: str = DAILY

    def __post_init__(self) -> None:
        if self.days not in (DAILY, WEEKDAYS):
            raise ValueError(f"peak days must be {DAILY!r} or {WEEKDAYS!r}, got {self.days!r}")
        if not self.windows:
            raise ValueError("peak hours need at least one window")

    def contains(self, when: datetime) -> bool:
        """Whether a request at `when` (naive = UTC) pays the peak rates."""
        when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
        if self.days == WEEKDAYS and when.weekday() >= 5:
            return False
        clock = when.time()
        return any(start <= clock < end if start < end else clock >= start or clock < end
                   for start, end in self.windows)

    def hours_per_week(self) -> float:
        """Peak hours in a week (windows assumed not to overlap)."""
        per_day = 0.0
        for start, end in self.windows:
            minutes = (end.hour * 60 + end.minute) - (start.hour * 60 + start.minute)
            per_day += (minutes if minutes > 0 else minutes + 24 * 60) / 60
        return per_day * (5 if self.days == WEEKDAYS else 7)


@dataclass(frozen=True)
class PeakPricing:
    """Both rate sets ({field: $/M}) of a time-priced statement, and when each applies."""

    hours: PeakHours
    peak: dict[str, float]
    off_peak: dict[str, float]

    @property
    def standard(self) -> str:
        """The period in force for more hours of the week: the statement's own rates and β."""
        return PEAK if self.hours.hours_per_week() > HOURS_PER_WEEK / 2 else OFF_PEAK

    def rates(self, period: str) -> dict[str, float]:
        if period not in PERIODS:
            raise ValueError(f"period must be one of {', '.join(PERIODS)}, got {period!r}")
        return self.peak if period == PEAK else self.off_peak

    def period_at(self, when: datetime) -> str:
        return PEAK if self.hours.contains(when) else OFF_PEAK

    def chosen(self, period: str | None = None, at: datetime | None = None) -> str:
        """The period a request pays: `period` if asked, else the one time `at` falls in, else
        the standard period."""
        return period or (self.period_at(at) if at is not None else self.standard)

    def to_json(self) -> str:
        return json.dumps({
            "hours_utc": [[f"{s:%H:%M}", f"{e:%H:%M}"] for s, e in self.hours.windows], "days": self.hours.days,
            PEAK: dict(sorted(self.peak.items())), OFF_PEAK: dict(sorted(self.off_peak.items())),
            "standard": self.standard,
        }, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> PeakPricing:
        raw = json.loads(text)
        hours = PeakHours(tuple((_clock(s), _clock(e)) for s, e in raw["hours_utc"]), raw.get("days", DAILY))
        return cls(hours, {k: float(v) for k, v in raw[PEAK].items()},
                   {k: float(v) for k, v in raw[OFF_PEAK].items()})


def peak_days(rules, as_of) -> dict[tuple[str, str], str]:
    """`peak_days.csv` rows in force on `as_of` → {(provider id, model id): days}."""
    out = {}
    for row in rules.to_dict("records"):
        if row["days"] not in (DAILY, WEEKDAYS):
            raise ValueError(f"peak_days.csv: days must be {DAILY} or {WEEKDAYS}, got {row['days']!r}")
        if str(row["since"]) <= as_of.isoformat():
            out[(row["provider"], row["model_id"])] = row["days"]
    return out
