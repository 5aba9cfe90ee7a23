"""The gateway's router: signed webhooks, and success callbacks of paid purchases.

- Every webhook of the event's merchant that subscribes to the event type gets the event's
  object plus ``"event_type"`` (no envelope), signed with the webhook's own key.
- ``purchase.paid`` also goes to the purchase's ``success_callback`` (when set), signed with
  the company key that ``GET /public_key/`` serves.

Headers: ``Content-Type: application/json``, ``X-Signature`` (base64 RSA PKCS#1 v1.5 over
SHA-256 of the body bytes) and ``X-Event-Id``, the outbox event's id: copies and retries of
one event carry the same one, so a receiver can deduplicate.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import msgspec

from emulator.delivery import keypool, signing
from emulator.delivery.outgoing import Outgoing, Prepare, Router
from emulator.gateway.webhooks import repo
from emulator.gateway.webhooks.rules import EVENT_SET
from emulator.kernel import memo
from emulator.kernel.bounded import Bounded
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.scenarios import points

# The object types whose events gateway webhooks carry (WebhookSourceType).
OBJECT_TYPES = ("purchase", "payment", "payout", "billing_template_client")
# The events the gateway's router may send something for, as SQL on the outbox's columns
# (``_receivers``): purchase.paid (a success callback), and any event of a merchant with a
# webhook. Dispatch passes over the others unread.
WANTED = repo.wanted_events("purchase.paid")

_encode = msgspec.json.Encoder()


def company_key(tx: Tx, merchant_id: str) -> tuple[str, str]:
    """The merchant's company key pair, made on first use; read once per memo scope."""

    def read() -> tuple[str, str]:
        found = repo.company_key(tx, merchant_id)
        if found is None:
            private, public = keypool.take_now()
            repo.insert_company_key(tx, merchant_id, private, public)
            found = repo.company_key(tx, merchant_id)
            assert found is not None
        return found

    return memo.memoized(("company_key", merchant_id), read)


class _Paid(msgspec.Struct):
    """What routing reads of a purchase.paid payload: msgspec skips the other fields, several
    times faster than decoding the whole purchase when nobody is to be sent it."""

    success_callback: Any = None


_decode_paid = msgspec.json.Decoder(_Paid)


def body_of(event: StoredEvent) -> bytes:
    return _encode.encode({**event.payload, "event_type": event.event_type})


BODIES_AHEAD = 512  # bodies made ahead and not yet routed, at most (the oldest go)


class Bodies:
    """Webhook bodies made ahead by the presigner (on a read snapshot, off the writer) and
    taken by the router, which then neither reads the event's payload nor decodes and encodes
    it again. A body is a function of its event's stored payload, which never changes (an
    event that refers to its purchase's row is given a copy before the row changes), so the
    one made ahead is the very one the router would make. Entries are taken once; those never
    taken (an event an advance routed first) are forgotten past ``BODIES_AHEAD``
    (``kernel.bounded``: about 1.7 MB at most)."""

    def __init__(self, limit: int = BODIES_AHEAD) -> None:
        self._made: Bounded[tuple[int, str], bytes] = Bounded(limit)

    def make(self, event: StoredEvent) -> bytes:
        body = self._made[(event.seq, event.id)] = body_of(event)
        return body

    def take(self, event: StoredEvent) -> bytes:
        body = self._made.pop((event.seq, event.id), None)
        return body if body is not None else body_of(event)


def _receivers(tx: Tx, event: StoredEvent, *, make_key: bool) -> list[tuple[str, Any, str, str]]:
    """(url, kind, target id, private key) of each receiver of the event; the company key is
    made on first use only with ``make_key`` (else a merchant without one has no callback)."""
    if event.event_type not in EVENT_SET:
        return []
    found: list[tuple[str, Any, str, str]] = [
        (webhook.callback, "webhook", webhook.id, private_key)
        for webhook, private_key in repo.with_keys(tx, event.merchant_id)
        if webhook.wants(event.event_type)
    ]
    if event.event_type != "purchase.paid":  # its payload need not even be read
        return found
    callback = _decode_paid.decode(event.raw).success_callback
    if isinstance(callback, str) and callback:
        if make_key:
            private_key, _ = company_key(tx, event.merchant_id)
        else:
            key = memo.memoized(
                ("company_key?", event.merchant_id), lambda: repo.company_key(tx, event.merchant_id)
            )
            if key is None:
                return found
            private_key = key[0]
        found.append((callback, "success_callback", event.object_id, private_key))
    return found


def gateway_router(signer: signing.Signer, bodies: Bodies | None = None) -> Router:
    """``bodies``: those the presigner made ahead (``gateway_presigner`` with the same)."""

    def route(tx: Tx, event: StoredEvent) -> list[Outgoing]:
        receivers = _receivers(tx, event, make_key=True)
        if not receivers:
            return []
        body = bodies.take(event) if bodies is not None else body_of(event)
        return [
            Outgoing(
                url=url,
                body=body,
                headers={
                    "Content-Type": "application/json",
                    "X-Signature": signer.sign(private_key, body),
                    # Emulator addition: the provider's body carries no event id.
                    "X-Event-Id": event.id,
                },
                kind=kind,
                target_id=target,
                point=points.WEBHOOK_DELIVERY,
                subject={
                    "event_type": event.event_type,
                    "object_type": event.object_type,
                    "object_id": event.object_id,
                    "url": url,
                },
            )
            for url, kind, target, private_key in receivers
        ]

    return route


def gateway_presigner(signer: signing.Signer, bodies: Bodies | None = None) -> Prepare:
    """On a read snapshot, before the events are routed: the signatures ``route`` will need,
    to be made ahead in a worker thread (``Signer.presign``), so the writer does not make them;
    and their bodies, kept in ``bodies`` for the router."""

    def prepare(tx: Tx, event: StoredEvent) -> list[Callable[[], object]]:
        receivers = _receivers(tx, event, make_key=False)
        if not receivers:
            return []
        body = bodies.make(event) if bodies is not None else body_of(event)
        return [functools.partial(signer.presign, key, body) for _, _, _, key in receivers]

    return prepare
