"""A fixed-window request limiter on the emulator clock.

Windows are aligned to multiples of their length since the Unix epoch, so ``reset`` (the
``X-RateLimit-Reset`` header) is the same instant for every client of a merchant. On a frozen
clock a window ends only when the clock is advanced: a test of a client's backoff moves time
explicitly. Counts are in memory: they are traffic, not state (a restart starts them over).
"""

from __future__ import annotations

from collections.abc import Hashable

import msgspec

MAX_KEYS = 100_000  # windows of idle merchants are dropped past this many


class Verdict(msgspec.Struct, frozen=True):
    allowed: bool
    limit: int
    remaining: int
    reset_s: int  # Unix time the current window ends


class FixedWindow:
    def __init__(self) -> None:
        self._windows: dict[Hashable, tuple[int, int]] = {}  # key → (window start, count)

    def hit(self, key: Hashable, limit: int, window_s: int, now_s: int) -> Verdict:
        """Count one request for ``key``; over ``limit`` in this window it is not allowed
        (and not counted: a client that keeps retrying does not push its reset later)."""
        start = now_s - now_s % window_s
        current_start, count = self._windows.get(key, (start, 0))
        if current_start != start:
            count = 0
        allowed = count < limit
        if allowed:
            count += 1
            if len(self._windows) >= MAX_KEYS and key not in self._windows:
                self._prune(start)
            self._windows[key] = (start, count)
        return Verdict(allowed, limit, limit - count, start + window_s)

    def _prune(self, start: int) -> None:
        self._windows = {k: v for k, v in self._windows.items() if v[0] >= start}
        if len(self._windows) >= MAX_KEYS:
            self._windows.clear()

    def clear(self) -> None:
        self._windows.clear()
