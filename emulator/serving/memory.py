"""Handing freed memory back to the system while ``serve`` runs.

glibc's allocator keeps what the process freed for its next allocations, and returns only the
free space at the top of its heaps: the rest (a burst of requests' large buffers, rows read on
the database's threads and freed on the event loop's) stays counted in RSS. After a two-minute
soak that was 12 MiB of 95 MiB of the server's own memory. ``malloc_trim`` returns those pages;
a served emulator calls it every ``TRIM_SECONDS`` of real time, on a worker thread (it takes
each heap's lock in turn, briefly). Elsewhere than glibc there is nothing to call.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
from collections.abc import Callable

TRIM_SECONDS = 30.0  # real time: this is the process's memory, not the emulator's clock


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return None
    return trim


def trim() -> bool:
    """Return the allocator's free pages to the system; whether there was a way to."""
    found = _malloc_trim()
    if found is None:
        return False
    found(0)
    return True


async def trim_forever(every: float = TRIM_SECONDS) -> None:
    """``trim`` every ``every`` seconds until cancelled (the served app's lifespan runs it)."""
    if _malloc_trim() is None:
        return
    while True:
        await asyncio.sleep(every)
        await asyncio.to_thread(trim)
