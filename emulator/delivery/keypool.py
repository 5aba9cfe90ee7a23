"""Key pairs made ahead: registering a webhook takes a ready pair instead of generating one.

Every webhook has its own RSA key pair, as on the platform (FIDELITY.md: "keys may be made
ahead of time so a registration costs no key generation"). Generating a 2048-bit pair costs 20
to 150 ms of CPU, more than a whole typical test of a user's suite: a background thread making
one pair per registration cannot keep up with tests that register a webhook each, and takes a
core from them while it tries. So pairs are composed from a stock of primes: each generated
pair gives two 1024-bit primes (those OpenSSL chose, so every product of two of them is a
2048-bit modulus and 65537 a valid exponent), and every two primes of the stock make a pair
of their own, far faster than a generation. One generation adds a pair with each prime
already kept: eight generations give 120 pairs, and the stock starts again from nothing after
``PRIMES`` primes (the larger the stock, the more pairs one generation serves).

Every pair is distinct (no two webhooks share a modulus, a webhook's signatures verify with
its key only), but pairs of one stock share prime factors, so anyone holding two of their
public keys can factor both: they are test keys, like everything the emulator keeps in plain
in its database, never to be used outside it (docs/webhooks.md says so).

The pool starts on first use (a server that never registers a webhook makes no key), then one
daemon thread keeps ``SIZE`` pairs ready: it composes while the pool is short, grows the stock
ahead while the pool is full and fewer than ``AHEAD`` pairs of primes are left, and else
waits. The pool is the process's (every emulator served in a process shares it): a pair is
taken by one caller only and never handed out twice.
"""

from __future__ import annotations

import asyncio
import math
import queue
import threading
from collections import deque

from emulator.delivery import signing

SIZE = 32  # pairs kept ready: a burst of registrations (a suite's setup) does not wait
PRIMES = 512  # primes kept at most: 130,816 pairs, then a stock of new primes (80 KiB)
AHEAD = 2 * SIZE  # pairs of primes not yet composed, at least, before the thread rests
EXPONENT = 65537
WAIT = 2.0  # seconds a taker waits for the pool's next pair before it generates one itself

_ready: queue.Queue[tuple[str, str]] = queue.Queue(maxsize=SIZE)
_lock = threading.Lock()
_filler: threading.Thread | None = None


class Primes:
    """A stock of primes and the pairs of them not yet composed into a key pair (one
    thread's: the pool's filler)."""

    def __init__(self, limit: int = PRIMES) -> None:
        self.limit = limit
        self.primes: list[int] = []
        self.pending: deque[tuple[int, int]] = deque()

    def grow(self) -> None:
        """Generate a key pair and keep its two primes, each paired with every prime kept
        (after ``limit`` primes, the stock starts again from these two)."""
        if len(self.primes) + 2 > self.limit:
            self.primes.clear()
            self.pending.clear()
        from cryptography.hazmat.primitives.asymmetric import rsa  # on first use: serve's start

        numbers = rsa.generate_private_key(
            public_exponent=EXPONENT, key_size=signing.KEY_BITS
        ).private_numbers()
        for prime in (numbers.p, numbers.q):
            self.pending.extend((kept, prime) for kept in self.primes)
            self.primes.append(prime)

    def short(self) -> bool:
        """Fewer than ``AHEAD`` pairs of primes are left, and the stock may still grow."""
        return len(self.pending) < AHEAD and len(self.primes) + 2 <= self.limit

    def take(self) -> tuple[str, str]:
        """The next pair (private PEM, public PEM), composed of two primes never paired
        before (the stock grows when none is left)."""
        while True:
            if not self.pending:
                self.grow()
            made = compose(*self.pending.popleft())
            if made is not None:
                return made


def compose(p: int, q: int) -> tuple[str, str] | None:
    """The key pair of modulus ``p * q`` (PEMs, as ``signing.generate`` writes them), or None
    when the product falls short of the key size (OpenSSL's primes make that impossible)."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    n = p * q
    if n.bit_length() != signing.KEY_BITS or p == q:
        return None
    p, q = max(p, q), min(p, q)
    d = pow(EXPONENT, -1, math.lcm(p - 1, q - 1))  # as OpenSSL computes it
    numbers = rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=rsa.rsa_crt_dmp1(d, p),
        dmq1=rsa.rsa_crt_dmq1(d, q),
        iqmp=rsa.rsa_crt_iqmp(p, q),
        public_numbers=rsa.RSAPublicNumbers(EXPONENT, n),
    )
    return signing.pems(numbers.private_key(unsafe_skip_rsa_key_validation=True))  # our primes


def _fill() -> None:
    stock = Primes()
    while True:
        if _ready.full() and stock.short():
            stock.grow()  # ahead, while no registration waits for a pair
            continue
        _ready.put(stock.take())  # blocks while the pool is full


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
    """A pair, in the caller's thread: a ready one, else the next one the pool makes (while
    it starts or after a burst: no second generation competes with its own), else, if none
    comes within ``WAIT`` seconds, one generated here (a unit of work cannot wait on the
    event loop)."""
    ready = take_ready()
    if ready is not None:
        return ready
    if _filler is not None and _filler.is_alive():
        try:
            return _ready.get(timeout=WAIT)
        except queue.Empty:
            pass
    return signing.generate()


async def take() -> tuple[str, str]:
    """A pair, as ``take_now`` finds one, waited for in a worker thread (the event loop goes
    on)."""
    ready = take_ready()
    return ready if ready is not None else await asyncio.to_thread(take_now)
