"""The gateway's routes: one table (and the pages it hosts outside /api/v1/)."""

from __future__ import annotations

from starlette.routing import Route

from emulator.http.gateway import clients, payouts, webhooks

ROUTES = [
    Route("/clients/", clients.create, methods=["POST"]),
    Route("/clients/", clients.list_, methods=["GET"]),
    Route("/clients/{id}/", clients.read, methods=["GET"]),
    Route("/clients/{id}/", clients.replace, methods=["PUT"]),
    Route("/clients/{id}/", clients.patch, methods=["PATCH"]),
    Route("/clients/{id}/", clients.delete, methods=["DELETE"]),
    Route("/clients/{id}/recurring_tokens/", clients.recurring_tokens, methods=["GET"]),
    Route("/clients/{id}/feed/", clients.feed, methods=["GET"]),
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
]
