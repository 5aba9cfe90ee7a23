"""The billing engine on the emulator clock: the first payment starts the schedule, each billing
date makes one purchase (charged with the token, or sent as an invoice), month arithmetic,
units, periods, the purchase's timezone, trials and charging at the period's end.

Time only moves through the control plane (freeze, advance); bills are found in the outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from tests.http.billing_helpers import (
    add_subscriber,
    create_template,
    get_subscriber,
    pay_purchase,
    without_retention,  # noqa: F401 - the fixture "runtime", retention off
)
from tests.http.purchase_helpers import events, form, get, statuses
from tests.http.test_payer import submit_checkout

DAY = 86_400
BILL_EVENTS = ["purchase.created", "purchase.paid"]
FAILURES = ("purchase.subscription_charge_failure", "purchase.payment_failure")


def at(iso: str) -> int:
    """Unix seconds of an ISO instant ("2026-02-05T00:00:00Z")."""
    return int(datetime.fromisoformat(iso).timestamp())


async def freeze(http, iso: str) -> None:
    response = await http.post("/_emulator/clock/freeze", json={"at": iso})
    assert response.status_code == 200, response.text


async def advance_to(http, iso: str) -> dict[str, Any]:
    response = await http.post("/_emulator/clock/advance", json={"to": iso})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def created_purchases(runtime, template_id: str) -> list[str]:
    """Ids of the template's purchases, in the order of their purchase.created events."""
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT object_id, payload FROM outbox_events WHERE event_type = 'purchase.created' "
            "ORDER BY seq"
        )
    )
    return [
        row[0]
        for row in rows
        if msgspec.json.decode(row[1]).get("billing_template_id") == template_id
    ]


async def bills(http, gw, runtime, template_id: str, skip: str | None = None) -> list[dict]:
    """The template's purchases as they are now, oldest first; ``skip`` leaves one out (the
    add_subscriber purchase of the pending path)."""
    ids = [i for i in await created_purchases(runtime, template_id) if i != skip]
    return [await get(http, gw, i) for i in ids]


async def subscribed(http, gw, merchant, card: dict[str, Any] | None = None, **template):
    """A template (fields given) and a subscriber on the pending path whose first purchase is
    paid now; (template, subscriber, first purchase)."""
    t = await create_template(http, gw, merchant, **template)
    added = await add_subscriber(http, gw, t["id"])
    assert added["billing_template_client"]["status"] == "pending"
    first = await pay_purchase(http, added["purchase"]["id"], **(card or {}))
    assert first["status"] == "paid"
    sub = await get_subscriber(http, gw, t["id"], added["billing_template_client"]["id"])
    return t, sub, first


async def started(http, gw, merchant, **template):
    """A template whose subscriber starts active at once (trial or period end); (template,
    subscriber as add_subscriber answered)."""
    t = await create_template(http, gw, merchant, **template)
    added = await add_subscriber(http, gw, t["id"])
    assert added["purchase"] is None
    return t, added["billing_template_client"]


# -- the pending path and the charge of each billing date ------------------------------------


