"""Every decision point a scenario can name, in one registry: its match fields and outcome.

A domain asks the engine at a decision point ("how does this payout's execution end?") with
the subject's fields; the engine answers with the ``then`` of the newest active matching rule,
decoded into the point's outcome struct, or ``None`` so the defaults and test values apply.

``Point[T]`` carries its outcome type, so ``engine.decide(tx, PAYOUT_EXECUTION, ...)`` is typed
``PayoutExecution | None``. Match fields name the subject's own fields; each has a kind that
says which operators apply (numbers: equality, ``in``, ``gt``, ``gte``, ``lt``, ``lte``;
strings: equality, ``in``, ``prefix``; booleans: equality).

Pure: no clock, and no I/O but reading the shipped schedule of unpaid codes once.
docs/scenarios.md's tables are checked against this module by a test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Generic, Literal, TypeVar

import msgspec

from emulator import resources
from emulator.domain import unpaids
from emulator.domain.cards import OLDER_DECLINE_CODES, DeclineCode

FieldKind = Literal["string", "number", "boolean"]

DeclineReason = DeclineCode  # the platform's codes (emulator/domain/cards.py)
BankStatus = Literal["COMPLETED", "UNPAID", "REJECTED", "DISPUTED"]

Seconds = Annotated[int, msgspec.Meta(ge=0, le=366 * 86_400)]  # at most a year on the clock


class Outcome(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Base of every point's ``then``: unknown keys are errors, not silently ignored."""


def _reason_only_when_declined(result: str, reason: str | None) -> None:
    if reason is not None and result != "declined":
        raise ValueError("reason applies only to result: declined")


# -- outcomes, one struct per point (field names are the contract of DESIGN.md) --


