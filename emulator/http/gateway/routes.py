"""The gateway's routes: one table."""

from __future__ import annotations

from starlette.routing import Route

from emulator.http.gateway import clients

ROUTES = [
    Route("/clients/", clients.create, methods=["POST"]),
    Route("/clients/", clients.list_, methods=["GET"]),
    Route("/clients/{id}/", clients.read, methods=["GET"]),
    Route("/clients/{id}/", clients.replace, methods=["PUT"]),
    Route("/clients/{id}/", clients.patch, methods=["PATCH"]),
    Route("/clients/{id}/", clients.delete, methods=["DELETE"]),
    Route("/clients/{id}/recurring_tokens/", clients.recurring_tokens, methods=["GET"]),
    Route("/clients/{id}/feed/", clients.feed, methods=["GET"]),
]
