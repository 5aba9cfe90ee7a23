"""``payments-emulator listen``: tail the delivery log of a running emulator (every webhook,
success callback and bank callback attempt as it is made), and with ``--forward-to URL``
re-post each message, same body and headers (the signature intact), to a local receiver."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from emulator.cli.arguments import merchant_option
from emulator.cli.client import Context, UsageError, client_parent, printable
from emulator.kernel.segments import has_control

if TYPE_CHECKING:
    import httpx

    from emulator.testing import Delivery

WAIT_SLICE = 5.0  # seconds of one wait of the delivery log (under the answer's timeout)
# hop-by-hop headers, and those the forwarding client sets itself; every other one is forwarded
DROP = {
    "host",
    "content-length",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
    "proxy-authenticate",
    "accept-encoding",
}


def add_command(commands: Any) -> None:
    listen = commands.add_parser(
        "listen",
        parents=[client_parent()],
        help="print each delivery and callback as it is made; --forward-to re-posts them",
    )
    merchant_option(listen, "only that merchant's deliveries")
    listen.add_argument(
        "--forward-to", metavar="URL", help="re-post each message (body and headers) to this URL"
    )
    listen.add_argument(
        "--after",
        type=int,
        metavar="ID",
        help="start after this delivery attempt id (default: the newest now; 0: from the start)",
    )
    listen.add_argument(
        "--count", type=int, metavar="N", help="stop after N attempts (default: until Ctrl-C)"
    )
    listen.set_defaults(handler=listen_command)


def listen_command(context: Context, args: argparse.Namespace) -> int:
    forward = args.forward_to
    if forward is not None and (
        not forward.startswith(("http://", "https://"))
        or has_control(forward)
        or any(c.isspace() for c in forward)
    ):
        raise UsageError(f"--forward-to must be an http:// or https:// URL, not {forward!r}")
    if args.count is not None and args.count < 1:
        raise UsageError("--count must be 1 or more")
    if context.merchant is not None:
        context.merchant_record()  # an unknown merchant is refused, not listened to for ever
    after = args.after
    if after is None:
        newest = context.client.deliveries(context.merchant, limit=1)
        after = newest[0].id if newest else 0
    if not context.json:
        scope = f" of merchant {context.merchant}" if context.merchant else ""
        target = f", forwarding to {forward}" if forward else ""
        print(printable(f"listening to deliveries{scope} on {context.url}{target} (Ctrl-C stops)"))
        sys.stdout.flush()
    seen = 0
    import httpx

    with httpx.Client(timeout=10.0) as receiver:
        while args.count is None or seen < args.count:
            for delivery in _next_batch(context, after):
                after = delivery.id
                forwarded = _forward(receiver, forward, delivery) if forward else None
                _show(context, delivery, forwarded)
                seen += 1
                if args.count is not None and seen >= args.count:
                    break
    return 0


def _next_batch(context: Context, after: int) -> list[Delivery]:
    """The attempts after ``after``, oldest first: the delivery log's wait answers as soon as
    one is recorded (nothing polls), or empty after a slice shorter than an answer's timeout."""
    import msgspec

    from emulator.testing import Delivery

    answer_seconds = context.answer or WAIT_SLICE * 2
    params: dict[str, Any] = {
        "after": after,
        "limit": 100,
        "timeout_seconds": min(WAIT_SLICE, answer_seconds / 2),
    }
    if context.merchant is not None:
        params["merchant"] = context.merchant
    answer = context.client.call("GET", "deliveries/wait", params=params)
    return msgspec.convert(answer["deliveries"], list[Delivery])


def _forward(receiver: httpx.Client, url: str, delivery: Delivery) -> dict[str, Any]:
    """Re-post the message as the emulator sent it; what the receiver answered."""
    import httpx

    headers = {k: v for k, v in delivery.headers.items() if k.lower() not in DROP}
    try:
        response = receiver.post(url, content=delivery.body.encode("utf-8"), headers=headers)
    except httpx.TransportError as exc:
        return {"url": url, "status": None, "error": f"{type(exc).__name__}: {exc}"}
    return {"url": url, "status": response.status_code, "error": None}


def _show(context: Context, delivery: Delivery, forwarded: dict[str, Any] | None) -> None:
    if context.json:
        record: dict[str, Any] = {
            "id": delivery.id,
            "at": delivery.at.isoformat().replace("+00:00", "Z"),
            "kind": delivery.kind,
            "event_type": delivery.event_type,
            "event_id": delivery.event_id,
            "object_type": delivery.object_type,
            "object_id": delivery.object_id,
            "merchant": delivery.merchant,
            "url": delivery.url,
            "attempt": delivery.attempt,
            "status": delivery.status,
            "error": delivery.error,
            "headers": delivery.headers,
            "body": delivery.body,
        }
        if forwarded is not None:
            record["forwarded"] = forwarded
        context.emit(record, [])
    else:
        answer = str(delivery.status) if delivery.status is not None else delivery.error
        line = (
            f"{delivery.at:%Y-%m-%d %H:%M:%S} {delivery.event_type} "
            f"{delivery.object_type} {delivery.object_id} -> {delivery.url} [{answer}]"
        )
        if delivery.attempt > 1:
            line += f" (attempt {delivery.attempt})"
        if forwarded is not None:
            line += (
                f"; forwarded -> {forwarded['url']} [{forwarded['status'] or forwarded['error']}]"
            )
        print(printable(line))
    sys.stdout.flush()
