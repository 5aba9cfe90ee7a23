"""Bodies of ``POST /_emulator/receiver-checks`` (``emulator/sandbox/receiver_checks/service.py``),
described as structs for the document."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType


class ReceiverCheckRequest(msgspec.Struct):
    """``url``: the app's receiver; ``merchant``: whose webhook key signs (the default
    merchant when absent); ``bank``: bank callbacks (unsigned) instead of gateway webhooks;
    ``timeout_seconds``: how long each answer may take (real seconds, default 5, the
    platform's)."""

    url: str
    merchant: str | UnsetType = UNSET
    bank: bool | UnsetType = UNSET
    timeout_seconds: Annotated[float, Meta(gt=0, le=30)] | UnsetType = UNSET


class ReceiverCheck(msgspec.Struct):
    """One check: ``valid``, ``duplicate``, ``bad_signature``, ``tampered_body``,
    ``unknown_event``, ``out_of_order``, ``old_replay``, ``timeout``, ``reads_back`` (bank
    callbacks: ``valid``, ``duplicate``, ``unknown_event``, ``timeout``)."""

    name: str
    result: Literal["pass", "fail", "warn"]
    why: str


class ReceiverReport(msgspec.Struct):
    """The checks and the score (a pass counts 1, a warning 0.5, out of 100); the purchases
    made for the check; what signed the messages."""

    url: str
    merchant: str
    kind: Literal["gateway", "bank"]
    purchase_ids: list[str]
    signed_with: str
    timeout_seconds: float
    checks: list[ReceiverCheck]
    score: Annotated[int, Meta(ge=0, le=100)]
