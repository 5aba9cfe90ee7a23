"""Billing dates: calendar arithmetic of subscription periods, in the template's time zone.

A subscriber's schedule hangs off its anchor date A (the day it started). Period k runs from
``period_start(A, k)`` to ``period_start(A, k + 1)``; month periods keep the anchor's day,
clamped to the end of shorter months (31 Jan, 28/29 Feb, 31 Mar, 30 Apr...), so one short month
never drags the later dates back. The bill of period k is issued at 00:00 local time on the
period's first day, or on the next period's first day when charging at the period end.
"""

from __future__ import annotations

import calendar
import functools
import zoneinfo
from datetime import UTC, date, datetime, timedelta
from typing import Literal

Unit = Literal["days", "weeks", "months"]
UNITS: tuple[Unit, ...] = ("days", "weeks", "months")


_NOT_ZONES = ("localtime", "Factory", "posixrules")  # files of the zone database, not zones


@functools.cache
def _zones() -> frozenset[str]:
    return frozenset(
        name
        for name in zoneinfo.available_timezones()
        if name not in _NOT_ZONES and not name.startswith(("posix/", "right/"))
    )


def is_zone(name: str) -> bool:
    """An IANA time zone name the emulator knows (``Africa/Johannesburg``, ``UTC``)."""
    return name in _zones()


def zone(name: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(name if is_zone(name) else "UTC")


def shift(anchor: date, count: int, unit: Unit) -> date:
    """``anchor`` plus ``count`` units; OverflowError past the calendar's end (year 9999)."""
    if unit == "days":
        return anchor + timedelta(days=count)
    if unit == "weeks":
        return anchor + timedelta(weeks=count)
    months = anchor.month - 1 + count
    year, month = anchor.year + months // 12, months % 12 + 1
    if not 1 <= year <= 9999:
        raise OverflowError("date out of range")
    return date(year, month, min(anchor.day, calendar.monthrange(year, month)[1]))


# The functions below are pure, and every bill of an instant asks them the same: cached.
@functools.lru_cache(maxsize=1024)
def billing_day(anchor: date, period_index: int, every: int, unit: Unit, at_end: bool) -> date:
    """The day the bill of period ``period_index`` (counted from the anchor) is issued."""
    return shift(anchor, (period_index + (1 if at_end else 0)) * every, unit)


@functools.lru_cache(maxsize=1024)
def grid(every: int, unit: Unit, tz: str, at_end: bool) -> str:
    """What billing days depend on besides the anchor: when it changes, the days re-anchor."""
    return f"{every} {unit} {tz} {'end' if at_end else 'start'}"


@functools.lru_cache(maxsize=1024)
def local_day(instant_s: int, tz: str) -> date:
    """The calendar day of a Unix instant in the time zone ``tz``."""
    return datetime.fromtimestamp(instant_s, zone(tz)).date()


@functools.lru_cache(maxsize=1024)
def midnight(day: date, tz: str) -> int:
    """00:00 of ``day`` in ``tz``, as Unix seconds."""
    local = datetime(day.year, day.month, day.day, tzinfo=zone(tz))
    return int(local.astimezone(UTC).timestamp())


@functools.lru_cache(maxsize=1024)
def after(instant_s: int, count: int, unit: Unit, tz: str) -> int:
    """``instant_s`` plus ``count`` units on the local calendar (the same wall-clock time, a
    daylight-saving change or not), as Unix seconds."""
    local = datetime.fromtimestamp(instant_s, zone(tz))
    day = shift(local.date(), count, unit)
    moved = datetime.combine(day, local.timetz())
    return int(moved.timestamp())
