"""The ledger's record of a purchase's money: a payment, or a refund of it."""

from __future__ import annotations

from emulator.core.ledger.model import LedgerEntry
from emulator.gateway.purchases.model import INVOICES, SUBSCRIPTIONS, Internal, Purchase

# The balance's TransactionProduct of a purchase made by billing.
_PRODUCTS = {INVOICES: "invoice", SUBSCRIPTIONS: "subscription"}


def entry(
    p: Purchase, internal: Internal, kind: str, amount: int, object_type: str, object_id: str
) -> LedgerEntry:
    """The money movement of a paid purchase (or a refund of it), with the balance filters."""
    return LedgerEntry(
        kind=kind,
        state="settled",
        currency=p.purchase.currency,
        amount=amount,
        object_type=object_type,
        object_id=object_id,
        brand_id=p.brand_id,
        payment_method=p.transaction_data.payment_method or None,
        product="refund" if kind == "refund" else _PRODUCTS.get(p.product, "purchase"),
        flow=p.transaction_data.flow,
        country=p.client.country or None,
        tokenized=internal.tokenized,
    )
