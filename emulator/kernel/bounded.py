"""Caches with a size: ``Bounded``, a dict that forgets its oldest entries past its limit.

A served emulator runs for weeks on a shared QA server: a cache keyed by what the traffic
brings (webhooks' keys, credentials, signatures made ahead) must not grow with everything
ever seen. Forgetting the oldest is enough for these: each entry is a copy of what the
database holds or can be made again, so a forgotten one costs a read or a computation, never
an answer. Safe to use from several threads under the GIL: each step is one dict operation
(two threads past the limit at once forget one entry more, never raise).
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Bounded(dict[K, V]):
    """A dict of at most ``limit`` entries: a new key stored (``cache[key] = value``) past
    that forgets the oldest (in insertion order; reading an entry does not make it younger).
    Only item assignment counts: fill it with nothing else (not ``update``, ``setdefault``)."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a bounded cache holds at least one entry")
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        if key not in self:
            while len(self) >= self.limit:
                for oldest in self:  # the first in insertion order
                    self.pop(oldest, None)  # None: another thread took it first
                    break
        super().__setitem__(key, value)
