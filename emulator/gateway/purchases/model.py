"""The Purchase object as the gateway returns it (OpenAPI ``Purchase``; the keys and types of
the provider's own webhook bodies), plus the emulator-only state kept beside it."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.core.merchants.model import BankAccount
from emulator.domain.cards import Card
from emulator.gateway.clients.rules import ClientDetails

# The name its clashing structs have in the published documents (``purchase_model.Attempt``).
OPENAPI_NAMESPACE = "purchase_model"

# Purchase.product of the purchases billing makes (the rest are "purchases").
INVOICES = "billing_invoices"  # send_invoice, POST /billing/
SUBSCRIPTIONS = "billing_subscriptions"  # a subscription's first purchase and its bills


class PurchaseClient(ClientDetails, kw_only=True):
    """ClientDetails as a purchase carries them (unset text fields are "")."""


class Product(msgspec.Struct, kw_only=True):
    name: str
    price: int
    quantity: str = "1.0000"  # Provider quirk: decimals are strings on output
    discount: int = 0
    tax_percent: str = "0.00"
    category: str = ""


class PurchaseDetails(msgspec.Struct, kw_only=True):
    products: list[Product]
    currency: str
    total: int
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
    shipping_options: list[Any] = []
    has_upsell_products: bool = False
    payment_method_details: dict[str, Any] = {}
    request_client_details: list[str] = []


class PaymentDetails(msgspec.Struct, kw_only=True):
    amount: int
    currency: str
    payment_type: str = "purchase"  # purchase, purchase_charge, refund
    is_outgoing: bool = False
    net_amount: int = 0
    fee_amount: int = 0
    pending_amount: int = 0
    pending_unfreeze_on: int | None = None
    description: str = ""
    paid_on: int = 0
    remote_paid_on: int = 0
    owned_bank_code: str | None = None
    owned_bank_account: str | None = None
    owned_bank_account_id: str | None = None


class AttemptError(msgspec.Struct):
    code: str
    message: str


class Attempt(msgspec.Struct, kw_only=True):
    type: str  # execute, authorize, release, capture, recurring_execute, ...refund
    successful: bool
    error: AttemptError | None = None
    flow: str = "payform"
    payment_method: str = ""
    extra: dict[str, Any] = {}
    country: str = ""
    client_ip: str = ""
    fee_amount: int = 0
    processing_time: int = 0


class TransactionData(msgspec.Struct, kw_only=True):
    flow: str = "payform"
    payment_method: str = ""
    extra: dict[str, Any] = {}
    country: str = ""
    attempts: list[Attempt] = []  # newest first


class StatusChange(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One entry of status_history; ``related_object`` only when there is one (as the
    provider's webhook bodies show)."""

    status: str
    timestamp: int
    related_object: dict[str, str] | None = None


class IssuerDetails(msgspec.Struct, kw_only=True):
    website: str = ""
    legal_street_address: str = ""
    legal_country: str = ""
    legal_city: str = ""
    legal_zip_code: str = ""
    bank_accounts: list[BankAccount] = []
    legal_name: str = ""
    brand_name: str = ""
    registration_number: str = ""
    tax_number: str = ""


class Purchase(msgspec.Struct, kw_only=True):
    id: str
    type: str = "purchase"
    created_on: int
    updated_on: int
    client: PurchaseClient
    client_id: str | None
    purchase: PurchaseDetails
    payment: PaymentDetails | None = None
    issuer_details: IssuerDetails
    transaction_data: TransactionData
    status: str = "created"
    status_history: list[StatusChange]
    viewed_on: int | None = None
    company_id: str
    is_test: bool = True
    user_id: str | None = None
    brand_id: str
    billing_template_id: str | None = None
    order_id: str | None = None
    send_receipt: bool = False
    is_recurring_token: bool = False
    recurring_token: str | None = None
    skip_capture: bool = False
    force_recurring: bool = False
    reference_generated: str
    reference: str = ""
    issued: str
    due: int
    refund_availability: str = "none"
    refundable_amount: int = 0
    refunded_amount: int = 0
    currency_conversion: dict[str, Any] | None = None
    payment_method_whitelist: list[str] | None = None
    success_redirect: str = ""
    failure_redirect: str = ""
    cancel_redirect: str = ""
    success_callback: str = ""
    creator_agent: str = ""
    platform: str = "api"
    product: str = "purchases"
    created_from_ip: str = ""
    invoice_url: str | None = None
    checkout_url: str
    direct_post_url: str | None
    marked_as_paid: bool = False
    can_retrieve: bool = False
    can_chargeback: bool = False
    upsell_campaigns: list[str] = []
    referral_campaign_id: str | None = None
    referral_code: str | None = None
    referral_code_generated: str | None = None
    referral_code_details: dict[str, Any] | None = None
    retain_level_details: dict[str, Any] | None = None


