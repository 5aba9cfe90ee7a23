"""Handing freed memory back to the system while ``serve`` runs.

glibc's allocator keeps what the process freed for its next allocations, and returns only the
free space at the top of its heaps: the rest (a burst of requests' large buffers, rows read on
the database's threads and freed on the event loop's) stays counted in RSS. After a two-minute
soak that was 12 MiB of 95 MiB of the server's own memory. ``malloc_trim`` returns those pages;
a served emulator calls it every ``TRIM_SECONDS`` of real time, on a worker thread (it takes
each heap's lock in turn, briefly). Elsewhere than glibc there is nothing to call.

``serve`` also fixes the size from which a request for memory gets pages of its own
(``tune_allocator``): glibc starts at 128 KiB but raises that bar to the largest such block
freed (up to 32 MiB), so once a large answer (a sink's whole list, an export) has come and gone,
the next ones are carved from the heaps and leave holes there when freed. With the bar fixed,
they are mapped and unmapped each time: a two-minute soak's own memory about 20 MiB lower
(98 and 91 MiB without, 75 and 70 with: docs/benchmarks.md, Memory).
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
from collections.abc import Callable

TRIM_SECONDS = 30.0  # real time: this is the process's memory, not the emulator's clock
MMAP_THRESHOLD = 256 * 1024  # blocks this large or more: pages of their own, given back on free
_M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (musl, macOS, Windows)
        return None


def _malloc_trim() -> Callable[[int], int] | None:
    libc = _libc()
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None)
    return trim


def tune_allocator(threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at ``threshold`` (for the whole process: ``serve`` calls it,
    the pytest plugin does not); whether there was a way to."""
    mallopt: Callable[[int, int], int] | None = getattr(_libc(), "mallopt", None)
    return mallopt is not None and mallopt(_M_MMAP_THRESHOLD, threshold) == 1


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