class RateLimit(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    limit: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
    window_seconds: Annotated[int, msgspec.Meta(ge=1, le=86_400)] = 60


class HttpRequest(Outcome, frozen=True):
    """A fault before the request reaches its handler. ``status`` 429 answers with the
    rate-limit headers; 5xx with the interface's error body; ``Retry-After`` is
    ``retry_after_seconds`` (default 1 on 429 and 503, none on the others unless given).
    ``delay_ms`` waits first (on the event loop, not the emulator clock: it is latency, not
    time). ``drop`` closes the connection without an answer. ``rate_limit`` puts the matching
    requests under a limiter of their own: ``limit`` per ``window_seconds`` per merchant."""

    status: Literal[429, 500, 502, 503, 504] | None = None
    delay_ms: Annotated[int, msgspec.Meta(ge=0, le=120_000)] | None = None
    drop: bool = False
    retry_after_seconds: Annotated[int, msgspec.Meta(ge=0, le=86_400)] | None = None
    rate_limit: RateLimit | None = None

    def __post_init__(self) -> None:
        if self.status is None and self.delay_ms is None and not self.drop and not self.rate_limit:
            raise ValueError("give at least one of status, delay_ms, drop or rate_limit")
        if self.drop and (self.status is not None or self.rate_limit is not None):
            raise ValueError("drop closes the connection: it cannot also answer with a status")
        if self.rate_limit is not None and self.status is not None:
            raise ValueError("rate_limit answers 429 itself when over the limit: drop status")
        if self.retry_after_seconds is not None and self.status is None:
            raise ValueError("retry_after_seconds goes with a status")


class PurchasePayment(Outcome, frozen=True):
    """``declined`` without a ``reason`` declines do_not_honour."""

    result: Literal["paid", "declined", "3ds_failed"]
    reason: DeclineReason | None = None

    def __post_init__(self) -> None:
        _reason_only_when_declined(self.result, self.reason)


class PurchaseCapture(Outcome, frozen=True):
    result: Literal["paid", "pending_capture", "error"]
    delay_seconds: Seconds | None = None
    message: str | None = None


class PurchaseCharge(Outcome, frozen=True):
    result: Literal["paid", "pending_charge", "declined"]
    reason: DeclineReason | None = None
    delay_seconds: Seconds | None = None

    def __post_init__(self) -> None:
        _reason_only_when_declined(self.result, self.reason)


class PayoutExecution(Outcome, frozen=True):
    result: Literal["success", "pending", "error"]
    code: str | None = None
    message: str | None = None


class PayoutSettlement(Outcome, frozen=True):
    result: Literal["success", "failed"]
    after_seconds: Seconds | None = None
    message: str | None = None


class BankOutcome(Outcome, frozen=True):
    """``collection.outcome`` and ``payment.outcome``. ``reasonCode``: a code of the schedule
    of unpaids for UNPAID (default 02) or DISPUTED (one of authority, default 30); its text is
    the ``reason`` (``reason`` is free text for REJECTED; with UNPAID or DISPUTED, the older
    form, it replaces the code's text). ``dispute_after_days``: DISPUTED that many days after
    the completion (within the 40-day window). ``funds_on_day``: a DebiCheck collection with a
    ``trackingPeriod`` unpaid with 02 completes on that re-try day (1 = the first business day
    after the action date), if within its period."""

    status: BankStatus
    reason: str | None = None
    after_seconds: Seconds | None = None
    reasonCode: str | None = None
    dispute_after_days: Annotated[int, msgspec.Meta(ge=0, le=40)] | None = None
    funds_on_day: Annotated[int, msgspec.Meta(ge=1, le=10)] | None = None

    def __post_init__(self) -> None:
        problem = unpaids.code_problem(resources.unpaid_codes(), self.status, self.reasonCode)
        if problem is not None:
            raise ValueError(problem)
        if self.dispute_after_days is not None and self.status != "DISPUTED":
            raise ValueError("dispute_after_days goes with status: DISPUTED")
        if self.funds_on_day is not None and (self.status, self.reasonCode) not in (
            ("UNPAID", None),
            ("UNPAID", "02"),
        ):
            raise ValueError("funds_on_day goes with status: UNPAID and reasonCode 02")


class MandateAuthorisation(Outcome, frozen=True):
    status: Literal["AUTHENTICATED", "REJECTED", "EXPIRED"]
    after_seconds: Seconds | None = None
    reason: str | None = None


class AccountVerification(Outcome, frozen=True):
    valid: bool
    details: dict[str, str] | None = None


class Delivery(Outcome, frozen=True):
    """``webhook.delivery`` and ``callback.delivery``. ``copies``: how many times the same
    message (same event id) is delivered; ``delay_seconds`` holds it back on the emulator
    clock; ``fail_attempts``: the receiver is treated as down for that many attempts (each
    recorded as failed, retried on the usual schedule); ``reorder`` lets it overtake the
    object's earlier messages still waiting."""

    copies: Annotated[int, msgspec.Meta(ge=1, le=10)] = 1
    delay_seconds: Seconds = 0
    fail_attempts: Annotated[int, msgspec.Meta(ge=0, le=20)] = 0
    reorder: bool = False


# -- older forms: files of earlier releases load, with a note of the form now preferred --

Then = dict[str, Any]
Upgrade = Callable[[Then], tuple[Then, list[str]]]


def _older_decline(then: Then) -> tuple[Then, list[str]]:
    """A decline code of an earlier release (invalid_card, lost_stolen) → the platform's."""
    reason = then.get("reason")
    if not isinstance(reason, str) or reason not in OLDER_DECLINE_CODES:
        return then, []
    code = OLDER_DECLINE_CODES[reason]
    note = f"reason: {reason!r} is an older code; loaded as the platform's {code!r}, preferred"
    return {**then, "reason": code}, [note]


def _older_unpaid(then: Then) -> tuple[Then, list[str]]:
    """UNPAID (or DISPUTED) with a ``reason`` and no ``reasonCode``, as before unpaid codes."""
    status = then.get("status")
    if status not in unpaids.CODED_STATUSES or then.get("reason") is None:
        return then, []
    if then.get("reasonCode") is not None:
        return then, [f"reason: replaces the text of reasonCode {then['reasonCode']!r}"]
    default = unpaids.DEFAULT_UNPAID if status == "UNPAID" else unpaids.DEFAULT_DISPUTE
    note = (
        f"reason: {status} without reasonCode is an older form; loaded as reasonCode"
        f" {default!r} with this reason as its text; reasonCode is preferred"
    )
    return then, [note]


def _as_is(then: Then) -> tuple[Then, list[str]]:
    return then, []


# -- the registry --

T = TypeVar("T", bound=Outcome)


class Point(Generic[T]):
    """A decision point: its name, what it decides, its match fields and outcome type;
    ``upgrade`` turns an older form of its ``then`` into the current one, with notes."""

    def __init__(
        self,
        name: str,
        doc: str,
        fields: dict[str, FieldKind],
        outcome: type[T],
        upgrade: Upgrade = _as_is,
    ) -> None:
        self.name = name
        self.doc = doc
        self.fields = fields
        self.outcome = outcome
        self.upgrade = upgrade

    def __repr__(self) -> str:
        return f"Point({self.name!r})"


_CARD_PURCHASE: dict[str, FieldKind] = {
    "amount": "number",  # the purchase total, in the currency's minor units
    "currency": "string",
    "reference": "string",
    "email": "string",  # the client's
    "brand_id": "string",
    "product": "string",  # the first product's name
    "object_id": "string",  # the purchase's id
}

HTTP_REQUEST = Point(
    "http.request",
    "every request to /api/v1/, /v2/ and /oauth2/, before its handler",
    {"method": "string", "path": "string", "interface": "string", "query": "string"},
    HttpRequest,
)
PURCHASE_PAYMENT = Point(
    "purchase.payment",
    "a payer pays a purchase with a card (checkout page, direct post, /_emulator pay)",
    {**_CARD_PURCHASE, "card_number": "string", "card_brand": "string"},
    PurchasePayment,
    _older_decline,
)
PURCHASE_CAPTURE = Point(
    "purchase.capture",
    "capture of a held purchase",
    {**_CARD_PURCHASE, "capture_amount": "number"},
    PurchaseCapture,
)
PURCHASE_CHARGE = Point(
    "purchase.charge",
    "a charge with a recurring token (API or subscription billing)",
    {**_CARD_PURCHASE, "recurring_token": "string", "is_subscription": "boolean"},
    PurchaseCharge,
    _older_decline,
)
PAYOUT_EXECUTION = Point(
    "payout.execution",
    "the card payload posted to a payout's execution_url",
    {
        "amount": "number",
        "currency": "string",
        "reference": "string",
        "email": "string",
        "brand_id": "string",
        "card_number": "string",
        "card_brand": "string",
        "object_id": "string",
    },
    PayoutExecution,
)
PAYOUT_SETTLEMENT = Point(
    "payout.settlement",
    "how and when a pending payout settles",
    {
        "amount": "number",
        "currency": "string",
        "reference": "string",
        "email": "string",
        "brand_id": "string",
        "card_number": "string",
        "object_id": "string",
    },
    PayoutSettlement,
)
_BANK_MONEY: dict[str, FieldKind] = {
    "amountCents": "number",
    "accountNumber": "string",
    "branchCode": "string",
    "externalReference": "string",
    "serviceType": "string",
    "profileCode": "string",
    "object_id": "string",  # the collection's or payment's id
}
COLLECTION_OUTCOME = Point(
    "collection.outcome",
    "how an EFT or DebiCheck collection ends, and when",
    {**_BANK_MONEY, "collectionType": "string"},
    BankOutcome,
    _older_unpaid,
)
PAYMENT_OUTCOME = Point(
    "payment.outcome",
    "how an EFT payment ends, and when",
    {**_BANK_MONEY, "realTimeClearing": "boolean"},
    BankOutcome,
    _older_unpaid,
)
MANDATE_AUTHORISATION = Point(
    "mandate.authorisation",
    "the debtor's answer to a DebiCheck mandate",
    {
        "authenticationType": "string",
        "accountNumber": "string",
        "branchCode": "string",
        "externalReference": "string",
        "maxAmountCents": "number",
        "profileCode": "string",
    },
    MandateAuthorisation,
)
ACCOUNT_VERIFICATION = Point(
    "account.verification",
    "an account verification (AVS-R) request",
    {"accountNumber": "string", "branchCode": "string", "accountType": "string"},
    AccountVerification,
)
WEBHOOK_DELIVERY = Point(
    "webhook.delivery",
    "a gateway webhook or success callback about to be sent",
    {"event_type": "string", "object_type": "string", "object_id": "string", "url": "string"},
    Delivery,
)
CALLBACK_DELIVERY = Point(
    "callback.delivery",
    "a bank interface callback about to be sent",
    {"callbackType": "string", "status": "string", "url": "string", "id": "string"},
    Delivery,
)

REGISTRY: dict[str, Point[Outcome]] = {
    p.name: p  # type: ignore[misc]
    for p in (
        HTTP_REQUEST,
        PURCHASE_PAYMENT,
        PURCHASE_CAPTURE,
        PURCHASE_CHARGE,
        PAYOUT_EXECUTION,
        PAYOUT_SETTLEMENT,
        COLLECTION_OUTCOME,
        PAYMENT_OUTCOME,
        MANDATE_AUTHORISATION,
        ACCOUNT_VERIFICATION,
        WEBHOOK_DELIVERY,
        CALLBACK_DELIVERY,
    )
}
