"""Gateway webhooks and the company key pair in SQLite."""

from __future__ import annotations

import msgspec

from emulator.gateway.webhooks.rules import Webhook
from emulator.kernel import memo
from emulator.kernel.storage import Tx

_decode = msgspec.json.Decoder(Webhook)
_encode = msgspec.json.Encoder()


def insert(tx: Tx, merchant_id: str, webhook: Webhook, private_key: str) -> None:
    tx.execute(
        "INSERT INTO webhooks (id, merchant_id, private_key, data) VALUES (?, ?, ?, ?)",
        (webhook.id, merchant_id, private_key, _encode.encode(webhook)),
    )


def update(tx: Tx, merchant_id: str, webhook: Webhook) -> None:
    tx.execute(
        "UPDATE webhooks SET data = ? WHERE id = ? AND merchant_id = ?",
        (_encode.encode(webhook), webhook.id, merchant_id),
    )


def delete(tx: Tx, merchant_id: str, webhook_id: str) -> bool:
    cursor = tx.execute(
        "DELETE FROM webhooks WHERE id = ? AND merchant_id = ?", (webhook_id, merchant_id)
    )
    return cursor.rowcount > 0


def get(tx: Tx, merchant_id: str, webhook_id: str) -> Webhook | None:
    row = tx.one(
        "SELECT data FROM webhooks WHERE id = ? AND merchant_id = ?", (webhook_id, merchant_id)
    )
    return _decode.decode(row[0]) if row is not None else None


def page_raw(tx: Tx, merchant_id: str, limit: int, offset: int) -> list[bytes]:
    """Newest first."""
    rows = tx.all(
        "SELECT data FROM webhooks WHERE merchant_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
        (merchant_id, limit, offset),
    )
    return [bytes(r[0]) for r in rows]


def wanted_events(paid_type: str) -> str:
    """An SQL condition on outbox rows: events of ``paid_type`` whose purchase may name a
    success callback (``callback``: migration 0022) or of a merchant with any webhook
    (``with_keys``)."""
    return (
        f"(event_type = '{paid_type}' AND callback = 1)"
        " OR merchant_id IN (SELECT merchant_id FROM webhooks)"
    )


def with_keys(tx: Tx, merchant_id: str) -> list[tuple[Webhook, str]]:
    """Every webhook of the merchant with its private key, oldest first; once per memo scope
    (a dispatch batch)."""

    def read() -> list[tuple[Webhook, str]]:
        rows = tx.all(
            "SELECT data, private_key FROM webhooks WHERE merchant_id = ? ORDER BY seq",
            (merchant_id,),
        )
        return [(_decode.decode(r[0]), r[1]) for r in rows]

    return memo.memoized(("webhooks", merchant_id), read)


def company_key(tx: Tx, merchant_id: str) -> tuple[str, str] | None:
    """(private PEM, public PEM) of the merchant's company key, if made yet."""
    row = tx.one(
        "SELECT private_key, public_key FROM company_keys WHERE merchant_id = ?", (merchant_id,)
    )
    return (row[0], row[1]) if row is not None else None


def insert_company_key(tx: Tx, merchant_id: str, private_key: str, public_key: str) -> None:
    """Keep the first key made (two racing first uses both made one)."""
    tx.execute(
        "INSERT OR IGNORE INTO company_keys (merchant_id, private_key, public_key)"
        " VALUES (?, ?, ?)",
        (merchant_id, private_key, public_key),
    )
