"""The bodies of a purchase's actions (capture, release, refund, charge, mark as paid): their
types, checked on decode; unknown fields are ignored, as the provider does."""

from __future__ import annotations

from typing import Any

import msgspec


class AmountBody(msgspec.Struct, forbid_unknown_fields=False):
    amount: int | None = None


class ChargeBody(msgspec.Struct, forbid_unknown_fields=False):
    recurring_token: Any = None


class MarkAsPaidBody(msgspec.Struct, forbid_unknown_fields=False):
    paid_on: int | float | None = None
