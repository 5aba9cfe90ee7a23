"""Shared bodies and helpers of the v2 tests."""

from __future__ import annotations

from typing import Any

import httpx

ERROR_400 = {"formatters": [], "contentTypes": [], "declaredType": None, "statusCode": 400}


def bad_request(message: Any) -> dict[str, Any]:
    return {"value": {"Message": message}, **ERROR_400}


def debtor(account: str = "110000001", branch: str = "051001") -> dict[str, Any]:
    return {
        "accountNumber": account,
        "branchCode": branch,
        "accountType": "CURRENT",
        "name": "J Doe",
    }


def eft_body(profile: str, reference: str = "REF-1", **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "debtor": debtor(),
        "amountCents": 12_345,
        "currency": "ZAR",
        "serviceType": "ONEDAY",
        "profileCode": profile,
        "externalReference": reference,
        "abbreviatedName": "GYM",
        "contractReference": "C-1",
        "frequency": "MONTHLY",
        "entryClass": "35",
    }
    body.update(changes)
    return body


def debicheck_body(profile: str, reference: str = "DC-1", **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "debtor": debtor("62000000001", "250655"),
        "profileCode": profile,
        "externalReference": reference,
        "contractReference": "C-9",
        "authenticationType": "REALTIME",
        "maxAmountCents": 50_000,
        "debitSequence": "RCUR",
        "trackingEnabled": True,
    }
    body.update(changes)
    return body


async def advance(http: httpx.AsyncClient, seconds: float) -> None:
    response = await http.post("/_emulator/clock/advance", json={"seconds": seconds})
    assert response.status_code == 200, response.text


async def advance_to(http: httpx.AsyncClient, instant: str) -> None:
    response = await http.post("/_emulator/clock/advance", json={"to": instant})
    assert response.status_code == 200, response.text


async def fresh_headers(http: httpx.AsyncClient, merchant: dict[str, Any]) -> dict[str, str]:
    """A new token for ``merchant`` (after the clock moved past the first one's 24 hours)."""
    response = await http.post(
        "/oauth2/token",
        auth=(merchant["client_id"], merchant["client_secret"]),
        data={"grant_type": "client_credentials"},
    )
    return {"Authorization": f"Bearer {response.json()['access_token']}"}
