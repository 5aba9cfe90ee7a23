"""The bills of one instant: every subscriber of a template bills at the same instant (the
jobs of an instant share their reads of the template and the merchant, kernel.steps); each
bill is its own, a declined one fails alone, and a template changed between two instants
bills its new data at the next one."""

from __future__ import annotations

from tests.http.billing_helpers import (
    TEMPLATES,
    add_subscriber,
    create_template,
    get_subscriber,
    pay_purchase,
    without_retention,  # noqa: F401 - the fixture "runtime", retention off
)
from tests.http.purchase_helpers import events, form
from tests.http.test_billing_engine import BILL_EVENTS, advance_to, at, bills

FAILED = ["purchase.created", "purchase.subscription_charge_failure"]


async def subscribers(http, gw, t, count: int, expiring: int | None = None) -> list[dict]:
    """``count`` subscribers of ``t`` whose first purchases are paid now; the one at index
    ``expiring`` with a card that expires at the end of this month (2026-01)."""
    subs = []
    for n in range(count):
        added = await add_subscriber(http, gw, t["id"])
        card = form(expires="01/26") if n == expiring else {}
        await pay_purchase(http, added["purchase"]["id"], **card)
        subs.append(added)
    return subs


async def test_one_instants_bills_are_each_charged_and_a_declined_one_fails_alone(
    http, merchant, gw, runtime
):
    t = await create_template(http, gw, merchant)
    subs = await subscribers(http, gw, t, 5, expiring=2)
    firsts = {s["purchase"]["id"] for s in subs}
    await advance_to(http, "2026-02-05T00:00:00Z")
    made = [p for p in await bills(http, gw, runtime, t["id"]) if p["id"] not in firsts]
    assert [p["client_id"] for p in made] == [s["purchase"]["client_id"] for s in subs]
    assert {p["created_on"] for p in made} == {at("2026-02-05T00:00:00Z")}
    assert [p["status"] for p in made] == ["paid", "paid", "sent", "paid", "paid"]
    assert made[2]["transaction_data"]["attempts"][0]["error"] is not None
    assert len({p["id"] for p in made}) == 5 and len({p["reference_generated"] for p in made}) == 5
    # each bill has the template's data and the merchant as issuer, as a bill alone has
    assert {p["purchase"]["total"] for p in made} == {1000}
    assert all(p["issuer_details"] == made[0]["issuer_details"] for p in made)
    assert made[0]["issuer_details"]["bank_accounts"]
    kinds = [[k for k, _ in await events(runtime, p["id"])] for p in made]
    assert kinds == [BILL_EVENTS, BILL_EVENTS, FAILED, BILL_EVENTS, BILL_EVENTS]
    # bill after bill: no bill's events come between another's
    ids = {p["id"] for p in made}
    rows = await runtime.db.read(
        lambda tx: tx.all("SELECT event_type, object_id FROM outbox ORDER BY seq")
    )
    in_order = [(kind, oid) for kind, oid in rows if oid in ids]
    assert in_order == [(k, p["id"]) for p, ks in zip(made, kinds, strict=True) for k in ks]
    for n, s in enumerate(subs):
        now = await get_subscriber(http, gw, t["id"], s["billing_template_client"]["id"])
        assert now["number_of_billing_cycles_passed"] == (1 if n == 2 else 2)
        assert now["subscription_billing_scheduled_on"] == "2026-03-05"
    # the declined bill, paid later by its payer, still counts for its subscriber
    await pay_purchase(http, made[2]["id"])
    now = await get_subscriber(http, gw, t["id"], subs[2]["billing_template_client"]["id"])
    assert now["number_of_billing_cycles_passed"] == 2


async def test_a_template_changed_between_two_instants_bills_its_new_data_next(
    http, merchant, gw, runtime
):
    t = await create_template(http, gw, merchant)
    subs = await subscribers(http, gw, t, 3)
    firsts = {s["purchase"]["id"] for s in subs}
    await advance_to(http, "2026-02-05T00:00:00Z")
    body = {"purchase": {"currency": "ZAR", "products": [{"name": "Plan", "price": 2500}]}}
    response = await http.patch(f"{TEMPLATES}{t['id']}/", json=body, headers=gw)
    assert response.status_code == 200, response.text
    await advance_to(http, "2026-03-05T00:00:00Z")
    made = [p for p in await bills(http, gw, runtime, t["id"]) if p["id"] not in firsts]
    assert [(p["created_on"], p["purchase"]["total"], p["status"]) for p in made] == [
        (at("2026-02-05T00:00:00Z"), 1000, "paid")
    ] * 3 + [(at("2026-03-05T00:00:00Z"), 2500, "paid")] * 3


async def test_a_bill_whose_token_was_deleted_fails_alone(http, merchant, gw, runtime):
    """Each bill reads its own token with its subscriber: one deleted since (the purchase is
    no longer a recurring token) fails its bill alone, the instant's others are charged."""
    t = await create_template(http, gw, merchant)
    subs = await subscribers(http, gw, t, 3)
    firsts = [s["purchase"]["id"] for s in subs]
    gone = await http.post(f"/api/v1/purchases/{firsts[1]}/delete_recurring_token/", headers=gw)
    assert gone.status_code == 200, gone.text
    await advance_to(http, "2026-02-05T00:00:00Z")
    made = [p for p in await bills(http, gw, runtime, t["id"]) if p["id"] not in firsts]
    assert [(p["status"], p["recurring_token"]) for p in made] == [
        ("paid", firsts[0]),
        ("sent", None),
        ("paid", firsts[2]),
    ]
    kinds = [[k for k, _ in await events(runtime, p["id"])] for p in made]
    assert kinds == [BILL_EVENTS, FAILED, BILL_EVENTS]
