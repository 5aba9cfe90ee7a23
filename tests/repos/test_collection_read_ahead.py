"""A run of collection step jobs reads its collections ahead (``bank.collections.repo.collection_of_job``):
each job gets the row ``collection`` would give it, other instants' and kinds' jobs are not
read, and a row the unit has changed since it was read ahead is read again."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.bank.collections import repo as collections_repo
from emulator.bank.collections.jobs import STEP_JOB
from emulator.runtime.runtime import Runtime
from tests.repos.test_bank_lists import _collection

DUE = 1_800_000_000_000_000


async def test_each_job_reads_its_row_as_the_unit_left_it(runtime: Runtime) -> None:
    merchant = runtime.default_merchant.company_id
    made = [_collection(n, "EFT") for n in range(5)]

    def fill(tx: Any) -> list[int]:
        jobs = []
        for n, c in enumerate(made):
            collections_repo.insert_collection(tx, merchant, c)
            due = DUE if n != 3 else DUE + 1  # one at another instant
            jobs.append(runtime.scheduler.schedule(tx, STEP_JOB, due, {"id": c.id}, merchant))
        return jobs

    jobs = await runtime.db.write(fill)
    changed = msgspec.structs.replace(made[1], status="COMPLETED", statementId="S-1")

    def run(tx: Any) -> tuple[list[Any], int]:
        statements: list[str] = []
        tx.conn.set_trace_callback(statements.append)
        try:
            first = collections_repo.collection_of_job(tx, made[0].id, jobs[0], DUE, STEP_JOB)
            collections_repo.update_collection(tx, changed, before="PENDING")  # read ahead just now
            rest = [
                collections_repo.collection_of_job(
                    tx, made[n].id, jobs[n], DUE + (n == 3), STEP_JOB
                )
                for n in (1, 2, 3, 4)
            ]
        finally:
            tx.conn.set_trace_callback(None)
        reads = sum(s.startswith("SELECT c.id") for s in statements)
        return [first, *rest], reads

    found, reads = await runtime.db.write(run)
    assert found == [(merchant, c) for c in (made[0], changed, made[2], made[3], made[4])]
    # one read ahead for the instant, again for the changed row, again for the other instant
    assert reads == 3
    missing = await runtime.db.write(
        lambda tx: collections_repo.collection_of_job(tx, "no-such-id", jobs[0], DUE, STEP_JOB)
    )
    assert missing is None
