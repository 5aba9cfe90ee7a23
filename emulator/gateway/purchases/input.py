"""POST /purchases/ bodies: their types (checked on decode) and rules (spec: Limits; the
OpenAPI document's maxLength and bounds)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from emulator.domain import validation
from emulator.domain.errors import FieldError, ValidationFailed
from emulator.domain.urls import UrlRule
from emulator.gateway.account.rules import AVAILABLE
from emulator.gateway.clients.rules import ClientInput
from emulator.gateway.clients.rules import validate as validate_client
from emulator.gateway.purchases.model import (
    IssuerDetails,
    Product,
    Purchase,
    PurchaseClient,
    PurchaseDetails,
    StatusChange,
    TransactionData,
)
from emulator.gateway.webhooks.rules import callback_problem

MAX_PRICE = 9_999_999_999
MAX_TOTAL_OVERRIDE = 999_999_999_999_999
MAX_AMOUNT = 10**18  # any other money field: keeps arithmetic in SQLite's 64 bits
DEFAULT_CURRENCY = "ZAR"
DUE_SECONDS = 3600  # FIDELITY: due defaults to creation plus one hour

REQUEST_CLIENT_DETAILS = (
    "email",
    "phone",
    "full_name",
    "personal_code",
    "brand_name",
    "legal_name",
    "registration_number",
    "tax_number",
    "bank_account",
    "bank_code",
    "billing_address",
    "shipping_address",
)

PLATFORM_MAX = 64


class ProductInput(msgspec.Struct, forbid_unknown_fields=False):
    name: str
    price: int
    # Numbers, or decimal strings as the API itself returns them ("2.0000", "15.00").
    quantity: float | str = 1.0
    discount: int = 0
    tax_percent: float | str = 0.0
    category: str = ""


class DetailsInput(msgspec.Struct, forbid_unknown_fields=False):
    products: list[ProductInput]
    currency: str = DEFAULT_CURRENCY
    debt: int = 0
    notes: str = ""
    language: str = "en"
    timezone: str = "UTC"
    due_strict: bool = False
    email_message: str = ""
    total_override: int | None = None
    subtotal_override: int | None = None
    total_tax_override: int | None = None
    total_discount_override: int | None = None
    request_client_details: list[str] = []


class PurchaseInput(msgspec.Struct, forbid_unknown_fields=False):
    purchase: DetailsInput
    brand_id: str
    client: ClientInput | UnsetType | None = UNSET
    client_id: str | UnsetType | None = UNSET
    send_receipt: bool = False
    skip_capture: bool = False
    force_recurring: bool = False
    reference: validation.Reference = ""
    due: int | None = None
    payment_method_whitelist: list[str] | None = None
    success_redirect: str = ""
    failure_redirect: str = ""
    cancel_redirect: str = ""
    success_callback: str = ""
    creator_agent: str = ""
    # Provider quirk: the document's enum is web, api, ios, android, macos, windows, but official
    # plugins send their own names (woocommerce, woocommerce_subscriptions) and the platform
    # takes them: any short string is accepted (1 to PLATFORM_MAX characters).
    platform: str = "api"


_DECIMAL = re.compile(r"-?[0-9]{1,12}(\.[0-9]{1,8})?")


def _decimal(field: str, value: float | str) -> tuple[float, FieldError | None]:
    """A number given as a number or as a decimal string."""
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value.strip()):
            return 0.0, FieldError(field, "invalid", "A valid number is required.")
        return float(value), None
    return value, None


def _url(field: str, value: str) -> FieldError | None:
    if value == "":
        return None
    if len(value) > 500:
        return validation.max_length(field, value, 500)
    if not value.startswith(("http://", "https://")) or " " in value:
        return validation.invalid(field, "Enter a valid URL.")
    return None


def _callback(value: str, rule: UrlRule) -> FieldError | None:
    """``success_callback`` follows the webhooks' rule (emulator/domain/urls.py)."""
    if value == "":
        return None
    return callback_problem("success_callback", value, rule)


