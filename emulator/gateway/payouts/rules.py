"""Gateway payouts: validation and the state machine (spec: Payout); the object is
``model.py``."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UnsetType

from emulator.domain import validation
from emulator.domain.errors import (
    FieldError,
    PayoutAlreadyExecuted,
    PayoutExpired,
    ValidationFailed,
)
from emulator.domain.events import Event
from emulator.gateway.clients import rules as clients
from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.payouts.model import (
    AMOUNT_MAX,
    DESCRIPTION_MAX,
    EXECUTION_WINDOW_SECONDS,
    REFERENCE_MAX,
    SENDER_NAME_MAX,
    Attempt,
    AttemptError,
    NewPayout,
    PaymentInput,
    Payout,
    PayoutInput,
    PayoutPayment,
    PayoutStatus,
    StatusChange,
    TransactionData,
    Trigger,
)
from emulator.gateway.payouts.rules_cards import CardPlan, card_brand

# (state, trigger) -> next state: the spec's transition table, plus the execution window.
TRANSITIONS: dict[tuple[PayoutStatus, Trigger], PayoutStatus] = {
    ("initialized", "execute_success"): "success",
    ("initialized", "execute_pending"): "pending",
    ("initialized", "execute_error"): "error",
    ("initialized", "expire"): "error",
    ("pending", "settle_success"): "success",
    ("pending", "settle_failed"): "error",
}


class InvalidTransition(ValueError):
    """A trigger the state machine does not take in the payout's status: a bug, since every
    caller checks the status first (and answers the API's own error)."""


EVENT_OF_STATUS: dict[PayoutStatus, str] = {
    "pending": "payout.pending",
    "success": "payout.success",
    "error": "payout.failed",
}


def _prefixed(prefix: str, errors: list[FieldError]) -> list[FieldError]:
    return [
        FieldError(prefix if e.field == "__all__" else f"{prefix}.{e.field}", e.code, e.detail)
        for e in errors
    ]


def _client(data: ClientInput | UnsetType, errors: list[FieldError]) -> dict[str, Any]:
    if isinstance(data, UnsetType):
        errors.append(validation.required("client"))
        return {}
    try:
        given = clients.validate(data)
    except ValidationFailed as exc:
        errors.extend(_prefixed("client", exc.errors))
        return {}
    details: dict[str, Any] = msgspec.to_builtins(clients.ClientDetails(**given))
    return details


def _payment(data: PaymentInput | UnsetType, errors: list[FieldError]) -> PayoutPayment | None:
    if isinstance(data, UnsetType):
        errors.append(validation.required("payment"))
        return None
    found: list[FieldError | None] = []
    if isinstance(data.amount, UnsetType):
        found.append(validation.required("payment.amount"))
    elif data.amount < 1:
        found.append(FieldError("payment.amount", "min_value", "Ensure this value is >= 1."))
    elif data.amount > AMOUNT_MAX:
        found.append(
            FieldError("payment.amount", "max_value", f"Ensure this value is <= {AMOUNT_MAX}.")
        )
    if isinstance(data.currency, UnsetType):
        found.append(validation.required("payment.currency"))
    else:
        found.append(validation.currency("payment.currency", data.currency))
    description = "" if isinstance(data.description, UnsetType) else data.description
    found.append(validation.max_length("payment.description", description, DESCRIPTION_MAX))
    problems = [e for e in found if e is not None]
    errors.extend(problems)
    if problems:
        return None
    assert isinstance(data.amount, int) and isinstance(data.currency, str)
    return PayoutPayment(
        amount=data.amount, currency=data.currency, net_amount=data.amount, description=description
    )


def create(
    data: PayoutInput, new: NewPayout, brand_ids: list[str], now: int
) -> tuple[Payout, Event]:
    """A new ``initialized`` payout, or ValidationFailed with every problem of the body."""
    errors: list[FieldError] = []
    client = _client(data.client, errors)
    payment = _payment(data.payment, errors)
    if isinstance(data.brand_id, UnsetType):
        errors.append(validation.required("brand_id"))
    elif (problem := validation.uuid_field("brand_id", data.brand_id)) is not None:
        errors.append(problem)
    elif data.brand_id.lower() not in brand_ids:
        errors.append(validation.invalid("brand_id", "Brand with this id does not exist."))
    reference = "" if isinstance(data.reference, UnsetType) else data.reference
    sender = "" if isinstance(data.sender_name, UnsetType) else data.sender_name
    for field, value, limit in (
        ("reference", reference, REFERENCE_MAX),
        ("sender_name", sender, SENDER_NAME_MAX),
    ):
        if (problem := validation.max_length(field, value, limit)) is not None:
            errors.append(problem)
    whitelist = (
        None
        if isinstance(data.payout_method_whitelist, UnsetType)
        else (data.payout_method_whitelist)
    )
    for i, method in enumerate(whitelist or []):
        if not method or len(method) > 64:
            errors.append(
                validation.invalid(f"payout_method_whitelist.{i}", "Not a payment method.")
            )
    if errors or payment is None or isinstance(data.brand_id, UnsetType):
        raise ValidationFailed(errors)
    payout = Payout(
        id=new.id,
        created_on=now,
        updated_on=now,
        client=client,
        payment=payment,
        brand_id=data.brand_id.lower(),
        company_id=new.company_id,
        reference=reference,
        reference_generated=new.reference_generated,
        sender_name=sender,
        execution_url=new.execution_url,
        issuer_details=new.issuer_details,
        status_history=[StatusChange("initialized", now)],
        payout_method_whitelist=whitelist,
    )
    return payout, _event("payout.created", payout)


def expired(payout: Payout, now: int) -> bool:
    return now >= payout.created_on + EXECUTION_WINDOW_SECONDS


def _move(payout: Payout, trigger: Trigger, now: int, **changes: Any) -> Payout:
    nxt = TRANSITIONS.get((payout.status, trigger))
    if nxt is None:
        raise InvalidTransition(f"A payout in status {payout.status} cannot {trigger}.")
    return msgspec.structs.replace(
        payout,
        status=nxt,
        updated_on=now,
        status_history=[*payout.status_history, StatusChange(nxt, now)],
        **changes,
    )


EXPIRED_CODE = "payout_expired"


def was_expired(payout: Payout) -> bool:
    """Whether the payout ended because its execution window passed."""
    attempts = payout.transaction_data.attempts
    return (
        payout.status == "error"
        and bool(attempts)
        and attempts[0].error is not None
        and attempts[0].error.code == EXPIRED_CODE
    )


def check_executable(payout: Payout, now: int) -> None:
    """Raise when the payout can no longer be executed (too late, or a second time)."""
    if expired(payout, now) or was_expired(payout):
        raise PayoutExpired()
    if payout.status != "initialized":
        raise PayoutAlreadyExecuted()


def execute(
    payout: Payout, number: str, plan: CardPlan, country: str, now: int
) -> tuple[Payout, Event]:
    """Apply the execution's outcome (``plan``: test card, scenario or default)."""
    check_executable(payout, now)
    error = None
    if plan.result == "error":
        error = AttemptError(code=plan.code or "card_declined", message=plan.message or "")
    attempt = Attempt(successful=error is None, country=country, processing_time=now, error=error)
    trigger: Trigger = {
        "success": "execute_success",
        "pending": "execute_pending",
        "error": "execute_error",
    }[plan.result]  # type: ignore[assignment]
    payment = payout.payment
    if plan.result == "success":
        payment = msgspec.structs.replace(payment, paid_on=now, remote_paid_on=now)
    updated = _move(
        payout,
        trigger,
        now,
        payment=payment,
        transaction_data=TransactionData(
            payment_method="card", country=country, attempts=[attempt]
        ),
        recipient_card_brand=card_brand(number),
        recipient_card_country=country,
    )
    return updated, _event(EVENT_OF_STATUS[updated.status], updated)


def settle(
    payout: Payout, success: bool, now: int, message: str | None = None
) -> tuple[Payout, Event]:
    """The provider finishes a pending payout."""
    data = payout.transaction_data
    payment = payout.payment
    if success:
        payment = msgspec.structs.replace(payment, paid_on=now, remote_paid_on=now)
        updated = _move(payout, "settle_success", now, payment=payment)
    else:
        failure = Attempt(
            type="settlement",
            successful=False,
            country=data.country,
            processing_time=now,
            error=AttemptError(
                code="payout_failed", message=message or "The payout was returned by the issuer."
            ),
        )
        attempts = [failure, *data.attempts]
        updated = _move(
            payout,
            "settle_failed",
            now,
            transaction_data=msgspec.structs.replace(data, attempts=attempts),
        )
    return updated, _event(EVENT_OF_STATUS[updated.status], updated)


def expire(payout: Payout, now: int) -> tuple[Payout, Event]:
    """The execution window has passed without an execution."""
    failure = Attempt(
        type="execute",
        successful=False,
        payment_method="",
        processing_time=now,
        error=AttemptError(
            code=EXPIRED_CODE, message="The payout was not executed within 15 minutes."
        ),
    )
    updated = _move(
        payout,
        "expire",
        now,
        transaction_data=msgspec.structs.replace(payout.transaction_data, attempts=[failure]),
    )
    return updated, _event(EVENT_OF_STATUS[updated.status], updated)


def _event(kind: str, payout: Payout) -> Event:
    return Event(
        type=kind,
        object_type="payout",
        object_id=payout.id,
        payload=msgspec.to_builtins(payout),
    )
