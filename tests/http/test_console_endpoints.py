"""The control plane's reads the QA console uses: a merchant's objects of a kind (status and
id filters), one object with its history, events, deliveries and jobs, re-sending a
delivery; the console page itself, `GET /`, and the admin token kept in a cookie."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from emulator.serving.app import create_app
from tests.conftest import settings_for
from tests.http import purchase_helpers as purchases

DAY = 86_400
SINK = "http://127.0.0.1:8400/_emulator/sink/console"


async def payout(http: httpx.AsyncClient, gw: dict[str, str], merchant: dict[str, Any]) -> str:
    body = {
        "client": {"email": "payee@example.com"},
        "payment": {"amount": 1500, "currency": "ZAR", "description": "Refund"},
        "brand_id": merchant["brand_id"],
    }
    made = await http.post("/api/v1/payouts/", json=body, headers=gw)
    assert made.status_code == 201, made.text
    path = httpx.URL(made.json()["execution_url"]).path
    card = {"card_number": "5555555555554444", "cardholder_name": "Jane Doe",
            "expiry_month": "12", "expiry_year": "30"}  # fmt: skip
    executed = await http.post(path, json=card)
    assert executed.json()["status"] == "pending"
    return str(made.json()["id"])


async def test_a_merchants_objects_of_a_kind_filter_by_status_and_id(http, gw, merchant):
    first = await purchases.create(http, gw, merchant)
    second = await purchases.create(http, gw, merchant)
    paid = await purchases.pay(http, second["id"])
    assert paid.json()["status"] == "paid"
    base = f"/_emulator/merchants/{merchant['company_id']}/objects/purchases"
    every = (await http.get(base)).json()
    assert every["kind"] == "purchases"
    assert [o["id"] for o in every["objects"]] == [second["id"], first["id"]]  # newest first
    by_status = (await http.get(base, params={"status": "paid"})).json()["objects"]
    assert [o["id"] for o in by_status] == [second["id"]]
    by_id = (await http.get(base, params={"id": first["id"][-12:].upper()})).json()["objects"]
    assert [o["id"] for o in by_id] == [first["id"]]
    other = (await http.post("/_emulator/merchants")).json()
    elsewhere = f"/_emulator/merchants/{other['company_id']}/objects/purchases"
    assert (await http.get(elsewhere)).json()["objects"] == []  # tenancy


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/_emulator/merchants/{m}/objects/widgets", 404, "not_found"),
        ("/_emulator/merchants/nobody/objects/purchases", 404, "merchant_not_found"),
        ("/_emulator/merchants/{m}/objects/purchases?limit=0", 400, "invalid"),
        ("/_emulator/merchants/{m}/objects/purchases?status=" + "x" * 129, 400, "invalid"),
        ("/_emulator/objects/purchases/00000000-0000-4000-8000-000000000000", 404, "not_found"),
        ("/_emulator/objects/widgets/abc", 404, "not_found"),
    ],
)
async def test_object_reads_refuse_what_is_not_there(http, merchant, path, status, code):
    response = await http.get(path.replace("{m}", merchant["company_id"]))
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)


async def test_a_purchase_shows_its_history_events_and_deliveries(http, gw, merchant):
    made = await purchases.create(http, gw, merchant, success_callback=SINK)
    declined = await purchases.pay(http, made["id"], card_number="4000000000000002")
    assert declined.json()["status"] == "error"
    assert (await purchases.pay(http, made["id"])).json()["status"] == "paid"
    detail = (await http.get(f"/_emulator/objects/purchases/{made['id']}")).json()
    assert (detail["merchant"], detail["status"]) == (merchant["company_id"], "paid")
    assert detail["object"]["id"] == made["id"]
    assert [c["status"] for c in detail["history"]][-1] == "paid"
    assert "purchase.paid" in [e["event_type"] for e in detail["events"]]
    sent = detail["deliveries"]
    assert [(d["kind"], d["url"], d["success"]) for d in sent] == [("success_callback", SINK, True)]


async def test_a_pending_payout_shows_the_job_that_will_settle_it(http, gw, merchant):
    payout_id = await payout(http, gw, merchant)
    detail = (await http.get(f"/_emulator/objects/payouts/{payout_id.upper()}")).json()
    assert (detail["id"], detail["status"]) == (payout_id, "pending")
    assert [c["status"] for c in detail["history"]] == ["initialized", "pending"]
    assert "payout.settlement" in [j["kind"] for j in detail["jobs"]]
    assert {j["object_id"] for j in detail["jobs"]} == {payout_id}
    await http.post("/_emulator/clock/advance", json={"days": 3})
    settled = (await http.get(f"/_emulator/objects/payouts/{payout_id}")).json()
    assert settled["status"] == "success"
    assert "payout.settlement" not in [j["kind"] for j in settled["jobs"]]
    assert [c["status"] for c in settled["history"]] == ["initialized", "pending", "success"]


async def test_a_delivery_is_sent_again_as_a_new_message(http, gw, merchant):
    made = await purchases.create(http, gw, merchant, success_callback=SINK)
    await purchases.pay(http, made["id"])
    first = (await http.get("/_emulator/deliveries", params={"object_id": made["id"]})).json()
    [attempt] = first["deliveries"]
    again = await http.post(f"/_emulator/deliveries/{attempt['id']}/resend")
    assert again.status_code == 201
    resent = again.json()
    assert resent["message_id"] != attempt["message_id"]
    [copy] = resent["deliveries"]
    assert (copy["body"], copy["url"], copy["event_id"], copy["success"]) == (
        attempt["body"],
        attempt["url"],
        attempt["event_id"],
        True,
    )
    received = (await http.get("/_emulator/sink/console")).json()["messages"]
    assert len(received) == 2 and received[0]["body"] == received[1]["body"]
    for bad in ("999999", "abc", "0", str(2**70)):
        missing = await http.post(f"/_emulator/deliveries/{bad}/resend")
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")


async def test_the_console_page_and_the_root_redirect(http):
    root = await http.get("/")
    assert (root.status_code, root.headers["location"]) == (307, "/_emulator/")
    page = await http.get("/_emulator/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    text = page.text
    assert "SANDBOX" in text and "4000000000000002" in text
    assert "<script>" in text and "http://" not in text.split("<script>")[1]  # no CDN
    icon = await http.get("/favicon.ico")  # not a 404 in every page's log
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.text.startswith("<svg ")


async def test_the_admin_token_works_from_the_consoles_cookie(tmp_path: Path):
    settings = settings_for(tmp_path, host="0.0.0.0", admin_token="s3 cret;")
    async with Runtime(settings) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
            assert (await http.get("/_emulator/")).status_code == 200  # the page asks for it
            assert (await http.get("/_emulator/clock")).status_code == 401
            wrong = {"Cookie": "emulator_admin_token=nope"}
            assert (await http.get("/_emulator/clock", headers=wrong)).status_code == 401
            right = {"Cookie": "other=1; emulator_admin_token=s3%20cret%3B"}
            assert (await http.get("/_emulator/clock", headers=right)).status_code == 200
            bearer = {"Authorization": "Bearer s3 cret;"}
            assert (await http.get("/_emulator/clock", headers=bearer)).status_code == 200
            broken = {"Cookie": 'emulator_admin_token="'}
            assert (await http.get("/_emulator/clock", headers=broken)).status_code == 401
