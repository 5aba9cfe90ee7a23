"""Gateway clients: create, list, read, replace, patch, delete, tokens and feed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from emulator.domain.errors import ClientNotFound
from emulator.domain.events import Event
from emulator.gateway.clients import repo
from emulator.gateway.clients import rules as domain
from emulator.gateway.clients.rules import Client, ClientInput
from emulator.kernel.outbox import events_of_client
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


class Page(msgspec.Struct, frozen=True):
    """One page of raw JSON objects and whether another page follows."""

    items: list[bytes]
    has_next: bool


def _now(rt: Context) -> int:
    return rt.clock.now_us() // 1_000_000


def _save(rt: Context, tx: Tx, merchant_id: str, event: Event) -> None:
    rt.outbox.emit(tx, merchant_id, event, rt.clock.now_us())


async def create(rt: Context, merchant_id: str, data: ClientInput) -> Client:
    client, event = domain.create(data, rt.ids.uuid(), _now(rt))

    def unit(tx: Tx) -> None:
        repo.insert(tx, merchant_id, client)
        _save(rt, tx, merchant_id, event)

    await rt.db.write(unit)
    return client


async def get_raw(rt: Context, merchant_id: str, client_id: str) -> bytes:
    raw = await rt.db.read_point(lambda tx: repo.get_raw(tx, merchant_id, client_id))
    if raw is None:
        raise ClientNotFound()
    return raw


async def page(rt: Context, merchant_id: str, email: str | None, number: int, size: int) -> Page:
    rows = await rt.db.read(
        lambda tx: repo.page_raw(tx, merchant_id, email, size + 1, (number - 1) * size)
    )
    return Page(items=rows[:size], has_next=len(rows) > size)


async def _change(
    rt: Context,
    merchant_id: str,
    client_id: str,
    change: Callable[[Client], tuple[Client, Event]],
) -> Client:
    def unit(tx: Tx) -> Client:
        current = repo.get(tx, merchant_id, client_id)
        if current is None:
            raise ClientNotFound()
        updated, event = change(current)
        repo.update(tx, merchant_id, updated)
        _save(rt, tx, merchant_id, event)
        return updated

    return await rt.db.write(unit)


async def replace(rt: Context, merchant_id: str, client_id: str, data: ClientInput) -> Client:
    now = _now(rt)
    return await _change(rt, merchant_id, client_id, lambda c: domain.replace(c, data, now))


async def patch(rt: Context, merchant_id: str, client_id: str, data: ClientInput) -> Client:
    now = _now(rt)
    return await _change(rt, merchant_id, client_id, lambda c: domain.patch(c, data, now))


async def delete(rt: Context, merchant_id: str, client_id: str) -> None:
    def unit(tx: Tx) -> None:
        current = repo.get(tx, merchant_id, client_id)
        if current is None:
            raise ClientNotFound()
        repo.delete(tx, merchant_id, client_id)
        _save(rt, tx, merchant_id, domain.delete(current))
        for hook in rt.client_deleted_hooks:  # billing ends the client's subscriptions
            hook(tx, merchant_id, client_id)

    await rt.db.write(unit)


async def feed(
    rt: Context, merchant_id: str, client_id: str, number: int, size: int
) -> tuple[list[dict[str, Any]], bool]:
    """The client's activity, newest first: every event that concerned it."""

    def unit(tx: Tx) -> list[dict[str, Any]] | None:
        if repo.get_raw(tx, merchant_id, client_id) is None:
            return None
        events = events_of_client(tx, merchant_id, client_id, size + 1, (number - 1) * size)
        return [
            {
                "id": e.id,
                "type": "feed_item",
                "event_type": e.event_type,
                "object_type": e.object_type,
                "object_id": e.object_id,
                "created_on": e.created_us // 1_000_000,
            }
            for e in events
        ]

    entries = await rt.db.read(unit)
    if entries is None:
        raise ClientNotFound()
    return entries[:size], len(entries) > size
