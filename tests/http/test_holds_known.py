"""Holds made after the emulator learned that a merchant had none: the delivery side skips
the lookup of armed holds for a merchant known to have none, so a hold made later, or one
brought back by a snapshot's restore, must still take what comes next."""

from __future__ import annotations

from tests.conftest import token_for
from tests.delivery.test_deliveries import SINK, paid_out, webhook
from tests.http.bank_helpers import eft_body
from tests.http.test_holds import PAYOUT_SUCCESS, hold, received, show


async def test_a_hold_made_after_deliveries_went_out_takes_the_next(http, gw, merchant):
    """Deliveries went out with no hold armed; a hold made then takes the next one."""
    await webhook(http, gw, SINK.format(name="known-none"))
    await paid_out(http, gw, merchant, "4444333322221111")
    await paid_out(http, gw, merchant, "4444333322221111")
    assert len(await received(http, "known-none")) == 2
    made = await hold(http, merchant, kind="delivery", match=PAYOUT_SUCCESS)
    await paid_out(http, gw, merchant, "4444333322221111")
    [item] = (await show(http, merchant, made))["items"]
    assert item["state"] == "held"
    assert len(await received(http, "known-none")) == 2


async def test_a_restored_hold_takes_the_next_delivery(http, gw, merchant):
    """A snapshot with an armed hold, restored after the hold was used up and deliveries
    went out without one: the restored hold takes the next delivery."""
    await webhook(http, gw, SINK.format(name="restored-hold"))
    made = await hold(http, merchant, kind="delivery", match=PAYOUT_SUCCESS)
    saved = await http.post("/_emulator/snapshots/armed-hold")
    assert saved.status_code == 201, saved.text
    await paid_out(http, gw, merchant, "4444333322221111")  # held: the hold is used up
    await paid_out(http, gw, merchant, "4444333322221111")  # goes out: none armed
    assert len(await received(http, "restored-hold")) == 1
    restored = await http.post("/_emulator/snapshots/armed-hold/restore")
    assert restored.status_code == 200, restored.text
    assert (await show(http, merchant, made))["items"] == []
    await paid_out(http, gw, merchant, "4444333322221111")
    [item] = (await show(http, merchant, made))["items"]
    assert item["state"] == "held"
    assert await received(http, "restored-hold") == []


async def test_a_collection_outcome_hold_made_after_outcomes_went_by(http, merchant, v2):
    """A day's collection outcomes ran with no hold armed; a hold made then takes the
    outcome of the next collection."""
    profile = merchant["profiles"][0]["profileCode"]
    first = await http.post("/v2/collection/eft", json=eft_body(profile, "KNOWN-1"), headers=v2)
    assert first.status_code == 201, first.text
    assert (await http.post("/_emulator/clock/advance", json={"days": 5})).status_code == 200
    v2 = {
        "Authorization": f"Bearer {await token_for(http, merchant['client_id'], merchant['client_secret'])}"
    }
    status = f"/v2/collection/eft/{first.json()['id']}/status"
    assert (await http.get(status, headers=v2)).json()["status"] == "COMPLETED"
    made = await hold(http, merchant, kind="collection.outcome")
    second = await http.post("/v2/collection/eft", json=eft_body(profile, "KNOWN-2"), headers=v2)
    assert second.status_code == 201, second.text
    advanced = await http.post("/_emulator/clock/advance", json={"days": 5})
    assert advanced.json()["stopped"]["hold"] == made["id"]
    [item] = (await show(http, merchant, made))["items"]
    assert item["point"] == "collection.outcome"
    v2 = {
        "Authorization": f"Bearer {await token_for(http, merchant['client_id'], merchant['client_secret'])}"
    }
    status = f"/v2/collection/eft/{second.json()['id']}/status"
    assert (await http.get(status, headers=v2)).json()["status"] == "PENDING"
