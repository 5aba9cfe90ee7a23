"""Billing days: calendar arithmetic of periods and due dates in a time zone."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from emulator.gateway.billing import rules_schedule as schedule


def utc(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


@pytest.mark.parametrize(
    ("k", "day"),
    [(0, "2026-01-31"), (1, "2026-02-28"), (2, "2026-03-31"), (3, "2026-04-30"),
     (4, "2026-05-31"), (12, "2027-01-31"), (25, "2028-02-29")],
)  # fmt: skip
def test_months_keep_the_anchor_day_clamped_to_shorter_months(k, day):
    assert schedule.billing_day(date(2026, 1, 31), k, 1, "months", False).isoformat() == day


def test_periods_of_several_units_and_the_period_end():
    anchor = date(2026, 1, 5)
    assert schedule.billing_day(anchor, 2, 3, "days", False) == date(2026, 1, 11)
    assert schedule.billing_day(anchor, 1, 2, "weeks", False) == date(2026, 1, 19)
    assert schedule.billing_day(anchor, 1, 2, "months", False) == date(2026, 3, 5)
    assert schedule.billing_day(anchor, 0, 1, "months", True) == date(2026, 2, 5)


def test_past_the_calendar_is_an_overflow():
    with pytest.raises(OverflowError):
        schedule.shift(date(9999, 12, 1), 1, "months")


def test_midnight_is_local_and_a_missing_midnight_is_the_first_hour_that_exists():
    assert schedule.midnight(date(2026, 2, 5), "Africa/Johannesburg") == utc("2026-02-04T22:00")
    # Chile springs forward at 00:00 on 2026-09-06: the day starts at 01:00 local (04:00Z).
    assert schedule.midnight(date(2026, 9, 6), "America/Santiago") == utc("2026-09-06T04:00")


def test_due_periods_count_on_the_local_calendar_across_a_clock_change():
    """London goes to summer time on 2026-03-29: 7 days after 00:00 GMT is 00:00 BST."""
    bill = utc("2026-03-25T00:00")
    assert schedule.after(bill, 7, "days", "Europe/London") == utc("2026-03-31T23:00")
    assert schedule.after(bill, 1, "weeks", "Europe/London") == utc("2026-03-31T23:00")
    assert schedule.after(bill, 1, "months", "Europe/London") == utc("2026-04-24T23:00")


def test_local_day_and_zone_names():
    assert schedule.local_day(utc("2026-01-04T23:00"), "Africa/Johannesburg") == date(2026, 1, 5)
    assert schedule.is_zone("Africa/Johannesburg") and schedule.is_zone("UTC")
    assert not any(map(schedule.is_zone, ("localtime", "Factory", "utc", "", "../etc")))


def test_the_grid_names_everything_billing_days_depend_on_but_the_anchor():
    assert schedule.grid(1, "months", "UTC", False) != schedule.grid(1, "months", "UTC", True)
    assert schedule.grid(1, "months", "UTC", False) != schedule.grid(1, "weeks", "UTC", False)
