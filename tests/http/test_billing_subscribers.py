"""Billing subscribers through HTTP: add_subscriber, subscriber CRUD on both paths, pausing."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import EPOCH_S
from tests.http.billing_helpers import (
    REQUIRED,
    SUBSCRIBER_KEYS,
    TEMPLATES,
    TOO_LONG_128,
    UNKNOWN,
    add_client,
    add_subscriber,
    assert_error,
    codes,
    create_template,
    get_subscriber,
    patch_subscriber,
    patch_template,
    pay_purchase,
    pick,
    post_subscriber,
)
from tests.http.purchase_helpers import events, get, statuses
from tests.http.test_purchases import PURCHASE_KEYS

DAY = 86_400
CANCELLED = "billing_template_client.subscription_billing_cancelled"


async def subscriber(http, gw, template_id: str, email: str | None = None):
    return (await add_subscriber(http, gw, template_id, email=email))["billing_template_client"]


async def active_subscriber(http, gw, merchant, **fields):
    """(template, subscriber) of a monthly template with one trial period: active at once."""
    t = await create_template(http, gw, merchant, subscription_trial_periods=1, **fields)
    return t, await subscriber(http, gw, t["id"])


async def test_add_subscriber_without_trial_is_pending_with_a_purchase(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    client_id = await add_client(http, gw)
    body = await add_subscriber(http, gw, t["id"], client_id)
    assert set(body) == {"billing_template_client", "purchase"}
    s, p = body["billing_template_client"], body["purchase"]
    assert set(s) == SUBSCRIBER_KEYS
    assert s == {
        "id": s["id"], "type": "billing_template_client", "created_on": EPOCH_S,
        "updated_on": EPOCH_S, "billing_template_id": t["id"], "client_id": client_id,
        "company_id": merchant["company_id"], "is_test": True, "status": "pending",
        "send_receipt": True, "invoice_reference": None, "payment_method_whitelist": None,
        "send_invoice_on_add_subscriber": False, "send_invoice_on_charge_failure": True,
        "number_of_billing_cycles_passed": 0, "subscription_billing_scheduled_on": None,
    }  # fmt: skip
    assert set(p) == PURCHASE_KEYS
    expected = {"status": "created", "product": "billing_subscriptions", "client_id": client_id,
                "billing_template_id": t["id"], "force_recurring": True,
                "due": EPOCH_S + 7 * DAY}  # fmt: skip
    assert pick(p, expected) == expected
    assert p["purchase"]["total"] == 1000 and p["checkout_url"]
    assert await get(http, gw, p["id"]) == p
    assert await get_subscriber(http, gw, t["id"], s["id"]) == s


async def test_send_invoice_on_add_subscriber_sends_the_purchase(http, merchant, gw):
    """The purchase is `sent`; its due is now plus the template's due period (2 weeks here)."""
    t = await create_template(
        http, gw, merchant, subscription_due_period=2, subscription_due_period_units="weeks"
    )
    body = await add_subscriber(
        http,
        gw,
        t["id"],
        send_invoice_on_add_subscriber=True,
        invoice_reference="SUB-1",
        payment_method_whitelist=["visa"],
    )
    s, p = body["billing_template_client"], body["purchase"]
    assert (s["status"], s["send_invoice_on_add_subscriber"]) == ("pending", True)
    assert (s["invoice_reference"], s["payment_method_whitelist"]) == ("SUB-1", ["visa"])
    assert (p["status"], statuses(p)) == ("sent", ["created", "sent"])
    assert p["due"] == EPOCH_S + 14 * DAY


