"""Gateway purchases: create, read, and the merchant's actions on them (one unit of work each)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.core.merchants.model import Merchant
from emulator.domain import errors
from emulator.domain.events import Event
from emulator.gateway.clients import repo as clients_repo
from emulator.gateway.clients import rules as clients_domain
from emulator.gateway.purchases import repo, rules_actions
from emulator.gateway.purchases import rules as domain
from emulator.gateway.purchases.input import PurchaseInput, build, unavailable_methods, validate
from emulator.gateway.purchases.jobs import DUE_JOB
from emulator.gateway.purchases.model import (
    Internal,
    IssuerDetails,
    Purchase,
    PurchaseClient,
)
from emulator.gateway.purchases.service_effects import emit, load, now_s, save
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context

Changed = tuple[Purchase, Internal, list[Event]]


# -- create and read -------------------------------------------------------------------------


def client_of(tx: Tx, merchant_id: str, client_id: str) -> PurchaseClient:
    """The stored client's details as a purchase carries them; ``client_not_found``. Decoded
    from the stored JSON straight into a purchase's client (the client's own fields, id, type
    and dates, are skipped)."""
    stored = clients_repo.get_raw(tx, merchant_id, client_id.lower())
    if stored is None:
        raise errors.ClientNotFound(field="client_id")
    return _purchase_client.decode(stored)


_purchase_client = msgspec.json.Decoder(PurchaseClient)


def _client(
    rt: Context, tx: Tx, merchant_id: str, data: PurchaseInput, fields: dict[str, Any] | None
) -> tuple[PurchaseClient, str]:
    """The purchase's client details and client id: the client named by client_id, or the
    merchant's client with the given email, made on the spot when there is none."""
    if fields is None:
        assert isinstance(data.client_id, str)
        return client_of(tx, merchant_id, data.client_id), data.client_id.lower()
    stored = clients_repo.get_by_email(tx, merchant_id, fields["email"])
    if stored is None:
        stored, event = clients_domain.create_valid(fields, rt.ids.uuid(), now_s(rt))
        clients_repo.insert(tx, merchant_id, stored)
        emit(rt, tx, merchant_id, [event])
    # the purchase shows the details it was given
    return msgspec.convert(msgspec.to_builtins(fields), PurchaseClient), stored.id


def issuer_of(tx: Tx, merchant_id: str) -> IssuerDetails:
    """The merchant as the issuer of its purchases, with its bank account(s)."""
    return _issuer(merchants_repo.get(tx, merchant_id))


def _issuer(merchant: Merchant | None) -> IssuerDetails:
    # Provider quirk: every real webhook body (reference/gateway-webhook-samples) lists the
    # company's bank account(s) in issuer_details.bank_accounts, never an empty list.
    if merchant is None:
        return IssuerDetails()
    return IssuerDetails(
        legal_name=merchant.name,
        brand_name=merchant.name,
        bank_accounts=list(merchant.bank_accounts),
    )


def insert_new(
    rt: Context, tx: Tx, merchant_id: str, p: Purchase, merchant: Merchant | None = None
) -> bytes:
    """Store a purchase just built: the merchant (read here unless given) as issuer,
    purchase.created. Returns its JSON as stored."""
    p.issuer_details = issuer_of(tx, merchant_id) if merchant is None else _issuer(merchant)
    raw = repo.insert(tx, merchant_id, p, Internal())
    # the event's payload is the purchase as stored: the same bytes, not a second encoding
    created = Event.of_json("purchase.created", "purchase", p.id, raw, client_id=p.client_id)
    emit(rt, tx, merchant_id, [created], raw, p)  # it refers to the row (kernel.outbox)
    return raw


def schedule_due(rt: Context, tx: Tx, merchant_id: str, p: Purchase) -> None:
    """At ``due`` an unpaid purchase becomes overdue, or expires with due_strict."""
    rt.scheduler.schedule(
        tx, DUE_JOB, p.due * 1_000_000, {"purchase_id": p.id}, merchant_id=merchant_id
    )


