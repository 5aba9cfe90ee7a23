"""``GET /_emulator/merchants/{company_id}/flow.yaml`` (issue 27): a session a tester drove by
hand (API calls with the merchant's credentials, the other side's moves through the control
plane and the payout page, clock advances) recorded as a flow, which replays on a fresh
merchant to the same final statuses and the same deliveries by event type and count."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import httpx
import yaml

from emulator.flows.parse import parse
from emulator.flows.record import Call, Move, Session, duration, record
from emulator.flows.report import text
from emulator.flows.runner import Runner
from tests.conftest import token_for
from tests.http.bank_helpers import debicheck_body

SINK_URL = "http://127.0.0.1:8400/_emulator/sink"  # loopback: a callback URL the sink receives
KINDS = ("purchases", "payouts", "mandates", "collections", "billing_subscribers")


async def own_merchant(http: httpx.AsyncClient) -> dict[str, Any]:
    body = {"clock": {"mode": "frozen", "now": "2026-03-02T08:00:00Z"}}
    answer = await http.post("/_emulator/merchants", json=body)
    assert answer.status_code == 201, answer.text
    merchant: dict[str, Any] = answer.json()
    return merchant


async def advance(http: httpx.AsyncClient, merchant: dict[str, Any], **how: Any) -> None:
    path = f"/_emulator/merchants/{merchant['company_id']}/clock/advance"
    assert (await http.post(path, json=how)).status_code == 200


async def outcome(http: httpx.AsyncClient, company_id: str) -> dict[str, Any]:
    """What a replay must reproduce: statuses of each kind, deliveries by kind and event."""
    statuses = {}
    for kind in KINDS:
        found = await http.get(f"/_emulator/merchants/{company_id}/objects/{kind}")
        statuses[kind] = sorted(str(o.get("status")) for o in found.json()["objects"])
    sent = await http.get("/_emulator/deliveries", params={"merchant": company_id, "limit": 1000})
    deliveries = Counter(
        (d["kind"], d["event_type"], d["success"]) for d in sent.json()["deliveries"]
    )
    return {"statuses": statuses, "deliveries": dict(deliveries)}


async def round_trip(http: httpx.AsyncClient, merchant: dict[str, Any]) -> str:
    """Export the merchant's session, replay it on a fresh merchant, compare the two."""
    company_id = merchant["company_id"]
    answer = await http.get(f"/_emulator/merchants/{company_id}/flow.yaml")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/yaml")
    flow = parse(answer.text)
    runner = Runner(http, keep=True, url="http://127.0.0.1:8400")
    report = await runner.run(flow, "replay")
    assert report.state == "passed", text(report) + "\n\n" + answer.text
    assert report.merchant is not None and report.merchant != company_id
    assert await outcome(http, report.merchant) == await outcome(http, company_id)
    return answer.text


async def test_a_card_purchase_story_replays(http: httpx.AsyncClient) -> None:
    merchant = await own_merchant(http)
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    hook = {"title": "shop", "callback": f"{SINK_URL}/rec-card",
            "events": ["purchase.paid", "purchase.payment_failure", "payment.refunded"]}  # fmt: skip
    assert (await http.post("/api/v1/webhooks/", headers=gw, json=hook)).status_code == 201
    body = {"brand_id": merchant["brand_id"], "client": {"email": "payer@example.com"},
            "purchase": {"products": [{"name": "Book", "price": 25000}]},
            "success_callback": f"{SINK_URL}/rec-card-success"}  # fmt: skip
    purchase = (await http.post("/api/v1/purchases/", headers=gw, json=body)).json()
    form = {"card_number": "4000000000000002", "expires": "12/30", "cvc": "123",
            "cardholder_name": "J Doe"}  # fmt: skip
    declined = await http.post(f"/p/{purchase['id']}/", data=form)  # the checkout page's form
    assert declined.status_code in (200, 303), declined.text
    pay = f"/_emulator/purchases/{purchase['id']}/pay"
    await advance(http, merchant, minutes=5)
    assert (await http.post(pay, json={"card_number": "4444333322221111"})).status_code == 200
    await advance(http, merchant, days=2)
    refund = f"/api/v1/purchases/{purchase['id']}/refund/"
    assert (await http.post(refund, headers=gw, json={"amount": 5000})).status_code == 200
    await http.get(f"/api/v1/purchases/{purchase['id']}/", headers=gw)  # a read: not replayed

    flow = await round_trip(http, merchant)
    steps = yaml.safe_load(flow)["steps"]
    assert [next(iter(s)) for s in steps] == [
        "call", "call", "act", "advance", "act", "advance", "call", "expect",
    ]  # fmt: skip
    card = {"card" if k == "card_number" else k: v for k, v in form.items()}
    assert steps[2]["act"] == {"pay": "${purchase_1.id}", **card}  # the form as the act's keys
    assert steps[3] == {"advance": "5m"} and steps[5] == {"advance": "2d"}
    assert steps[1]["call"]["body"]["brand_id"] == "${merchant.brand_id}"
    assert steps[6]["call"]["path"] == "/api/v1/purchases/${purchase_1.id}/refund/"
    paid = {"transition": {"object_id": "${purchase_1.id}", "status": "paid"}}
    assert paid in steps[7]["expect"]["wait"]  # a wait: it holds deliveries


