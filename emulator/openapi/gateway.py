"""The gateway (``/api/v1/``): one entry per served method and path.

Adding an endpoint is adding one ``op(...)`` entry: the interface fills in authentication
(401), the error dialect, faults (429, 5XX), and for a body or a path id their 400 and 404.
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from msgspec import Meta

from emulator.core.ledger.rules import TRANSACTION_FLOWS, TRANSACTION_PRODUCTS
from emulator.gateway.account.rules import AVAILABLE
from emulator.gateway.billing.model import (
    BillingTemplate,
    InvoicesInput,
    Subscriber,
    SubscriberInput,
    TemplateInput,
)
from emulator.gateway.clients.rules import Client, ClientInput
from emulator.gateway.payouts.model import Payout, PayoutInput
from emulator.gateway.payouts.rules_cards import CardInput
from emulator.gateway.purchases.input import PurchaseInput
from emulator.gateway.purchases.input_actions import AmountBody, ChargeBody, MarkAsPaidBody
from emulator.gateway.purchases.model import Payment, Purchase, StatusChange
from emulator.gateway.purchases.rules import TRANSITIONS
from emulator.gateway.statements.model import CompanyStatement, StatementInput
from emulator.gateway.webhooks.rules import EVENTS, SOURCE_TYPES, Webhook, WebhookInput
from emulator.kernel.clock import TIME_HEADER
from emulator.openapi import errors
from emulator.openapi.gateway_shapes import (
    Balance,
    FeedItem,
    Page,
    PaymentMethods,
    RecurringToken,
    SubscriberAdded,
    TurnoverPair,
    WebhookDelivery,
)
from emulator.openapi.model import Body, Interface, Operation, Param, outcome_header

GATEWAY = Interface(
    name="gateway",
    prefix="/api/v1",
    error=errors.gateway,
    security=({"gatewayBearer": []},),
    always={
        401: "No or malformed `Authorization` header (`missing_authorization`), or a key or"
        " token that is not one of a merchant's sandbox credentials (`invalid_token`).",
        **errors.FAULTS,
    },
    with_body={
        400: "The body is not a JSON object (`parse_error`), too large (`max_length`), or a"
        " field is missing or invalid (`required`, `invalid`, `max_length`...).",
    },
    with_id={
        400: "A path id that is not a UUID (`invalid_uuid`).",
        404: "No such object of the merchant (`..._not_found`).",
    },
    path_params={
        "id": Param("id", UUID, "Object ID (UUID)"),
        "token": Param("token", UUID, "The recurring token (the id of the purchase that is one)"),
        "subscriber_id": Param("subscriber_id", UUID, "The subscriber (BillingTemplateClient)"),
    },
    headers=(TIME_HEADER, errors.WARNINGS_HEADER),
)
op = GATEWAY.operation

PAGE = (
    Param("page", Annotated[int, Meta(ge=1)], "Page number, from 1"),
    Param("page_size", Annotated[int, Meta(ge=1)], "Results per page (default 20, at most 100)"),
)
UNIX = Annotated[int, Meta(ge=0)]
LISTED = {404: "A `page` past the end, or a bad `page`/`page_size` (`Invalid page.`)."}
FILTERS = (
    Param("brand", UUID, "Brand id(s); repeated or comma-separated"),
    Param("terminal_uid", UUID, "Terminal id(s)"),
    Param("currency", str, "ISO 4217 code(s)"),
    Param("payment_method", str, f"One or more of {', '.join((*AVAILABLE, 'unknown'))}"),
    Param("product", str, f"One or more of {', '.join(TRANSACTION_PRODUCTS)}"),
    Param("flow", str, f"One or more of {', '.join(TRANSACTION_FLOWS)}"),
    Param("country", str, "ISO 3166-1 alpha-2 code(s)"),
    Param("tokenized", str, "true/false (or 1/0)"),
    Param("from", UNIX, "Unix time: the balance as it was then; turnover from then on"),
)
ACTION = {409: "The purchase's status does not allow it."}
STATEMENT_FILTERS = (
    *(Param(name, UNIX, "Unix time: purchases " + what)
      for name, what in (("from", "created from then on"), ("to", "created before then"),
                         ("paid_from", "paid from then on"), ("paid_to", "paid before then"),
                         ("updated_from", "updated from then on"),
                         ("updated_to", "updated before then"))),
    Param("q", str, "Text the purchase's client, reference or products contain"),
    Param("products", str, "Text a product's name contains"),
    *(Param(name, str, f"`{name}` value(s); repeated or comma-separated")
      for name in ("brand_id", "shop_id", "total", "currency", "payment_method",
                   "three_d_secure", "country", "status", "product")),
)  # fmt: skip

OPERATIONS: list[Operation] = [
    # -- clients --
    op("clients_create", "POST", "/clients/", "Create a client", "Clients", Client,
       status=201, body=ClientInput, errors={409: "A client with this email exists."}),
    op("clients_list", "GET", "/clients/", "List clients, newest first", "Clients",
       Page[Client], errors=LISTED,
       query=(Param("email", str, "Exact email, any case; empty means no filter"), *PAGE)),
    op("clients_read", "GET", "/clients/{id}/", "Retrieve a client", "Clients", Client),
    op("clients_update", "PUT", "/clients/{id}/", "Replace a client", "Clients", Client,
       body=ClientInput, errors={409: "Another client has this email."}),
    op("clients_partial_update", "PATCH", "/clients/{id}/", "Change a client", "Clients",
       Client, body=ClientInput, errors={409: "Another client has this email."},
       description="The spec requires `email` on PATCH too."),
    op("clients_delete", "DELETE", "/clients/{id}/", "Delete a client", "Clients", None,
       status=204),
    op("clients_recurring_tokens_list", "GET", "/clients/{id}/recurring_tokens/",
       "The client's saved cards, newest first", "Clients", Page[RecurringToken],
       query=PAGE, errors=LISTED),
    op("clients_recurring_tokens_read", "GET", "/clients/{id}/recurring_tokens/{token}/",
       "Retrieve a saved card", "Clients", RecurringToken,
       errors={404: "No such client (`client_not_found`), or no such token of it"
               " (`recurring_token_not_found`)."}),
    op("clients_recurring_tokens_delete", "DELETE", "/clients/{id}/recurring_tokens/{token}/",
       "Delete a saved card", "Clients", None, status=204),
    op("clients_feed", "GET", "/clients/{id}/feed/", "The client's activity, newest first",
       "Clients", Page[FeedItem], query=PAGE, errors=LISTED),
    # -- purchases --
    op("purchases_create", "POST", "/purchases/", "Create a purchase", "Purchases", Purchase,
       status=201, body=PurchaseInput, query=(outcome_header("decline:<reason>, 3ds:failed"),),
       errors={404: "`client_id` names no client of the merchant (`client_not_found`)."}),
    op("purchases_read", "GET", "/purchases/{id}/", "Retrieve a purchase", "Purchases",
       Purchase),
    op("purchases_cancel", "POST", "/purchases/{id}/cancel/", "Cancel an unpaid purchase",
       "Purchases", Purchase, errors=ACTION),
    op("purchases_release", "POST", "/purchases/{id}/release/", "Release funds on hold",
       "Purchases", Purchase, errors={409: "Not on hold (`capture_not_allowed`)."}),
    op("purchases_capture", "POST", "/purchases/{id}/capture/",
       "Capture a hold, all of it or `amount`", "Purchases", Purchase,
       body=Body(AmountBody, required=False),
       errors={400: "A bad `amount` (`invalid_amount`) or a failed capture.",
               409: "Not on hold (`capture_not_allowed`)."}),
    op("purchases_charge", "POST", "/purchases/{id}/charge/",
       "Pay with a saved card (`recurring_token`)", "Purchases", Purchase,
       body=ChargeBody,
       errors={400: "`recurring_token` is not a UUID (`invalid_recurring_token`).",
               409: "Paid, cancelled or expired; or the token's card expired.",
               422: "The card was declined (`card_declined`; the message names the reason)."}),
    op("purchases_refund", "POST", "/purchases/{id}/refund/", "Refund all or `amount`",
       "Purchases", Payment, body=Body(AmountBody, required=False),
       errors={400: "A bad `amount` (`invalid_amount`, `refund_exceeds_amount`).",
               409: "Not paid (`purchase_invalid_status`)."}),
    op("purchases_delete_recurring_token", "POST", "/purchases/{id}/delete_recurring_token/",
       "Stop a purchase being a recurring token", "Purchases", Purchase),
    op("purchases_mark_as_paid", "POST", "/purchases/{id}/mark_as_paid/",
       "Mark as paid without money moving", "Purchases", Purchase,
       body=Body(MarkAsPaidBody, required=False), errors=ACTION),
    op("purchases_resend_invoice", "POST", "/purchases/{id}/resend_invoice/",
       "Send the invoice again (an unpaid purchase becomes `sent`)", "Purchases", Purchase),
    # -- company statements --
    op("company_statements_create", "POST", "/company_statements/",
       "Generate a statement of the merchant's purchases (`csv` or `xlsx`)", "Statements",
       CompanyStatement, status=201, body=Body(StatementInput, required=False),
       query=STATEMENT_FILTERS,
       description="Generated on the emulator clock: `pending`, then `processing` 2 s later,"
       " then `success` 3 s after that, with its `download_url`."),
    op("company_statements_list", "GET", "/company_statements/", "List statements, newest first",
       "Statements", Page[CompanyStatement], query=PAGE, errors=LISTED),
    op("company_statements_read", "GET", "/company_statements/{id}/", "Retrieve a statement",
       "Statements", CompanyStatement),
    op("company_statements_cancel", "POST", "/company_statements/{id}/cancel/",
       "Cancel a statement being generated", "Statements", CompanyStatement,
       errors={409: "Already generated or cancelled (`company_statement_invalid_status`)."}),
    # -- billing --
    op("billing_invoices", "POST", "/billing/", "One-off invoices to several clients",
       "Billing", list[str], body=InvoicesInput,
       errors={404: "A client of `clients` is not the merchant's (`client_not_found`)."}),
    op("billing_templates_create", "POST", "/billing_templates/", "Create a billing template",
       "Billing", BillingTemplate, status=201, body=TemplateInput),
    op("billing_templates_list", "GET", "/billing_templates/", "List billing templates",
       "Billing", Page[BillingTemplate], query=PAGE, errors=LISTED),
    op("billing_templates_clients_read", "GET", "/billing_templates/clients/{subscriber_id}/",
       "Retrieve a subscriber", "Billing", Subscriber),
    op("billing_templates_clients_partial_update", "PATCH",
       "/billing_templates/clients/{subscriber_id}/", "Pause, resume or change a subscriber",
       "Billing", Subscriber, body=SubscriberInput,
       errors={409: "The subscription is not active (`subscription_inactive`)."}),
    op("billing_templates_read", "GET", "/billing_templates/{id}/",
       "Retrieve a billing template", "Billing", BillingTemplate),
    op("billing_templates_update", "PUT", "/billing_templates/{id}/",
       "Replace a billing template", "Billing", BillingTemplate, body=TemplateInput),
    op("billing_templates_partial_update", "PATCH", "/billing_templates/{id}/",
       "Change a billing template", "Billing", BillingTemplate, body=TemplateInput),
    op("billing_templates_delete", "DELETE", "/billing_templates/{id}/",
       "Delete a template and its subscribers", "Billing", None, status=204),
    op("billing_templates_send_invoice", "POST", "/billing_templates/{id}/send_invoice/",
       "Send an invoice (a `sent` purchase) to `client_id`", "Billing", Purchase,
       body=SubscriberInput),
    op("billing_templates_add_subscriber", "POST", "/billing_templates/{id}/add_subscriber/",
       "Subscribe `client_id`", "Billing", SubscriberAdded, body=SubscriberInput,
       errors={409: "Already subscribed, or the template's subscription is not active."}),
    op("billing_templates_clients_list", "GET", "/billing_templates/{id}/clients/",
       "The template's subscribers, newest first", "Billing", Page[Subscriber], query=PAGE,
       errors=LISTED),
    op("billing_templates_client_read", "GET",
       "/billing_templates/{id}/clients/{subscriber_id}/", "Retrieve a subscriber", "Billing",
       Subscriber),
    op("billing_templates_client_partial_update", "PATCH",
       "/billing_templates/{id}/clients/{subscriber_id}/",
       "Pause, resume or change a subscriber", "Billing", Subscriber, body=SubscriberInput,
       errors={409: "The subscription is not active (`subscription_inactive`)."}),
    op("billing_templates_client_delete", "DELETE",
       "/billing_templates/{id}/clients/{subscriber_id}/", "Unsubscribe", "Billing", None,
       status=204),
    # -- account --
    op("payment_methods", "GET", "/payment_methods/", "What a purchase can be paid with",
       "Account", PaymentMethods,
       query=(Param("brand_id", UUID, "A brand of the merchant", required=True),
              Param("currency", str, "ISO 4217", required=True)),
       errors={400: "A missing or invalid `brand_id` or `currency`."}),
    op("account_balance", "GET", "/account/json/balance/", "The balance per currency",
       "Account", dict[str, Balance], query=FILTERS, errors={400: "A bad filter value."}),
    op("account_turnover", "GET", "/account/json/turnover/",
       "Incoming and outgoing money (the `currency` filter picks the currencies)", "Account",
       TurnoverPair,
       query=(*FILTERS, Param("to", UNIX, "Unix time: up to (excluding) then")),
       errors={400: "A bad filter value, or `to` before `from`."}),
    # -- payouts --
    op("payouts_create", "POST", "/payouts/", "Create a payout", "Payouts", Payout,
       status=201, body=PayoutInput, query=(outcome_header("payout:failed[@+<duration>]"),)),
    op("payouts_list", "GET", "/payouts/", "List payouts, newest first", "Payouts",
       Page[Payout], query=PAGE, errors=LISTED),
    op("payouts_read", "GET", "/payouts/{id}/", "Retrieve a payout", "Payouts", Payout),
    op("payouts_execute", "POST", "/payouts/{id}/execute/{token}/",
       "Execute a payout with the recipient's card (its `execution_url`)", "Payouts", Payout,
       body=CardInput, prefixed=False, secured=False,
       description="No bearer header: the URL is the capability.",
       errors={400: "Invalid card data, a declined card, or a payout already executed or"
               " expired.", 404: "No such payout, or a wrong token."}),
    # -- webhooks --
    op("webhooks_create", "POST", "/webhooks/", "Create a webhook", "Webhooks", Webhook,
       status=201, body=WebhookInput),
    op("webhooks_list", "GET", "/webhooks/", "List webhooks, newest first", "Webhooks",
       Page[Webhook], query=PAGE, errors=LISTED),
    op("webhooks_deliveries", "GET", "/webhooks/deliveries/",
       "The delivery attempts for one object, oldest first", "Webhooks", Page[WebhookDelivery],
       query=(Param("id", UUID, "The object", required=True),
              Param("source_type", str, f"One of {', '.join(SOURCE_TYPES)}", required=True),
              *PAGE),
       errors={400: "A missing or invalid `id` or `source_type`.",
               404: "No event of the merchant names the object; or a bad page."}),
    op("webhooks_read", "GET", "/webhooks/{id}/", "Retrieve a webhook", "Webhooks", Webhook),
    op("webhooks_update", "PUT", "/webhooks/{id}/", "Replace a webhook", "Webhooks", Webhook,
       body=WebhookInput),
    op("webhooks_partial_update", "PATCH", "/webhooks/{id}/", "Change a webhook", "Webhooks",
       Webhook, body=WebhookInput),
    op("webhooks_delete", "DELETE", "/webhooks/{id}/", "Delete a webhook", "Webhooks", None,
       status=204),
    op("public_key", "GET", "/public_key/", "The company key (PEM) that signs success callbacks",
       "Webhooks", str),
]  # fmt: skip

PURCHASE_STATUSES = tuple(
    sorted({s for pair in TRANSITIONS.items() for s in (pair[0][0], pair[1][0])})
)

# Fields the structs type as plain strings whose values the code fixes.
ENUMS: dict[tuple[type, str], tuple[str, ...]] = {
    (Purchase, "status"): PURCHASE_STATUSES,
    (StatusChange, "status"): PURCHASE_STATUSES,
    (Webhook, "events"): EVENTS,
}
