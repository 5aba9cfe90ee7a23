"""How long each delivery attempt's HTTP exchange took: measured in wall time around the
request, shown by the control plane (`duration_ms`) and the gateway's delivery log; null when
nothing was sent (a scenario's fail_attempts) and for attempts recorded before migration 0013."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from emulator.kernel.schema import apply_migrations
from tests.delivery.test_deliveries import DOWN, SINK, attempts, paid_out, webhook
from tests.http.clock_helpers import Receiver


async def test_an_attempt_records_how_long_the_receiver_took(http, gw, merchant):
    """A receiver that answers after 0.3 s: the attempt took at least 300 ms (and less than
    the 5 s timeout), in both the control plane's list and the gateway's log."""
    async with Receiver(delay=0.3) as receiver:
        await webhook(http, gw, receiver.url)
        payout = await paid_out(http, gw, merchant, "4444333322221111")
        [attempt] = await attempts(http, object_id=payout["id"])
    assert attempt["success"] is True
    assert 300 <= attempt["duration_ms"] < 5000, attempt["duration_ms"]
    query = {"id": payout["id"], "source_type": "Payout"}
    log = (await http.get("/api/v1/webhooks/deliveries/", params=query, headers=gw)).json()
    [logged] = log["results"]
    assert logged["duration_ms"] == attempt["duration_ms"]


async def test_a_fast_receiver_and_a_refused_connection_are_measured_too(http, gw, merchant):
    """The built-in sink answers in well under the slow receiver's time; a refused connection
    has no status but still took a (short) measured time."""
    await webhook(http, gw, SINK.format(name="timed"))
    await webhook(http, gw, DOWN)
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    found = {a["url"]: a for a in await attempts(http, object_id=payout["id"])}
    sink, down = found[SINK.format(name="timed")], found[DOWN]
    assert sink["status"] == 200 and 0 <= sink["duration_ms"] < 300
    assert down["status"] is None and down["error"]
    assert isinstance(down["duration_ms"], float) and 0 <= down["duration_ms"] < 5000


async def test_an_attempt_a_scenario_fails_sent_nothing_and_has_no_duration(http, gw, merchant):
    await webhook(http, gw, SINK.format(name="down-once"))
    text = "name: down\nrules:\n  - when: webhook.delivery\n    then: {fail_attempts: 1}\n"
    assert (await http.post("/_emulator/scenarios", content=text)).status_code == 201
    await http.post("/_emulator/scenarios/down/activate", json={})
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    [first] = await attempts(http, object_id=payout["id"])
    assert first["success"] is False and first["duration_ms"] is None


def test_attempts_recorded_before_the_migration_have_no_duration(tmp_path: Path):
    """Migration 0013 adds the column to a database that already holds attempts: theirs is
    NULL (shown as null), and new ones can carry one."""
    conn = sqlite3.connect(tmp_path / "old.sqlite3")
    apply_migrations(conn)
    conn.execute("DELETE FROM schema_migrations WHERE version = 13")
    conn.execute("ALTER TABLE delivery_attempts DROP COLUMN duration_us")
    conn.execute(
        "INSERT INTO delivery_messages (id, event_id, event_seq, event_type, object_type,"
        " object_id, kind, target_id, url, headers, body, state, fail_attempts, reorder,"
        " not_before_us, created_us) VALUES (1, 'ev', 1, 'payout.success', 'payout', 'p1',"
        " 'webhook', 'w1', 'http://x/', '{}', x'', 'delivered', 0, 0, 0, 0)"
    )
    conn.execute(
        "INSERT INTO delivery_attempts (message_id, object_id, attempt, at_us, status, error,"
        " success) VALUES (1, 'p1', 1, 0, 200, NULL, 1)"
    )
    conn.commit()
    assert apply_migrations(conn) == [13]
    assert conn.execute("SELECT duration_us FROM delivery_attempts").fetchall() == [(None,)]
    conn.close()