def _products(items: list[ProductInput]) -> tuple[list[Product], int, list[FieldError | None]]:
    errors: list[FieldError | None] = []
    if not items:
        errors.append(validation.invalid("purchase.products", "At least one product is required."))
    products: list[Product] = []
    total = 0
    for i, item in enumerate(items):
        at = f"purchase.products.{i}"
        quantity, quantity_problem = _decimal(f"{at}.quantity", item.quantity)
        tax, tax_problem = _decimal(f"{at}.tax_percent", item.tax_percent)
        problems = [
            validation.required(f"{at}.name")
            if not item.name
            else validation.max_length(f"{at}.name", item.name, 256),
            validation.bounds(f"{at}.price", item.price, 0, MAX_PRICE),
            quantity_problem or validation.bounds(f"{at}.quantity", quantity, 0, 1_000_000),
            validation.bounds(f"{at}.discount", item.discount, 0, MAX_AMOUNT),
            tax_problem or validation.bounds(f"{at}.tax_percent", tax, 0, 100),
            validation.max_length(f"{at}.category", item.category, 256),
        ]
        errors.extend(problems)
        if any(problems):
            continue
        line = round(item.price * quantity) - item.discount
        total += line + round(line * tax / 100)
        products.append(
            Product(
                name=item.name,
                price=item.price,
                quantity=f"{quantity:.4f}",
                discount=item.discount,
                tax_percent=f"{tax:.2f}",
                category=item.category,
            )
        )
    return products, total, errors


def details(data: DetailsInput, skip_capture: bool) -> PurchaseDetails:
    """PurchaseDetails with its computed total, or ValidationFailed (dotted field names)."""
    products, total, errors = _products(data.products)
    errors += [
        validation.currency("purchase.currency", data.currency),
        validation.bounds("purchase.debt", data.debt, -MAX_AMOUNT, MAX_AMOUNT),
        validation.max_length("purchase.notes", data.notes, 10_000),
        validation.max_length("purchase.language", data.language, 2),
        validation.max_length("purchase.timezone", data.timezone, 64),
        validation.max_length("purchase.email_message", data.email_message, 256),
    ]
    if data.total_override is not None:
        errors.append(
            validation.bounds("purchase.total_override", data.total_override, 0, MAX_TOTAL_OVERRIDE)
        )
    for name in ("subtotal_override", "total_tax_override", "total_discount_override"):
        value = getattr(data, name)
        if value is not None:
            errors.append(validation.bounds(f"purchase.{name}", value, 0, MAX_TOTAL_OVERRIDE))
    errors.extend(
        validation.invalid(
            f"purchase.request_client_details.{i}", f"'{item}' is not a valid choice."
        )
        for i, item in enumerate(data.request_client_details)
        if item not in REQUEST_CLIENT_DETAILS
    )
    _raise(errors)
    total = data.total_override if data.total_override is not None else total + data.debt
    if total < 0:
        _raise([validation.invalid("purchase.debt", "The total cannot be negative.")])
    # The total is bounded like total_override: the ledger's sums stay within 64 bits.
    _raise([validation.bounds("purchase.total", total, 0, MAX_TOTAL_OVERRIDE)])
    if total == 0 and not skip_capture:
        # Provider quirk: a zero total is the preauthorization scenario, which needs skip_capture.
        _raise([FieldError("purchase.total", "invalid_amount", "A zero total needs skip_capture.")])
    return PurchaseDetails(
        products=products,
        currency=data.currency,
        total=total,
        debt=data.debt,
        notes=data.notes,
        language=data.language,
        timezone=data.timezone,
        due_strict=data.due_strict,
        email_message=data.email_message,
        total_override=data.total_override,
        subtotal_override=data.subtotal_override,
        total_tax_override=data.total_tax_override,
        total_discount_override=data.total_discount_override,
        request_client_details=list(data.request_client_details),
    )