async def test_a_payout_story_replays(http: httpx.AsyncClient) -> None:
    merchant = await own_merchant(http)
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    hook = {"title": "app", "callback": f"{SINK_URL}/rec-payout",
            "events": ["payout.success", "payout.failed"]}  # fmt: skip
    assert (await http.post("/api/v1/webhooks/", headers=gw, json=hook)).status_code == 201
    card = {"cardholder_name": "Jane", "expiry_month": "12", "expiry_year": "30"}
    payouts = []
    for number in ("5555555555554444", "5555555555554444"):
        body = {"brand_id": merchant["brand_id"], "client": {"email": "payee@example.com"},
                "payment": {"amount": 5000, "currency": "ZAR", "description": "x"}}  # fmt: skip
        payout = (await http.post("/api/v1/payouts/", headers=gw, json=body)).json()
        execute = httpx.URL(payout["execution_url"]).path
        done = await http.post(execute, json={**card, "card_number": number})
        assert done.status_code == 200 and done.json()["status"] == "pending"
        payouts.append(payout)
    settle = f"/_emulator/payouts/{payouts[1]['id']}/settle"
    assert (await http.post(settle, json={"status": "failed"})).status_code == 200
    await advance(http, merchant, days=3)

    flow = await round_trip(http, merchant)
    acts = [s["act"] for s in yaml.safe_load(flow)["steps"] if "act" in s]
    assert acts == [
        {"execute_payout": "${payout_1.id}", "card": "5555555555554444", "cardholder_name": "Jane"},
        {"execute_payout": "${payout_2.id}", "card": "5555555555554444", "cardholder_name": "Jane"},
        {"settle_payout": "${payout_2.id}", "status": "failed"},
    ]


async def test_a_debit_order_story_replays(http: httpx.AsyncClient) -> None:
    merchant = await own_merchant(http)
    v2 = {
        "Authorization": f"Bearer {await token_for(http, merchant['client_id'], merchant['client_secret'])}"
    }
    profile = merchant["profiles"][0]
    for kind in ("DEBICHECK_MANDATE", "DEBICHECK_COLLECTION"):
        register = {"clientId": profile["createdByClient"], "url": f"{SINK_URL}/rec-bank",
                    "callbackType": kind, "callbackVersion": "V2"}  # fmt: skip
        assert (await http.post("/v2/clientcallbackurl/", headers=v2, json=register)).is_success
    mandate = await http.post(
        "/v2/mandate/debicheck", headers=v2, json=debicheck_body(profile["profileCode"])
    )
    assert mandate.status_code == 201, mandate.text
    mandate_id = mandate.json()["id"]
    assert (await http.post(f"/_emulator/mandates/{mandate_id}/authorise")).status_code == 200
    body = {"mandateId": mandate_id, "amountCents": 10000, "externalReference": "DC-1-1"}
    first = await http.post("/v2/collection/debicheck/from_mandate", headers=v2, json=body)
    assert first.status_code == 201, first.text
    unpaid = {"status": "UNPAID", "reasonCode": "02"}
    settle = f"/_emulator/collections/{first.json()['id']}/settle"
    assert (await http.post(settle, json=unpaid)).status_code == 200
    await advance(http, merchant, hours=12)  # (its OAuth token lasts 24 hours)
    again = {"mandateId": mandate_id, "debitSequence": "RPRE", "externalReference": "DC-1-2"}
    second = await http.post("/v2/collection/debicheck/from_mandate", headers=v2, json=again)
    assert second.status_code == 201, second.text
    await advance(http, merchant, days=5)

    flow = await round_trip(http, merchant)
    steps = yaml.safe_load(flow)["steps"]
    assert {"act": {"authorise_mandate": "${mandate_1.id}"}} in steps
    assert steps[-1]["expect"], flow