@pytest.mark.parametrize(
    ("fields", "scheduled_on"),
    [
        ({"subscription_trial_periods": 2, "subscription_period_units": "weeks"}, "2026-01-19"),
        ({"subscription_charge_period_end": True, "subscription_period": 10,
          "subscription_period_units": "days"}, "2026-01-15"),
        ({"subscription_charge_period_end": True, "subscription_period": 10,
          "subscription_period_units": "days",
          "purchase": {"products": [{"name": "P", "price": 1}], "timezone": "Pacific/Honolulu"}},
         "2026-01-14"),
    ],
    ids=["trial", "period-end", "period-end-anchor-in-timezone"],
)  # fmt: skip
async def test_trial_or_period_end_subscriber_is_active_without_purchase(
    http, merchant, gw, fields, scheduled_on
):
    """Active at once, no purchase; the first billing date is on the grid anchored today (in
    purchase.timezone: 09:00Z is still the 4th in Honolulu)."""
    t = await create_template(http, gw, merchant, **fields)
    body = await add_subscriber(http, gw, t["id"])
    assert body["purchase"] is None
    s = body["billing_template_client"]
    assert (s["status"], s["number_of_billing_cycles_passed"]) == ("active", 0)
    assert s["subscription_billing_scheduled_on"] == scheduled_on


async def test_paying_the_purchase_activates_the_subscriber(http, merchant, gw):
    """pending → active from the day of payment; the next billing one period later."""
    t = await create_template(http, gw, merchant)
    body = await add_subscriber(http, gw, t["id"])
    s = body["billing_template_client"]
    template = (await http.get(f"{TEMPLATES}{t['id']}/", headers=gw)).json()
    assert template["subscription_has_active_clients"] is False
    assert (await pay_purchase(http, body["purchase"]["id"]))["status"] == "paid"
    s = await get_subscriber(http, gw, t["id"], s["id"])
    assert (s["status"], s["number_of_billing_cycles_passed"]) == ("active", 1)
    assert s["subscription_billing_scheduled_on"] == "2026-02-05"
    template = (await http.get(f"{TEMPLATES}{t['id']}/", headers=gw)).json()
    assert template["subscription_has_active_clients"] is True


