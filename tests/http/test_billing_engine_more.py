"""The billing engine, continued: failed and slow charges, the end after N cycles, pausing,
due dates, deleting, and a cost that follows the cycles, not the span advanced."""

from __future__ import annotations

import pytest

from tests.conftest import EPOCH_S
from tests.http.billing_helpers import (
    TEMPLATES,
    get_subscriber,
    without_retention,  # noqa: F401 - the fixture "runtime", retention off
)
from tests.http.purchase_helpers import SLOW, advance, events, get, statuses
from tests.http.scenario_helpers import activate
from tests.http.test_billing_engine import (
    DAY,
    advance_to,
    at,
    bills,
    created_purchases,
    started,
    subscribed,
)

CANCELLED = "billing_template_client.subscription_billing_cancelled"
DECLINE = {"result": "declined", "reason": "insufficient_funds"}


async def patch_subscriber(http, gw, t, sub, **fields):
    response = await http.patch(
        f"{TEMPLATES}{t['id']}/clients/{sub['id']}/", json=fields, headers=gw
    )
    assert response.status_code == 200, response.text
    return response.json()


async def patch_template(http, gw, t, **fields):
    response = await http.patch(f"{TEMPLATES}{t['id']}/", json=fields, headers=gw)
    assert response.status_code == 200, response.text
    return response.json()


# -- failed and slow charges -----------------------------------------------------------------


async def test_a_declined_charge_is_a_subscription_charge_failure_then_sent(
    http, merchant, gw, runtime
):
    t, sub, first = await subscribed(http, gw, merchant)
    await activate(http, merchant, "purchase.charge", DECLINE, match={"is_subscription": True})
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["status"] == "sent" and statuses(bill)[-2:] == ["error", "sent"]
    error = bill["transaction_data"]["attempts"][0]["error"]
    assert error["code"] == "insufficient_funds"
    assert error["message"].startswith("Card declined: insufficient funds.")
    kinds = [k for k, _ in await events(runtime, bill["id"])]
    assert kinds[:2] == ["purchase.created", "purchase.subscription_charge_failure"]
    assert "purchase.payment_failure" not in kinds and "purchase.paid" not in kinds
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["status"] == "active" and now["number_of_billing_cycles_passed"] == 1
    assert now["subscription_billing_scheduled_on"] == "2026-03-05"


