"""The expectations' reads narrow in SQL without changing a verdict: over the same records,
every item matches exactly what it matches over the merchant's whole history (whether SQL
counted it alone or the domain matched the rows read for it: the same count, the same first
matches, the same sentence); a read of events without an object goes through the outbox's
merchant index."""

from __future__ import annotations

import json
import random

import pytest

from emulator.core.merchants import service as merchants
from emulator.kernel.storage import Tx
from emulator.runtime.runtime import Runtime
from emulator.sandbox.expectations import repo, service
from emulator.sandbox.expectations import repo_counts as expectations_repo_counts
from emulator.sandbox.expectations import repo_indexes as indexes
from emulator.sandbox.expectations import repo_recent as expectations_repo_recent
from emulator.sandbox.expectations.model import parse_set
from emulator.sandbox.expectations.model_records import Records
from emulator.sandbox.expectations.rules_match import evaluate

EVENTS = ("purchase.paid", "purchase.created", "payout.success", "purchase.refunded")
PATHS = ("/api/v1/purchases/", "/api/v1/purchases/{n}/", "/api/v1/purchases/{n}/refund/",
         "/api/v1/clients/", "/v2/collection/eft")  # fmt: skip
ITEMS = [
    {"request": {"method": "POST", "path": "/api/v1/purchases/{id}/refund/"}},
    {"request": {"path": "/api/v1/purchases/*/", "status": "2xx"}},
    {"request": {"api": "bank", "status": 201}},
    {"request": {"path": "/**/refund", "body": {"amount": {"any": "integer"}}}},
    {"delivery": {"event": "purchase.*", "outcome": "ok"}},
    {"delivery": {"event": "payout.success", "sink": "shop", "attempt": 2}},
    {"delivery": {"url": "http://x/hooks/*", "outcome": "failed"}},
    {"delivery": {"object_id": "obj-7", "kind": "webhook"}},
    {"delivery": {"event": "[!p]*"}},
    {"event": {"event": "purchase.paid"}},
    {"event": {"event": "purchase.created", "object_type": "purchase"}, "count": 2},
    {"request": {"method": "POST", "path": "/api/v1/clients"}, "at_most": 3},
    {"delivery": {"event": "purchase.paid", "outcome": "failed", "attempt": 1}, "count": 1},
    {"event": {"object_type": "purchase", "fields": {"status": "refunded"}}},
    {"transition": {"object_type": "purchase", "status": "PAID"}},
    {"transition": {"object_id": "obj-3", "status": "refunded"}},
    {"transition": {"object_type": "payout", "fields": {"id": "obj-5"}, "status": "created"}},
]


def _fill(tx: Tx, merchant_id: str, seed: int) -> None:
    rnd = random.Random(seed)
    for i in range(300):
        method = rnd.choice(["POST", "GET"])
        path = rnd.choice(PATHS).format(n=i)
        body = json.dumps({"amount": rnd.choice([100, "100"])}) if method == "POST" else ""
        tx.conn.execute(
            "INSERT INTO requests(at_us, merchant_id, interface, method, path, query, status,"
            " request_body, response_body, duration_us) VALUES (?,?,?,?,?,'',?,?,'',1)",
            (i, merchant_id, "bank" if path.startswith("/v2") else "gateway", method, path,
             rnd.choice([200, 201, 400]), body),
        )  # fmt: skip
        event, oid = rnd.choice(EVENTS), f"obj-{i % 40}"
        status = rnd.choice(["created", "paid", "refunded"])
        payload = json.dumps({"id": oid, "status": status}).encode()
        seq = tx.conn.execute(
            "INSERT INTO outbox(id, merchant_id, event_type, object_type, object_id, created_us,"
            " payload, dispatched) VALUES (?,?,?,?,?,?,?,1)",
            (f"ev{seed}-{i}", merchant_id, event, ("purchase", "payout")[i % 40 % 2], oid, i,
             payload),
        ).lastrowid  # fmt: skip
        url = rnd.choice(["http://x/_emulator/sink/shop", "http://x/_emulator/sink/shop/?a#b",
                          "http://x/hooks/a", "http://x/_emulator/sink/shopping", "http://y/"])  # fmt: skip
        message = tx.conn.execute(
            "INSERT INTO delivery_messages(merchant_id, event_id, event_seq, event_type,"
            " object_type, object_id, kind, target_id, url, headers, body, state, not_before_us,"
            " created_us) VALUES (?,?,?,?,'purchase',?,?,'t',?,'{}',x'',?,?,?)",
            (merchant_id, f"ev{seed}-{i}", seq, event, oid, rnd.choice(["webhook", "callback"]),
             url, "delivered", i, i),
        ).lastrowid  # fmt: skip
        for attempt in range(1, rnd.choice([2, 3, 4])):
            tx.conn.execute(
                "INSERT INTO delivery_attempts(message_id, merchant_id, object_id, attempt,"
                " at_us, status, success) VALUES (?,?,?,?,?,?,?)",
                (message, merchant_id, oid, attempt, i, 200 if attempt > 1 else 503,
                 int(attempt > 1)),
            )  # fmt: skip


