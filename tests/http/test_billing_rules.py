"""Billing rules found by review: read-only invoice fields, zero totals, ISO dates, time zone
names, which error comes first, explicit pauses under an inactive template, lowered cycles."""

from __future__ import annotations

from tests.delivery.test_deliveries import SINK, webhook
from tests.http.billing_helpers import (
    TEMPLATES,
    UNKNOWN,
    add_client,
    add_subscriber,
    assert_error,
    create_template,
    get_subscriber,
    patch_subscriber,
    patch_template,
    pay_purchase,
    post_subscriber,
    without_retention,  # noqa: F401 - the fixture "runtime", retention off
)
from tests.http.purchase_helpers import advance
from tests.http.scenario_helpers import activate
from tests.http.test_billing_engine import advance_to, at, bills


async def test_read_only_invoice_fields_of_a_subscription_are_ignored_whatever_their_type(
    http, merchant, gw
):
    t = await create_template(http, gw, merchant, invoice_due="x", invoice_skip_capture=7)
    assert (t["invoice_due"], t["invoice_skip_capture"]) == (None, False)
    patched = await patch_template(http, gw, t["id"], invoice_issued=[1], invoice_send_receipt=0)
    assert (patched["invoice_issued"], patched["invoice_send_receipt"]) == (None, True)


async def test_invoice_fields_of_a_one_off_template_are_typed(http, merchant, gw):
    for field, value in (("invoice_due", "soon"), ("invoice_due", True),
                         ("invoice_issued", 20260105), ("invoice_skip_capture", "yes")):  # fmt: skip
        body = {"purchase": {"products": [{"name": "P", "price": 100}]}, "invoice_due": 1,
                "is_subscription": False, "brand_id": merchant["brand_id"], field: value}  # fmt: skip
        response = await http.post(TEMPLATES, json=body, headers=gw)
        assert_error(response, 400, field, "invalid")


async def test_invoice_issued_is_a_plain_calendar_date(http, merchant, gw):
    for day in ("2024-W01-1", "20240105", "2026-02-30"):
        body = {"purchase": {"products": [{"name": "P", "price": 100}]}, "invoice_due": 1,
                "is_subscription": False, "brand_id": merchant["brand_id"], "invoice_issued": day}  # fmt: skip
        response = await http.post(TEMPLATES, json=body, headers=gw)
        assert_error(response, 400, "invoice_issued", "invalid", "Date has wrong format. Use YYYY-MM-DD.")  # fmt: skip


async def test_a_zero_total_needs_skip_capture_even_when_only_the_flag_changes(http, merchant, gw):
    t = await create_template(
        http, gw, merchant, subscription=False, invoice_skip_capture=True,
        purchase={"products": [{"name": "Card check", "price": 0}]},
    )  # fmt: skip
    response = await http.patch(
        f"{TEMPLATES}{t['id']}/", json={"invoice_skip_capture": False}, headers=gw
    )
    assert_error(response, 400, "purchase.total", "invalid_amount")


async def test_put_without_is_subscription_keeps_the_templates_kind(http, merchant, gw):
    """A subscription's PUT lacking is_subscription is not asked for invoice_due."""
    t = await create_template(http, gw, merchant)
    response = await http.put(f"{TEMPLATES}{t['id']}/", json={}, headers=gw)
    assert response.status_code == 400
    assert set(response.json()) == {"is_subscription", "brand_id", "purchase"}


async def test_time_zones_are_iana_names_not_files_of_the_database(http, merchant, gw):
    for zone in ("localtime", "Factory", "posixrules", "utc"):
        body = {"purchase": {"products": [{"name": "P", "price": 100}], "timezone": zone},
                "is_subscription": True, "brand_id": merchant["brand_id"]}  # fmt: skip
        response = await http.post(TEMPLATES, json=body, headers=gw)
        assert_error(response, 400, "purchase.timezone", "invalid")


