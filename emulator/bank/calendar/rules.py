"""South African business days and the action dates of v2 collections and payments.

Times of day are South African Standard Time (UTC+2 all year, no daylight saving). Public
holidays come from the ``holidays`` library (country ZA, with its Sunday-to-Monday rule).

Rules (ours, documented in docs/bank.md):

- A submission at or after the 14:00 cut-off, or on a weekend or public holiday, counts from
  the next business day (the *effective submission day*).
- The earliest action date is the effective submission day for SAMEDAY, one business day
  later for ONEDAY and two for TWODAY.
- A requested date later than that is used, moved forward to a business day.
- The bank processes an action date at 18:00; that is when outcomes land.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import holidays

SAST = timezone(timedelta(hours=2), "SAST")
CUTOFF = time(14, 0)
PROCESSING = time(18, 0)
SERVICE_DAYS = {"SAMEDAY": 0, "ONEDAY": 1, "TWODAY": 2}


@lru_cache(maxsize=64)
def _holidays(year: int) -> holidays.HolidayBase:
    import holidays  # on the first date asked (dateutil with it): not before serve's 1st answer

    return holidays.country_holidays("ZA", years=year)


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and day not in _holidays(day.year)


def next_business_day(day: date) -> date:
    """``day`` itself when it is a business day, else the next one."""
    while not is_business_day(day):
        day += timedelta(days=1)
    return day


def add_business_days(day: date, count: int) -> date:
    day = next_business_day(day)
    for _ in range(count):
        day = next_business_day(day + timedelta(days=1))
    return day


def local(us: int) -> datetime:
    return datetime.fromtimestamp(us / 1_000_000, SAST)


def action_date(now_us: int, service_type: str, requested: date | None) -> date:
    """The date the bank actions an instruction submitted at ``now_us``."""
    submitted = local(now_us)
    day = submitted.date()
    if submitted.time() >= CUTOFF:
        day += timedelta(days=1)
    earliest = add_business_days(day, SERVICE_DAYS.get(service_type, 1))
    if requested is not None and requested > earliest:
        return next_business_day(requested)
    return earliest


def moved_because(now_us: int, service_type: str, requested: date, action: date) -> str | None:
    """Why a requested action date became ``action`` (None when it did not move): the date
    was not a business day, or too soon for the service type once the cut-off and the
    submission day are counted."""
    if action == requested:
        return None
    submitted = local(now_us)
    earliest = action_date(now_us, service_type, None)
    if requested >= earliest:
        return f"{requested.isoformat()} is not a business day"
    why = []
    if submitted.time() >= CUTOFF:
        why.append("submitted after the 14:00 SAST cut-off")
    if not is_business_day(submitted.date()):
        why.append("submitted on a weekend or public holiday")
    days = SERVICE_DAYS.get(service_type, 1)
    plural = "" if days == 1 else "s"
    needs = f"{days} business day{plural} after the" if days else "on the"
    why.append(
        f"{service_type} is actioned {needs} effective submission day:"
        f" the earliest action date is {earliest.isoformat()}"
    )
    return "; ".join(why)


def processing_us(day: date) -> int:
    """When the bank processes ``day``'s instructions (18:00 SAST), in epoch microseconds."""
    moment = datetime.combine(day, PROCESSING, SAST)
    return int(moment.timestamp()) * 1_000_000


def iso_us(us: int) -> str:
    """An instant as the v2 interface writes it: ISO 8601 UTC with a Z."""
    return _iso_second(us // 1_000_000)


@lru_cache(maxsize=1024)  # a run of jobs writes the same few instants thousands of times
def _iso_second(second: int) -> str:
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# The instants the emulator's clock can reach (emulator.kernel.clock.in_clock_range; the
# domain may not import the kernel): from the Unix epoch to the year 9000, in UTC.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
RANGE = "from 1970-01-01T00:00:00Z to 9000-01-01T00:00:00Z"


def parse_instant(value: str) -> datetime | None:
    """An ISO 8601 date or date-time (a naive one is UTC) in UTC, or None when it is not one
    or falls outside the clock's range once its offset is applied."""
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        parsed = parsed.astimezone(UTC)  # 9999-12-31T23:00-02:00 overflows
    except (ValueError, OverflowError):
        return None
    return parsed if EARLIEST <= parsed < LATEST else None


def instant_problem(value: str) -> str:
    """Why ``parse_instant`` refused ``value``: not ISO 8601, or out of the clock's range."""
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return f"'{value[:40]}' is not an ISO 8601 date-time"
    return f"'{value[:40]}' is out of range ({RANGE})"


def sast_date(moment: datetime) -> date:
    return moment.astimezone(SAST).date()


def iso_to_us(value: str) -> int:
    """An ISO 8601 instant this module wrote (or validated) in epoch microseconds."""
    parsed = parse_instant(value)
    if parsed is None:
        raise ValueError(f"not an ISO 8601 instant: {value!r}")
    return int(parsed.timestamp()) * 1_000_000
