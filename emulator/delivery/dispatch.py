"""Dispatch: outbox events → routers → stored messages and their first send jobs.

After a unit of work that emitted an event of a watched object type commits, the engine
(``engine.DeliveryEngine``) has the events past the cursor (kept in ``settings``) prepared, a
batch at a time: read on the read connection, their head start done in a worker thread (the
webhooks' signatures: RSA without the GIL, off the database's threads); then, in one unit of
work on the writer, routed (``dispatch``): every router
registered for the event's object type gives its ``Outgoing`` messages, each message's
decision point (``webhook.delivery`` / ``callback.delivery``) gives copies, delay, failing
attempts and reordering, the messages are stored and the cursor moves. A crash before that
commit leaves the events past the cursor: the next start dispatches them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.delivery import holds, repo
from emulator.delivery.outgoing import Outgoing, Prepare, Router
from emulator.kernel import memo
from emulator.kernel.outbox import EVENTS, HEAD_COLUMNS, StoredEvent
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context

log = logging.getLogger("emulator.delivery.engine")

SEND_JOB = "delivery.send"
CURSOR_KEY = "delivery.cursor"
DISPATCH_BATCH = 200
PREPARE_MAX = DISPATCH_BATCH  # events prepared (their signatures made) then dispatched at a time


class _Payloads:
    """Routers read the payloads of few events (those a webhook or a callback wants): the
    payloads of one batch of events, read on first use, in one statement: a batch of
    events nobody receives (a busy day's collections of a merchant without callbacks) reads
    none, which was half the cost of its read."""

    __slots__ = ("_read", "_seqs", "_tx")

    def __init__(self, tx: Tx, seqs: list[int]) -> None:
        self._tx, self._seqs = tx, seqs
        self._read: dict[int, bytes] | None = None

    def of(self, seq: int) -> bytes:
        if self._read is None:
            marks = ", ".join("?" for _ in self._seqs)
            rows = self._tx.all(
                f"SELECT seq, payload FROM {EVENTS} WHERE seq IN ({marks})", self._seqs
            )
            self._read = {row[0]: row[1] for row in rows}
        return self._read[seq]


class _Event(StoredEvent):
    """An outbox row read without its payload (``HEAD_COLUMNS``): read with its batch's, in
    the same unit of work, when a router first wants it."""

    __slots__ = ("_payloads",)

    def __init__(self, row: Any, payloads: _Payloads) -> None:
        self.seq = row["seq"]
        self.id = row["id"]
        self.merchant_id = row["merchant_id"]
        self.event_type = row["event_type"]
        self.object_type = row["object_type"]
        self.object_id = row["object_id"]
        self.client_id = row["client_id"]
        self.created_us = row["created_us"]
        self._raw = b""
        self._payload = None
        self._payloads = payloads

    @property
    def raw(self) -> bytes:  # its payload read with its batch's (``StoredEvent.payload``: decoded)
        if not self._raw:
            self._raw = self._payloads.of(self.seq)
        return self._raw


def _which(only: dict[str, list[str | None]]) -> tuple[str, list[str]]:
    """The condition on outbox rows of the events some router may want, and its parameters:
    the types every event of which is routed, and the others, grouped by their routers'
    conditions (each tested once per row)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for object_type, given in sorted(only.items()):
        key = () if None in given else tuple(sorted({c for c in given if c}))
        groups.setdefault(key, []).append(object_type)
    parts: list[str] = []
    params: list[str] = []
    for conditions, types in groups.items():
        where = f"object_type IN ({', '.join('?' for _ in types)})"
        if conditions:
            where += f" AND ({' OR '.join(f'({c})' for c in conditions)})"
        parts.append(f"({where})")
        params += types
    return " OR ".join(parts) or "0", params


def _after(tx: Tx, cursor: int, ids: set[str]) -> list[str]:
    """Those of the event ``ids`` that are past the cursor (not yet dispatched)."""
    rows = tx.all(
        "SELECT id FROM outbox WHERE seq > ? AND id IN (SELECT value FROM json_each(?))",
        (cursor, msgspec.json.encode(sorted(ids)).decode()),
    )
    return [row[0] for row in rows]


def _events(tx: Tx, rows: list[Any]) -> list[StoredEvent]:
    payloads = _Payloads(tx, [row["seq"] for row in rows])
    return [_Event(row, payloads) for row in rows]


def _do(work: list[Callable[[], object]]) -> None:
    for thunk in work:
        try:
            thunk()
        except Exception:  # a head start lost; routing does it all anyway
            log.exception("preparing deliveries failed")


def schedule_send(
    rt: Context,
    tx: Tx,
    message_id: int,
    due_us: int,
    merchant_id: str | None,
    attempt: int = 1,
    own: bool | None = None,
) -> None:
    """A send job for ``attempt`` of the message: a job left over by a crash between an
    attempt's record and its job's removal finds the attempt taken and does nothing. ``own``:
    whether it is the work of an advance under way (``kernel.foreign``; None: the unit's)."""
    payload = {"message": message_id, "attempt": attempt}
    rt.scheduler.schedule(tx, SEND_JOB, due_us, payload, merchant_id, own)


class Dispatcher:
    def __init__(self, rt: Context) -> None:
        self._rt = rt
        self._routers: list[tuple[frozenset[str], Router]] = []
        self._preparers: list[tuple[frozenset[str], Prepare]] = []
        self.object_types: frozenset[str] = frozenset()
        # Each watched type's routers' conditions (None: every event of it), and the outbox
        # rows they make, as SQL: what ``_pending`` reads.
        self._only: dict[str, list[str | None]] = {}
        self._which: tuple[str, list[str]] = ("0", [])
        self.queued = 0  # messages queued (a first send job scheduled) so far
        self.caught_up = False  # the last dispatch reached the outbox's last event
        # Ids of events emitted by others' work during an advance (on the writer's thread):
        # their first attempts are not that advance's work (``kernel.foreign``).
        self.foreign_events: set[str] = set()

    def register(
        self,
        router: Router,
        object_types: Iterable[str],
        prepare: Prepare | None = None,
        only: str | None = None,
    ) -> None:
        types = frozenset(object_types)
        self._routers.append((types, router))
        if prepare is not None:
            self._preparers.append((types, prepare))
        self.object_types |= types
        for object_type in types:
            self._only.setdefault(object_type, []).append(only)
        self._which = _which(self._only)

    def _pending(
        self, tx: Tx, limit: int, upto: int | None = None, after: int = 0
    ) -> tuple[int, list[Any]]:
        """The cursor, and up to ``limit`` outbox rows past it (and past seq ``after``, up to
        seq ``upto``) of the watched types."""
        row = tx.one("SELECT value FROM settings WHERE key = ?", (CURSOR_KEY,))
        cursor = max(int(row[0]) if row is not None else 0, after)
        which, types = self._which
        rows = tx.all(
            f"SELECT {HEAD_COLUMNS} FROM outbox WHERE seq > ? AND seq <= ?"
            f" AND ({which}) ORDER BY seq LIMIT ?",
            (cursor, upto if upto is not None else 2**63 - 1, *types, limit),
        )
        return cursor, rows

    async def prepare(self, after: int = 0) -> tuple[int | None, bool]:
        """The preparers on the events not yet dispatched (past seq ``after`` too, up to
        ``PREPARE_MAX``), on the reader, and the work they give done in a worker thread: (the
        last outbox seq covered, None without preparers; whether more events are waiting)."""
        if not self._preparers:
            return None, False
        upto, more, work = await self._rt.db.read(functools.partial(self._prepare, after=after))
        if work:
            await asyncio.to_thread(_do, work)
        return upto, more

    def _prepare(self, tx: Tx, after: int) -> tuple[int, bool, list[Callable[[], object]]]:
        found = tx.one("SELECT MAX(seq) FROM outbox")
        top = int(found[0] or 0) if found is not None else 0
        _, rows = self._pending(tx, PREPARE_MAX, after=after if after <= top else 0)
        work: list[Callable[[], object]] = []
        with memo.scope():
            for event in _events(tx, rows):
                for object_types, prepare in self._preparers:
                    if event.object_type in object_types:
                        try:
                            work += prepare(tx, event)
                        except Exception:  # a head start lost; routing does it all anyway
                            log.exception("preparing event %s failed", event.id)
        if len(rows) == PREPARE_MAX:
            return int(rows[-1]["seq"]), True, work
        return top, False, work

    def dispatch(self, tx: Tx, upto: int | None = None) -> bool:
        """Route one batch of new events (up to seq ``upto``); True when more may be waiting."""
        if not self._routers:
            return False
        cursor, rows = self._pending(tx, DISPATCH_BATCH, upto)
        routes = [
            (event, router)
            for event in _events(tx, rows)
            for object_types, router in self._routers
            if event.object_type in object_types
        ]
        with memo.scope():  # the batch's events share their lookups (webhooks, registrations)
            self._route_all(tx, routes)
        if self.foreign_events:
            self.foreign_events.difference_update(event["id"] for event in rows)
        more = len(rows) == DISPATCH_BATCH
        self.caught_up = False
        if more:
            cursor = rows[-1]["seq"]
        else:
            found = tx.one("SELECT MAX(seq) FROM outbox")
            top = found[0] or 0 if found is not None else 0
            cursor = max(cursor, top if upto is None else min(top, upto))
            self.caught_up = cursor >= top
            if self.foreign_events:  # those passed over unread (no router wanted them) too
                self.foreign_events.intersection_update(_after(tx, cursor, self.foreign_events))
        tx.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (CURSOR_KEY, str(cursor)),
        )
        return more

    def _route_all(self, tx: Tx, routes: list[tuple[StoredEvent, Router]]) -> None:
        """Every route in one savepoint (two statements for the batch, not two per event);
        when one fails, the batch is undone and routed again one savepoint each."""
        tx.execute("SAVEPOINT routes")
        hooks = len(tx.hooks)
        try:
            for event, router in routes:
                for outgoing in router(tx, event):
                    self._enqueue(tx, event, outgoing)
        except Exception:
            tx.execute("ROLLBACK TO routes")
            del tx.hooks[hooks:]
            tx.execute("RELEASE routes")
            for event, router in routes:
                self._route(tx, event, router)
            return
        tx.execute("RELEASE routes")

    def _route(self, tx: Tx, event: StoredEvent, router: Router) -> None:
        """One router on one event, in its own savepoint: a router that fails (a bug) loses
        that event's messages from it, logged, instead of stalling every delivery behind it."""
        tx.execute("SAVEPOINT route")
        hooks = len(tx.hooks)
        try:
            for outgoing in router(tx, event):
                self._enqueue(tx, event, outgoing)
        except Exception:
            tx.execute("ROLLBACK TO route")
            del tx.hooks[hooks:]
            log.exception("router %r failed on event %s (%s)", router, event.id, event.event_type)
        tx.execute("RELEASE route")

    def _enqueue(self, tx: Tx, event: StoredEvent, out: Outgoing) -> None:
        rt = self._rt
        outcome, cause = rt.scenarios.decide_why(tx, out.point, event.merchant_id, out.subject)
        copies = max(1, outcome.copies) if outcome is not None else 1
        delay_us = max(0, outcome.delay_seconds) * 1_000_000 if outcome is not None else 0
        # Due at the event's instant (on its merchant's clock), whenever it is dispatched.
        now = event.created_us
        for number in range(1, copies + 1):
            reorder = outcome.reorder if outcome is not None else False
            waits = not reorder and repo.has_open(tx, event.object_id, out.kind, out.target_id)
            message = repo.Message(
                id=0,
                merchant_id=event.merchant_id,
                event_id=event.id,
                event_type=event.event_type,
                object_type=event.object_type,
                object_id=event.object_id,
                kind=out.kind,
                target_id=out.target_id,
                url=out.url,
                headers=out.headers,
                body=out.body,
                state="waiting" if waits else "queued",
                attempts=0,
                fail_attempts=outcome.fail_attempts if outcome is not None else 0,
                reorder=reorder,
                not_before_us=now + delay_us,
                first_us=None,
            )
            message_id = repo.insert_message(tx, message, event.seq, now)
            if copies > 1:
                repo.mark_copy(tx, message_id, number, copies, cause)
            if holds.capture_message(rt, tx, message_id, message):
                continue  # a hold took it (emulator/delivery/holds.py): sent once let go
            if not waits:
                own = event.id not in self.foreign_events
                schedule_send(rt, tx, message_id, now + delay_us, event.merchant_id, own=own)
                self.queued += 1
