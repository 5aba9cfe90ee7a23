"""Holds through HTTP: a delivery held, looked at, then released edited (re-signed, or with its
original signature), dropped, duplicated or delayed; decisions held and released with
another outcome; timeouts on the clock; an advance stopped at the held instant; bad bodies."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.exceptions import InvalidSignature

from emulator.runtime.runtime import Runtime
from tests.conftest import settings_for
from tests.delivery.test_deliveries import SINK, _serve, paid_out, verify, webhook
from tests.http.bank_helpers import debicheck_body, eft_body
from tests.http.purchase_helpers import create, form

PAYOUT_SUCCESS = {"event_type": "payout.success"}


async def hold(http: httpx.AsyncClient, merchant: dict[str, Any], **body: Any) -> dict[str, Any]:
    response = await http.post(f"/_emulator/merchants/{merchant['company_id']}/holds", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


async def act(
    http: httpx.AsyncClient, merchant: dict[str, Any], made: dict[str, Any], action: str, **body
) -> dict[str, Any]:
    path = f"/_emulator/merchants/{merchant['company_id']}/holds/{made['id']}/{action}"
    response = await http.post(path, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def show(http: httpx.AsyncClient, merchant: dict[str, Any], made: dict[str, Any]) -> dict:
    path = f"/_emulator/merchants/{merchant['company_id']}/holds/{made['id']}"
    response = await http.get(path)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def received(http: httpx.AsyncClient, name: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = (await http.get(f"/_emulator/sink/{name}")).json()["messages"]
    return [m for m in messages if m["json"]["event_type"] == "payout.success"]


async def held_payout(
    http: httpx.AsyncClient, gw: dict[str, str], merchant: dict[str, Any], name: str, **extra: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A webhook to sink ``name``, a hold on its next payout.success, the payout made: the
    hook and the hold (holding the message)."""
    hook = await webhook(http, gw, SINK.format(name=name))
    made = await hold(http, merchant, kind="delivery", match=PAYOUT_SUCCESS, **extra)
    await paid_out(http, gw, merchant, "4444333322221111")
    return hook, await show(http, merchant, made)


async def test_a_held_delivery_waits_and_shows_its_message(http, gw, merchant):
    hook, made = await held_payout(http, gw, merchant, "held-shown")
    assert made["state"] == "holding"
    [item] = made["items"]
    assert item["state"] == "held"
    message = item["message"]
    assert message["event_type"] == "payout.success"
    assert message["url"] == SINK.format(name="held-shown")
    verify(hook["public_key"], message["headers"]["X-Signature"], message["body"].encode())
    assert await received(http, "held-shown") == []
    listed = (await http.get(f"/_emulator/merchants/{merchant['company_id']}/holds")).json()
    assert [h["id"] for h in listed["holds"]] == [made["id"]]


async def test_an_edited_delivery_is_re_signed(http, gw, merchant):
    hook, made = await held_payout(http, gw, merchant, "resigned")
    edited = {"event_type": "payout.success", "id": "edited", "status": "success"}
    answer = await act(http, merchant, made, "release", body=edited, headers={"X-Extra": "1"})
    assert answer["items"][0]["done"]["resigned"] is True
    [message] = await received(http, "resigned")
    assert message["json"] == edited
    assert message["headers"]["x-extra"] == "1"
    verify(hook["public_key"], message["headers"]["x-signature"], message["body"].encode())


async def test_an_edited_delivery_with_its_original_signature_fails_verification(
    http, gw, merchant
):
    hook, made = await held_payout(http, gw, merchant, "forged")
    original = made["items"][0]["message"]["headers"]["X-Signature"]
    edited = {"event_type": "payout.success", "id": "forged"}
    await act(http, merchant, made, "release", body=edited, resign=False)
    [message] = await received(http, "forged")
    assert message["headers"]["x-signature"] == original
    with pytest.raises(InvalidSignature):
        verify(hook["public_key"], message["headers"]["x-signature"], message["body"].encode())


async def test_a_dropped_delivery_is_never_sent(http, gw, merchant):
    _, made = await held_payout(http, gw, merchant, "dropped")
    answer = await act(http, merchant, made, "drop")
    assert answer["items"][0]["state"] == "dropped"
    assert answer["state"] == "done"
    assert await received(http, "dropped") == []
    again = await http.post(
        f"/_emulator/merchants/{merchant['company_id']}/holds/{made['id']}/release"
    )
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "nothing_held"


