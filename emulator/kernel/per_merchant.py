"""``PerMerchant``: the latest few things of each merchant, kept in memory and bounded.

For what a running emulator notes as it serves and forgets without loss (the moves the flow
recorder reads): at most ``per_merchant`` of each merchant, ``kept`` in all, of at most
``merchants`` merchants; past that the least recently noted merchants' things are forgotten.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Generic, TypeVar

T = TypeVar("T")


class PerMerchant(Generic[T]):
    def __init__(self, kept: int, per_merchant: int, merchants: int) -> None:
        self._by_merchant: OrderedDict[str, deque[T]] = OrderedDict()
        self._kept = kept
        self._per_merchant = per_merchant
        self._merchants = merchants
        self._count = 0  # things kept, of every merchant

    def add(self, merchant_id: str, item: T) -> None:
        kept = self._by_merchant.pop(merchant_id, None)
        if kept is None:
            kept = deque(maxlen=self._per_merchant)
        if len(kept) < self._per_merchant:  # else its oldest goes as this one comes
            self._count += 1
        kept.append(item)
        self._by_merchant[merchant_id] = kept
        while len(self._by_merchant) > self._merchants or self._count > self._kept:
            _, gone = self._by_merchant.popitem(last=False)
            self._count -= len(gone)

    def of(self, merchant_id: str) -> list[T]:
        return list(self._by_merchant.get(merchant_id, ()))

    def count(self) -> int:
        """How many things are kept, of every merchant."""
        return self._count

    def drop(self, merchant_id: str) -> None:
        """Forget a merchant's things (it was deleted)."""
        gone = self._by_merchant.pop(merchant_id, None)
        if gone is not None:
            self._count -= len(gone)

    def clear(self) -> None:
        self._by_merchant.clear()
        self._count = 0