async def test_a_declined_charge_stays_error_without_the_invoice(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    await patch_subscriber(http, gw, t, sub, send_invoice_on_charge_failure=False)
    await activate(http, merchant, "purchase.charge", DECLINE, match={"is_subscription": True})
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["status"] == "error" and statuses(bill)[-1] == "error"
    kinds = [k for k, _ in await events(runtime, bill["id"])]
    assert kinds == ["purchase.created", "purchase.subscription_charge_failure"]
    await advance_to(http, "2026-03-05T00:00:00Z")
    second = (await bills(http, gw, runtime, t["id"], skip=first["id"]))[1]
    assert second["status"] == "error" and second["created_on"] == at("2026-03-05T00:00:00Z")
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 1
    assert now["subscription_billing_scheduled_on"] == "2026-04-05"


async def test_a_slow_card_token_is_pending_then_paid_ten_minutes_later(
    http, merchant, gw, runtime
):
    t, sub, first = await subscribed(http, gw, merchant, card={"card_number": SLOW})
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["status"] == "pending_charge"
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 1
    assert now["subscription_billing_scheduled_on"] == "2026-03-05"
    await advance(http, 599)
    assert (await get(http, gw, bill["id"]))["status"] == "pending_charge"
    await advance(http, 1)
    assert (await get(http, gw, bill["id"]))["status"] == "paid"
    assert [k for k, _ in await events(runtime, bill["id"])][-1] == "purchase.paid"
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 2


# -- the end after N cycles ------------------------------------------------------------------


async def test_number_of_billing_cycles_ends_the_subscription(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant, number_of_billing_cycles=3)
    await advance_to(http, "2026-03-05T00:00:00Z")
    ended = await get_subscriber(http, gw, t["id"], sub["id"])
    assert ended["status"] == "inactive" and ended["number_of_billing_cycles_passed"] == 3
    assert ended["subscription_billing_scheduled_on"] is None
    cancelled = [payload for k, payload in await events(runtime, sub["id"]) if k == CANCELLED]
    assert cancelled == [ended]
    await advance(http, 365 * DAY)
    made = await created_purchases(runtime, t["id"])
    assert len(made) == 3 and made[0] == first["id"]
    assert (await get_subscriber(http, gw, t["id"], sub["id"]))["status"] == "inactive"


async def test_cost_follows_the_cycles_not_the_span(http, merchant, gw, runtime):
    """Twenty years over a yearly subscription of 3 cycles: the first payment and 2 bills."""
    t, sub, first = await subscribed(
        http, gw, merchant, subscription_period=12, number_of_billing_cycles=3
    )
    await advance(http, 20 * 365 * DAY)
    made = await bills(http, gw, runtime, t["id"])
    assert made[0]["id"] == first["id"]
    assert [p["created_on"] for p in made] == [
        EPOCH_S,
        at("2027-01-05T00:00:00Z"),
        at("2028-01-05T00:00:00Z"),
    ]
    assert (await get_subscriber(http, gw, t["id"], sub["id"]))["status"] == "inactive"


# -- pausing ---------------------------------------------------------------------------------


async def test_a_paused_subscriber_skips_billing_dates_until_resumed(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    paused = await patch_subscriber(http, gw, t, sub, status="subscription_paused")
    assert paused["status"] == "subscription_paused"
    assert paused["subscription_billing_scheduled_on"] is None
    await advance_to(http, "2026-03-10T09:00:00Z")
    assert await created_purchases(runtime, t["id"]) == [first["id"]]
    resumed = await patch_subscriber(http, gw, t, sub, status="active")
    assert resumed["subscription_billing_scheduled_on"] == "2026-04-05"
    await advance_to(http, "2026-04-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["created_on"] == at("2026-04-05T00:00:00Z") and bill["status"] == "paid"
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["number_of_billing_cycles_passed"] == 2


async def test_an_inactive_template_pauses_its_subscribers_until_active(
    http, merchant, gw, runtime
):
    t, sub, first = await subscribed(http, gw, merchant)
    await patch_template(http, gw, t, subscription_active=False)
    paused = await get_subscriber(http, gw, t["id"], sub["id"])
    assert paused["status"] == "subscription_paused"
    assert paused["subscription_billing_scheduled_on"] is None
    await advance_to(http, "2026-03-10T09:00:00Z")
    assert await created_purchases(runtime, t["id"]) == [first["id"]]
    await patch_template(http, gw, t, subscription_active=True)
    resumed = await get_subscriber(http, gw, t["id"], sub["id"])
    assert resumed["status"] == "active"
    assert resumed["subscription_billing_scheduled_on"] == "2026-04-05"
    await advance_to(http, "2026-04-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["created_on"] == at("2026-04-05T00:00:00Z") and bill["status"] == "paid"


# -- due dates -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("period", "units", "due"),
    [
        (3, "days", "2026-02-08T00:00:00Z"),
        (2, "weeks", "2026-02-19T00:00:00Z"),
        (1, "months", "2026-03-05T00:00:00Z"),
    ],
)
async def test_a_bills_due_is_its_instant_plus_the_due_period(
    http, merchant, gw, runtime, period, units, due
):
    t, _, first = await subscribed(
        http, gw, merchant, subscription_due_period=period, subscription_due_period_units=units
    )
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["due"] == at(due)


async def test_an_unpaid_bill_becomes_overdue_at_its_due(http, merchant, gw, runtime):
    t, _ = await started(
        http, gw, merchant, subscription_charge_period_end=True, subscription_due_period=3
    )
    await advance_to(http, "2026-02-07T23:59:59Z")
    [bill] = await bills(http, gw, runtime, t["id"])
    assert bill["status"] == "sent" and bill["due"] == at("2026-02-08T00:00:00Z")
    await advance_to(http, "2026-02-08T00:00:00Z")
    assert (await get(http, gw, bill["id"]))["status"] == "overdue"


# -- deleting --------------------------------------------------------------------------------


async def test_deleting_the_subscriber_stops_its_billing(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    response = await http.delete(f"{TEMPLATES}{t['id']}/clients/{sub['id']}/", headers=gw)
    assert response.status_code == 204
    await advance_to(http, "2026-04-06T00:00:00Z")
    assert await created_purchases(runtime, t["id"]) == [first["id"]]
    assert [k for k, _ in await events(runtime, sub["id"])].count(CANCELLED) == 1


async def test_deleting_the_template_stops_its_billing(http, merchant, gw, runtime):
    t, sub, first = await subscribed(http, gw, merchant)
    response = await http.delete(f"{TEMPLATES}{t['id']}/", headers=gw)
    assert response.status_code == 204
    await advance_to(http, "2026-04-06T00:00:00Z")
    assert await created_purchases(runtime, t["id"]) == [first["id"]]
    assert [k for k, _ in await events(runtime, sub["id"])].count(CANCELLED) == 1


async def test_the_shipped_failing_renewals_scenario_declines_only_subscription_charges(
    http, merchant, gw, runtime
):
    """``failing-renewals`` (scenarios/): bills fail and are sent; an API charge still pays."""
    t, _, first = await subscribed(http, gw, merchant)
    response = await http.post(
        "/_emulator/scenarios/failing-renewals/activate", json={"merchant": merchant["company_id"]}
    )
    assert response.status_code == 200, response.text
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=first["id"])
    assert bill["status"] == "sent"
    assert "insufficient_funds" in bill["transaction_data"]["attempts"][0]["error"]["message"]
    plain = await http.post(
        "/api/v1/purchases/",
        json={"client_id": first["client_id"], "brand_id": merchant["brand_id"],
              "purchase": {"products": [{"name": "One-off", "price": 500}]}},
        headers=gw,
    )  # fmt: skip
    charged = await http.post(
        f"/api/v1/purchases/{plain.json()['id']}/charge/",
        json={"recurring_token": first["id"]},
        headers=gw,
    )
    assert charged.status_code == 200 and charged.json()["status"] == "paid"


async def test_deleting_the_client_ends_its_subscriptions_at_once(http, merchant, gw, runtime):
    """Nobody is left to bill: inactive and the cancellation event now; never billed again."""
    t, sub, first = await subscribed(http, gw, merchant)
    gone = await http.delete(f"/api/v1/clients/{sub['client_id']}/", headers=gw)
    assert gone.status_code == 204
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["status"] == "inactive" and now["subscription_billing_scheduled_on"] is None
    assert [k for k, _ in await events(runtime, sub["id"])] == [CANCELLED]
    await advance_to(http, "2026-03-06T00:00:00Z")
    assert await bills(http, gw, runtime, t["id"], skip=first["id"]) == []
    assert [k for k, _ in await events(runtime, sub["id"])] == [CANCELLED]
