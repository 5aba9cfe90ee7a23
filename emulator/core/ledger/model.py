"""Money movements as the ledger records them (pure: no I/O)."""

from __future__ import annotations

from typing import Literal

import msgspec

EntryState = Literal["pending", "settled", "void"]


class LedgerEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One movement. ``amount`` is signed minor units (in > 0, out < 0); ``fee`` >= 0 is what
    the provider charged for it. The optional fields are the balance endpoint's filters."""

    kind: str  # purchase, refund, payout, ...
    state: EntryState
    currency: str
    amount: int
    object_type: str
    object_id: str
    fee: int = 0
    brand_id: str | None = None
    terminal_uid: str | None = None
    payment_method: str | None = None
    product: str | None = None
    flow: str | None = None
    country: str | None = None
    tokenized: bool = False