async def test_paying_while_the_template_is_inactive_pauses_the_subscriber(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    body = await add_subscriber(http, gw, t["id"])
    await patch_template(http, gw, t["id"], subscription_active=False)
    await pay_purchase(http, body["purchase"]["id"])
    s = await get_subscriber(http, gw, t["id"], body["billing_template_client"]["id"])
    assert (s["status"], s["subscription_billing_scheduled_on"]) == ("subscription_paused", None)


async def test_paying_the_last_cycle_ends_the_subscription(http, merchant, gw, runtime):
    """number_of_billing_cycles 1: the paid add_subscriber purchase is the only cycle."""
    t = await create_template(http, gw, merchant, number_of_billing_cycles=1)
    body = await add_subscriber(http, gw, t["id"])
    await pay_purchase(http, body["purchase"]["id"])
    s = await get_subscriber(http, gw, t["id"], body["billing_template_client"]["id"])
    assert (s["status"], s["number_of_billing_cycles_passed"]) == ("inactive", 1)
    assert s["subscription_billing_scheduled_on"] is None
    assert await events(runtime, s["id"]) == [(CANCELLED, s)]


async def test_add_subscriber_errors(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    assert (await post_subscriber(http, gw, t["id"])).json() == {
        "client_id": {"message": REQUIRED, "code": "required"}
    }
    response = await post_subscriber(http, gw, t["id"], client_id="nope")
    assert_error(response, 400, "client_id", "invalid_uuid", "'nope' is not a valid UUID.")
    other = (await http.post("/_emulator/merchants")).json()
    theirs = await add_client(http, {"Authorization": f"Bearer {other['api_key']}"})
    for client_id in (UNKNOWN, theirs):
        response = await post_subscriber(http, gw, t["id"], client_id=client_id)
        assert codes(response) == (404, ["client_not_found"])
    client_id = await add_client(http, gw)
    response = await post_subscriber(
        http, gw, t["id"], client_id=client_id, invoice_reference="r" * 129
    )
    assert_error(response, 400, "invoice_reference", "max_length", TOO_LONG_128)
    response = await post_subscriber(
        http, gw, t["id"], client_id=client_id, payment_method_whitelist=[]
    )
    assert_error(response, 400, "payment_method_whitelist", "invalid")
    one_off = await create_template(http, gw, merchant, subscription=False)
    response = await post_subscriber(http, gw, one_off["id"], client_id=client_id)
    assert codes(response) == (400, ["invalid"])
    await patch_template(http, gw, t["id"], subscription_active=False)
    response = await post_subscriber(http, gw, t["id"], client_id=client_id)
    assert codes(response) == (409, ["subscription_inactive"])
    listed = (await http.get(f"{TEMPLATES}{t['id']}/clients/", headers=gw)).json()
    assert listed["results"] == []


async def assert_already_exists(http, gw, template_id: str, client_id: str) -> None:
    response = await post_subscriber(http, gw, template_id, client_id=client_id)
    assert codes(response) == (409, ["subscriber_already_exists"])


async def test_a_live_subscriber_blocks_the_same_client(http, merchant, gw):
    """pending, active and paused subscribers block; other clients and templates do not."""
    t = await create_template(http, gw, merchant)
    client_id = await add_client(http, gw)
    body = await add_subscriber(http, gw, t["id"], client_id)
    await assert_already_exists(http, gw, t["id"], client_id)
    await pay_purchase(http, body["purchase"]["id"])
    await assert_already_exists(http, gw, t["id"], client_id)
    sid = body["billing_template_client"]["id"]
    assert (await patch_subscriber(http, gw, t["id"], sid, status="subscription_paused")).is_success
    await assert_already_exists(http, gw, t["id"], client_id)
    await add_subscriber(http, gw, t["id"], email="other@example.com")
    second = await create_template(http, gw, merchant)
    await add_subscriber(http, gw, second["id"], client_id)


async def test_an_ended_or_deleted_subscriber_does_not_block(http, merchant, gw):
    t = await create_template(http, gw, merchant, number_of_billing_cycles=1)
    client_id = await add_client(http, gw)
    body = await add_subscriber(http, gw, t["id"], client_id)
    await pay_purchase(http, body["purchase"]["id"])
    again = await add_subscriber(http, gw, t["id"], client_id)
    sid = again["billing_template_client"]["id"]
    assert sid != body["billing_template_client"]["id"]
    response = await http.delete(f"{TEMPLATES}{t['id']}/clients/{sid}/", headers=gw)
    assert response.status_code == 204
    third = await add_subscriber(http, gw, t["id"], client_id)
    assert third["billing_template_client"]["status"] == "pending"


async def test_concurrent_add_subscriber_has_exactly_one_winner(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    client_id = await add_client(http, gw)
    responses = await asyncio.gather(
        *(post_subscriber(http, gw, t["id"], client_id=client_id) for _ in range(2))
    )
    assert sorted(r.status_code for r in responses) == [200, 409]
    (lost,) = [r for r in responses if r.status_code == 409]
    assert [e["code"] for e in lost.json().values()] == ["subscriber_already_exists"]
    listed = (await http.get(f"{TEMPLATES}{t['id']}/clients/", headers=gw)).json()
    assert len(listed["results"]) == 1


async def test_list_is_the_templates_subscribers_newest_first(http, merchant, gw):
    t = await create_template(http, gw, merchant)
    first = await subscriber(http, gw, t["id"], "a@example.com")
    second = await subscriber(http, gw, t["id"], "b@example.com")
    elsewhere = await create_template(http, gw, merchant)
    await add_subscriber(http, gw, elsewhere["id"], email="c@example.com")
    response = await http.get(f"{TEMPLATES}{t['id']}/clients/", headers=gw)
    assert response.status_code == 200
    assert response.json() == {"results": [second, first], "next": None, "previous": None}


async def test_get_on_both_paths_and_404s(http, merchant, gw):
    t, s = await active_subscriber(http, gw, merchant)
    short = await http.get(f"{TEMPLATES}clients/{s['id']}/", headers=gw)
    assert short.status_code == 200
    assert short.json() == await get_subscriber(http, gw, t["id"], s["id"]) == s
    elsewhere = await create_template(http, gw, merchant)
    other = (await http.post("/_emulator/merchants")).json()
    theirs = {"Authorization": f"Bearer {other['api_key']}"}
    for path, headers in [
        (f"{TEMPLATES}{t['id']}/clients/{UNKNOWN}/", gw),
        (f"{TEMPLATES}clients/{UNKNOWN}/", gw),
        (f"{TEMPLATES}{elsewhere['id']}/clients/{s['id']}/", gw),
        (f"{TEMPLATES}clients/{s['id']}/", theirs),
    ]:
        response = await http.get(path, headers=headers)
        assert response.status_code == 404, path
        (error,) = response.json().values()
        assert error["message"] == "No such object" and error["code"].endswith("_not_found")
    response = await http.get(f"{TEMPLATES}clients/not-a-uuid/", headers=gw)
    message = "'not-a-uuid' is not a valid UUID."
    assert_error(response, 400, "subscriber_id", "invalid_uuid", message)


@pytest.mark.parametrize("short_path", [False, True])
async def test_patch_changes_writable_fields_and_ignores_read_only_ones(
    http, merchant, gw, short_path
):
    t, s = await active_subscriber(http, gw, merchant)
    path = f"{TEMPLATES}{'' if short_path else t['id'] + '/'}clients/{s['id']}/"
    changes = {"send_receipt": False, "invoice_reference": "REF-9",
               "payment_method_whitelist": ["visa"], "send_invoice_on_charge_failure": False,
               "send_invoice_on_add_subscriber": True}  # fmt: skip
    ignored = {"client_id": await add_client(http, gw, "x@example.com"),
               "number_of_billing_cycles_passed": 5,
               "subscription_billing_scheduled_on": "2030-01-01"}  # fmt: skip
    response = await http.patch(path, json={**changes, **ignored}, headers=gw)
    assert response.status_code == 200
    assert response.json() == {**s, **changes}
    assert await get_subscriber(http, gw, t["id"], s["id"]) == {**s, **changes}


async def test_patch_status_pauses_and_resumes_on_the_same_grid(http, merchant, gw):
    t, s = await active_subscriber(http, gw, merchant)
    assert s["subscription_billing_scheduled_on"] == "2026-02-05"
    paused = await patch_subscriber(http, gw, t["id"], s["id"], status="subscription_paused")
    assert paused.status_code == 200
    off = {"status": "subscription_paused", "subscription_billing_scheduled_on": None}
    assert paused.json() == {**s, **off}
    template = (await http.get(f"{TEMPLATES}{t['id']}/", headers=gw)).json()
    assert template["subscription_has_active_clients"] is True
    response = await http.patch(
        f"{TEMPLATES}clients/{s['id']}/", json={"status": "active"}, headers=gw
    )
    assert response.status_code == 200
    assert response.json() == s


async def test_patch_status_errors(http, merchant, gw):
    t, s = await active_subscriber(http, gw, merchant)
    for status in ("inactive", "pending", "bogus", 1):
        response = await patch_subscriber(http, gw, t["id"], s["id"], status=status)
        assert_error(response, 400, "status", "invalid")
    pending = await add_subscriber(http, gw, (await create_template(http, gw, merchant))["id"])
    pending_s = pending["billing_template_client"]
    response = await patch_subscriber(
        http, gw, pending_s["billing_template_id"], pending_s["id"], status="active"
    )
    assert codes(response) == (400, ["invalid"])
    await patch_subscriber(http, gw, t["id"], s["id"], status="subscription_paused")
    await patch_template(http, gw, t["id"], subscription_active=False)
    response = await patch_subscriber(http, gw, t["id"], s["id"], status="active")
    assert codes(response) == (409, ["subscription_inactive"])
    assert (await get_subscriber(http, gw, t["id"], s["id"]))["status"] == "subscription_paused"


async def test_an_ended_subscriber_cannot_be_resumed_and_is_deleted_quietly(
    http, merchant, gw, runtime
):
    """PATCH of an inactive subscriber's status is 409; its DELETE emits no second event."""
    t = await create_template(http, gw, merchant, number_of_billing_cycles=1)
    body = await add_subscriber(http, gw, t["id"])
    await pay_purchase(http, body["purchase"]["id"])
    sid = body["billing_template_client"]["id"]
    for status in ("active", "subscription_paused"):
        response = await patch_subscriber(http, gw, t["id"], sid, status=status)
        assert codes(response) == (409, ["subscription_inactive"])
    response = await http.delete(f"{TEMPLATES}{t['id']}/clients/{sid}/", headers=gw)
    assert response.status_code == 204
    assert [kind for kind, _ in await events(runtime, sid)] == [CANCELLED]


async def test_delete_subscriber_emits_cancelled_then_is_gone(http, merchant, gw, runtime):
    t, s = await active_subscriber(http, gw, merchant)
    pending = await add_subscriber(http, gw, (await create_template(http, gw, merchant))["id"])
    for sub in (s, pending["billing_template_client"]):
        path = f"{TEMPLATES}{sub['billing_template_id']}/clients/{sub['id']}/"
        response = await http.delete(path, headers=gw)
        assert (response.status_code, response.content) == (204, b"")
        assert [kind for kind, _ in await events(runtime, sub["id"])] == [CANCELLED]
        ((_, payload),) = await events(runtime, sub["id"])
        assert set(payload) == SUBSCRIBER_KEYS and payload["id"] == sub["id"]
        assert (await http.get(path, headers=gw)).status_code == 404
        assert (await http.get(f"{TEMPLATES}clients/{sub['id']}/", headers=gw)).status_code == 404
    assert (await http.get(f"{TEMPLATES}{t['id']}/clients/", headers=gw)).json()["results"] == []


async def test_template_pause_pauses_active_subscribers_and_resumes_only_those(http, merchant, gw):
    """subscription_active false pauses every active subscriber; true resumes exactly those, not
    the one paused on its own; a pending subscriber stays pending."""
    t, by_template = await active_subscriber(http, gw, merchant)
    by_hand = await subscriber(http, gw, t["id"], "b@example.com")
    await patch_subscriber(http, gw, t["id"], by_hand["id"], status="subscription_paused")
    await patch_template(http, gw, t["id"], subscription_trial_periods=0)
    pending = await subscriber(http, gw, t["id"], "c@example.com")

    async def state() -> list[str]:
        return [
            (await get_subscriber(http, gw, t["id"], s["id"]))["status"]
            for s in (by_template, by_hand, pending)
        ]

    paused = await patch_template(http, gw, t["id"], subscription_active=False)
    assert paused["subscription_active"] is False
    assert paused["subscription_has_active_clients"] is True
    assert await state() == ["subscription_paused", "subscription_paused", "pending"]
    now = await get_subscriber(http, gw, t["id"], by_template["id"])
    assert now["subscription_billing_scheduled_on"] is None
    await patch_template(http, gw, t["id"], subscription_active=True)
    assert await state() == ["active", "subscription_paused", "pending"]
    assert await get_subscriber(http, gw, t["id"], by_template["id"]) == by_template


async def test_template_delete_cancels_its_live_subscribers(http, merchant, gw, runtime):
    """Pending, active and paused subscribers each get subscription_billing_cancelled; an ended
    one does not get a second; all are gone."""
    t = await create_template(http, gw, merchant, number_of_billing_cycles=1)
    ended = await add_subscriber(http, gw, t["id"], email="a@example.com")
    await pay_purchase(http, ended["purchase"]["id"])
    await patch_template(http, gw, t["id"], number_of_billing_cycles=0)
    pending = await add_subscriber(http, gw, t["id"], email="b@example.com")
    await patch_template(http, gw, t["id"], subscription_trial_periods=1)
    active = await add_subscriber(http, gw, t["id"], email="c@example.com")
    paused = await add_subscriber(http, gw, t["id"], email="d@example.com")
    paused_id = paused["billing_template_client"]["id"]
    await patch_subscriber(http, gw, t["id"], paused_id, status="subscription_paused")
    assert (await http.delete(f"{TEMPLATES}{t['id']}/", headers=gw)).status_code == 204
    for added in (ended, pending, active, paused):
        sid = added["billing_template_client"]["id"]
        assert [kind for kind, _ in await events(runtime, sid)] == [CANCELLED]
        assert (await http.get(f"{TEMPLATES}clients/{sid}/", headers=gw)).status_code == 404
