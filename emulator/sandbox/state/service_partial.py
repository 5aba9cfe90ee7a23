"""Entries a hand-written file gives without ``data``: what is missing gets the defaults of
the API, through the domain's own constructors, at the file's instant.

A merchant without ``data`` is made as ``POST /_emulator/merchants`` makes one (its
credentials, brand and profile generated, each list given in the file used instead); a
webhook or a client without ``data`` is its ``POST`` body, validated and built as the API
builds it. Nothing is emitted: loading a state is not the objects happening.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.bank.callbacks.rules import Registration
from emulator.bank.collections.rules import Collection
from emulator.bank.mandates.rules import AuthenticationWindows, Mandate
from emulator.bank.payments.rules import Payment as BankPayment
from emulator.core.merchants import repo as merchants_repo
from emulator.core.merchants.model import Merchant, MerchantProfile, MerchantSeed
from emulator.domain import cards
from emulator.domain.errors import ApiError, FieldError, ValidationFailed
from emulator.gateway.billing.model import BillingTemplate, Schedule, Subscriber
from emulator.gateway.clients import repo as clients_repo
from emulator.gateway.clients import rules as clients_domain
from emulator.gateway.clients.rules import Client, ClientInput
from emulator.gateway.payouts.model import Payout
from emulator.gateway.purchases import repo as purchases_repo
from emulator.gateway.purchases import rules as purchases_domain
from emulator.gateway.purchases import service as purchases_service
from emulator.gateway.purchases.input import PurchaseInput, build, validate
from emulator.gateway.purchases.model import Internal, Purchase, PurchaseClient, SavedCard
from emulator.gateway.statements.model import CompanyStatement
from emulator.gateway.statements.rules_filters import Filters
from emulator.gateway.webhooks import rules as webhooks_domain
from emulator.gateway.webhooks.rules import Webhook, WebhookInput
from emulator.kernel.storage import Tx
from emulator.sandbox.state.service_tables import Refused

if TYPE_CHECKING:
    from emulator.kernel.context import Context

# The object types a file's ``data`` is checked against (the first wrong key is named).
# Every ``data`` the emulator decodes into a struct when it reads it: an entry that would not
# decode is refused here, not answered with a server error later.
DATA_TYPES: dict[str, type[msgspec.Struct]] = {
    "merchant": Merchant,
    "profiles": MerchantProfile,
    "debicheck_windows": AuthenticationWindows,
    "webhooks": Webhook,
    "clients": Client,
    "purchases": Purchase,
    "payouts": Payout,
    "billing_templates": BillingTemplate,
    "billing_subscribers": Subscriber,
    "company_statements": CompanyStatement,
    "mandates": Mandate,
    "collections": Collection,
    "payments": BankPayment,
    "callback_urls": Registration,
}
# The other JSON columns read as structs: (list key, column) -> type.
COLUMN_TYPES: dict[tuple[str, str], type[msgspec.Struct]] = {
    ("purchases", "internal"): Internal,
    ("billing_subscribers", "internal"): Schedule,
    ("company_statements", "filters"): Filters,
}
BUILT = ("webhooks", "clients", "purchases")  # may be given as their API body
# What a hand-written purchase may be: as made, then sent, cancelled or paid as the API does.
PURCHASE_STATUSES = ("created", "sent", "cancelled", "paid")
_AT = re.compile(r" - at `\$(.*)`$")


def check(path: str, value: Any, kind: type[msgspec.Struct]) -> None:
    """``value`` decodes as ``kind``; else the key path of its first error."""
    try:
        msgspec.convert(value, kind)
    except msgspec.ValidationError as exc:
        text = str(exc)
        found = _AT.search(text)
        where = path + (found.group(1) if found else "")
        raise Refused(where, _AT.sub("", text)) from None


def _api_error(path: str, exc: ApiError) -> Refused:
    first = exc.errors[0] if isinstance(exc, ValidationFailed) and exc.errors else exc
    field = "" if first.field in ("", "__all__") else f".{first.field}"
    return Refused(path + field, first.detail)


def body(path: str, item: dict[str, Any], kind: type[msgspec.Struct]) -> Any:
    given = {k: v for k, v in item.items() if k != "id"}
    try:
        return msgspec.convert(given, kind)
    except msgspec.ValidationError as exc:
        text = str(exc)
        found = _AT.search(text)
        raise Refused(path + (found.group(1) if found else ""), _AT.sub("", text)) from None


def webhook(
    rt: Context, path: str, item: dict[str, Any], keys: tuple[str, str], now_s: int
) -> dict[str, Any]:
    """A webhook's row from its API body: (private key, public key) made beforehand."""
    data = body(path, item, WebhookInput)
    webhook_id = _id(path, item) or rt.ids.uuid()
    try:
        made = webhooks_domain.create(data, webhook_id, keys[1], now_s, rt.url_rule)
    except ApiError as exc:
        raise _api_error(path, exc) from None
    return {"id": made.id, "private_key": keys[0], "data": msgspec.json.encode(made)}


