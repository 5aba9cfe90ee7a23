"""Endpoints switched off and on: the engine's one hook before it sends (``keep_if_off``).

A webhook or a v2 callback registration may be switched off (``PUT
/_emulator/webhooks/{id}/state``, ``.../callbacks/{id}/state``), by hand or by auto-disable (a
merchant's ``auto_disable_after_days``: an endpoint whose attempts have only failed for that
long on the merchant's clock). When an attempt of one of its messages falls due while it is
off, the message is not attempted: it is *held* (queued without a send job; the messages of
the same object behind it wait behind it, as they would behind a retry) or, when it was
switched off with ``drop``, *dropped* (failed without an attempt). Switching it on sends the
held ones again, in order (``switch``); a held retry's later retries keep their gaps from
then on (its schedule is moved, not squeezed into the time it was held). Each of these is an
endpoint event (``endpoint_events``); an auto-disable is journaled too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from emulator.delivery import repo
from emulator.delivery.dispatch import schedule_send
from emulator.delivery.outgoing import RETRY_AFTER_SECONDS
from emulator.kernel.journal import Entry
from emulator.kernel.storage import Tx
from emulator.sandbox.deliveries import repo as ops

if TYPE_CHECKING:
    from emulator.kernel.context import Context

SWITCHABLE = {"webhook": "webhooks", "callback": "callbacks"}  # kind -> its path's segment
DAY_US = 86_400 * 1_000_000


EndpointState = repo.EndpointRow  # (enabled, drop) or None, auto-disable days or None


def state_of(message: repo.Message, read: EndpointState) -> EndpointState | None:
    """What ``keep_if_off`` looks at for the message about to be attempted: its endpoint's
    state and its merchant's auto-disable days, read with it (``delivery.repo.to_send``: one
    point read), or None when its kind is never switched off."""
    if message.kind not in SWITCHABLE or message.merchant_id is None:
        return None
    return read


async def keep_if_off(
    rt: Context, message: repo.Message, found: EndpointState | None
) -> Callable[[Tx], None] | None:
    """Before an attempt of ``message`` (``found``: ``state_of`` it): None to send it, or the
    unit that holds or drops it instead (its endpoint is off, or auto-disable switches it off
    now)."""
    if found is None or message.merchant_id is None:
        return None
    merchant_id = message.merchant_id
    now_us = rt.clock.now_us()
    state, days = found
    if state is not None and not state[0]:
        return lambda tx: _keep(rt, tx, message, now_us, state[1], None)
    if days is None:
        return None
    since = await rt.db.read(
        lambda tx: ops.failing_since(tx, merchant_id, message.kind, message.target_id)
    )
    if since is None or now_us - since < days * DAY_US:
        return None
    return lambda tx: _keep(rt, tx, message, now_us, False, days)


def _keep(
    rt: Context, tx: Tx, sent: repo.Message, now_us: int, drop: bool, auto_days: int | None
) -> None:
    message = repo.message(tx, sent.id)
    if message is None or message.state != "queued" or message.attempts != sent.attempts:
        return  # a reset or restore replaced it meanwhile
    if auto_days is not None:
        detail = f"only failures for {auto_days} days"
        switch_state(rt, tx, message.merchant_id or "", message.kind, message.target_id, False,
                     False, now_us, "auto_disabled", detail)  # fmt: skip
    ops.keep(tx, message, now_us, "dropped" if drop else "held")
    ops.add_event(tx, message.merchant_id, message.kind, message.target_id, now_us,
                  "dropped" if drop else "held", message.id)  # fmt: skip
    if not drop:
        return
    repo.set_state(tx, message.id, "failed", message.attempts, message.first_us)
    if message.reorder:
        return
    behind = repo.next_waiting(tx, message)
    if behind is not None:  # it goes to its own attempt, and is dropped there in turn
        repo.set_state(tx, behind[0], "queued", 0, None)
        schedule_send(rt, tx, behind[0], max(behind[1], now_us), message.merchant_id)


def switch_state(
    rt: Context,
    tx: Tx,
    merchant_id: str,
    kind: str,
    target_id: str,
    enabled: bool,
    drop: bool,
    now_us: int,
    reason: str | None = None,
    detail: str | None = None,
) -> int:
    """Switch an endpoint off or on, in the caller's unit; on: its held messages are sent
    again, in order, now; how many."""
    ops.set_endpoint_state(tx, merchant_id, kind, target_id, enabled, drop, now_us, reason)
    action = "switched_on" if enabled else reason or "switched_off"
    ops.add_event(tx, merchant_id, kind, target_id, now_us, action, None, detail)
    if reason == "auto_disabled":
        path = f"/_emulator/{SWITCHABLE[kind]}/{target_id}/state"
        change = {"enabled": False, "reason": reason, "detail": detail}
        rt.journal.record(
            Entry(now_us, merchant_id, "emulator", "PUT", path, "", 200,
                  msgspec.json.encode(change).decode(), "", 0, note=f"auto-disabled: {detail}")
        )  # fmt: skip
    if not enabled:
        return 0
    released = 0
    for message_id in ops.release_held(tx, kind, target_id):
        message = repo.message(tx, message_id)
        if message is None or message.state != "queued":
            continue  # given up meanwhile (its webhook deleted)
        if message.attempts > 0:  # its retries go on from now, their gaps as they were
            first_us = now_us - RETRY_AFTER_SECONDS[message.attempts - 1] * 1_000_000
            repo.set_state(tx, message_id, "queued", message.attempts, first_us)
        schedule_send(rt, tx, message_id, now_us, message.merchant_id, message.attempts + 1)
        released += 1
    return released
