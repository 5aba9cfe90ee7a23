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

from typing import Any

import msgspec

from emulator.delivery import signing
from emulator.delivery.outgoing import Outgoing, Router
from emulator.domain.webhooks import EVENT_SET
from emulator.kernel import memo
from emulator.kernel.outbox import StoredEvent
from emulator.kernel.storage import Tx
from emulator.repos import webhooks as repo
from emulator.scenarios import points

# The object types whose events gateway webhooks carry (WebhookSourceType).
OBJECT_TYPES = ("purchase", "payment", "payout", "billing_template_client")

_encode = msgspec.json.Encoder()


def company_key(tx: Tx, merchant_id: str) -> tuple[str, str]:
    """The merchant's company key pair, made on first use; read once per memo scope."""

    def read() -> tuple[str, str]:
        found = repo.company_key(tx, merchant_id)
        if found is None:
            private, public = signing.generate()
            repo.insert_company_key(tx, merchant_id, private, public)
            found = repo.company_key(tx, merchant_id)
            assert found is not None
        return found

    return memo.memoized(("company_key", merchant_id), read)


def body_of(event: StoredEvent) -> bytes:
    return _encode.encode({**event.payload, "event_type": event.event_type})


def gateway_router(signer: signing.Signer) -> Router:
    def route(tx: Tx, event: StoredEvent) -> list[Outgoing]:
        if event.event_type not in EVENT_SET:
            return []
        out = []
        bodies: list[bytes] = []  # made once, for the first message: most events have none

        def outgoing(url: str, kind: Any, target: str, private_key: str) -> Outgoing:
            if not bodies:
                bodies.append(body_of(event))
            body = bodies[0]
            return Outgoing(
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

        for webhook, private_key in repo.with_keys(tx, event.merchant_id):
            if webhook.wants(event.event_type):
                out.append(outgoing(webhook.callback, "webhook", webhook.id, private_key))
        if event.event_type != "purchase.paid":
            return out
        callback = event.payload.get("success_callback")
        if isinstance(callback, str) and callback:
            private_key, _ = company_key(tx, event.merchant_id)
            out.append(outgoing(callback, "success_callback", event.object_id, private_key))
        return out

    return route