async def test_a_duplicated_delivery_goes_out_n_times_with_one_event_id(http, gw, merchant):
    _, made = await held_payout(http, gw, merchant, "twice")
    await act(http, merchant, made, "duplicate", times=3)
    messages = await received(http, "twice")
    assert len(messages) == 3
    assert len({m["headers"]["x-event-id"] for m in messages}) == 1


async def test_a_delayed_delivery_goes_out_on_the_clock(http, gw, merchant):
    _, made = await held_payout(http, gw, merchant, "delayed")
    await act(http, merchant, made, "delay", hours=1)
    advanced = await http.post("/_emulator/clock/advance", json={"minutes": 59})
    assert advanced.status_code == 200
    assert await received(http, "delayed") == []
    await http.post("/_emulator/clock/advance", json={"minutes": 1})
    assert len(await received(http, "delayed")) == 1


@pytest.mark.parametrize(("on_timeout", "count"), [("release", 1), ("drop", 0)])
async def test_a_timeout_on_the_clock_does_on_timeout(http, gw, merchant, on_timeout, count):
    name = f"timeout-{on_timeout}"
    _, made = await held_payout(
        http, gw, merchant, name, timeout_seconds=600, on_timeout=on_timeout
    )
    await http.post("/_emulator/clock/advance", json={"seconds": 599})
    assert await received(http, name) == []
    await http.post("/_emulator/clock/advance", json={"seconds": 1})
    assert len(await received(http, name)) == count
    [item] = (await show(http, merchant, made))["items"]
    assert item["state"] == {"release": "released", "drop": "dropped"}[on_timeout]
    assert item["done"]["by"] == "timeout"


async def test_bad_bodies_are_400(http, merchant):
    path = f"/_emulator/merchants/{merchant['company_id']}/holds"
    for body, says in [
        ({"kind": "nothing"}, "'kind' must be one of"),
        ({"kind": "delivery", "match": {"colour": "red"}}, "unknown match field"),
        ({"kind": "delivery", "count": 0}, "'count'"),
        ({"kind": "delivery", "on_timeout": "explode"}, "'on_timeout'"),
        ({"kind": "delivery", "extra": 1}, "'extra' is not a field"),
    ]:
        response = await http.post(path, json=body)
        assert response.status_code == 400, body
        assert says in response.json()["error"]["message"]
    made = await hold(http, merchant, kind="delivery")
    for action, body in [("delay", {}), ("delay", {"weeks": 1}), ("duplicate", {"times": 99})]:
        response = await http.post(f"{path}/{made['id']}/{action}", json=body)
        assert response.status_code == 400, (action, body)
    missing = await http.get(f"{path}/hold_nothing")
    assert missing.status_code == 404
    assert (await http.get("/_emulator/merchants/nobody/holds")).status_code == 404


async def test_an_advance_stops_at_the_held_instant(http, gw, merchant, v2):
    """A bank collection's outcome held on the clock: the advance stops at the instant it was
    taken and names the hold; released as UNPAID 18, the collection ends so."""
    made = await hold(http, merchant, kind="collection.outcome")
    body = eft_body(merchant["profiles"][0]["profileCode"], reference="HELD-1")
    created = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert created.status_code == 201, created.text
    collection = created.json()
    advanced = await http.post("/_emulator/clock/advance", json={"days": 30})
    assert advanced.status_code == 200
    stopped = advanced.json()["stopped"]
    assert stopped["hold"] == made["id"]
    assert advanced.json()["now"] == stopped["at"]
    found = await show(http, merchant, made)
    [item] = found["items"]
    assert item["point"] == "collection.outcome"
    assert item["default_outcome"] == {"status": "COMPLETED", "reasonCode": None}
    status = f"/v2/collection/eft/{collection['id']}/status"
    assert (await http.get(status, headers=v2)).json()["status"] == "PENDING"
    await act(http, merchant, made, "release", status="UNPAID", reasonCode="18")
    ended = (await http.get(status, headers=v2)).json()
    assert (ended["status"], ended["reasonCode"]) == ("UNPAID", "18")


