"""The payer: opening the checkout page, paying by card (checkout form, direct post,
``/_emulator/purchases/{id}/pay``) and completing a 3-D Secure challenge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import msgspec

from emulator.delivery import holds
from emulator.domain import cards, errors
from emulator.domain.events import Event
from emulator.gateway.account.rules import allowed
from emulator.gateway.purchases import repo
from emulator.gateway.purchases import rules as domain
from emulator.gateway.purchases.jobs import schedule_hold_expiry
from emulator.gateway.purchases.model import AttemptError, Challenge, Internal, Purchase, SavedCard
from emulator.gateway.purchases.service_effects import book, now_s, save, subject
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx
from emulator.scenarios import points

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

DIRECT_POST_SECONDS = 900  # spec: direct post URL validity, single use

Flow = Literal["payform", "direct_post"]


class CardForm(msgspec.Struct, forbid_unknown_fields=False):
    """The payment form's fields (checkout page, direct post, control plane)."""

    card_number: str = ""
    expires: str = ""
    cvc: str = ""
    cardholder_name: str = ""
    remember_card: bool = False


class PayResult(msgspec.Struct, frozen=True):
    """``paid``; ``authorized`` (hold or preauthorized); ``error`` (the attempt's error as an
    answer gives it: ``card_declined`` for a decline);
    ``3ds_required`` (``challenge_id`` names the challenge to complete); ``held``: a hold took
    the card's result (``emulator/delivery/holds.py``), the purchase is as it was."""

    status: Literal["paid", "authorized", "error", "3ds_required", "held"]
    purchase: Purchase
    challenge_id: str | None = None
    error: AttemptError | None = None


def _load(tx: Tx, purchase_id: str, merchant_id: str | None) -> tuple[str, Purchase, Internal]:
    found = repo.get_any(tx, purchase_id)
    if found is None or (merchant_id is not None and found[0] != merchant_id):
        raise errors.PurchaseNotFound()
    return found


def _result(p: Purchase, challenge: str | None = None) -> PayResult:
    if challenge is not None:
        return PayResult("3ds_required", p, challenge)
    if p.status == "error":
        error = p.transaction_data.attempts[0].error
        if error is not None:
            error = AttemptError(cards.answer_code(error.code), error.message)
        return PayResult("error", p, error=error)
    return PayResult("paid" if p.status == "paid" else "authorized", p)


async def read(rt: Context, purchase_id: str) -> Purchase:
    found = await rt.db.read(lambda tx: repo.get_any(tx, purchase_id))
    if found is None:
        raise errors.PurchaseNotFound()
    return found[1]


async def view(rt: Context, purchase_id: str, *, looked_only: bool = False) -> Purchase:
    """The checkout page was opened: a created purchase becomes viewed (not for a HEAD
    request, ``looked_only``: nobody saw the page)."""

    def unit(tx: Tx) -> Purchase:
        merchant_id, p, internal = _load(tx, purchase_id, None)
        if looked_only:
            return p
        p, events = domain.view(p, now_s(rt))
        if events:
            save(rt, tx, merchant_id, p, internal, events)
        return p

    return await rt.db.write(unit)


def _settle(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    p: Purchase,
    i: Internal,
    changed: tuple[Purchase, Internal, list[Event]],
) -> Purchase:
    p, i, events = changed
    save(rt, tx, merchant_id, p, i, events)
    book(tx, merchant_id, p, i, rt.clock.now_us())
    schedule_hold_expiry(rt, tx, merchant_id, p, now_s(rt))
    return p


async def pay(
    rt: Context,
    purchase_id: str,
    form: CardForm,
    flow: Flow,
    *,
    merchant_id: str | None = None,
    auto_3ds: bool = False,
) -> PayResult:
    """Pay with a card as the payer does. ``auto_3ds`` completes a challenge at once with the
    card's documented result (the control plane's pay)."""

    def unit(tx: Tx) -> PayResult:
        owner, p, i = _load(tx, purchase_id, merchant_id)
        now = now_s(rt)
        if flow == "direct_post":
            if i.direct_post_used or now > p.created_on + DIRECT_POST_SECONDS:
                raise errors.DirectPostExpired()
        domain.check_payable(p, now)
        card = cards.validate(form.card_number, form.expires, form.cvc, form.cardholder_name, now)
        if not allowed(card.brand, p.payment_method_whitelist):
            raise errors.PaymentMethodNotAvailable(
                f"'{card.brand}' is excluded by payment_method_whitelist.", "card_number"
            )
        if flow == "direct_post":
            i = msgspec.structs.replace(i, direct_post_used=True)
        outcome = cards.outcome(card)
        decision = rt.scenarios.decide(
            tx,
            points.PURCHASE_PAYMENT,
            owner,
            subject(p, card_number=card.number, card_brand=card.brand),
        )
        if decision is not None:
            result: dict[str, cards.Result] = {
                "paid": "approve",
                "declined": "decline",
                "3ds_failed": "3ds_fail",
            }
            outcome = cards.Outcome(result[decision.result], decision.reason or "do_not_honour")
        saved = SavedCard.of(card)
        remember = form.remember_card
        payload = {
            "id": p.id,
            "card": msgspec.to_builtins(saved),
            "flow": flow,
            "remember_card": remember,
            "auto_3ds": auto_3ds,
            "result": outcome.result,
            "reason": outcome.reason,
        }
        if holds.capture_decision(
            rt,
            tx,
            points.PURCHASE_PAYMENT,
            owner,
            subject(p, card_number=card.number, card_brand=card.brand),
            {"result": _SHOWN[outcome.result], "reason": outcome.reason},
            (RESULT_JOB, payload),
        ):
            repo.update(tx, owner, p, i)  # the payer waits: the card's result is held
            return PayResult("held", p)
        return _conclude(rt, tx, owner, p, i, outcome, saved, flow, remember, auto_3ds)

    return await rt.db.write(unit)