def client(rt: Context, path: str, item: dict[str, Any], now_s: int) -> dict[str, Any]:
    data = body(path, item, ClientInput)
    client_id = _id(path, item) or rt.ids.uuid()
    try:
        made, _ = clients_domain.create(data, client_id, now_s)
    except ApiError as exc:
        raise _api_error(path, exc) from None
    return {"id": made.id, "email_key": made.email_key, "data": msgspec.json.encode(made)}


def _id(path: str, item: dict[str, Any]) -> str | None:
    value = item.get("id")
    if value is not None and not isinstance(value, str):
        raise Refused(f"{path}.id", "must be a string")
    return value


def seed_entries(seed: MerchantSeed) -> dict[str, list[dict[str, Any]]]:
    """A generated merchant's credentials as a file gives them (profiles: see ``profile``)."""
    return {
        "brands": [{"id": b.id, "name": b.name} for b in seed.brands],
        "api_keys": [
            {"key": seed.api_key, "environment": "sandbox"},
            {"key": seed.production_api_key, "environment": "production"},
        ],
        "oauth_clients": [
            {
                "client_id": seed.client_id,
                "number": seed.client_number,
                "secret": seed.client_secret,
            }
        ],
    }


def merchant_data(seed: MerchantSeed, company_id: str, name: str, created_s: int) -> Merchant:
    return Merchant(
        company_id=company_id,
        name=name,
        created_on=created_s,
        default_brand_id=seed.brands[0].id,
        bank_accounts=seed.bank_accounts,
    )


def purchase(
    rt: Context,
    tx: Tx,
    path: str,
    item: dict[str, Any],
    company_id: str,
    now_s: int,
    base_url: str,
) -> tuple[Purchase, Internal]:
    """A purchase from its ``POST /purchases/`` body (``brand_id`` defaults to the merchant's
    first brand), built as the API builds it; with ``status``, moved there at the file's
    instant as the API moves it: ``sent``, ``cancelled``, or ``paid`` by the payer with the
    default test card (``hold`` instead with ``skip_capture``)."""
    status = item.get("status", "created")
    if status not in PURCHASE_STATUSES:
        raise Refused(f"{path}.status", f"must be one of: {', '.join(PURCHASE_STATUSES)}")
    given = {k: v for k, v in item.items() if k not in ("id", "status")}
    brands = merchants_repo.brand_ids(tx, company_id)
    if "brand_id" not in given and brands:
        given["brand_id"] = brands[0]
    data = body(path, given, PurchaseInput)
    try:
        details, client_fields = validate(data, rt.url_rule)
        if data.brand_id.lower() not in brands:
            raise FieldError("brand_id", "invalid", "No brand with this id.")
        if client_fields is None:
            assert isinstance(data.client_id, str)
            client = purchases_service.client_of(tx, company_id, data.client_id)
            client_id = data.client_id.lower()
        else:
            stored = clients_repo.get_by_email(tx, company_id, client_fields["email"])
            if stored is None:
                stored, _ = clients_domain.create_valid(client_fields, rt.ids.uuid(), now_s)
                clients_repo.insert(tx, company_id, stored)
            client = msgspec.convert(msgspec.to_builtins(client_fields), PurchaseClient)
            client_id = stored.id
    except ApiError as exc:
        raise _api_error(path, exc) from None
    made = build(
        data,
        details,
        client,
        client_id,
        purchase_id=_id(path, item) or rt.ids.uuid(),
        company_id=company_id,
        reference_generated=f"EM{purchases_repo.next_number(tx)}",
        base_url=base_url,
        now=now_s,
    )
    made.issuer_details = purchases_service.issuer_of(tx, company_id)
    internal = Internal()
    if status == "sent":
        made = purchases_domain.send(made, now_s)
    elif status == "cancelled":
        made, _ = purchases_domain.cancel(made, now_s)
    elif status == "paid":
        expires = (datetime.fromtimestamp(now_s, UTC) + timedelta(days=3 * 366)).strftime("%m/%y")
        card = cards.validate(cards.DEFAULT_CARD, expires, cards.TEST_CVC, "Test Payer", now_s)
        saved = SavedCard.of(card)
        made, internal, _ = purchases_domain.approved(
            made, internal, saved, "payform", False, now_s
        )
    return made, internal
