"""The journal's ids: ``last_id`` counts what is still buffered without writing it (the flow
recorder asks at every move of the other side), and an id is never given twice, even when the
newest entries were deleted (a merchant's deletion): a tail reading ``after`` an id misses
nothing."""

from __future__ import annotations

from emulator.kernel.journal import Entry, Journal


def entry(path: str, merchant_id: str | None = None) -> Entry:
    return Entry(0, merchant_id, "gateway", "GET", path, "", 200, "", "", 1)


async def ids(journal: Journal) -> list[int]:
    rows = await journal.list(merchant_id=None, limit=100, before_id=None)
    return sorted(int(r["id"]) for r in rows)


async def test_last_id_counts_the_buffered_entries_without_writing_them(runtime) -> None:
    journal = runtime.journal
    top = await journal.last_id()
    for i in range(3):
        journal.record(entry(f"/a/{i}"))
    promised = await journal.last_id()
    assert promised == top + 3
    assert journal._buffer, "last_id wrote the buffered entries"
    await journal.flush()
    assert (await ids(journal))[-3:] == [top + 1, top + 2, top + 3]


async def test_ids_deleted_at_the_top_are_not_given_again(runtime) -> None:
    journal = runtime.journal
    for i in range(3):
        journal.record(entry(f"/b/{i}", None))
    await journal.flush()
    top = await journal.last_id()
    await runtime.db.write(lambda tx: tx.execute("DELETE FROM requests WHERE id >= ?", (top - 1,)))
    journal.record(entry("/b/after"))
    await journal.flush()
    assert (await ids(journal))[-1] == top + 1  # not top - 1, which SQLite would hand out


async def test_ids_taken_by_another_writer_are_read_again(runtime) -> None:
    journal = runtime.journal
    await journal.last_id()  # known from here on
    await runtime.db.write(
        lambda tx: tx.execute(
            "INSERT INTO requests (id, at_us, interface, method, path, query, status,"
            " request_body, response_body, duration_us) VALUES"
            " ((SELECT MAX(id) FROM requests) + 5, 0, 'gateway', 'GET', '/x', '', 200, '', '', 1)"
        )
    )
    journal.record(entry("/c"))
    await journal.flush()  # written after the other's row, not over it
    latest = await ids(journal)
    assert latest[-1] == await journal.last_id()
    journal.record(entry("/d"))
    assert await journal.last_id() == latest[-1] + 1