async def test_an_unknown_or_inactive_template_is_reported_before_the_body(http, merchant, gw):
    response = await post_subscriber(http, gw, UNKNOWN)
    assert_error(response, 404, "__all__", "billing_template_not_found", "No such object")
    response = await http.post(f"{TEMPLATES}{UNKNOWN}/send_invoice/", json={}, headers=gw)
    assert_error(response, 404, "__all__", "billing_template_not_found", "No such object")
    t = await create_template(http, gw, merchant, subscription_active=False)
    response = await post_subscriber(http, gw, t["id"])
    assert_error(response, 409, "__all__", "subscription_inactive")


async def test_a_subscriber_patch_reports_every_bad_field(http, merchant, gw):
    t = await create_template(http, gw, merchant, subscription_trial_periods=1)
    sub = (await add_subscriber(http, gw, t["id"]))["billing_template_client"]
    response = await patch_subscriber(
        http, gw, t["id"], sub["id"], status="pending", invoice_reference="r" * 129
    )
    assert response.status_code == 400
    assert {k: v["code"] for k, v in response.json().items()} == {
        "status": "invalid",
        "invoice_reference": "max_length",
    }


async def test_a_pause_by_hand_under_an_inactive_template_outlasts_the_templates_resume(
    http, merchant, gw
):
    t = await create_template(http, gw, merchant, subscription_trial_periods=1)
    sub = (await add_subscriber(http, gw, t["id"]))["billing_template_client"]
    await patch_template(http, gw, t["id"], subscription_active=False)
    response = await patch_subscriber(http, gw, t["id"], sub["id"], status="subscription_paused")
    assert response.status_code == 200
    await patch_template(http, gw, t["id"], subscription_active=True)
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["status"] == "subscription_paused"


async def test_cycles_lowered_below_those_passed_end_the_subscription_unbilled(
    http, merchant, gw, runtime
):
    t = await create_template(http, gw, merchant, subscription_period_units="days")
    added = await add_subscriber(http, gw, t["id"], client_id=await add_client(http, gw))
    await pay_purchase(http, added["purchase"]["id"])
    await advance(http, 2 * 86_400)
    sub = await get_subscriber(http, gw, t["id"], added["billing_template_client"]["id"])
    assert sub["number_of_billing_cycles_passed"] == 3
    await patch_template(http, gw, t["id"], number_of_billing_cycles=1)
    rows_before = await runtime.db.read(lambda tx: tx.one("SELECT COUNT(*) FROM purchases"))
    await advance(http, 3 * 86_400)
    sub = await get_subscriber(http, gw, t["id"], sub["id"])
    assert sub["status"] == "inactive" and sub["number_of_billing_cycles_passed"] == 3
    rows_after = await runtime.db.read(lambda tx: tx.one("SELECT COUNT(*) FROM purchases"))
    assert rows_after == rows_before


async def _paid_subscriber(http, gw, merchant, **template):
    t = await create_template(http, gw, merchant, **template)
    added = await add_subscriber(http, gw, t["id"])
    first = await pay_purchase(http, added["purchase"]["id"])
    return t, added["billing_template_client"], first


async def _bill_times(runtime, template_id):
    rows = await runtime.db.read(
        lambda tx: tx.all(
            "SELECT json_extract(payload, '$.created_on') FROM outbox_events"
            " WHERE event_type = 'purchase.created'"
            " AND json_extract(payload, '$.billing_template_id') = ? ORDER BY seq",
            (template_id,),
        )
    )
    return [r[0] for r in rows][1:]  # the first is the add_subscriber purchase


