"""The clock: real and frozen modes, explicit moves, persistence state."""

from __future__ import annotations

from datetime import UTC, datetime

from freezegun import freeze_time

from emulator.kernel.clock import Clock, from_us, iso, parse_iso, to_us
from tests.conftest import EPOCH


def test_frozen_clock_stands_still_until_told():
    """A frozen clock returns its start until moved."""
    clock = Clock("frozen", EPOCH)
    assert clock.now() == EPOCH
    clock.set_us(to_us(EPOCH) + 5_000_000)
    assert clock.now() == datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC)


def test_real_clock_follows_system_time_with_offset():
    """In real mode the clock is system time (as freezegun sets it) plus an offset."""
    with freeze_time("2030-03-01 10:00:00") as frozen:
        clock = Clock("real", datetime(2030, 3, 1, 12, 0, tzinfo=UTC))
        assert clock.now() == datetime(2030, 3, 1, 12, 0, tzinfo=UTC)
        frozen.tick(90)
        assert clock.now() == datetime(2030, 3, 1, 12, 1, 30, tzinfo=UTC)


def test_real_clock_without_start_is_system_time():
    """Started without a start instant, the real clock is exactly system time."""
    with freeze_time("2031-05-01 12:00:00"):
        assert Clock("real").now() == datetime(2031, 5, 1, 12, 0, tzinfo=UTC)


def test_freeze_and_resume_keep_continuity():
    """Freezing holds the current instant; resuming continues from it."""
    with freeze_time("2030-03-01 10:00:00") as frozen:
        clock = Clock("real")
        frozen.tick(10)
        clock.freeze()
        frozen.tick(100)
        assert clock.now() == datetime(2030, 3, 1, 10, 0, 10, tzinfo=UTC)
        clock.resume()
        frozen.tick(5)
        assert clock.now() == datetime(2030, 3, 1, 10, 0, 15, tzinfo=UTC)
        assert clock.mode == "real"


def test_state_round_trip():
    """A restored state gives the same time and mode."""
    clock = Clock("frozen", EPOCH)
    other = Clock("real")
    other.restore(clock.state())
    assert (other.mode, other.now()) == ("frozen", EPOCH)


def test_iso_helpers():
    """Instants print as ISO-8601 with Z; naive input is UTC."""
    assert iso(EPOCH) == "2026-01-05T09:00:00Z"
    assert parse_iso("2026-01-05T09:00:00") == EPOCH
    assert parse_iso("2026-01-05T11:00:00+02:00") == EPOCH
    assert from_us(to_us(EPOCH) + 1) == datetime(2026, 1, 5, 9, 0, 0, 1, tzinfo=UTC)
