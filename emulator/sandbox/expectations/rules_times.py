"""Instants and durations of expectations, on the merchant's clock, in microseconds since
the Unix epoch: ISO-8601 instants, durations such as ``"5m"``, ``"1h30m"``, ``{"days": 3}``;
and how the reports print them. Pure."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any

UNIT_US = {
    "ms": 1_000,
    "s": 1_000_000,
    "m": 60_000_000,
    "h": 3_600_000_000,
    "d": 86_400_000_000,
    "w": 604_800_000_000,
}
NAMED_UNITS = {"seconds": "s", "minutes": "m", "hours": "h", "days": "d", "weeks": "w"}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
MAX_DURATION_US = 10_000 * 366 * 86_400_000_000  # ten thousand years: past the clock's range
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ExpectationError(ValueError):
    """Bad input: ``path`` names the offending key (``expect[2].within``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


# -- instants and durations ------------------------------------------------------------------


def parse_instant(path: str, value: Any) -> int:
    """Microseconds since the epoch of an ISO-8601 instant (naive means UTC)."""
    if not isinstance(value, str):
        raise ExpectationError(path, f"{value!r} is not an ISO-8601 instant")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ExpectationError(path, f"{value!r} is not an ISO-8601 instant") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // timedelta(microseconds=1)


def parse_duration(path: str, value: Any) -> int:
    """Microseconds of ``"5m"``, ``"1h30m"``, ``"500ms"``, ``{"days": 3}`` or a number of
    seconds."""
    total: float
    if isinstance(value, bool):
        raise ExpectationError(path, f"{value!r} is not a duration")
    if isinstance(value, int | float):
        total = float(value) * 1_000_000
    elif isinstance(value, str):
        text = value.replace(" ", "")
        parts = _DURATION.findall(text)
        if not text or "".join(n + u for n, u in parts) != text:
            raise ExpectationError(path, f'"{value}" is not a duration (such as "5m", "3d")')
        total = sum(float(n) * UNIT_US[u] for n, u in parts)
    elif isinstance(value, dict) and value:
        total = 0.0
        for name, amount in value.items():
            if name not in NAMED_UNITS:
                raise ExpectationError(
                    f"{path}.{name}", f"is not a unit; give {', '.join(NAMED_UNITS)}"
                )
            if isinstance(amount, bool) or not isinstance(amount, int | float) or amount < 0:
                raise ExpectationError(f"{path}.{name}", "must be a number from 0")
            total += float(amount) * UNIT_US[NAMED_UNITS[name]]
    else:
        raise ExpectationError(path, f"{value!r} is not a duration")
    if not math.isfinite(total) or not 0 <= total <= MAX_DURATION_US:
        raise ExpectationError(path, f"{value!r} is not a duration from 0 to 10,000 years")
    return round(total)


def duration_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(f"{amount:g}{NAMED_UNITS[name]}" for name, amount in value.items())
    return f"{value:g}s"


def iso_us(us: int) -> str:
    """An instant as the control plane prints it (ISO-8601 UTC, Z)."""
    moment = EPOCH + timedelta(microseconds=us)
    return moment.isoformat().replace("+00:00", "Z")


def span_text(us: int) -> str:
    """A duration in a few words: ``+7m``, ``+3d 2h``, ``+1.5s``."""
    sign = "-" if us < 0 else "+"
    us = abs(us)
    if us < 60_000_000:
        return f"{sign}{us / 1_000_000:g}s"
    parts: list[str] = []
    for unit in ("d", "h", "m", "s"):
        amount, us = divmod(us, UNIT_US[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    return sign + " ".join(parts[:2])
