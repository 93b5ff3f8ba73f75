"""Peak hours (pipelines/peak.py): daily windows in UTC, half-open, wrapping past midnight, on
the days they apply."""

from datetime import UTC, datetime, time, timedelta, timezone

from pipelines.peak import WEEKDAYS, PeakHours

DEEPSEEK = PeakHours(((time(1), time(4)), (time(6), time(10))))


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2026, 11, day, hour, minute, second, tzinfo=UTC)  # 2026-11-23 is a Monday


def test_a_window_holds_its_start_and_not_its_end():
    assert DEEPSEEK.contains(at(23, 1)) and DEEPSEEK.contains(at(23, 3, 59, 59))
    assert not DEEPSEEK.contains(at(23, 4)) and not DEEPSEEK.contains(at(23, 0, 59, 59))
    assert DEEPSEEK.contains(at(23, 6)) and not DEEPSEEK.contains(at(23, 10))
    assert not DEEPSEEK.contains(at(23, 5))  # between the two windows


def test_a_time_is_read_in_utc_and_a_naive_one_is_utc():
    beijing = timezone(timedelta(hours=8))
    assert DEEPSEEK.contains(datetime(2026, 11, 23, 9, 30, tzinfo=beijing))  # 01:30 UTC
    assert not DEEPSEEK.contains(datetime(2026, 11, 23, 12, 0, tzinfo=beijing))  # 04:00 UTC
    assert DEEPSEEK.contains(datetime(2026, 11, 23, 1, 0))


def test_a_window_past_midnight_wraps():
    night = PeakHours(((time(22), time(2)),))
    assert night.contains(at(23, 22)) and night.contains(at(24, 1, 59, 59)) and night.contains(at(24, 0))
    assert not night.contains(at(24, 2)) and not night.contains(at(23, 21, 59, 59))


def test_weekday_windows_leave_the_weekend_off_peak():
    weekdays = PeakHours(DEEPSEEK.windows, WEEKDAYS)
    assert weekdays.contains(at(27, 2)) and not weekdays.contains(at(28, 2)) and not weekdays.contains(at(29, 2))
    assert DEEPSEEK.contains(at(28, 2))  # daily windows hold every day
    assert weekdays.hours_per_week() == 5 * 7 and DEEPSEEK.hours_per_week() == 7 * 7
