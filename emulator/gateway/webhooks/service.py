"""Gateway webhooks: CRUD with a key pair each, and the company's public key."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emulator.delivery import keypool
from emulator.delivery import repo as deliveries_repo
from emulator.domain.errors import WebhookNotFound
from emulator.gateway.clients.service import Page
from emulator.gateway.webhooks import repo
from emulator.gateway.webhooks import rules as domain
from emulator.gateway.webhooks.router import company_key
from emulator.gateway.webhooks.rules import Webhook, WebhookInput
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def _now(rt: Context) -> int:
    return rt.clock.now_us() // 1_000_000


async def create(rt: Context, merchant_id: str, data: WebhookInput) -> Webhook:
    domain.create(data, "", "", 0, rt.url_rule)  # refuse a bad body before paying for a key pair
    private, public = await keypool.take()
    webhook = domain.create(data, rt.ids.uuid(), public, _now(rt), rt.url_rule)
    await rt.db.write(lambda tx: repo.insert(tx, merchant_id, webhook, private))
    return webhook


async def get(rt: Context, merchant_id: str, webhook_id: str) -> Webhook:
    webhook = await rt.db.read(lambda tx: repo.get(tx, merchant_id, webhook_id))
    if webhook is None:
        raise WebhookNotFound()
    return webhook


async def page(rt: Context, merchant_id: str, number: int, size: int) -> Page:
    rows = await rt.db.read(
        lambda tx: repo.page_raw(tx, merchant_id, size + 1, (number - 1) * size)
    )
    return Page(items=rows[:size], has_next=len(rows) > size)


async def _change(
    rt: Context, merchant_id: str, webhook_id: str, change: Callable[[Webhook], Webhook]
) -> Webhook:
    def unit(tx: Tx) -> Webhook:
        current = repo.get(tx, merchant_id, webhook_id)
        if current is None:
            raise WebhookNotFound()
        updated = change(current)
        repo.update(tx, merchant_id, updated)
        return updated

    return await rt.db.write(unit)


async def replace(rt: Context, merchant_id: str, webhook_id: str, data: WebhookInput) -> Webhook:
    now = _now(rt)
    return await _change(
        rt, merchant_id, webhook_id, lambda w: domain.replace(w, data, now, rt.url_rule)
    )


async def patch(rt: Context, merchant_id: str, webhook_id: str, data: WebhookInput) -> Webhook:
    now = _now(rt)
    return await _change(
        rt, merchant_id, webhook_id, lambda w: domain.patch(w, data, now, rt.url_rule)
    )


async def delete(rt: Context, merchant_id: str, webhook_id: str) -> None:
    """Delete a webhook; what was still to be sent to it is given up (no more retries)."""

    def unit(tx: Tx) -> bool:
        if not repo.delete(tx, merchant_id, webhook_id):
            return False
        deliveries_repo.give_up_target(tx, merchant_id, "webhook", webhook_id)
        return True

    if not await rt.db.write(unit):
        raise WebhookNotFound()


async def public_key(rt: Context, merchant_id: str) -> str:
    """The company key's public PEM; the pair is made (in a worker thread) on first use."""
    found = await rt.db.read(lambda tx: repo.company_key(tx, merchant_id))
    if found is None:
        private, public = await keypool.take()

        def unit(tx: Tx) -> tuple[str, str]:
            repo.insert_company_key(tx, merchant_id, private, public)  # unless one raced us
            return company_key(tx, merchant_id)

        found = await rt.db.write(unit)
    return found[1]