async def test_a_fifty_step_session_exports_quickly_and_replays(
    http: httpx.AsyncClient,
) -> None:
    """The issue's figure: a recorded 50-step session exports in at most 100 ms."""
    merchant = await own_merchant(http)
    gw = {"Authorization": f"Bearer {merchant['api_key']}"}
    for i in range(25):
        body = {"brand_id": merchant["brand_id"], "client": {"email": f"p{i}@example.com"},
                "purchase": {"products": [{"name": "x", "price": 100 + i}]}}  # fmt: skip
        purchase = (await http.post("/api/v1/purchases/", headers=gw, json=body)).json()
        assert (await http.post(f"/_emulator/purchases/{purchase['id']}/pay")).status_code == 200
    company_id = merchant["company_id"]
    started = time.perf_counter()
    answer = await http.get(f"/_emulator/merchants/{company_id}/flow.yaml")
    ms = (time.perf_counter() - started) * 1000
    steps = yaml.safe_load(answer.text)["steps"]
    assert len(steps) == 51  # 25 creates, 25 payments, the expectations
    print(f"\na recorded 50-step session exported in {ms:.1f} ms")
    await round_trip(http, merchant)


async def test_an_unknown_merchant_is_a_404(http: httpx.AsyncClient) -> None:
    answer = await http.get("/_emulator/merchants/no-such-merchant/flow.yaml")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "merchant_not_found"


def test_the_transformation_references_ids_and_advances() -> None:
    """The pure part alone: an id in a later path becomes a reference to the answer that made
    it, a gap becomes an advance, a body that is not JSON is left out with a comment."""
    merchant = {"company_id": "c0", "brand_id": "b1", "profiles": []}
    made = '{"id": "5b7e1c2a-0000-4000-8000-000000000001", "type": "purchase"}'
    calls = [
        Call(1, 0, "gateway", "POST", "/api/v1/purchases/", "", 201, '{"brand_id": "b1"}', made),
        Call(2, 90_000_000, "gateway", "POST",
             "/api/v1/purchases/5b7e1c2a-0000-4000-8000-000000000001/cancel/", "", 200, "", "{}"),
        Call(3, 90_000_000, "gateway", "POST", "/api/v1/clients/", "", 400, "a=b", "{}"),
        Call(4, 90_000_000, "gateway", "DELETE", "/api/v1/clients/x/", "all=1", 204, "", ""),
    ]  # fmt: skip
    moves = [Move(1, 0, "pay", "5b7e1c2a-0000-4000-8000-000000000001", {"card": "4444"})]
    session = Session("s", merchant, calls, moves, 0, 86_400_000_000, [], {("webhook", "x"): 2})
    steps = yaml.safe_load(record(session))["steps"]
    assert steps[0]["call"]["save"] == "purchase_1"
    assert steps[0]["call"]["body"] == {"brand_id": "${merchant.brand_id}"}
    assert steps[1] == {"act": {"pay": "${purchase_1.id}", "card": "4444"}}
    assert steps[2] == {"advance": "1m30s"}
    assert steps[3]["call"]["path"] == "/api/v1/purchases/${purchase_1.id}/cancel/"
    assert steps[4]["call"]["query"] == {"all": "1"} and "body" not in steps[4]["call"]
    assert steps[5] == {"advance": "23h58m30s"}
    expected = [{"delivery": {"event": "x", "kind": "webhook"}, "count": 2}]
    assert steps[6] == {"expect": {"wait": expected, "timeout": "10s"}}
    assert "# POST /api/v1/clients/: a body that is not JSON, left out" in record(session)
    assert duration(1_500) == "2ms" and duration(3 * 86_400_000_000) == "3d"