async def create(rt: Context, merchant_id: str, data: PurchaseInput, base_url: str) -> bytes:
    """The new purchase's JSON (as stored: the answer needs no second encoding)."""
    details, client_fields = validate(data, rt.url_rule)
    unavailable = unavailable_methods(data.payment_method_whitelist)
    if unavailable:
        raise errors.PaymentMethodNotAvailable(
            f"'{unavailable[0]}' is not an available payment method.", "payment_method_whitelist"
        )
    purchase_id = rt.ids.uuid()

    def unit(tx: Tx) -> bytes:
        found = repo.creation_context(tx, merchant_id, data.brand_id.lower())
        if found is None:
            raise errors.FieldError("brand_id", "invalid", "No brand with this id.")
        merchant, number = found
        client, client_id = _client(rt, tx, merchant_id, data, client_fields)
        p = build(
            data,
            details,
            client,
            client_id,
            purchase_id=purchase_id,
            company_id=merchant_id,
            reference_generated=f"EM{number}",
            base_url=base_url,
            now=now_s(rt),
        )
        raw = insert_new(rt, tx, merchant_id, p, merchant)
        schedule_due(rt, tx, merchant_id, p)
        return raw

    return await rt.db.write(unit)


async def get_raw(rt: Context, merchant_id: str, purchase_id: str) -> bytes:
    raw = await rt.db.read_point(lambda tx: repo.get_raw(tx, merchant_id, purchase_id))
    if raw is None:
        raise errors.PurchaseNotFound()
    return raw


# -- merchant actions ------------------------------------------------------------------------


async def _act(
    rt: Context,
    merchant_id: str,
    purchase_id: str,
    action: Callable[[Tx, Purchase, Internal, int], Changed],
) -> Purchase:
    def unit(tx: Tx) -> Purchase:
        p, internal = load(tx, merchant_id, purchase_id)
        p, internal, events = action(tx, p, internal, now_s(rt))
        save(rt, tx, merchant_id, p, internal, events)
        return p

    return await rt.db.write(unit)


async def cancel(rt: Context, merchant_id: str, purchase_id: str) -> Purchase:
    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        p, events = domain.cancel(p, now)
        return p, i, events

    return await _act(rt, merchant_id, purchase_id, action)


async def release(rt: Context, merchant_id: str, purchase_id: str) -> Purchase:
    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        p, events = domain.release(p, i.card, now)
        return p, i, events

    return await _act(rt, merchant_id, purchase_id, action)


async def mark_as_paid(
    rt: Context, merchant_id: str, purchase_id: str, paid_on: int | None
) -> Purchase:
    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        p, events = domain.mark_as_paid(p, paid_on if paid_on is not None else now, now)
        return p, i, events

    return await _act(rt, merchant_id, purchase_id, action)


# The emulator's own event (the document's Event enum has none, so no webhook hears it): it
# goes to the outbox and the client's feed, the record that an invoice went out.
INVOICE_RESENT = "purchase.invoice_resent"


async def resend_invoice(rt: Context, merchant_id: str, purchase_id: str) -> Purchase:
    """POST .../resend_invoice/: the invoice goes to the client again (nothing is e-mailed).
    An unpaid purchase not sent yet (created, error) becomes ``sent``, as billing's invoices;
    any other keeps its status."""

    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        if (p.status, "send") in domain.TRANSITIONS:
            p = domain.send(p, now)
        return p, i, [domain.event(p, INVOICE_RESENT)]

    return await _act(rt, merchant_id, purchase_id, action)


async def delete_recurring_token(
    rt: Context, merchant_id: str, purchase_id: str, client_id: str | None = None
) -> Purchase:
    def action(tx: Tx, p: Purchase, i: Internal, now: int) -> Changed:
        if client_id is not None and p.client_id != client_id:
            raise errors.RecurringTokenNotFound()
        p, events = rules_actions.delete_token(p, i.card, now)
        return p, i, events

    return await _act(rt, merchant_id, purchase_id, action)
