"""The QA console (``/_emulator/``): one server-rendered page whose script drives the
documented control plane and the API, nothing else. Its stylesheet and script ship in the
package and are inlined: no CDN, it works offline. ``GET /`` redirects here."""

from __future__ import annotations

from html import escape
from importlib.resources import files
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from emulator import __version__
from emulator.domain.cards import DECLINE_MESSAGES
from emulator.gateway.webhooks.rules import EVENTS
from emulator.http.common import runtime
from emulator.sandbox.console.routes_template import TEMPLATE

KINDS = (
    ("purchases", "Purchases"),
    ("clients", "Clients"),
    ("payouts", "Payouts"),
    ("billing_templates", "Billing templates"),
    ("billing_subscribers", "Billing subscribers"),
    ("mandates", "Mandates"),
    ("collections", "Collections"),
    ("payments", "Payments"),
)
SECTIONS = (
    ("holds", "Holds"),
    ("merchants", "Merchants"),
    ("clock", "Clock"),
    ("schedule", "Next"),
    ("create", "Create"),
    ("objects", "Objects"),
    ("deliveries", "Deliveries"),
    ("journal", "Journal"),
    ("sink", "Sink"),
    ("expectations", "Expectations"),
    ("receiver", "Receiver check"),
    ("flows", "Flows"),
    ("scenarios", "Scenarios"),
    ("snapshots", "Snapshots"),
    ("test-values", "Test values"),
)


def asset(name: str) -> str:
    return files("emulator.sandbox.console").joinpath("static", name).read_text(encoding="utf-8")


def _cards(values: dict[str, Any]) -> str:
    cards = values.get("cards")
    rows = []
    for card in cards if isinstance(cards, list) else []:
        if isinstance(card, dict):
            number = escape(str(card.get("number", "")))
            rows.append(
                f"<tr><td><code>{number}</code></td>"
                f"<td>{escape(str(card.get('purchase', '')))}</td>"
                f"<td>{escape(str(card.get('payout', '')))}</td></tr>"
            )
    return (
        "<table><thead><tr><th>Card</th><th>Purchase</th><th>Payout</th></tr></thead>"
        f'<tbody id="test-cards">{"".join(rows)}</tbody></table>'
        "<p>Any cardholder name; expiry this month or later; CVC 123.</p>"
    )


def _card_options(values: dict[str, Any]) -> str:
    cards = values.get("cards")
    options = []
    for card in cards if isinstance(cards, list) else []:
        if isinstance(card, dict):
            number = escape(str(card.get("number", "")), quote=True)
            outcome = escape(str(card.get("purchase", "")))
            options.append(f'<option value="{number}">{number}: {outcome}</option>')
    return "".join(options)


def _options(values: dict[str, Any], key: str, label: str, value: str = "number") -> str:
    """Options of a select from a list of the test values: each entry's ``value`` and, in
    its text, its ``label`` (the card's outcome for a payout, a code's text...)."""
    entries = values.get(key)
    options = []
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get(label) and str(entry.get(value, "")).isdigit():
            said = escape(str(entry[value]), quote=True)
            extra = escape(str(entry.get("consequence", "")), quote=True)
            options.append(
                f'<option value="{said}" data-consequence="{extra}">'
                f"{said}: {escape(str(entry[label]))}</option>"
            )
    return "".join(options)


def _create_templates(values: dict[str, Any]) -> str:
    """What the create forms and the actions choose from: the payout cards, the bank's test
    accounts, the schedule of unpaid codes, the webhook events and the decline reasons."""
    events = "".join(f'<option value="{e}">{e}</option>' for e in EVENTS)
    declines = "".join(f'<option value="{code}">{code}</option>' for code in DECLINE_MESSAGES)
    return (
        f'<template id="payout-card-options">{_options(values, "cards", "payout")}</template>'
        f'<template id="account-options">{_options(values, "accounts", "outcome")}</template>'
        '<template id="unpaid-options">'
        f"{_options(values, 'unpaid_codes', 'text', 'code')}</template>"
        f'<template id="event-options">{events}</template>'
        f'<template id="decline-options">{declines}</template>'
    )


def page(values: dict[str, Any]) -> str:
    nav = "".join(f'<a href="#{key}">{escape(title)}</a>' for key, title in SECTIONS)
    kinds = "".join(f'<option value="{key}">{escape(title)}</option>' for key, title in KINDS)
    body = TEMPLATE.format(
        version=escape(__version__),
        nav=nav,
        kinds=kinds,
        cards=_cards(values),
        card_options=_card_options(values),
        create_templates=_create_templates(values),
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>QA console: payments emulator (sandbox)</title>"
        f'<link rel="icon" href="{FAVICON}">'
        f"<style>{asset('console.css')}</style></head><body>{body}"
        f"<script>{asset('console.js')}</script>"
        f"<script>{asset('console_expect.js')}</script>"
        f"<script>{asset('console_receiver.js')}</script>"
        f"<script>{asset('console_deliveries.js')}</script>"
        f"<script>{asset('console_holds.js')}</script>"
        f"<script>{asset('console_flows.js')}</script>"
        f"<script>{asset('console_create.js')}</script>"
        f"<script>{asset('console_nav.js')}</script>"
        f"<script>{asset('console_why.js')}</script></body></html>\n"
    )


async def console(request: Request) -> Response:
    return HTMLResponse(page(runtime(request).test_values))


async def to_console(request: Request) -> Response:
    return RedirectResponse("/_emulator/", status_code=307)


ROUTES = [Route("/", console, methods=["GET"])]
# the page's icon, inline (no request for /favicon.ico; the payer's pages ask for it)
FAVICON = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
    "%3Crect width='16' height='16' rx='3' fill='%232450b8'/%3E%3Cpath d='M3 6h10v2H3zm0 3h6v2H3z'"
    " fill='%23fff'/%3E%3C/svg%3E"
)


async def favicon(request: Request) -> Response:
    """What a browser asks for on a page without an icon link (the payer's pages)."""
    return Response(unquote(FAVICON.split(",", 1)[1]), media_type="image/svg+xml")


ROOT = [
    Route("/", to_console, methods=["GET"]),
    Route("/favicon.ico", favicon, methods=["GET"]),
]