async def test_a_new_period_applies_from_the_next_bill_without_a_burst(http, merchant, gw, runtime):
    """Monthly, billed 5 Feb; switched to days: one bill a day after the next (5 Mar), not a
    catch-up of every day since the anchor."""
    t, sub, _ = await _paid_subscriber(http, gw, merchant)
    await advance_to(http, "2026-02-05T00:00:00Z")
    await patch_template(http, gw, t["id"], subscription_period_units="days")
    await advance_to(http, "2026-03-07T00:00:00Z")
    assert await _bill_times(runtime, t["id"]) == [
        at("2026-02-05T00:00:00Z"), at("2026-03-05T00:00:00Z"),
        at("2026-03-06T00:00:00Z"), at("2026-03-07T00:00:00Z"),
    ]  # fmt: skip
    now = await get_subscriber(http, gw, t["id"], sub["id"])
    assert now["subscription_billing_scheduled_on"] == "2026-03-08"


async def test_a_subscription_purchase_charged_through_the_api_gives_its_token(
    http, merchant, gw, runtime
):
    """The first purchase paid with POST /charge/ (a card the client saved elsewhere): the
    next bill is charged with that token."""
    t = await create_template(http, gw, merchant)
    client_id = await add_client(http, gw)
    saved = await http.post(
        "/api/v1/purchases/",
        json={"client_id": client_id, "brand_id": merchant["brand_id"], "force_recurring": True,
              "purchase": {"products": [{"name": "Card", "price": 100}]}},
        headers=gw,
    )  # fmt: skip
    await pay_purchase(http, saved.json()["id"])
    added = await add_subscriber(http, gw, t["id"], client_id=client_id)
    charged = await http.post(
        f"/api/v1/purchases/{added['purchase']['id']}/charge/",
        json={"recurring_token": saved.json()["id"]},
        headers=gw,
    )
    assert charged.json()["status"] == "paid"
    await advance_to(http, "2026-02-05T00:00:00Z")
    [bill] = await bills(http, gw, runtime, t["id"], skip=added["purchase"]["id"])
    assert bill["status"] == "paid" and bill["recurring_token"] == saved.json()["id"]


async def test_a_pending_subscriber_whose_purchase_is_cancelled_ends(http, merchant, gw, runtime):
    """It can never start: inactive, the cancellation event, and the client may be added
    again."""
    t = await create_template(http, gw, merchant)
    client_id = await add_client(http, gw)
    added = await add_subscriber(http, gw, t["id"], client_id=client_id)
    cancelled = await http.post(f"/api/v1/purchases/{added['purchase']['id']}/cancel/", headers=gw)
    assert cancelled.status_code == 200
    sub = await get_subscriber(http, gw, t["id"], added["billing_template_client"]["id"])
    assert sub["status"] == "inactive"
    again = await post_subscriber(http, gw, t["id"], client_id=client_id)
    assert again.status_code == 200 and again.json()["billing_template_client"]["id"] != sub["id"]


async def test_billing_events_reach_webhooks_and_the_subscribers_delivery_log(
    http, merchant, gw, runtime
):
    """A failed renewal and the end of a subscription are delivered like any event, and
    /webhooks/deliveries/?source_type=BillingTemplateClient lists the subscriber's."""
    events = ["purchase.subscription_charge_failure",
              "billing_template_client.subscription_billing_cancelled"]  # fmt: skip
    await webhook(http, gw, SINK.format(name="billing"), all_events=False, events=events)
    t, sub, _ = await _paid_subscriber(http, gw, merchant)
    decline = {"result": "declined", "reason": "insufficient_funds"}
    await activate(http, merchant, "purchase.charge", decline, match={"is_subscription": True})
    await advance_to(http, "2026-02-05T00:00:00Z")
    gone = await http.delete(f"{TEMPLATES}{t['id']}/clients/{sub['id']}/", headers=gw)
    assert gone.status_code == 204
    messages = (await http.get("/_emulator/sink/billing")).json()["messages"]
    assert [m["json"]["event_type"] for m in messages] == events
    assert messages[1]["json"]["id"] == sub["id"] and messages[1]["json"]["status"] == "inactive"
    log = await http.get(
        "/api/v1/webhooks/deliveries/",
        params={"id": sub["id"], "source_type": "BillingTemplateClient"},
        headers=gw,
    )
    assert [r["event_type"] for r in log.json()["results"]] == [events[1]]