class SavedCard(msgspec.Struct, frozen=True, kw_only=True):
    """What a recurring token remembers of its card."""

    masked: str
    brand: str
    cardholder_name: str
    expiry_month: int
    expiry_year: int
    number: str  # the emulator needs it to decide charges by test card; never shown

    @classmethod
    def of(cls, card: Card) -> SavedCard:
        """What a token keeps of a card the payer gave."""
        return cls(
            masked=card.masked,
            brand=card.brand,
            cardholder_name=card.cardholder_name,
            expiry_month=card.expiry_month,
            expiry_year=card.expiry_year,
            number=card.number,
        )


class Challenge(msgspec.Struct, frozen=True, kw_only=True):
    """A pending 3-D Secure challenge: the card waiting on it and how it was submitted."""

    id: str
    card: SavedCard
    passes: bool  # the card's (or scenario's) answer when the payer completes it
    flow: str
    remember_card: bool


class Internal(msgspec.Struct, kw_only=True):
    """Emulator-only state of a purchase (never part of the API object)."""

    card: SavedCard | None = None  # the card that paid or authorised it
    tokenized: bool = False  # paid with a recurring token (ledger filter)
    direct_post_used: bool = False
    challenge: Challenge | None = None
    capturing: int | None = None  # the amount of a capture under way (pending_capture)


class TokenView(msgspec.Struct):
    """What a charge reads of the purchase it uses as a recurring token: its client while it
    is one (the stored purchase's ``token_client_id`` column, not its JSON)."""

    client_id: str | None = None
    is_recurring_token: bool = False


class PaymentTransactionData(msgspec.Struct, kw_only=True):
    flow: str = "payform"
    payment_method: str = ""
    extra: dict[str, Any] = {}
    country: str = ""


class Payment(msgspec.Struct, kw_only=True):
    """OpenAPI ``Payment``: a refund's record, as POST .../refund/ returns it (the keys of the
    provider's payment.refunded body; its client carries client_id, first and last name)."""

    id: str
    type: str = "payment"
    created_on: int
    updated_on: int
    client: dict[str, Any]
    payment: PaymentDetails
    transaction_data: PaymentTransactionData
    related_to: dict[str, str]
    status: str = "success"
    reference_generated: str
    reference: str = ""
    company_id: str
    is_test: bool = True
    user_id: str | None = None
    brand_id: str
    fee_amount: int = 0
    refund_availability: str = "none"
    currency_conversion: dict[str, Any] | None = None
    account_extra: dict[str, Any] = {}
    account_fx_rate: float | None = None
    account_fx_currency: str | None = None
    account_fx_buy_amount: int | None = None
    audit_log_entries: list[Any] = []


def changeable(p: Purchase) -> Purchase:
    """A copy of ``p`` to change (a status move, ``emulator/gateway/purchases/rules.py``), sharing
    with it only what no change mutates in place: the moves replace fields, append to the
    status history and record attempts in the transaction data, so those two are copied, not
    the whole purchase (a deep copy of it, at each move, cost more than the move)."""
    data = p.transaction_data
    return msgspec.structs.replace(
        p,
        status_history=list(p.status_history),
        transaction_data=msgspec.structs.replace(data, attempts=list(data.attempts)),
    )