def _everything(tx: Tx, merchant_id: str) -> Records:
    return Records(
        requests=expectations_repo_recent.tail_requests(tx, merchant_id, 100_000),
        deliveries=expectations_repo_recent.tail_deliveries(tx, merchant_id, 100_000),
        events=expectations_repo_recent.tail_events(tx, merchant_id, 100_000),
    )


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: json.dumps(item)[:60])
async def test_a_narrowed_read_matches_what_the_whole_history_matches(runtime: Runtime, item):
    mine = await merchants.create(runtime)
    other = await merchants.create(runtime)
    await runtime.db.write(lambda tx: _fill(tx, mine["company_id"], 1))
    await runtime.db.write(lambda tx: _fill(tx, other["company_id"], 2))
    expectations = parse_set({"expect": [item]})
    narrowed = await runtime.db.read(
        lambda tx: service._gather(tx, mine["company_id"], expectations)
    )
    whole = await runtime.db.read(lambda tx: _everything(tx, mine["company_id"]))
    [expected] = evaluate(expectations, whole, 0).results
    [got] = evaluate(expectations, narrowed.records, 0, counted=narrowed.counted).results
    assert expected.matched > 0 or "[!p]" in json.dumps(item)
    assert (got.matched, got.matches, got.message) == (
        expected.matched,
        expected.matches,
        expected.message,
    )


async def test_events_without_an_object_are_read_through_the_merchant_index(runtime: Runtime):
    """Once a verify has made the expectations' indexes (the first one does)."""
    await runtime.db.write(lambda tx: indexes.create_indexes(tx, list(indexes.LAZY_INDEXES)))
    mine = await merchants.create(runtime)
    spec = parse_set({"expect": [{"event": {"event": "purchase.paid"}}]}).items[0].spec

    def plan(tx: Tx) -> str:
        statements: list[str] = []
        tx.conn.set_trace_callback(statements.append)
        try:
            repo.events(tx, mine["company_id"], [spec], [])
        finally:
            tx.conn.set_trace_callback(None)
        [read] = [s for s in statements if "FROM outbox" in s]
        rows = tx.conn.execute(f"EXPLAIN QUERY PLAN {read}").fetchall()
        return " ".join(str(r[3]) for r in rows)

    assert "USING INDEX outbox_merchant" in await runtime.db.read(plan)


async def test_the_journal_and_message_indexes_come_with_the_first_verify(runtime, http):
    """A server that never verifies never keeps them up; the first verify creates them, and
    a count of deliveries by event type then reads the messages' index alone."""
    assert await runtime.db.read(indexes.missing_indexes) == list(indexes.LAZY_INDEXES)
    mine = (await http.post("/_emulator/merchants")).json()
    body = {"expect": [{"delivery": {"event": "purchase.paid"}, "never": True}]}
    verified = await http.post(f"/_emulator/merchants/{mine['company_id']}/verify", json=body)
    assert verified.status_code == 200 and verified.json()["ok"] is True
    assert await runtime.db.read(indexes.missing_indexes) == []
    spec = parse_set(body).items[0].spec

    def plan(tx: Tx) -> str:
        statements: list[str] = []
        tx.conn.set_trace_callback(statements.append)
        try:
            expectations_repo_counts.counted(tx, mine["company_id"], spec, 50)
        finally:
            tx.conn.set_trace_callback(None)
        [count] = [s for s in statements if s.startswith("SELECT count(*)")]
        rows = tx.conn.execute(f"EXPLAIN QUERY PLAN {count}").fetchall()
        return " ".join(str(r[3]) for r in rows)

    assert "COVERING INDEX delivery_messages_merchant" in await runtime.db.read(plan)
