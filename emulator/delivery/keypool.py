"""Key pairs made ahead: registering a webhook takes a ready pair instead of generating one.

Every webhook has its own RSA key pair, as on the platform (FIDELITY.md: "keys may be made
ahead of time so a registration costs no key generation"). A 2048-bit pair costs 20 to 150 ms
of CPU; with a pool, a registration costs a queue's ``get``. The pool starts on first use (a
server that never registers a webhook makes no key), then one daemon thread keeps ``SIZE``
pairs ready: it generates while the pool is short and waits while it is full.
cryptography generates without the GIL, so the thread does not hold up the event loop.

The pool is the process's (every emulator served in a process shares it): a pair is random,
is taken by one caller only, and is never handed out twice.
"""

from __future__ import annotations

import asyncio
import queue
import threading

from emulator.delivery import signing

SIZE = 8  # pairs kept ready: a burst of registrations (a suite's setup) rarely waits

_ready: queue.Queue[tuple[str, str]] = queue.Queue(maxsize=SIZE)
_lock = threading.Lock()
_filler: threading.Thread | None = None


def _fill() -> None:
    while True:
        _ready.put(signing.generate())  # blocks while the pool is full


def _start() -> None:
    global _filler
    if _filler is not None:
        return
    with _lock:
        if _filler is None:
            _filler = threading.Thread(target=_fill, name="emulator-keypool", daemon=True)
            _filler.start()


def take_ready() -> tuple[str, str] | None:
    """A ready pair (private PEM, public PEM), or None when the pool is empty (it refills)."""
    _start()
    try:
        return _ready.get_nowait()
    except queue.Empty:
        return None


def take_now() -> tuple[str, str]:
    """A pair, in the caller's thread: a ready one, else one generated here (for a unit of
    work, which cannot wait on a thread)."""
    ready = take_ready()
    return ready if ready is not None else signing.generate()


async def take() -> tuple[str, str]:
    """A pair: a ready one, else one generated in a worker thread (the event loop goes on)."""
    ready = take_ready()
    return ready if ready is not None else await asyncio.to_thread(signing.generate)
