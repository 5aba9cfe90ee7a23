"""Resending a purchase's invoice, and the issuer's bank accounts on purchases and payouts."""

from __future__ import annotations

from typing import Any

from tests.conftest import DEFAULT_KEY, EPOCH_S
from tests.http.purchase_helpers import create, events, get, pay, statuses

UNKNOWN = "00000000-0000-4000-8000-000000000000"
SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"
DEFAULT_BRAND = "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"


async def test_resend_invoice_sends_an_unpaid_purchase(http, merchant, gw, runtime):
    """200 with the purchase, now ``sent``; the emulator's purchase.invoice_resent event is
    recorded (the client's feed shows it)."""
    p = await create(http, gw, merchant)
    response = await http.post(f"/api/v1/purchases/{p['id']}/resend_invoice/", headers=gw)
    assert response.status_code == 200
    sent = response.json()
    assert sent == {
        **p,
        "status": "sent",
        "status_history": [
            {"status": "created", "timestamp": EPOCH_S},
            {"status": "sent", "timestamp": EPOCH_S},
        ],
    }
    assert await get(http, gw, p["id"]) == sent
    assert [kind for kind, _ in await events(runtime, p["id"])] == [
        "purchase.created",
        "purchase.invoice_resent",
    ]
    assert (await events(runtime, p["id"]))[-1][1] == sent
    feed = await http.get(f"/api/v1/clients/{p['client_id']}/feed/", headers=gw)
    newest = feed.json()["results"][0]
    assert (newest["event_type"], newest["object_id"]) == ("purchase.invoice_resent", p["id"])


async def test_resend_invoice_of_a_paid_purchase_keeps_its_status(http, merchant, gw, runtime):
    """A paid purchase is answered as it is; the resend is still recorded."""
    p = await create(http, gw, merchant)
    paid = (await pay(http, p["id"])).json()
    response = await http.post(f"/api/v1/purchases/{p['id']}/resend_invoice/", headers=gw)
    assert (response.status_code, response.json()) == (200, paid)
    assert statuses(response.json()) == ["created", "paid"]
    assert [kind for kind, _ in await events(runtime, p["id"])][-1] == "purchase.invoice_resent"


async def test_resend_invoice_goes_to_no_webhook(http, merchant, gw):
    """The event is the emulator's own (not in the document's Event enum): the delivery log
    of the purchase shows only the deliveries of the provider's events."""
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="resend")}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    p = await create(http, gw, merchant)
    await http.post(f"/api/v1/purchases/{p['id']}/resend_invoice/", headers=gw)
    log = await http.get(
        f"/api/v1/webhooks/deliveries/?id={p['id']}&source_type=Purchase", headers=gw
    )
    assert [a["event_type"] for a in log.json()["results"]] == ["purchase.created"]
    received = (await http.get("/_emulator/sink/resend")).json()["messages"]
    assert [m["json"]["event_type"] for m in received] == ["purchase.created"]


async def test_resend_invoice_of_an_unknown_purchase_is_a_404(http, gw, merchant):
    """Unknown or another merchant's purchase: 404 ``purchase_not_found``; a bad id: 400."""
    theirs = await create(
        http, {"Authorization": f"Bearer {DEFAULT_KEY}"}, {"brand_id": DEFAULT_BRAND}
    )
    for pid in (UNKNOWN, theirs["id"]):
        response = await http.post(f"/api/v1/purchases/{pid}/resend_invoice/", headers=gw)
        assert (response.status_code, response.json()) == (
            404,
            {"__all__": {"message": "No such object", "code": "purchase_not_found"}},
        )
    bad = await http.post("/api/v1/purchases/nope/resend_invoice/", headers=gw)
    assert (bad.status_code, bad.json()["id"]["code"]) == (400, "invalid_uuid")


async def test_the_default_merchant_issues_with_its_bank_account(http):
    """The fixtures' merchant: its account at Standard Bank, as every real webhook body
    lists the issuer's."""
    p = await create(http, {"Authorization": f"Bearer {DEFAULT_KEY}"}, {"brand_id": DEFAULT_BRAND})
    assert p["issuer_details"]["bank_accounts"] == [
        {"bank_account": "4052218811", "bank_code": "SBZAZAJJ"}
    ]


async def test_a_new_merchant_issues_with_its_bank_account(http, merchant, gw, v2):
    """A fresh merchant's account is the one its merchant profile collects into; purchases,
    their webhook bodies and payouts list it."""
    profiles = (await http.get("/v2/merchantprofile", headers=v2)).json()
    expected = [{"bank_account": profiles[0]["accountNumber"], "bank_code": "SBZAZAJJ"}]
    hook = {"title": "all", "all_events": True, "callback": SINK.format(name="issuer")}
    assert (await http.post("/api/v1/webhooks/", json=hook, headers=gw)).status_code == 201
    p = await create(http, gw, merchant)
    assert p["issuer_details"] == {
        "website": "",
        "legal_street_address": "",
        "legal_country": "",
        "legal_city": "",
        "legal_zip_code": "",
        "bank_accounts": expected,
        "legal_name": merchant["name"],
        "brand_name": merchant["name"],
        "registration_number": "",
        "tax_number": "",
    }
    [message] = (await http.get("/_emulator/sink/issuer")).json()["messages"]
    assert message["json"]["issuer_details"]["bank_accounts"] == expected
    payout: dict[str, Any] = (
        await http.post(
            "/api/v1/payouts/",
            json={
                "client": {"email": "payee@example.com"},
                "payment": {"amount": 100, "currency": "ZAR"},
                "brand_id": merchant["brand_id"],
            },
            headers=gw,
        )
    ).json()
    assert payout["issuer_details"]["bank_accounts"] == expected
