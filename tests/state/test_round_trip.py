"""An export re-imported into a fresh emulator: the same objects, ids, statuses and answers."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import check_against_the_document, settings_for, token_for
from tests.http.bank_helpers import debicheck_body, eft_body
from tests.http.purchase_helpers import purchase_body

pytestmark = pytest.mark.slow  # three days of every object kind's jobs, twice

SCENARIO = """\
name: slow-webhooks
rules:
  - when: webhook.delivery
    then: {delay_seconds: 5}
    times: 3
"""


@contextlib.asynccontextmanager
async def emulator(path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with Runtime(settings_for(path)) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        hooks = {"response": [check_against_the_document]}
        async with httpx.AsyncClient(
            transport=transport, base_url="http://emulator", event_hooks=hooks
        ) as client:
            yield client


async def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


async def build(http: httpx.AsyncClient) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """A merchant with one object of every kind; (gateway headers, v2 headers, GET paths)."""
    merchant = await ok(await http.post("/_emulator/merchants"), 201)
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    v2 = {
        "Authorization": f"Bearer {await token_for(http, merchant['client_id'], merchant['client_secret'])}"
    }
    profile = merchant["profiles"][0]["profileCode"]
    hook = {"title": "all", "all_events": True, "callback": "https://merchant.example/hook"}
    webhook = await ok(await http.post("/api/v1/webhooks/", json=hook, headers=gw), 201)
    client = await ok(
        await http.post("/api/v1/clients/", json={"email": "a@example.com"}, headers=gw), 201
    )
    created = await ok(
        await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw), 201
    )
    paid = await ok(
        await http.post("/api/v1/purchases/", json=purchase_body(merchant), headers=gw), 201
    )
    await ok(await http.post(f"/_emulator/purchases/{paid['id']}/pay", json={}))
    payout_body = {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 1500, "currency": "ZAR", "description": "Refund"},
        "brand_id": merchant["brand_id"],
    }
    payout = await ok(await http.post("/api/v1/payouts/", json=payout_body, headers=gw), 201)
    template_body = {
        "purchase": {"currency": "ZAR", "products": [{"name": "Plan", "price": 1000}]},
        "is_subscription": True,
        "brand_id": merchant["brand_id"],
    }
    template = await ok(
        await http.post("/api/v1/billing_templates/", json=template_body, headers=gw), 201
    )
    added = await ok(
        await http.post(
            f"/api/v1/billing_templates/{template['id']}/add_subscriber/",
            json={"client_id": client["id"]},
            headers=gw,
        )
    )
    statement = await ok(await http.post("/api/v1/company_statements/", headers=gw), 201)
    collection = await ok(
        await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2), 201
    )
    mandate = await ok(
        await http.post("/v2/mandate/debicheck", json=debicheck_body(profile), headers=v2), 201
    )
    payment_body = {
        "debtor": {
            "accountNumber": "4052218811",
            "branchCode": "051001",
            "accountType": "CURRENT",
            "name": "J Doe",
        },
        "creditor": {"accountNumber": "62000000001", "branchCode": "250655", "name": "S"},
        "amountCents": 250_000,
        "paymentDate": "2026-01-05T00:00:00Z",
        "profileCode": profile,
        "abbreviatedName": "PAYROLL",
        "contractReference": "INV-1",
        "serviceType": "ONEDAY",
        "externalReference": "PAY-1",
    }
    payment = await ok(await http.post("/v2/payment/eft", json=payment_body, headers=v2), 201)
    number = merchant["profiles"][0]["createdByClient"]
    callback = {
        "clientId": number,
        "url": "https://merchant.example/cb",
        "callbackType": "EFT_COLLECTION",
        "callbackVersion": "V2",
    }
    await ok(await http.post("/v2/clientcallbackurl/", json=callback, headers=v2))
    await ok(await http.post("/_emulator/scenarios", content=SCENARIO), 201)
    scope = {"merchant": merchant["company_id"]}
    await ok(await http.post("/_emulator/scenarios/slow-webhooks/activate", json=scope))
    header = "profileCode,externalReference,abbreviatedName,contractReference,amountCents,"
    header += "paymentDate,serviceType,realTimeClearing,debtor.accountNumber,debtor.branchCode,"
    header += "creditor.accountNumber,creditor.branchCode,creditor.name"
    row = f"{profile},B-1,PAYROLL,INV-1,1000,2026-01-05T00:00:00Z,ONEDAY,true,4052218811,051001,"
    row += "110000001,250655,Ann"
    upload = await ok(
        await http.post(
            "/v2/payment/eft/upload/csv",
            content=f"{header}\n{row}\nNOPE,B-2".encode(),
            headers={**v2, "Content-Type": "text/csv"},
        )
    )
    windows = f"/_emulator/merchants/{merchant['company_id']}/debicheck-windows"
    await ok(await http.put(windows, json={"realtime_seconds": 300}))
    with_callback = purchase_body(merchant, success_callback="https://merchant.example/ok")
    called = await ok(await http.post("/api/v1/purchases/", json=with_callback, headers=gw), 201)
    await ok(await http.post(f"/_emulator/purchases/{called['id']}/pay", json={}))
    await ok(await http.post("/_emulator/clock/advance", json={"days": 3}))  # outcomes, statements
    fresh = await token_for(http, merchant["client_id"], merchant["client_secret"])
    v2 = {"Authorization": f"Bearer {fresh}"}  # the first expired
    subscriber = added["billing_template_client"]["id"]
    paths = [
        f"/api/v1/webhooks/{webhook['id']}/",
        "/api/v1/webhooks/",
        f"/api/v1/clients/{client['id']}/",
        "/api/v1/clients/",
        f"/api/v1/purchases/{created['id']}/",
        f"/api/v1/purchases/{paid['id']}/",
        f"/api/v1/payouts/{payout['id']}/",
        f"/api/v1/billing_templates/{template['id']}/",
        "/api/v1/billing_templates/",
        f"/api/v1/billing_templates/{template['id']}/clients/{subscriber}/",
        f"/api/v1/company_statements/{statement['id']}/",
        "/api/v1/company_statements/",
        "/api/v1/account/json/balance/",
        "/api/v1/account/json/turnover/",
        f"/api/v1/clients/{client['id']}/recurring_tokens/",
        f"/v2/collection/eft/{collection['id']}/status",
        f"/v2/mandate/debicheck/{mandate['id']}/status",
        f"/v2/payment/eft/{payment['id']}/status",
        f"/v2/collection/eft/download/csv/{upload['bulkUploadId']}",
        f"/_emulator/merchants/{merchant['company_id']}/debicheck-windows",
        "/v2/mandate/eft",
        "/v2/collection/debicheck",
        "/v2/merchantprofile",
        "/v2/event/collection",
        "/v2/event/mandate",
        "/v2/event/payment",
    ]
    return gw, v2, paths


async def answers(
    http: httpx.AsyncClient, gw: dict[str, str], v2: dict[str, str], paths: list[str]
) -> dict[str, tuple[int, Any]]:
    out = {}
    for path in paths:
        response = await http.get(path, headers=v2 if path.startswith("/v2/") else gw)
        is_json = response.headers.get("content-type", "").startswith("application/json")
        out[path] = (response.status_code, response.json() if is_json else response.text)
    return out


async def test_an_export_imported_into_a_fresh_emulator_answers_the_same(tmp_path: Path) -> None:
    async with emulator(tmp_path / "a") as first:
        gw, v2, paths = await build(first)
        before = await answers(first, gw, v2, paths)
        bad = {p: a for p, a in before.items() if a[0] != 200}
        assert not bad, bad
        exported = (await first.get("/_emulator/export")).text
        as_json = await ok(await first.get("/_emulator/export", params={"format": "json"}))
        assert yaml.safe_load(exported) == as_json
        await ok(await first.post("/_emulator/clock/advance", json={"days": 3}))
        later = await answers(first, gw, v2, paths)

    async with emulator(tmp_path / "b") as second:
        loaded = await ok(
            await second.post(
                "/_emulator/import", content=exported, headers={"Content-Type": "application/yaml"}
            )
        )
        assert loaded["loaded"] is True
        assert await answers(second, gw, v2, paths) == before
        assert (await second.get("/_emulator/export")).text == exported  # stable, and whole
        # the jobs came with it: the same future
        await ok(await second.post("/_emulator/clock/advance", json={"days": 3}))
        assert await answers(second, gw, v2, paths) == later
