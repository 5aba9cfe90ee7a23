"""The reads of sends that start together, made in one point read (``SendReads``).

A send reads its message and its endpoint's state right before its attempt
(``delivery.repo.to_send``): a point read on the event loop's thread, one read snapshot
(``BEGIN`` ... ``COMMIT``) each. The scheduler starts the sends due at once together (up to
its background slots, 64), each in a task of its own: the first of them to ask has the read
made once every task started in the same turn of the event loop has asked too, and all of
them get their rows from that one statement and snapshot. Each is still read when its send
is about to start (in the same turn), never earlier: what an attempt is made of is as fresh
as before. A send an advance awaits (one at a time, ``UnderWay.sending_for``) reads alone, at
once: waiting for the turn's end would put it behind other clients' work.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

from emulator.delivery import endpoints, repo

if TYPE_CHECKING:
    from emulator.kernel.storage import Database, Tx

ToSend = tuple[repo.Message | None, endpoints.EndpointState | None]


class SendReads:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._asked: dict[int, list[asyncio.Future[ToSend]]] | None = None
        self._reading: asyncio.Task[None] | None = None  # the last read started

    async def read(self, message_id: int, *, alone: bool = False) -> ToSend:
        """The message (None when it is gone) and, when it is queued, its endpoint's state
        (``endpoints.state_of``). ``alone``: read at once, not with others (an advance awaits
        its sends one at a time: waiting for a turn of the event loop would only delay it
        behind other clients' work)."""
        if alone:
            found = await self._db.read_point(functools.partial(_to_send, [message_id]))
            return found.get(message_id, (None, None))
        loop = asyncio.get_running_loop()
        asked = self._asked
        if asked is None:
            # The task is started after the tasks already waiting to run: the sends started
            # with this one ask before it reads.
            asked = self._asked = {}
            self._reading = loop.create_task(self._read(asked), name="delivery-reads")
        future: asyncio.Future[ToSend] = loop.create_future()
        asked.setdefault(message_id, []).append(future)
        return await future

    async def _read(self, asked: dict[int, list[asyncio.Future[ToSend]]]) -> None:
        if self._asked is asked:
            self._asked = None  # those who ask from now on are read next time
        futures = [future for waiting in asked.values() for future in waiting]
        try:
            found = await self._db.read_point(functools.partial(_to_send, list(asked)))
        except asyncio.CancelledError:  # stopping: so are the sends
            for future in futures:
                future.cancel()
            raise
        except Exception as exc:  # each send fails as its own read would have
            for future in futures:
                if not future.done():
                    future.set_exception(exc)
            return
        for message_id, waiting in asked.items():
            result = found.get(message_id, (None, None))
            for future in waiting:
                if not future.done():  # its send was cancelled meanwhile
                    future.set_result(result)


def _to_send(ids: list[int], tx: Tx) -> dict[int, ToSend]:
    found: dict[int, ToSend] = {}
    for message_id, (message, endpoint) in repo.to_send_many(tx, ids).items():
        queued = message.state == "queued"
        found[message_id] = (message, endpoints.state_of(message, endpoint) if queued else None)
    return found
