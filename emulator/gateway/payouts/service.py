"""Gateway payouts: create, read, list, execute, settle, and the jobs of their deadlines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.core.ledger import repo as ledger
from emulator.core.ledger.model import EntryState, LedgerEntry
from emulator.core.merchants import repo as merchants_repo
from emulator.domain.errors import (
    ApiError,
    PayoutAlreadyExecuted,
    PayoutExpired,
    PayoutFailed,
    PayoutNotFound,
)
from emulator.domain.events import Event
from emulator.gateway.clients.service import Page
from emulator.gateway.payouts import model, repo
from emulator.gateway.payouts import rules as domain
from emulator.gateway.payouts import rules_cards as cards
from emulator.gateway.payouts.model import Payout, PayoutInput
from emulator.gateway.payouts.rules_cards import CardInput, CardPlan
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

EXPIRY_JOB = "payout.expiry"
SETTLEMENT_JOB = "payout.settlement"
CARD_COUNTRY = "ZA"  # the emulator's test cards are issued in South Africa
EXECUTION_PATH = "/payouts/{id}/execute/{token}/"


def _emit(rt: Context, tx: Tx, merchant_id: str, event: Event) -> None:
    rt.outbox.emit(tx, merchant_id, event, rt.clock.now_us())


def _entry(payout: Payout, state: Any) -> LedgerEntry:
    return LedgerEntry(
        kind="payout",
        state=state,
        currency=payout.payment.currency,
        amount=-payout.payment.amount,
        object_type="payout",
        object_id=payout.id,
        brand_id=payout.brand_id,
        payment_method="card",
        country=payout.recipient_card_country or None,
    )


async def create(rt: Context, merchant_id: str, data: PayoutInput, base_url: str) -> Payout:
    now_us = rt.clock.now_us()
    payout_id, token = rt.ids.uuid(), rt.ids.token(32)
    url = base_url.rstrip("/") + EXECUTION_PATH.format(id=payout_id, token=token)
    reference = "PO" + rt.ids.digits(10)

    def unit(tx: Tx) -> Payout:
        brand_ids = merchants_repo.brand_ids(tx, merchant_id)
        brand_id = data.brand_id if isinstance(data.brand_id, str) else ""
        new = model.NewPayout(
            id=payout_id,
            company_id=merchant_id,
            reference_generated=reference,
            execution_url=url,
            issuer_details=repo.issuer_details(tx, merchant_id, brand_id.lower()),
        )
        payout, event = domain.create(data, new, brand_ids, now_us // 1_000_000)
        repo.insert(tx, merchant_id, payout, token)
        _emit(rt, tx, merchant_id, event)
        due = (payout.created_on + model.EXECUTION_WINDOW_SECONDS) * 1_000_000
        rt.scheduler.schedule(tx, EXPIRY_JOB, due, {"payout": payout.id}, merchant_id)
        return payout

    return await rt.db.write(unit)


async def get_raw(rt: Context, merchant_id: str, payout_id: str) -> bytes:
    raw = await rt.db.read(lambda tx: repo.get_raw(tx, merchant_id, payout_id))
    if raw is None:
        raise PayoutNotFound()
    return raw


async def page(rt: Context, merchant_id: str, number: int, size: int) -> Page:
    rows = await rt.db.read(
        lambda tx: repo.page_raw(tx, merchant_id, size + 1, (number - 1) * size)
    )
    return Page(items=rows[:size], has_next=len(rows) > size)


def _plan(rt: Context, tx: Tx, merchant_id: str, payout: Payout, card: cards.Card) -> CardPlan:
    """The execution's outcome: a scenario's, else the test card's (DESIGN.md)."""
    subject = {
        "amount": payout.payment.amount,
        "currency": payout.payment.currency,
        "reference": payout.reference,
        "email": payout.client.get("email", ""),
        "brand_id": payout.brand_id,
        "card_number": card.number,
        "object_id": payout.id,
    }
    default = cards.default_plan(card.number)
    chosen = rt.scenarios.decide(
        tx,
        points.PAYOUT_EXECUTION,
        merchant_id,
        {**subject, "card_brand": cards.card_brand(card.number)},
    )
    plan = default
    if chosen is not None:
        plan = CardPlan(
            result=chosen.result,
            code=chosen.code or default.code or "card_declined",
            message=chosen.message or default.message or "The payout was declined.",
            settles=default.settles,
            after_seconds=default.after_seconds,
        )
    if plan.result != "pending":
        return plan
    settlement = rt.scenarios.decide(tx, points.PAYOUT_SETTLEMENT, merchant_id, subject)
    if settlement is None:
        return plan
    after = settlement.after_seconds if settlement.after_seconds is not None else plan.after_seconds
    return CardPlan(
        result="pending",
        settles=settlement.result,
        after_seconds=max(0, after),
        message=settlement.message,
    )