def _conclude(
    rt: Context,
    tx: Tx,
    owner: str,
    p: Purchase,
    i: Internal,
    outcome: cards.Outcome,
    saved: SavedCard,
    flow: Flow,
    remember: bool,
    auto_3ds: bool,
) -> PayResult:
    """The card's result carried out: a challenge to complete, a decline or an approval."""
    now = now_s(rt)
    if outcome.result in ("3ds_pass", "3ds_fail") and not auto_3ds:
        challenge = Challenge(
            id=rt.ids.token(24),
            card=saved,
            passes=outcome.result == "3ds_pass",
            flow=flow,
            remember_card=remember,
        )
        i = msgspec.structs.replace(i, challenge=challenge)
        repo.update(tx, owner, p, i)
        return _result(p, challenge.id)
    if outcome.result == "decline":
        changed = domain.declined(p, i, "card_declined", outcome.reason, flow, saved, now)
    elif outcome.result == "3ds_fail":
        changed = domain.declined(p, i, "3ds_authentication_failed", None, flow, saved, now)
    else:
        changed = domain.approved(p, i, saved, flow, remember, now)
    return _result(_settle(rt, tx, owner, p, i, changed))


_SHOWN = {"approve": "paid", "decline": "declined", "3ds_fail": "3ds_failed", "3ds_pass": "3ds"}
_TAKEN: dict[str, cards.Result] = {
    "paid": "approve",
    "declined": "decline",
    "3ds_failed": "3ds_fail",
}


def held_result(rt: Context, tx: Tx, job: Job) -> None:
    """A card's result released from a hold (``emulator/delivery/holds.py``): carried out now,
    if the purchase can still be paid; the result given on release replaces the card's."""
    payload = job.payload
    found = repo.get_any(tx, str(payload["id"]))
    if found is None:
        return
    owner, p, i = found
    try:
        domain.check_payable(p, now_s(rt))
    except errors.ApiError:
        return  # paid, cancelled or expired meanwhile
    result = _TAKEN.get(str(payload["result"]), payload["result"])
    reason = (payload.get("reason") or "do_not_honour") if result == "decline" else None
    outcome = cards.Outcome(result, reason)  # type: ignore[arg-type]
    saved = msgspec.convert(payload["card"], SavedCard)
    flow: Flow = "direct_post" if payload.get("flow") == "direct_post" else "payform"
    remember, auto_3ds = bool(payload.get("remember_card")), bool(payload.get("auto_3ds"))
    _conclude(rt, tx, owner, p, i, outcome, saved, flow, remember, auto_3ds)


RESULT_JOB = "purchase.held_result"
JOBS: dict[str, JobHandler] = {RESULT_JOB: held_result}


async def complete_challenge(
    rt: Context, purchase_id: str, challenge_id: str, cancelled: bool
) -> PayResult:
    """The payer answered the 3-D Secure challenge (or cancelled it)."""

    def unit(tx: Tx) -> PayResult:
        owner, p, i = _load(tx, purchase_id, None)
        challenge = i.challenge
        if challenge is None or challenge.id != challenge_id:
            raise errors.PurchaseInvalidStatus("No 3-D Secure challenge is waiting.")
        now = now_s(rt)
        domain.check_payable(p, now)
        if challenge.passes and not cancelled:
            changed = domain.approved(
                p, i, challenge.card, challenge.flow, challenge.remember_card, now
            )
        else:
            changed = domain.declined(
                p, i, "3ds_authentication_failed", None, challenge.flow, challenge.card, now
            )
        return _result(_settle(rt, tx, owner, p, i, changed))

    return await rt.db.write(unit)


async def read_challenge(rt: Context, purchase_id: str, challenge_id: str) -> tuple[Purchase, str]:
    """The purchase and the masked card of a waiting 3-D Secure challenge."""
    found = await rt.db.read(lambda tx: repo.get_any(tx, purchase_id))
    if found is None:
        raise errors.PurchaseNotFound()
    _, p, internal = found
    if internal.challenge is None or internal.challenge.id != challenge_id:
        raise errors.PurchaseInvalidStatus("No 3-D Secure challenge is waiting.")
    return p, internal.challenge.card.masked
