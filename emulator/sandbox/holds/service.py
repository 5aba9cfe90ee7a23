"""Holds on the control plane: make one, read them, and act on what one holds (release, with
edits or another outcome; drop; duplicate; delay); the timeout job. What a hold takes, and
how it is let go, is ``emulator/delivery/holds.py``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.delivery import holds as taking
from emulator.delivery import repo as deliveries
from emulator.domain.errors import ControlError
from emulator.kernel.clock import from_us, iso
from emulator.kernel.storage import Tx
from emulator.sandbox.holds import repo
from emulator.scenarios.rules import InvalidScenario

if TYPE_CHECKING:
    from emulator.kernel.context import Context

FIELDS = ("kind", "match", "count", "timeout_seconds", "on_timeout")
MAX_COUNT = 1000
MAX_TIMEOUT_SECONDS = 366 * 86_400
MAX_TIMES = 10
UNITS = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86_400}  # the advance's
SIGNED = ("webhook", "success_callback")  # the bank's callbacks are unsigned
encode = msgspec.json.Encoder()


def invalid(message: str) -> ControlError:
    return ControlError(400, "invalid", message)


def _known(tx: Tx, company_id: str) -> None:
    if merchants_repo.get(tx, company_id) is None:
        raise ControlError(
            404, "merchant_not_found", f"no merchant with company_id {company_id[:64]!r}"
        )


def whole_number(body: dict[str, Any], name: str, low: int, high: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise invalid(f"'{name}' must be a whole number from {low} to {high}")
    return value


def _checked(body: dict[str, Any]) -> tuple[str, dict[str, Any], int, int | None, str]:
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise invalid(f"'{unknown[0][:64]}' is not a field of a hold; give {', '.join(FIELDS)}")
    kind = body.get("kind")
    if kind not in taking.KINDS:
        raise invalid(f"'kind' must be one of {', '.join(taking.KINDS)}")
    match = body.get("match") or {}
    if not isinstance(match, dict):
        raise invalid("'match' must be an object of fields to match")
    try:
        taking.matcher(kind, match)
    except InvalidScenario as exc:
        raise invalid(str(exc)) from None
    count = whole_number(body, "count", 1, MAX_COUNT) or 1
    timeout = whole_number(body, "timeout_seconds", 1, MAX_TIMEOUT_SECONDS)
    on_timeout = body.get("on_timeout") or "release"
    if on_timeout not in ("release", "drop"):
        raise invalid("'on_timeout' must be release or drop")
    return kind, match, count, timeout, on_timeout


async def create(rt: Context, company_id: str, body: dict[str, Any]) -> dict[str, Any]:
    kind, match, count, timeout, on_timeout = _checked(body)

    def unit(tx: Tx) -> dict[str, Any]:
        _known(tx, company_id)
        hold = repo.Hold(
            id="hold_" + rt.ids.token(16),
            merchant_id=company_id,
            kind=kind,
            match=match,
            count=count,
            remaining=count,
            timeout_seconds=timeout,
            on_timeout=on_timeout,
            created_us=rt.clock.now_us(),
        )
        repo.insert(tx, hold)
        taking.ask_again(rt)  # made: the taking side looks for armed holds again
        return hold_view(tx, hold, [])

    return await rt.db.write(unit)


# -- reads -------------------------------------------------------------------------------------


def _message_view(tx: Tx, message_id: int) -> dict[str, Any] | None:
    message = deliveries.message(tx, message_id)
    if message is None:
        return None
    return {
        "id": message.id,
        "kind": message.kind,
        "target_id": message.target_id,
        "url": message.url,
        "event_id": message.event_id,
        "event_type": message.event_type,
        "object_type": message.object_type,
        "object_id": message.object_id,
        "headers": message.headers,
        "body": message.body.decode("utf-8", "replace"),
    }


def _item_view(tx: Tx, item: repo.Item) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": item.id,
        "state": item.state,
        "held_at": iso(from_us(item.held_us)),
        "subject": item.subject,
    }
    if item.message_id is not None:
        view["message"] = _message_view(tx, item.message_id)
    else:
        view["point"] = item.point
        view["default_outcome"] = item.default_outcome
    if item.done is not None and item.done_us is not None:
        view["done"] = {**item.done, "at": iso(from_us(item.done_us))}
    return view


def hold_view(tx: Tx, hold: repo.Hold, items: list[repo.Item]) -> dict[str, Any]:
    held = [item for item in items if item.state == "held"]
    state = "holding" if held else "armed" if hold.remaining > 0 else "done"
    return {
        "id": hold.id,
        "merchant": hold.merchant_id,
        "kind": hold.kind,
        "match": hold.match,
        "count": hold.count,
        "remaining": hold.remaining,
        "timeout_seconds": hold.timeout_seconds,
        "on_timeout": hold.on_timeout,
        "created": iso(from_us(hold.created_us)),
        "state": state,
        "items": [_item_view(tx, item) for item in items],
    }


def found_hold(tx: Tx, company_id: str, hold_id: str) -> repo.Hold:
    _known(tx, company_id)
    hold = repo.hold(tx, company_id, hold_id)
    if hold is None:
        raise ControlError(404, "not_found", f"no hold {hold_id[:64]!r} of this merchant")
    return hold


async def list_holds(rt: Context, company_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any]:
        _known(tx, company_id)
        holds = repo.holds_of(tx, company_id)
        items = repo.items_of(tx, [hold.id for hold in holds])
        return {
            "holds": [hold_view(tx, h, [i for i in items if i.hold_id == h.id]) for h in holds],
        }

    await rt.deliveries.flush(merchant_id=company_id)  # what was emitted is dispatched
    return await rt.db.read(unit)


async def show(rt: Context, company_id: str, hold_id: str) -> dict[str, Any]:
    def unit(tx: Tx) -> dict[str, Any]:
        hold = found_hold(tx, company_id, hold_id)
        return hold_view(tx, hold, repo.items_of(tx, [hold.id]))

    await rt.deliveries.flush(merchant_id=company_id)
    return await rt.db.read(unit)


# -- acting on what a hold holds ----------------------------------------------------------------