async def test_paying_the_first_purchase_activates_the_subscriber(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    assert first["product"] == "billing_subscriptions" and first["billing_template_id"] == t["id"]
    assert sub["status"] == "active"
    assert sub["number_of_billing_cycles_passed"] == 1
    assert sub["subscription_billing_scheduled_on"] == "2026-02-05"
    assert await created_purchases(runtime, t["id"]) == [first["id"]]


async def test_each_billing_date_charges_the_token(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    await advance_to(http, "2026-02-04T23:59:59Z")
    assert await created_purchases(runtime, t["id"]) == [first["id"]]
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["created_on"] == at("2026-02-05T00:00:00Z")
    assert bill["product"] == "billing_subscriptions" and bill["billing_template_id"] == t["id"]
    assert bill["client_id"] == sub["client_id"] and bill["purchase"]["total"] == 1000
    assert bill["status"] == "paid" and bill["recurring_token"] == first["id"]
    assert bill["reference"] == "" and bill["send_receipt"] is True
    assert [k for k, _ in await events(runtime, bill["id"])] == BILL_EVENTS
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 2
    assert now["subscription_billing_scheduled_on"] == "2026-03-05"
    await advance_to(http, "2026-03-05T00:00:00Z")
    second = (await bills(http, gw, runtime, t["id"], skip=first["id"]))[1]
    assert second["status"] == "paid" and second["created_on"] == at("2026-03-05T00:00:00Z")
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 3
    assert now["subscription_billing_scheduled_on"] == "2026-04-05"


async def test_a_year_of_monthly_billing_is_twelve_bills_in_order(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    response = await http.post("/_emulator/clock/advance", json={"seconds": 365 * DAY})
    assert response.status_code == 200, response.text
    made = await bills(http, gw, runtime, t["id"], skip=first["id"])
    months = [f"2026-{m:02d}-05" for m in range(2, 13)] + ["2027-01-05"]
    assert [p["created_on"] for p in made] == [at(f"{d}T00:00:00Z") for d in months]
    assert [p["status"] for p in made] == ["paid"] * 12
    ids = {p["id"] for p in made}
    rows = await runtime.db.read(
        lambda tx: tx.all("SELECT event_type, object_id FROM outbox ORDER BY seq")
    )
    in_order = [(kind, oid) for kind, oid in rows if oid in ids]
    assert in_order == [(kind, p["id"]) for p in made for kind in BILL_EVENTS]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 13
    assert now["subscription_billing_scheduled_on"] == "2027-02-05"


# -- dates: month ends, units, periods, the purchase's timezone ------------------------------


async def test_a_month_end_anchor_clamps_to_each_months_end(http, merchant, gw, runtime):
    await freeze(http, "2026-01-31T09:00:00Z")
    t, sub, first = await subscribed(http, gw, merchant)
    assert sub["subscription_billing_scheduled_on"] == "2026-02-28"
    await advance_to(http, "2026-05-01T00:00:00Z")
    made = await bills(http, gw, runtime, t["id"], skip=first["id"])
    days = ["2026-02-28", "2026-03-31", "2026-04-30"]
    assert [p["created_on"] for p in made] == [at(f"{d}T00:00:00Z") for d in days]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-05-31"


async def test_a_month_end_anchor_bills_the_29th_in_a_leap_year(http, merchant, gw, runtime):
    await freeze(http, "2028-01-31T09:00:00Z")
    t, sub, first = await subscribed(http, gw, merchant)
    assert sub["subscription_billing_scheduled_on"] == "2028-02-29"
    await advance_to(http, "2028-03-01T00:00:00Z")
    made = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert [p["created_on"] for p in made] == [at("2028-02-29T00:00:00Z")]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2028-03-31"


async def test_weekly_billing(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant, subscription_period_units="weeks")
    assert sub["subscription_billing_scheduled_on"] == "2026-01-12"
    await advance_to(http, "2026-01-26T00:00:00Z")
    made = await bills(http, gw, runtime, t["id"], skip=first["id"])
    days = ["2026-01-12", "2026-01-19", "2026-01-26"]
    assert [p["created_on"] for p in made] == [at(f"{d}T00:00:00Z") for d in days]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-02-02"


async def test_billing_every_three_days(http, merchant, gw, runtime):
    t, sub, first = await subscribed(
        http, gw, merchant, subscription_period=3, subscription_period_units="days"
    )
    assert sub["subscription_billing_scheduled_on"] == "2026-01-08"
    await advance_to(http, "2026-01-14T00:00:00Z")
    made = await bills(http, gw, runtime, t["id"], skip=first["id"])
    days = ["2026-01-08", "2026-01-11", "2026-01-14"]
    assert [p["created_on"] for p in made] == [at(f"{d}T00:00:00Z") for d in days]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-01-17"


async def test_billing_every_two_months(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant, subscription_period=2)
    assert sub["subscription_billing_scheduled_on"] == "2026-03-05"
    await advance_to(http, "2026-07-05T00:00:00Z")
    made = await bills(http, gw, runtime, t["id"], skip=first["id"])
    days = ["2026-03-05", "2026-05-05", "2026-07-05"]
    assert [p["created_on"] for p in made] == [at(f"{d}T00:00:00Z") for d in days]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-09-05"


async def test_billing_happens_at_midnight_in_the_purchase_timezone(http, merchant, gw, runtime):
    """Africa/Johannesburg is UTC+2: the bill dated 2026-02-05 is due at 2026-02-04T22:00Z."""
    purchase = {
        "currency": "ZAR",
        "timezone": "Africa/Johannesburg",
        "products": [{"name": "Plan", "price": 1000}],
    }
    t, sub, first = await subscribed(http, gw, merchant, purchase=purchase)
    assert sub["subscription_billing_scheduled_on"] == "2026-02-05"
    await advance_to(http, "2026-02-04T21:59:59Z")
    assert await created_purchases(runtime, t["id"]) == [first["id"]]
    await advance_to(http, "2026-02-04T22:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["created_on"] == at("2026-02-04T22:00:00Z") and bill["status"] == "paid"
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-03-05"


async def test_the_anchor_is_today_in_the_purchase_timezone(http, merchant, gw, runtime):
    """At 23:00Z on 4 January it is already 5 January in Johannesburg: the trial's schedule
    starts on the 5th."""
    await freeze(http, "2026-01-04T23:00:00Z")
    purchase = {
        "currency": "ZAR",
        "timezone": "Africa/Johannesburg",
        "products": [{"name": "Plan", "price": 1000}],
    }
    _, sub = await started(http, gw, merchant, purchase=purchase, subscription_trial_periods=1)
    assert sub["status"] == "active"
    assert sub["subscription_billing_scheduled_on"] == "2026-02-05"


# -- trials, charging at the period's end, invoices without a token --------------------------


async def test_a_trial_starts_active_and_bills_after_its_periods(http, merchant, gw, runtime):
    t, sub = await started(http, gw, merchant, subscription_trial_periods=2)
    assert sub["status"] == "active" and sub["number_of_billing_cycles_passed"] == 0
    assert sub["subscription_billing_scheduled_on"] == "2026-03-05"
    await advance_to(http, "2026-03-04T23:59:59Z")
    assert await created_purchases(runtime, t["id"]) == []
    await advance_to(http, "2026-03-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"])
    assert bill["created_on"] == at("2026-03-05T00:00:00Z")
    assert bill["product"] == "billing_subscriptions" and bill["billing_template_id"] == t["id"]
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-04-05"
    assert now["number_of_billing_cycles_passed"] == 0


async def test_without_a_token_the_bill_is_a_sent_invoice(http, merchant, gw, runtime):
    t, _ = await started(http, gw, merchant, subscription_trial_periods=1)
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"])
    assert bill["status"] == "sent" and statuses(bill)[-1] == "sent"
    assert bill["recurring_token"] is None
    kinds = [k for k, _ in await events(runtime, bill["id"])]
    assert kinds[0] == "purchase.created"
    assert not set(kinds) & set(FAILURES), kinds


async def test_charge_at_period_end_bills_period_zero_one_period_later(http, merchant, gw, runtime):
    t, sub = await started(http, gw, merchant, subscription_charge_period_end=True)
    assert sub["status"] == "active" and sub["number_of_billing_cycles_passed"] == 0
    assert sub["subscription_billing_scheduled_on"] == "2026-02-05"
    await advance_to(http, "2026-02-04T23:59:59Z")
    assert await created_purchases(runtime, t["id"]) == []
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"])
    assert bill["created_on"] == at("2026-02-05T00:00:00Z") and bill["status"] == "sent"
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-03-05"


async def test_trial_and_period_end_bill_the_first_period_at_its_end(http, merchant, gw, runtime):
    """One trial period, charged at period end: period 1's bill is issued at date(2)."""
    t, sub = await started(
        http, gw, merchant, subscription_trial_periods=1, subscription_charge_period_end=True
    )
    assert sub["subscription_billing_scheduled_on"] == "2026-03-05"
    await advance_to(http, "2026-03-04T23:59:59Z")
    assert await created_purchases(runtime, t["id"]) == []
    await advance_to(http, "2026-03-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"])
    assert bill["created_on"] == at("2026-03-05T00:00:00Z")


async def test_paying_an_invoice_counts_and_its_card_pays_the_next_bill(
    http, merchant, gw, runtime
):
    t, sub = await started(http, gw, merchant, subscription_charge_period_end=True)
    await advance_to(http, "2026-02-05T00:00:00Z")
    [invoice] = await bills(http, gw, runtime, t["id"])
    assert invoice["status"] == "sent"
    response = await submit_checkout(http, invoice["id"], **form(), remember_card="on")
    assert response.status_code < 400, response.text
    paid = await get(http, gw, invoice["id"])
    assert paid["status"] == "paid" and paid["is_recurring_token"] is True
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 1
    await advance_to(http, "2026-03-05T00:00:00Z")
    [_, bill] = await bills(http, gw, runtime, t["id"])
    assert bill["status"] == "paid" and bill["recurring_token"] == invoice["id"]
    assert [k for k, _ in await events(runtime, bill["id"])] == BILL_EVENTS
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 2
    assert bill["created_on"] == at("2026-03-05T00:00:00Z")
