"""The purchase filters of a company statement: the query parameters the document lists for
``POST /company_statements/``, parsed and matched against purchases. Pure.

Every filter but the instants and the two texts takes several values (repeated or
comma-separated; a purchase matching any of them counts). Instants are Unix seconds:
``from`` <= created_on < ``to``, the same with ``paid_from``/``paid_to`` on the payment's
``paid_on`` (only purchases with a payment) and ``updated_from``/``updated_to``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import msgspec

from emulator.core.ledger.rules import TRANSACTION_PRODUCTS
from emulator.domain import validation
from emulator.domain.cards import TEST_CARDS
from emulator.domain.errors import FieldError, ValidationFailed
from emulator.gateway.account.rules import AVAILABLE
from emulator.gateway.purchases.model import INVOICES, SUBSCRIPTIONS, Internal, Purchase

INSTANTS = ("from", "to", "paid_from", "paid_to", "updated_from", "updated_to")
TEXTS = ("q", "products")
MANY = (
    "brand_id",
    "shop_id",
    "total",
    "currency",
    "payment_method",
    "three_d_secure",
    "country",
    "status",
    "product",
)
NAMES = frozenset((*INSTANTS, *TEXTS, *MANY))

# The document's PurchaseStatus enum.
PURCHASE_STATUSES = (
    "created", "sent", "viewed", "error", "cancelled", "overdue", "expired", "blocked", "hold",
    "released", "pending_release", "pending_capture", "preauthorized", "paid",
    "pending_execute", "pending_charge", "cleared", "settled", "chargeback", "pending_refund",
    "refunded",
)  # fmt: skip
_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
_INSTANT = re.compile(r"^[0-9]{1,12}\Z")
_NUMBER = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,6})?\Z")
_TEXT_MAX = 256
# TransactionProduct of a purchase, by Purchase.product (as the balance files them).
_PRODUCTS = {INVOICES: "invoice", SUBSCRIPTIONS: "subscription"}
_SUBSCRIPTION_INVOICES = "billing_subscriptions_invoice"


class Filters(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What a statement selects (stored with it as given, parsed)."""

    instants: dict[str, int] = {}
    texts: dict[str, str] = {}
    many: dict[str, list[str]] = {}


def _check(name: str, value: str) -> FieldError | None:
    if name in ("brand_id", "shop_id"):
        return validation.uuid_field(name, value)
    if name == "currency":
        return validation.currency(name, value)
    if name == "country":
        return (
            validation.country(name, value)
            if value
            else validation.invalid(name, "Enter a country code.")
        )
    if name == "total":
        return (
            None
            if _NUMBER.match(value)
            else validation.invalid(name, "A valid number is required.")
        )
    choices: tuple[str, ...] = {
        "payment_method": (*AVAILABLE, "unknown"),
        "three_d_secure": tuple(_BOOLEANS),
        "status": PURCHASE_STATUSES,
        "product": TRANSACTION_PRODUCTS,
    }[name]
    if value not in choices:
        return validation.invalid(name, f"'{value[:64]}' is not a valid choice.")
    return None


def parse(params: Iterable[tuple[str, str]]) -> Filters:
    """The filters of a query string's (name, value) pairs; other names are ignored, as the
    provider's list filters ignore them. ``ValidationFailed`` names each bad parameter."""
    filters = Filters(instants={}, texts={}, many={})
    errors: list[FieldError] = []
    for name, raw in params:
        if name not in NAMES or raw == "":
            continue
        if name in INSTANTS:
            if not _INSTANT.match(raw):
                errors.append(validation.invalid(name, "Enter a Unix timestamp (seconds)."))
            else:
                filters.instants[name] = int(raw)  # the last one given wins
        elif name in TEXTS:
            problem = validation.max_length(name, raw, _TEXT_MAX)
            if problem is not None:
                errors.append(problem)
            filters.texts[name] = raw.casefold()
        else:
            for part in (p.strip() for p in raw.split(",")):
                if not part:
                    continue
                problem = _check(name, part)
                if problem is not None:
                    errors.append(problem)
                    continue
                value = part.lower() if name in ("brand_id", "shop_id") else part
                filters.many.setdefault(name, []).append(value)
    if errors:
        raise ValidationFailed(errors)
    return filters


def _between(value: int, low: int | None, high: int | None) -> bool:
    return (low is None or value >= low) and (high is None or value < high)


def product_of(p: Purchase) -> str:
    """The TransactionProduct a purchase is filed under."""
    if p.product == _SUBSCRIPTION_INVOICES:
        return "subscription"
    return _PRODUCTS.get(p.product, "purchase")


def three_d_secure(internal: Internal) -> bool:
    """Whether the purchase's card went through a 3-D Secure challenge (the test cards that
    ask for one)."""
    card = internal.card
    outcome = TEST_CARDS.get(card.number) if card is not None else None
    return outcome is not None and outcome.result in ("3ds_pass", "3ds_fail")


def _searchable(p: Purchase) -> list[str]:
    c = p.client
    fields = [p.id, p.reference, p.reference_generated, p.purchase.notes, c.email, c.full_name]
    fields += [c.legal_name, c.brand_name, c.phone, *(item.name for item in p.purchase.products)]
    return [f.casefold() for f in fields if f]


def _one_of(name: str, value: str, many: dict[str, list[str]]) -> bool:
    wanted = many.get(name)
    return wanted is None or value in wanted


def matches(f: Filters, p: Purchase, internal: Internal) -> bool:
    """Whether the purchase is in the statement."""
    at = f.instants
    if not _between(p.created_on, at.get("from"), at.get("to")):
        return False
    if not _between(p.updated_on, at.get("updated_from"), at.get("updated_to")):
        return False
    if "paid_from" in at or "paid_to" in at:
        if p.payment is None or not _between(
            p.payment.paid_on, at.get("paid_from"), at.get("paid_to")
        ):
            return False
    q, products = f.texts.get("q"), f.texts.get("products")
    if q is not None and not any(q in text for text in _searchable(p)):
        return False
    if products is not None and not any(
        products in item.name.casefold() for item in p.purchase.products
    ):
        return False
    many = f.many
    if "shop_id" in many:  # the emulator has no shops: no purchase is in one
        return False
    if "total" in many and not any(float(t) == p.purchase.total for t in many["total"]):
        return False
    if "three_d_secure" in many:
        wanted = {_BOOLEANS[x] for x in many["three_d_secure"]}
        if three_d_secure(internal) not in wanted:
            return False
    return (
        _one_of("brand_id", p.brand_id, many)
        and _one_of("currency", p.purchase.currency, many)
        and _one_of("payment_method", p.transaction_data.payment_method or "unknown", many)
        and _one_of("country", p.client.country, many)
        and _one_of("status", p.status, many)
        and _one_of("product", product_of(p), many)
    )
