"""Helpers of the purchase tests: create a purchase, pay it, move the clock, read events."""

from __future__ import annotations

from typing import Any

import httpx

from emulator.runtime.runtime import Runtime

CARD = "4444333322221111"
SLOW = "4000000000000259"
THREE_DS_PASS = "5555555555554444"
THREE_DS_FAIL = "4000008400001629"
EXPIRES = "12/30"  # in the future of the tests' epoch (2026-01-05)


def purchase_body(merchant: dict[str, Any], **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "client": {"email": "payer@example.com", "country": "ZA"},
        "purchase": {"currency": "ZAR", "products": [{"name": "Widget", "price": 1000}]},
        "brand_id": merchant["brand_id"],
    }
    body.update(fields)
    return body


async def create(
    http: httpx.AsyncClient, gw: dict[str, str], merchant: dict[str, Any], **fields: Any
) -> dict[str, Any]:
    response = await http.post(
        "/api/v1/purchases/", json=purchase_body(merchant, **fields), headers=gw
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def get(http: httpx.AsyncClient, gw: dict[str, str], purchase_id: str) -> dict[str, Any]:
    response = await http.get(f"/api/v1/purchases/{purchase_id}/", headers=gw)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def pay(http: httpx.AsyncClient, purchase_id: str, **card: Any) -> httpx.Response:
    """Pay through the control plane (the payer, 3-D Secure completed at once)."""
    return await http.post(f"/_emulator/purchases/{purchase_id}/pay", json=card)


def form(number: str = CARD, **fields: str) -> dict[str, str]:
    values = {
        "cardholder_name": "Jane Payer",
        "card_number": number,
        "expires": EXPIRES,
        "cvc": "123",
    }
    values.update(fields)
    return values


async def advance(http: httpx.AsyncClient, seconds: int) -> None:
    response = await http.post("/_emulator/clock/advance", json={"seconds": seconds})
    assert response.status_code == 200, response.text


async def events(runtime: Runtime, object_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(event type, payload) of the outbox rows about ``object_id``, oldest first."""
    import msgspec

    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT event_type, payload FROM outbox_events WHERE object_id = ? ORDER BY seq",
            (object_id,),
        )
    )
    return [(r[0], msgspec.json.decode(r[1])) for r in rows]


def statuses(purchase: dict[str, Any]) -> list[str]:
    return [change["status"] for change in purchase["status_history"]]
