"""The emulator's clock: the one place that reads wall time.

Two modes:

- ``real``: system time plus an offset. In-process, "system time" is whatever ``time.time``
  says, so a test that uses freezegun moves the emulator too.
- ``frozen``: time stands still until it is told to move.

Moving the clock never runs anything by itself; the scheduler runs due jobs (``advance``).
Times are timezone-aware UTC datetimes; storage uses integer microseconds (``to_us``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Literal

import msgspec

Mode = Literal["real", "frozen"]
MODES: tuple[Mode, ...] = ("real", "frozen")


class ClockState(msgspec.Struct, frozen=True):
    """What is persisted so the clock survives a restart."""

    mode: Mode
    frozen_at_us: int  # meaningful in frozen mode
    offset_us: int  # meaningful in real mode


def to_us(moment: datetime) -> int:
    """Microseconds since the Unix epoch of an aware datetime."""
    delta = moment - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_us(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def parse_iso(text: str) -> datetime:
    """Parse an ISO-8601 instant; a naive value is taken as UTC. ValueError when it is not one
    (or cannot be expressed in UTC, like 0001-01-01T00:00+01:00)."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{text!r} is out of range") from None


def in_clock_range(moment_us: int) -> bool:
    """Whether the clock may be set to ``moment_us``: from the Unix epoch to the year 9000,
    which leaves every date the domains compute from "now" (years ahead) representable."""
    return 0 <= moment_us < LATEST_US


def iso(moment: datetime) -> str:
    """ISO-8601 UTC with a Z suffix, as the control plane prints it."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_US = (datetime(9000, 1, 1, tzinfo=UTC) - EPOCH) // timedelta(microseconds=1)
CLOCK_RANGE = "between 1970-01-01T00:00:00Z and 9000-01-01T00:00:00Z"


def _system_us() -> int:
    return int(time.time() * 1_000_000)


class Clock:
    """Real or frozen time; only moves forward unless told to jump with ``set``."""

    def __init__(self, mode: Mode = "real", start: datetime | None = None) -> None:
        self._mode: Mode = "real"
        self._offset_us = 0
        self._frozen_at_us = 0
        self.configure(mode, start)

    def configure(self, mode: Mode, start: datetime | None) -> None:
        """Set the mode and, optionally, the current time (a fresh start or a reset)."""
        start_us = to_us(start) if start is not None else _system_us()
        self._mode = mode
        self._frozen_at_us = start_us
        self._offset_us = start_us - _system_us() if start is not None else 0

    @property
    def mode(self) -> Mode:
        return self._mode

    def now_us(self) -> int:
        if self._mode == "frozen":
            return self._frozen_at_us
        return _system_us() + self._offset_us

    def now(self) -> datetime:
        return from_us(self.now_us())

    def set_us(self, moment_us: int) -> None:
        """Make ``now`` equal ``moment_us`` in either mode (the mode is kept)."""
        if self._mode == "frozen":
            self._frozen_at_us = moment_us
        else:
            self._offset_us = moment_us - _system_us()

    def freeze(self, at_us: int | None = None) -> None:
        at = self.now_us() if at_us is None else at_us
        self._mode = "frozen"
        self._frozen_at_us = at

    def resume(self, at_us: int | None = None) -> None:
        """Back to real mode, continuing from now (or from ``at_us``)."""
        at = self.now_us() if at_us is None else at_us
        self._mode = "real"
        self._offset_us = at - _system_us()

    def state(self) -> ClockState:
        return ClockState(
            mode=self._mode, frozen_at_us=self._frozen_at_us, offset_us=self._offset_us
        )

    def restore(self, state: ClockState) -> None:
        self._mode = state.mode
        self._frozen_at_us = state.frozen_at_us
        self._offset_us = state.offset_us
