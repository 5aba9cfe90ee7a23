"""Copies (issue 31): a message that is one of several sends of its event to its target says
which (``copy`` of ``copies``) and what made it one (``cause``: a scenario, a hold, a replay),
in the control plane's log and the object detail; an ordinary message has none of the three."""

from __future__ import annotations

from typing import Any

from tests.delivery.test_deliveries import SINK, attempts, paid_out, webhook
from tests.delivery.test_delivery_scenarios import activate
from tests.http.test_holds import PAYOUT_SUCCESS, act, hold

CARD = "4444333322221111"


def copies_of(found: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    paid = [a for a in found if a["event_type"] == "payout.success"]
    return sorted((a.get("copy"), a.get("copies"), a.get("cause")) for a in paid)


async def test_a_scenarios_copies_are_copy_1_to_n_of_n_with_its_name(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="copied"))
    await activate(http, merchant, "{copies: 3}", "{event_type: payout.success}")
    payout = await paid_out(http, gw, merchant, CARD)
    cause = {"kind": "scenario", "id": "hooks"}
    expected = [(n, 3, cause) for n in (1, 2, 3)]
    assert copies_of(await attempts(http, object_id=payout["id"])) == expected
    detail = (await http.get(f"/_emulator/objects/{payout['id']}")).json()
    assert copies_of(detail["deliveries"]) == expected


async def test_a_holds_duplicates_are_copies_of_the_hold(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="held-copies"))
    made = await hold(http, merchant, kind="delivery", match=PAYOUT_SUCCESS)
    payout = await paid_out(http, gw, merchant, CARD)
    await act(http, merchant, made, "duplicate", times=2)
    cause = {"kind": "hold", "id": made["id"]}
    found = await attempts(http, object_id=payout["id"])
    assert copies_of(found) == [(1, 2, cause), (2, 2, cause)]


async def test_a_replay_is_the_next_copy_and_an_ordinary_message_has_no_copy(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="replayed"))
    payout = await paid_out(http, gw, merchant, CARD)
    [original] = [
        a for a in await attempts(http, object_id=payout["id"])
        if a["event_type"] == "payout.success"
    ]  # fmt: skip
    assert not {"copy", "copies", "cause"} & set(original)
    query = {"merchant": merchant["company_id"], "event_type": "payout.success"}
    done = await http.post("/_emulator/deliveries/replay", json=query)
    assert done.status_code == 200, done.text
    _, replayed = [
        a for a in await attempts(http, object_id=payout["id"])
        if a["event_type"] == "payout.success"
    ]  # fmt: skip
    assert (replayed["copy"], replayed["copies"]) == (2, 2)
    assert replayed["cause"] == {"kind": "replay", "id": str(original["message_id"])}
