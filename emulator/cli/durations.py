"""Times on the command line: a duration (``3d``, ``1h30m``, ``90s``) as the advance's body,
an instant as ISO 8601 UTC, and an instant shown back."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from emulator.cli.client import UsageError

if TYPE_CHECKING:
    pass


DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$")


UNITS = ("days", "hours", "minutes", "seconds")


def parse_duration(text: str) -> dict[str, float]:
    """``3d``, ``90m``, ``2h30m``, ``45s``, ``10`` (seconds): the advance body's
    days/hours/minutes/seconds (only those given)."""
    match = DURATION.match(text.strip()) if text.strip() else None
    if match is None or not any(match.groups()):
        raise UsageError(
            f"duration {text!r}: use days, hours, minutes and seconds like 3d, 90m, 2h30m, 45s"
        )
    body: dict[str, float] = {}
    for unit, value in zip(UNITS, match.groups(), strict=True):
        if value is not None:
            number = float(value)
            body[unit] = int(number) if number.is_integer() else number
    return body


def duration_seconds(body: dict[str, float]) -> float:
    factors = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}
    return sum(factors[unit] * value for unit, value in body.items())


def parse_instant(text: str, flag: str) -> str:
    """An ISO-8601 instant (naive means UTC) in the clock's range, as the emulator writes it."""
    from emulator.kernel.clock import CLOCK_RANGE, in_clock_range, iso, parse_iso, to_us

    try:
        moment = parse_iso(text)
    except ValueError:
        raise UsageError(f"{flag}: {text!r} is not an ISO-8601 instant") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if not in_clock_range(to_us(moment)):
        raise UsageError(f"{flag}: {text!r} must be {CLOCK_RANGE}")
    return iso(moment)


def when(value: str | datetime) -> str:
    from emulator.kernel.clock import iso

    return value if isinstance(value, str) else iso(value)
