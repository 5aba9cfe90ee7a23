"""The object detail's ``holds`` (issue 31, "why"): what holds took of an object, a delivery
of it or a decision about it, with the hold's id and what became of it; an object no hold
touched has none."""

from __future__ import annotations

from tests.delivery.test_deliveries import SINK, paid_out, webhook
from tests.http.purchase_helpers import create
from tests.http.test_holds import PAYOUT_SUCCESS, act, hold


async def detail(http, object_id: str) -> dict:
    response = await http.get(f"/_emulator/objects/{object_id}")
    assert response.status_code == 200, response.text
    found: dict = response.json()
    return found


async def test_a_delivery_a_hold_duplicated_names_the_hold(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="why-held"))
    made = await hold(http, merchant, kind="delivery", match=PAYOUT_SUCCESS)
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    [held] = (await detail(http, payout["id"]))["holds"]
    assert (held["hold"], held["state"], held["done"]) == (made["id"], "held", None)
    await act(http, merchant, made, "duplicate", times=2)
    [done] = (await detail(http, payout["id"]))["holds"]
    assert done["state"] == "duplicated" and done["done"] == {"by": "call", "times": 2}
    assert done["point"] is None and isinstance(done["message_id"], int)
    assert done["done_at"] is not None


async def test_a_decision_a_hold_changed_names_the_hold(http, gw, merchant):
    made = await hold(http, merchant, kind="purchase.payment")
    purchase = await create(http, gw, merchant)
    other = await create(http, gw, merchant)
    assert (await http.post(f"/_emulator/purchases/{purchase['id']}/pay", json={})).is_success
    await act(http, merchant, made, "release", result="declined", reason="insufficient_funds")
    [held] = (await detail(http, purchase["id"]))["holds"]
    assert (held["hold"], held["point"], held["state"]) == (
        made["id"],
        "purchase.payment",
        "released",
    )
    assert held["done"]["outcome"]["result"] == "declined" and held["message_id"] is None
    assert (await detail(http, other["id"]))["holds"] == []
