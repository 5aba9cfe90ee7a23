"""The retry schedule: eight retries at growing gaps, the last 36 hours after the first."""

from __future__ import annotations

from emulator.delivery.outgoing import MAX_ATTEMPTS, RETRY_AFTER_SECONDS, retry_due_us

FIRST_US = 1_000_000_000


def test_eight_retries_with_growing_gaps_ending_36_hours_after_the_first():
    """Offsets 1 m, 5 m, 30 m, 2 h, 5 h, 10 h, 18 h, 36 h; each gap longer than the last."""
    assert RETRY_AFTER_SECONDS == (60, 300, 1800, 7200, 18000, 36000, 64800, 129600)
    gaps = [b - a for a, b in zip((0, *RETRY_AFTER_SECONDS), RETRY_AFTER_SECONDS, strict=False)]
    assert gaps == sorted(gaps) and len(set(gaps)) == len(gaps)
    assert MAX_ATTEMPTS == 9


def test_retry_due_counts_from_the_first_attempt_and_gives_up_after_the_ninth():
    """After attempt n fails, attempt n+1 is due at the first attempt plus its offset."""
    dues = [retry_due_us(FIRST_US, n) for n in range(1, 10)]
    assert dues == [FIRST_US + s * 1_000_000 for s in RETRY_AFTER_SECONDS] + [None]