def validate(data: PurchaseInput, rule: UrlRule) -> tuple[PurchaseDetails, dict[str, Any] | None]:
    """The purchase details and the client fields given (None when only client_id is), or
    ValidationFailed with every problem found."""
    errors: list[FieldError | None] = [
        validation.uuid_field("brand_id", data.brand_id),
        validation.max_length("reference", data.reference, 128),
        validation.max_length("creator_agent", data.creator_agent, 32),
        validation.invalid("platform", "This field may not be blank.")
        if not data.platform
        else validation.max_length("platform", data.platform, PLATFORM_MAX),
        *(
            _url(name, getattr(data, name))
            for name in ("success_redirect", "failure_redirect", "cancel_redirect")
        ),
        _callback(data.success_callback, rule),
    ]
    if data.due is not None:
        errors.append(validation.bounds("due", data.due, 0, 253_402_300_799))
    whitelist = data.payment_method_whitelist
    if whitelist is not None and not whitelist:
        errors.append(
            validation.invalid("payment_method_whitelist", "Ensure this list is not empty.")
        )
    client_fields: dict[str, Any] | None = None
    if isinstance(data.client_id, str):
        errors.append(validation.uuid_field("client_id", data.client_id))
    elif isinstance(data.client, ClientInput):
        try:
            client_fields = validate_client(data.client)
        except ValidationFailed as exc:
            for e in exc.errors:
                errors.append(FieldError(f"client.{e.field}", e.code, e.detail))
    else:
        errors.append(validation.required("client"))
    try:
        purchase = details(data.purchase, data.skip_capture)
    except ValidationFailed as exc:
        errors.extend(exc.errors)
        purchase = None
    _raise(errors)
    assert purchase is not None
    return purchase, client_fields


def unavailable_methods(whitelist: list[str] | None) -> list[str]:
    return [m for m in whitelist or [] if m not in AVAILABLE and m != "card"]


def _raise(errors: list[FieldError | None]) -> None:
    found = [e for e in errors if e is not None]
    if found:
        raise ValidationFailed(found)


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def issued_on(now: int) -> str:
    """The UTC date of ``now`` (seconds since the epoch) as ``YYYY-MM-DD``: a purchase's
    ``issued`` (a day's ordinal and ``isoformat``: no strftime on every create)."""
    return date.fromordinal(_EPOCH_ORDINAL + now // 86_400).isoformat()


def build(
    data: PurchaseInput,
    details: PurchaseDetails,
    client: PurchaseClient,
    client_id: str,
    *,
    purchase_id: str,
    company_id: str,
    reference_generated: str,
    base_url: str,
    now: int,
    issued: str | None = None,
) -> Purchase:
    """A new purchase, status created, with its pages' URLs under ``base_url``; ``issued``
    is the day of ``now`` (UTC) unless given."""
    return Purchase(
        id=purchase_id,
        created_on=now,
        updated_on=now,
        client=client,
        client_id=client_id,
        purchase=details,
        issuer_details=IssuerDetails(),
        transaction_data=TransactionData(),
        status_history=[StatusChange(status="created", timestamp=now)],
        company_id=company_id,
        brand_id=data.brand_id.lower(),
        send_receipt=data.send_receipt,
        skip_capture=data.skip_capture,
        force_recurring=data.force_recurring,
        reference_generated=reference_generated,
        reference=data.reference,
        issued=issued or issued_on(now),
        due=data.due if data.due is not None else now + DUE_SECONDS,
        payment_method_whitelist=data.payment_method_whitelist,
        success_redirect=data.success_redirect,
        failure_redirect=data.failure_redirect,
        cancel_redirect=data.cancel_redirect,
        success_callback=data.success_callback,
        creator_agent=data.creator_agent,
        platform=data.platform,
        checkout_url=f"{base_url}/p/{purchase_id}/",
        direct_post_url=f"{base_url}/p/{purchase_id}/direct_post/",
    )
