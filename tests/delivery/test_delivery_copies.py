"""Copies (issue 31): a message that is one of several sends of its event to its target says
which (``copy`` of ``copies``) and what made it one (``cause``: a scenario, a hold, a replay),
in the control plane's log and the object detail; an ordinary message has none of the three."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from emulator.kernel.schema import apply_migrations
from tests.delivery.test_deliveries import SINK, attempts, paid_out, webhook
from tests.delivery.test_delivery_scenarios import activate
from tests.http.test_holds import PAYOUT_SUCCESS, act, hold, show

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
    assert (await show(http, merchant, made))["items"]  # dispatched, and held
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


async def test_a_re_send_from_the_console_is_the_next_copy(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="re-sent"))
    payout = await paid_out(http, gw, merchant, CARD)
    [original] = [
        a for a in await attempts(http, object_id=payout["id"])
        if a["event_type"] == "payout.success"
    ]  # fmt: skip
    again = await http.post(f"/_emulator/deliveries/{original['id']}/resend")
    assert again.status_code == 201, again.text
    [copy] = again.json()["deliveries"]
    cause = {"kind": "replay", "id": str(original["message_id"])}
    assert (copy["copy"], copy["copies"], copy["cause"]) == (2, 2, cause)


def test_messages_stored_before_the_migration_are_ordinary(tmp_path: Path):
    """Migration 0017 adds the columns to a database that already holds messages: theirs
    are NULL, so their attempts show no copy."""
    conn = sqlite3.connect(tmp_path / "old.sqlite3")
    apply_migrations(conn)
    conn.execute("DELETE FROM schema_migrations WHERE version = 17")
    for column in ("copy", "copies", "cause"):
        conn.execute(f"ALTER TABLE delivery_messages DROP COLUMN {column}")
    conn.execute(
        "INSERT INTO delivery_messages (id, event_id, event_seq, event_type, object_type,"
        " object_id, kind, target_id, url, headers, body, state, fail_attempts, reorder,"
        " not_before_us, created_us) VALUES (1, 'ev', 1, 'payout.success', 'payout', 'p1',"
        " 'webhook', 'w1', 'http://x/', '{}', x'', 'delivered', 0, 0, 0, 0)"
    )
    conn.commit()
    assert apply_migrations(conn) == [17]
    found = conn.execute("SELECT copy, copies, cause FROM delivery_messages").fetchall()
    assert found == [(None, None, None)]
    conn.close()
