"""The gateway's routes: one table (and the pages it hosts outside /api/v1/)."""

from __future__ import annotations

from starlette.routing import Route

from emulator.gateway.account import routes as account
from emulator.gateway.billing import routes as billing
from emulator.gateway.clients import routes as clients
from emulator.gateway.payouts import routes as payouts
from emulator.gateway.purchases import routes as purchases
from emulator.gateway.purchases import routes_client_tokens as client_tokens
from emulator.gateway.statements import routes as company_statements
from emulator.gateway.webhooks import routes as webhooks

ROUTES = [
    Route("/clients/", clients.create, methods=["POST"]),
    Route("/clients/", clients.list_, methods=["GET"]),
    Route("/clients/{id}/", clients.read, methods=["GET"]),
    Route("/clients/{id}/", clients.replace, methods=["PUT"]),
    Route("/clients/{id}/", clients.patch, methods=["PATCH"]),
    Route("/clients/{id}/", clients.delete, methods=["DELETE"]),
    Route("/clients/{id}/recurring_tokens/", client_tokens.recurring_tokens, methods=["GET"]),
    Route(
        "/clients/{id}/recurring_tokens/{token}/", client_tokens.recurring_token, methods=["GET"]
    ),
    Route(
        "/clients/{id}/recurring_tokens/{token}/",
        client_tokens.delete_recurring_token,
        methods=["DELETE"],
    ),
    Route("/clients/{id}/feed/", clients.feed, methods=["GET"]),
    Route("/purchases/", purchases.create, methods=["POST"]),
    Route("/purchases/{id}/", purchases.read, methods=["GET"]),
    Route("/purchases/{id}/cancel/", purchases.cancel, methods=["POST"]),
    Route("/purchases/{id}/release/", purchases.release, methods=["POST"]),
    Route("/purchases/{id}/capture/", purchases.capture, methods=["POST"]),
    Route("/purchases/{id}/charge/", purchases.charge, methods=["POST"]),
    Route("/purchases/{id}/refund/", purchases.refund, methods=["POST"]),
    Route(
        "/purchases/{id}/delete_recurring_token/",
        purchases.delete_recurring_token,
        methods=["POST"],
    ),
    Route("/purchases/{id}/mark_as_paid/", purchases.mark_as_paid, methods=["POST"]),
    Route("/purchases/{id}/resend_invoice/", purchases.resend_invoice, methods=["POST"]),
    Route("/billing/", billing.invoices, methods=["POST"]),
    Route("/billing_templates/", billing.create, methods=["POST"]),
    Route("/billing_templates/", billing.list_, methods=["GET"]),
    # The OpenAPI document's subscriber path, before /billing_templates/{id}/clients/.
    Route("/billing_templates/clients/{subscriber_id}/", billing.subscriber, methods=["GET"]),
    Route(
        "/billing_templates/clients/{subscriber_id}/", billing.patch_subscriber, methods=["PATCH"]
    ),
    Route("/billing_templates/{id}/", billing.read, methods=["GET"]),
    Route("/billing_templates/{id}/", billing.replace, methods=["PUT"]),
    Route("/billing_templates/{id}/", billing.patch, methods=["PATCH"]),
    Route("/billing_templates/{id}/", billing.delete, methods=["DELETE"]),
    Route("/billing_templates/{id}/send_invoice/", billing.send_invoice, methods=["POST"]),
    Route("/billing_templates/{id}/add_subscriber/", billing.add_subscriber, methods=["POST"]),
    Route("/billing_templates/{id}/clients/", billing.subscribers, methods=["GET"]),
    Route("/billing_templates/{id}/clients/{subscriber_id}/", billing.subscriber, methods=["GET"]),
    Route(
        "/billing_templates/{id}/clients/{subscriber_id}/",
        billing.patch_subscriber,
        methods=["PATCH"],
    ),
    Route(
        "/billing_templates/{id}/clients/{subscriber_id}/",
        billing.delete_subscriber,
        methods=["DELETE"],
    ),
    Route("/payment_methods/", account.payment_methods, methods=["GET"]),
    Route("/account/json/balance/", account.balance, methods=["GET"]),
    Route("/account/json/turnover/", account.turnover, methods=["GET"]),
    Route("/company_statements/", company_statements.create, methods=["POST"]),
    Route("/company_statements/", company_statements.list_, methods=["GET"]),
    Route("/company_statements/{id}/", company_statements.read, methods=["GET"]),
    Route("/company_statements/{id}/cancel/", company_statements.cancel, methods=["POST"]),
    Route("/payouts/", payouts.create, methods=["POST"]),
    Route("/payouts/", payouts.list_, methods=["GET"]),
    Route("/payouts/{id}/", payouts.read, methods=["GET"]),
    Route("/webhooks/", webhooks.create, methods=["POST"]),
    Route("/webhooks/", webhooks.list_, methods=["GET"]),
    # Before /webhooks/{id}/, which would otherwise take "deliveries" for an id.
    Route("/webhooks/deliveries/", webhooks.deliveries, methods=["GET"]),
    Route("/webhooks/{id}/", webhooks.read, methods=["GET"]),
    Route("/webhooks/{id}/", webhooks.replace, methods=["PUT"]),
    Route("/webhooks/{id}/", webhooks.patch, methods=["PATCH"]),
    Route("/webhooks/{id}/", webhooks.delete, methods=["DELETE"]),
    Route("/public_key/", webhooks.public_key, methods=["GET"]),
]

# Pages the provider hosts for its objects, outside /api/v1/ and without a bearer header.
PAGES = [
    Route("/payouts/{id}/execute/{token}/", payouts.execute, methods=["POST"]),
    Route(
        "/company_statements/{id}/download/{token}/",
        company_statements.download,
        methods=["GET"],
    ),
]
