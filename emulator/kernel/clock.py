"""The emulator's clock: the one place that reads wall time.

Two modes:

- ``real``: system time plus an offset. In-process, "system time" is whatever ``time.time``
  says, so a test that uses freezegun moves the emulator too.
- ``frozen``: time stands still until it is told to move.

There is a server clock, and any merchant may own a clock of its own (``Clocks``): the clock
of whoever is being served (a request made with a merchant's credentials, a job of that
merchant) is the one ``Clocks.now`` reads. Moving the clock never runs anything by itself; the
scheduler runs due jobs (``advance``).
Times are timezone-aware UTC datetimes; storage uses integer microseconds (``to_us``).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


# The header that tells an instant on the emulator's clocks: on every interface's answer (the
# merchant's now) and on every delivery attempt (when it was sent).
TIME_HEADER = "X-Emulator-Time"

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
        self._held_real = False  # held still by an advance, real again after it
        self.configure(mode, start)

    def configure(self, mode: Mode, start: datetime | None) -> None:
        """Set the mode and, optionally, the current time (a fresh start or a reset)."""
        start_us = to_us(start) if start is not None else _system_us()
        self._held_real = False
        self._mode = mode
        self._frozen_at_us = start_us
        self._offset_us = start_us - _system_us() if start is not None else 0

    @property
    def mode(self) -> Mode:
        return "real" if self._held_real else self._mode

    def hold(self) -> None:
        """Stand still at the current instant while an advance plays its jobs; ``mode`` and
        ``state`` still say what the clock is once ``release`` lets it go (a real clock goes
        on in real time from where the advance left it)."""
        self._held_real = self._held_real or self._mode == "real"
        self._mode, self._frozen_at_us = "frozen", self.now_us()

    def release(self) -> None:
        if self._held_real:
            self._held_real = False
            self.resume()

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
        self._held_real = False
        self._mode = "frozen"
        self._frozen_at_us = at

    def resume(self, at_us: int | None = None) -> None:
        """Back to real mode, continuing from now (or from ``at_us``)."""
        at = self.now_us() if at_us is None else at_us
        self._held_real = False
        self._mode = "real"
        self._offset_us = at - _system_us()

    def state(self) -> ClockState:
        if self._held_real:  # stored as real from this instant: a restart or restore goes on
            now_us = self.now_us()
            return ClockState(mode="real", frozen_at_us=now_us, offset_us=now_us - _system_us())
        return ClockState(
            mode=self._mode, frozen_at_us=self._frozen_at_us, offset_us=self._offset_us
        )

    def restore(self, state: ClockState) -> None:
        self._held_real = False
        self._mode = state.mode
        self._frozen_at_us = state.frozen_at_us
        self._offset_us = state.offset_us


class Clocks:
    """The server clock and merchants' own clocks.

    ``now``/``now_us``/``mode`` read the clock of whoever is being served: the middleware sets
    it for a request made with a merchant's credentials, the scheduler for a job of a merchant
    that owns its clock; anywhere else it is the server clock. It lives in a context variable,
    so it follows the request or job into its units of work (``Database`` runs them in the
    caller's context) and never leaks into another.
    """

    def __init__(self, server: Clock) -> None:
        self.server = server
        self.own: dict[str, Clock] = {}  # merchant id → its own clock (the scheduler keeps it)
        self._current: contextvars.ContextVar[Clock | None] = contextvars.ContextVar(
            f"emulator-clock-{id(self)}", default=None
        )

    def current(self) -> Clock:
        clock = self._current.get()
        return self.server if clock is None else clock

    def now_us(self) -> int:
        return self.current().now_us()

    def now(self) -> datetime:
        return from_us(self.current().now_us())

    @property
    def mode(self) -> Mode:
        return self.current().mode

    def of(self, merchant_id: str | None) -> Clock:
        """The clock a merchant's time is read from: its own, or the server's."""
        if merchant_id is None:
            return self.server
        return self.own.get(merchant_id, self.server)

    def use(self, clock: Clock) -> contextvars.Token[Clock | None]:
        """Serve on ``clock`` from here on in this context (``restore`` undoes it)."""
        return self._current.set(clock)

    def restore_use(self, token: contextvars.Token[Clock | None]) -> None:
        self._current.reset(token)

    @contextmanager
    def using(self, clock: Clock) -> Iterator[None]:
        token = self._current.set(clock)
        try:
            yield
        finally:
            self._current.reset(token)
