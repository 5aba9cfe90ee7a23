"""Gateway payouts: the object, its body and its statuses (spec: Payout); the rules that
make and move it are ``rules.py``."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from emulator.domain import validation
from emulator.gateway.clients.rules import ClientInput

PayoutStatus = Literal[
    "initialized",  # created; waits for the card payload at execution_url
    "pending",  # executed, accepted by the provider, not settled yet (3 to 5 days)
    "error",  # refused at execution, failed at settlement, or never executed in time
    "success",  # executed (and settled)
]
Trigger = Literal[
    "execute_success",
    "execute_pending",
    "execute_error",
    "expire",
    "settle_success",
    "settle_failed",
]

EXECUTION_WINDOW_SECONDS = 15 * 60  # spec: Limits
REFERENCE_MAX = 128
SENDER_NAME_MAX = 40  # OpenAPI
DESCRIPTION_MAX = 256
AMOUNT_MAX = 9_999_999_999


class PaymentInput(msgspec.Struct, forbid_unknown_fields=False):
    amount: int | UnsetType = UNSET
    currency: str | UnsetType = UNSET
    description: str | UnsetType = UNSET


class PayoutInput(msgspec.Struct, forbid_unknown_fields=False):
    """A POST body: types are checked on decode, rules by ``validate``."""

    client: ClientInput | UnsetType = UNSET
    payment: PaymentInput | UnsetType = UNSET
    brand_id: str | UnsetType = UNSET
    reference: validation.Reference | UnsetType = UNSET
    sender_name: str | UnsetType = UNSET
    payout_method_whitelist: list[str] | UnsetType | None = UNSET


class PayoutPayment(msgspec.Struct, kw_only=True):
    is_outgoing: bool = True
    payment_type: str = "payout"
    amount: int
    currency: str
    net_amount: int
    fee_amount: int = 0
    pending_amount: int = 0
    pending_unfreeze_on: int | None = None
    description: str = ""
    paid_on: int | None = None
    remote_paid_on: int | None = None


class StatusChange(msgspec.Struct):
    status: PayoutStatus
    timestamp: int


class AttemptError(msgspec.Struct):
    code: str
    message: str


class Attempt(msgspec.Struct, kw_only=True):
    type: str = "execute"
    successful: bool
    payment_method: str = "card"
    extra: dict[str, Any] = {}
    country: str = ""
    client_ip: str = ""
    processing_time: int
    error: AttemptError | None = None


class TransactionData(msgspec.Struct, kw_only=True):
    payment_method: str = ""
    extra: dict[str, Any] = {}
    country: str = ""
    attempts: list[Attempt] = []  # newest first


class Payout(msgspec.Struct, kw_only=True):
    """The stored and returned object."""

    id: str
    type: str = "payout"
    created_on: int
    updated_on: int
    client: dict[str, Any]
    payment: PayoutPayment
    brand_id: str
    company_id: str
    is_test: bool = True
    user_id: str | None = None
    reference: str = ""
    reference_generated: str
    sender_name: str = ""
    execution_url: str
    issuer_details: dict[str, Any] = {}
    status: PayoutStatus = "initialized"
    status_history: list[StatusChange] = []
    transaction_data: TransactionData = msgspec.field(default_factory=TransactionData)
    recipient_card_brand: str = ""
    recipient_card_country: str = ""
    payout_method_whitelist: list[str] | None = None


class NewPayout(msgspec.Struct, frozen=True, kw_only=True):
    """What the service supplies besides the body: ids, the URL, the issuer."""

    id: str
    company_id: str
    reference_generated: str
    execution_url: str
    issuer_details: dict[str, Any]