async def execute(rt: Context, payout_id: str, token: str, data: CardInput) -> Payout:
    """The card payload at execution_url: 200 with the payout, or the refusal as an ApiError
    (after the payout's own change, when there is one, has committed)."""
    now_us = rt.clock.now_us()
    now = now_us // 1_000_000

    def unit(tx: Tx) -> tuple[Payout, ApiError | None]:
        row = repo.row(tx, payout_id)
        if row is None or row.token != token:
            raise PayoutNotFound()
        payout, merchant_id = row.payout, row.merchant_id
        if payout.status == "initialized" and domain.expired(payout, now):
            # The window's job has not run yet (the clock jumped): this request ends it.
            expired, event = domain.expire(payout, now)
            repo.update(tx, expired)
            _emit(rt, tx, merchant_id, event)
            return expired, PayoutExpired()
        if domain.was_expired(payout):
            raise PayoutExpired()
        if payout.status != "initialized":
            raise PayoutAlreadyExecuted()
        card = cards.validate(data, now)
        plan = _plan(rt, tx, merchant_id, payout, card)
        updated, event = domain.execute(payout, card.number, plan, CARD_COUNTRY, now)
        pending = updated.status == "pending"
        repo.update(tx, updated, card.number, plan.settles if pending else None)
        _emit(rt, tx, merchant_id, event)
        if updated.status == "success":
            ledger.record(tx, merchant_id, _entry(updated, "settled"), now_us)
        elif pending:
            ledger.record(tx, merchant_id, _entry(updated, "pending"), now_us)
            due = now_us + plan.after_seconds * 1_000_000
            job = {"payout": payout.id}
            if plan.settles == "failed" and plan.message:
                job["message"] = plan.message  # a scenario's words for the failure
            rt.scheduler.schedule(tx, SETTLEMENT_JOB, due, job, merchant_id)
        error = updated.transaction_data.attempts[0].error
        if error is not None:
            return updated, PayoutFailed(error.code, error.message)
        return updated, None

    payout, refusal = await rt.db.write(unit)
    if refusal is not None:
        raise refusal
    return payout


def _settle(
    rt: Context, tx: Tx, row: repo.PayoutRow, success: bool, message: str | None = None
) -> Payout:
    now_us = rt.clock.now_us()
    updated, event = domain.settle(row.payout, success, now_us // 1_000_000, message)
    repo.update(tx, updated)
    _emit(rt, tx, row.merchant_id, event)
    state: EntryState = "settled" if success else "void"
    ledger.set_state(tx, row.merchant_id, updated.id, "payout", state, now_us)
    return updated


def settlement_due(rt: Context, tx: Tx, job: Job) -> None:
    """The provider finishes a pending payout (unless the control plane already did)."""
    row = repo.row(tx, str(job.payload["payout"]))
    if row is not None and row.payout.status == "pending":
        message = job.payload.get("message")
        _settle(
            rt, tx, row, row.settlement != "failed", message if isinstance(message, str) else None
        )


def expiry_due(rt: Context, tx: Tx, job: Job) -> None:
    """Fifteen minutes after creation: a payout still not executed ends in error."""
    row = repo.row(tx, str(job.payload["payout"]))
    if row is not None and row.payout.status == "initialized":
        now = rt.clock.now_us() // 1_000_000
        expired, event = domain.expire(row.payout, now)
        repo.update(tx, expired)
        _emit(rt, tx, row.merchant_id, event)


JOBS: dict[str, JobHandler] = {EXPIRY_JOB: expiry_due, SETTLEMENT_JOB: settlement_due}


class NotPending(Exception):
    """The control plane asked to settle a payout that is not pending."""

    def __init__(self, status: str) -> None:
        super().__init__(f"the payout is {status}, not pending")


async def settle_now(rt: Context, payout_id: str, status: str | None) -> Payout:
    """The control plane acts as the provider: settle a pending payout now (as planned, or
    as ``status`` says: "success" or "failed")."""

    def unit(tx: Tx) -> Payout:
        row = repo.row(tx, payout_id)
        if row is None:
            raise PayoutNotFound()
        if row.payout.status != "pending":
            raise NotPending(row.payout.status)
        planned = status if status is not None else (row.settlement or "success")
        return _settle(rt, tx, row, planned == "success")

    return await rt.db.write(unit)