async def test_a_card_payment_held_and_released_with_a_decline(http, gw, merchant):
    made = await hold(http, merchant, kind="purchase.payment")
    purchase = await create(http, gw, merchant)
    paid = await http.post(f"/_emulator/purchases/{purchase['id']}/pay", json={})
    assert paid.status_code == 200
    assert paid.json()["status"] == purchase["status"]  # as it was: the result is held
    [item] = (await show(http, merchant, made))["items"]
    assert item["default_outcome"] == {"result": "paid", "reason": None}
    bad = await http.post(
        f"/_emulator/merchants/{merchant['company_id']}/holds/{made['id']}/release",
        json={"result": "declined", "reason": "no such reason"},
    )
    assert bad.status_code == 400
    await act(http, merchant, made, "release", result="declined", reason="insufficient_funds")
    declined = (await http.get(f"/api/v1/purchases/{purchase['id']}/", headers=gw)).json()
    assert declined["status"] == "error"
    error = declined["transaction_data"]["attempts"][0]["error"]
    assert error["code"] == "insufficient_funds"


async def test_a_debtors_debicheck_answer_held_and_released_as_a_rejection(http, merchant, v2):
    made = await hold(http, merchant, kind="mandate.authorisation")
    body = debicheck_body(merchant["profiles"][0]["profileCode"], reference="HELD-DC")
    created = await http.post("/v2/mandate/debicheck", json=body, headers=v2)
    assert created.status_code == 201, created.text
    mandate = created.json()
    answered = await http.post(f"/_emulator/mandates/{mandate['id']}/authorise")
    assert answered.status_code == 200
    assert answered.json()["status"] == "PENDING_AUTHENTICATION"  # held
    [item] = (await show(http, merchant, made))["items"]
    assert item["default_outcome"]["status"] == "AUTHENTICATED"
    await act(http, merchant, made, "release", status="REJECTED")
    status = f"/v2/mandate/debicheck/{mandate['id']}/status"
    assert (await http.get(status, headers=v2)).json()["status"] == "REJECTED"


async def test_a_held_delivery_survives_a_restart(tmp_path: Path):
    """Held before a stop, it is still held after a start on the same file, then released."""
    settings = settings_for(tmp_path, clock_explicit=False)
    async with Runtime(settings) as rt, await _serve(rt) as http:
        merchant = (await http.post("/_emulator/merchants")).json()
        gw = {"Authorization": f"Bearer {merchant['api_key']}"}
        _, made = await held_payout(http, gw, merchant, "restarted")
    async with Runtime(settings) as rt, await _serve(rt) as http:
        assert (await show(http, merchant, made))["state"] == "holding"
        assert await received(http, "restarted") == []
        await act(http, merchant, made, "release")
        assert len(await received(http, "restarted")) == 1


async def test_a_held_card_result_on_the_payers_pages(http, gw, merchant):
    """Direct post answers 202 held; the checkout form goes to the result page, unpaid."""
    await hold(http, merchant, kind="purchase.payment", count=2)
    first = await create(http, gw, merchant)
    posted = await http.post(f"/p/{first['id']}/direct_post/?s2s=true", json=form())
    assert (posted.status_code, posted.json()) == (202, {"status": "held"})
    second = await create(http, gw, merchant)
    page = await http.post(f"/p/{second['id']}/", data=form())
    assert page.status_code == 303
    assert page.headers["location"] == f"/p/{second['id']}/result/"
    for purchase in (first, second):
        found = (await http.get(f"/api/v1/purchases/{purchase['id']}/", headers=gw)).json()
        assert found["status"] != "paid"


async def test_an_advance_stops_where_a_delivery_was_held(http, gw, merchant):
    """payout.failed comes at the settlement, days on: an advance past it stops there."""
    await webhook(http, gw, SINK.format(name="stopped-delivery"))
    made = await hold(http, merchant, kind="delivery", match={"event_type": "payout.failed"})
    payout = await paid_out(http, gw, merchant, "4000000000009995")
    start = datetime.fromisoformat((await http.get("/_emulator/clock")).json()["now"])
    advanced = (await http.post("/_emulator/clock/advance", json={"days": 30})).json()
    assert advanced["stopped"]["hold"] == made["id"]
    assert advanced["now"] == advanced["stopped"]["at"]
    stopped_at = datetime.fromisoformat(advanced["now"])
    assert start + timedelta(days=1) < stopped_at < start + timedelta(days=30)
    [item] = (await show(http, merchant, made))["items"]
    assert item["held_at"] == advanced["now"]
    assert item["message"]["object_id"] == payout["id"]
    again = (await http.post("/_emulator/clock/advance", json={"days": 1})).json()
    assert "stopped" not in again  # the clock goes on; the message still waits
    assert [i["state"] for i in (await show(http, merchant, made))["items"]] == ["held"]
