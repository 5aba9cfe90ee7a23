"""What ``trigger`` caused beyond the objects it made: the deliveries of the merchant since it
started (url and status), or, when none carried the event, that nothing is registered to
receive it and how to register something."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emulator.cli.client import Context

if TYPE_CHECKING:
    from emulator.testing import Delivery

# the bank's events: the callbackType a v2 callback URL needs to receive them
CALLBACK_TYPES = {
    "collection": "EFT_COLLECTION",
    "mandate": "DEBICHECK_MANDATE",
    "payment.completed": "EFT_PAYMENT",
}
LIMIT = 100  # deliveries shown at most (a trigger causes a handful)


def newest(context: Context, company_id: str) -> int:
    """The id of the merchant's newest delivery attempt (0: none yet): where the trigger's
    own deliveries start."""
    found = context.client.deliveries(company_id, limit=1)
    return found[0].id if found else 0


def since(context: Context, company_id: str, after: int) -> list[Delivery]:
    """The merchant's delivery attempts after ``after``, oldest first. The control plane
    dispatches what was emitted and waits for the sends under way before it answers, so the
    first attempts of what the trigger emitted are there."""
    return context.client.deliveries(company_id, after=after, limit=LIMIT)


def callback_type(event: str) -> str | None:
    """The v2 callbackType that receives ``event``; None for a gateway event (a webhook)."""
    return CALLBACK_TYPES.get(event) or CALLBACK_TYPES.get(event.split(".")[0])


def how_to_register(context: Context, event: str) -> str:
    """One line: what to register so that ``event`` is delivered somewhere."""
    sink = f"{context.url}/_emulator/sink/NAME"
    kind = callback_type(event)
    if kind is None:
        what = (
            f'register a webhook for it (POST {context.url}/api/v1/webhooks/ with "events":'
            f' ["{event}"] and a "callback" URL)'
        )
    else:
        what = (
            f"register a v2 callback for it (POST {context.url}/v2/clientcallbackurl/ with"
            f' "callbackType": "{kind}" and a "url")'
        )
    return (
        f"  to receive it, {what}; the emulator's sink ({sink}) will do, and"
        " `payments-emulator listen --forward-to URL` re-posts each delivery to a receiver"
        " on this machine"
    )


def report(
    context: Context, event: str, deliveries: list[Delivery]
) -> tuple[dict[str, Any], list[str]]:
    """The ``--json`` fields (``delivered``, ``deliveries``) and the human lines."""
    rows = [
        {
            "event_type": d.event_type,
            "kind": d.kind,
            "url": d.url,
            "status": d.status,
            "error": d.error,
        }
        for d in deliveries
    ]
    delivered = any(d.event_type == event for d in deliveries)
    lines = [
        f"  delivered {d.event_type} -> {d.url} [{d.status if d.status is not None else d.error}]"
        for d in deliveries
    ]
    if not delivered:
        lines += [
            f"{event} was not delivered: nothing is registered to receive it for this merchant"
            " (or a scenario holds it back)",
            how_to_register(context, event),
        ]
    fields: dict[str, Any] = {"delivered": delivered, "deliveries": rows}
    if not delivered:
        fields["how_to_register"] = how_to_register(context, event).strip()
    return fields, lines
