"""A large-state figure (``--state``): pages of the v2 lists and event feeds of a merchant with
100,000 mandates, 100,000 collections and 100,000 collection events stored (``page_objects``).

One EFT collection is created through the API; its mandate, its collection and its first event
are then copied in bulk by SQL into the emulator's file (new ids and references; every 1,000th
copy in a rare state, so a page of that state has to look through all of them).
"""

from __future__ import annotations

import sqlite3
import statistics

from bench.bank import _token, collection_body
from bench.client import call, expect
from bench.figures import new_merchant, progress
from bench.plan import Plan
from bench.procs import Server
from bench.report import Target, Timing

PAGES = "v2 page"
PAGE_TARGET = Target("<=", 20, "ms")  # the worst query of each list or feed
REPEAT = 5

# A state per copy: every 1,000th is rare; the rest alternate between two common ones.
_STATE = "CASE WHEN n % 1000 = 0 THEN '{rare}' WHEN n % 2 = 0 THEN '{even}' ELSE '{odd}' END"
_NUMBERS = "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {count})"


def _fill(db: str, merchant_id: str, count: int) -> None:
    """The copies, in one transaction beside the running server (WAL: its reads go on)."""
    mandate_state = _STATE.format(rare="CANCELLED", even="ACTIVE", odd="INACTIVE")
    money_state = _STATE.format(rare="UNPAID", even="COMPLETED", odd="PENDING")
    numbers = _NUMBERS.format(count=count)
    uuid = "printf('00000000-0000-4000-8%03d-%012d', {t}, n)"
    conn = sqlite3.connect(db, timeout=60)
    try:
        with conn:
            conn.execute(
                f"{numbers} INSERT INTO bank_mandates"
                " (id, merchant_id, kind, external_reference, status, data)"
                f" SELECT {uuid.format(t=1)}, m.merchant_id, m.kind, 'BM-' || n, {mandate_state},"
                f" json_set(CAST(m.data AS TEXT), '$.id', {uuid.format(t=1)},"
                f" '$.externalReference', 'BM-' || n, '$.status', {mandate_state})"
                " FROM k, (SELECT * FROM bank_mandates WHERE merchant_id = ? LIMIT 1) AS m",
                (merchant_id,),
            )
            conn.execute(
                f"{numbers} INSERT INTO bank_collections"
                " (id, merchant_id, kind, mandate_id, external_reference, status, data)"
                f" SELECT {uuid.format(t=2)}, c.merchant_id, 'DEBICHECK', c.mandate_id,"
                f" 'BC-' || n, {money_state},"
                f" json_set(CAST(c.data AS TEXT), '$.id', {uuid.format(t=2)}, '$.type',"
                f" 'DEBICHECK', '$.externalReference', 'BC-' || n, '$.status', {money_state})"
                " FROM k, (SELECT * FROM bank_collections WHERE merchant_id = ? LIMIT 1) AS c",
                (merchant_id,),
            )
            conn.execute(
                f"{numbers} INSERT INTO outbox (id, merchant_id, event_type, object_type,"
                " object_id, client_id, created_us, payload, dispatched)"
                f" SELECT {uuid.format(t=3)}, e.merchant_id, e.event_type, e.object_type,"
                f" {uuid.format(t=2)}, NULL, e.created_us + n,"
                f" json_set(CAST(e.payload AS TEXT), '$.id', {uuid.format(t=2)},"
                f" '$.status', {money_state}), 1"
                " FROM k, (SELECT * FROM outbox WHERE merchant_id = ?"
                " AND object_type = 'bank_collection' LIMIT 1) AS e",
                (merchant_id,),
            )
    finally:
        conn.close()


QUERIES = {
    "mandates": (
        "/v2/mandate/eft",
        ["take=100", "skip={deep}&take=100", "state=CANCELLED&take=100", "externalReference=BM-7"],
    ),
    "collections": (
        "/v2/collection/debicheck",
        ["take=100", "skip={deep}&take=100", "state=UNPAID&take=100", "externalReference=BC-77"],
    ),
    "collection events": (
        "/v2/event/collection",
        ["take=100", "skip={deep}&take=100", "state=UNPAID&take=100", "collectionId={some}"],
    ),
}


def list_pages(plan: Plan, server: Server) -> list[Timing]:
    """Fill, then time each query ``REPEAT`` times; per list, the worst query's median."""
    merchant = new_merchant(server)
    headers = _token(server, merchant)
    profile = str(merchant["profiles"][0]["profileCode"])
    body = collection_body(profile, "pages").replace("{n}", "0").encode()
    expect(call(server.port, "POST", "/v2/collection/eft", body, headers), 201, "a collection")
    count = plan.page_objects
    progress(f"copying {count:,} mandates, collections and collection events by SQL")
    assert server.db is not None
    _fill(str(server.db), merchant["company_id"], count)
    some = f"00000000-0000-4000-8002-{count // 2:012d}"
    timings = []
    for name, (path, queries) in QUERIES.items():
        medians: dict[str, float] = {}
        errors = []
        for query in queries:
            url = f"{path}?{query.format(some=some, deep=count - 100)}"
            times = []
            for _ in range(REPEAT):
                reply = call(server.port, "GET", url, headers=headers)
                if reply.status != 200 or not isinstance(reply.json(), list):
                    errors.append(f"GET {url}: {reply.status}")
                times.append(reply.ms)
            medians[query] = statistics.median(times)
        worst = max(medians, key=lambda q: medians[q])
        timings.append(
            Timing(
                name=f"{PAGES}, {count:,} stored: {name}",
                runs=REPEAT * len(queries),
                errors=len(errors),
                label="median",
                value_ms=statistics.median(medians.values()),
                target=PAGE_TARGET,
                judged=medians[worst],
                judged_as="worst query",
                detail="; ".join(
                    f"{q.format(some='id', deep=count - 100)} {ms:.1f} ms"
                    for q, ms in medians.items()
                ),
                extra={f"ms {q}": ms for q, ms in medians.items()},
                error_samples=errors[:3],
            )
        )
    # Filters on a field without an index of its own (bank, profile code, ...) look through
    # every object's JSON when few match: reported, not judged.
    url = "/v2/mandate/eft?bank=NOPE"
    times = [call(server.port, "GET", url, headers=headers).ms for _ in range(3)]
    timings.append(
        Timing(
            name=f"{PAGES}, {count:,} stored: unindexed filter",
            runs=3,
            errors=0,
            label="median",
            value_ms=statistics.median(times),
            detail=f"GET {url} (matches none of the {count:,} mandates)",
        )
    )
    return timings
