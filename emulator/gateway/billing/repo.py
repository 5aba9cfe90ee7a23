"""Billing templates, subscribers and the purchases billing made, in SQLite."""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

import msgspec

from emulator.domain.errors import InvalidToken, SubscriberAlreadyExists
from emulator.gateway.billing.model import LIVE, BillingTemplate, Schedule, Subscriber
from emulator.gateway.purchases.repo import NEXT_NUMBER, Token, token_of
from emulator.kernel.storage import Tx

_decode_template = msgspec.json.Decoder(BillingTemplate)
_decode_subscriber = msgspec.json.Decoder(Subscriber)
_decode_schedule = msgspec.json.Decoder(Schedule)
_encode = msgspec.json.Encoder()

_ACTIVE = "status IN ('active', 'subscription_paused')"
_LIVE = ", ".join(f"'{status}'" for status in LIVE)  # as the migration's partial indexes say


def _integrity(exc: sqlite3.IntegrityError) -> Exception:
    if str(exc).startswith("FOREIGN KEY constraint failed"):  # merchant wiped by a reset
        return InvalidToken()
    if "billing_subscribers" in str(exc):  # the live (template, client) index
        return SubscriberAlreadyExists()
    return exc


# -- templates -------------------------------------------------------------------------------


def _with_flag(tx: Tx, t: BillingTemplate) -> BillingTemplate:
    row = tx.one(
        f"SELECT EXISTS (SELECT 1 FROM billing_subscribers WHERE template_id = ? AND {_ACTIVE})",
        (t.id,),
    )
    t.subscription_has_active_clients = bool(row and row[0])
    return t


def insert_template(tx: Tx, merchant_id: str, t: BillingTemplate) -> None:
    try:
        tx.execute(
            "INSERT INTO billing_templates (id, merchant_id, data) VALUES (?, ?, ?)",
            (t.id, merchant_id, _encode.encode(t)),
        )
    except sqlite3.IntegrityError as exc:
        raise _integrity(exc) from exc


def update_template(tx: Tx, merchant_id: str, t: BillingTemplate) -> None:
    tx.execute(
        "UPDATE billing_templates SET data = ? WHERE id = ? AND merchant_id = ?",
        (_encode.encode(t), t.id, merchant_id),
    )


def get_template(
    tx: Tx, merchant_id: str, template_id: str, *, shown: bool = True
) -> BillingTemplate | None:
    """The template; ``shown`` works out subscription_has_active_clients (the engine, which
    never shows it, saves the query)."""
    row = tx.one(
        "SELECT data FROM billing_templates WHERE id = ? AND merchant_id = ?",
        (template_id, merchant_id),
    )
    if row is None:
        return None
    t = _decode_template.decode(row[0])
    return _with_flag(tx, t) if shown else t


def delete_template(tx: Tx, merchant_id: str, template_id: str) -> None:
    tx.execute(
        "DELETE FROM billing_templates WHERE id = ? AND merchant_id = ?",
        (template_id, merchant_id),
    )


def page_templates(tx: Tx, merchant_id: str, limit: int, offset: int) -> list[BillingTemplate]:
    """Newest first."""
    rows = tx.all(
        "SELECT data FROM billing_templates WHERE merchant_id = ?"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        (merchant_id, limit, offset),
    )
    return [_with_flag(tx, _decode_template.decode(r[0])) for r in rows]


# -- subscribers -----------------------------------------------------------------------------


def insert_subscriber(tx: Tx, merchant_id: str, s: Subscriber, schedule: Schedule) -> None:
    try:
        tx.execute(
            "INSERT INTO billing_subscribers"
            " (id, merchant_id, template_id, client_id, status, data, internal)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                s.id,
                merchant_id,
                s.billing_template_id,
                s.client_id,
                s.status,
                _encode.encode(s),
                _encode.encode(schedule),
            ),
        )
    except sqlite3.IntegrityError as exc:
        raise _integrity(exc) from exc


def update_subscriber(tx: Tx, merchant_id: str, s: Subscriber, schedule: Schedule) -> None:
    data, internal = _encode.encode(s), _encode.encode(schedule)
    # A status left as it was is not written: setting the column the partial indexes filter on
    # makes SQLite redo their entries, which cost a bill's update about 15 times as much
    # (most updates, a bill's among them, keep the status).
    kept = tx.execute(
        "UPDATE billing_subscribers SET data = ?, internal = ?"
        " WHERE id = ? AND merchant_id = ? AND status = ?",
        (data, internal, s.id, merchant_id, s.status),
    )
    if kept.rowcount:
        return
    try:
        tx.execute(
            "UPDATE billing_subscribers SET status = ?, data = ?, internal = ?"
            " WHERE id = ? AND merchant_id = ?",
            (s.status, data, internal, s.id, merchant_id),
        )
    except sqlite3.IntegrityError as exc:
        raise _integrity(exc) from exc


def get_subscriber(
    tx: Tx, merchant_id: str, subscriber_id: str
) -> tuple[Subscriber, Schedule] | None:
    row = tx.one(
        "SELECT data, internal FROM billing_subscribers WHERE id = ? AND merchant_id = ?",
        (subscriber_id, merchant_id),
    )
    if row is None:
        return None
    return _decode_subscriber.decode(row[0]), _decode_schedule.decode(row[1])


class ToBill(NamedTuple):
    """A subscriber and what its bill reads besides (``get_subscriber_to_bill``)."""

    subscriber: Subscriber
    plan: Schedule
    client: bytes | None  # its client's stored JSON (None when gone)
    number: int  # the number of the next purchase (``purchases.NEXT_NUMBER``)
    token: Token | None  # its recurring token's (``purchases.get_token``)


def get_subscriber_to_bill(tx: Tx, merchant_id: str, subscriber_id: str) -> ToBill | None:
    """A subscriber with what its bill reads besides, in one statement (a statement each
    cost a bill more than the rows they read)."""
    row = tx.one(
        f"SELECT s.data, s.internal, c.data, ({NEXT_NUMBER}), t.token_client_id, t.internal"
        " FROM billing_subscribers s LEFT JOIN clients c"
        " ON c.id = lower(s.client_id) AND c.merchant_id = s.merchant_id"
        " LEFT JOIN purchases t ON t.id = json_extract(CAST(s.internal AS TEXT), '$.token')"
        " AND t.merchant_id = s.merchant_id"
        " WHERE s.id = ? AND s.merchant_id = ?",
        (subscriber_id, merchant_id),
    )
    if row is None:
        return None
    client = bytes(row[2]) if row[2] is not None else None
    token = token_of(row[4], row[5]) if row[5] is not None else None
    return ToBill(
        _decode_subscriber.decode(row[0]),
        _decode_schedule.decode(row[1]),
        client,
        int(row[3]),
        token,
    )


def delete_subscriber(tx: Tx, merchant_id: str, subscriber_id: str) -> None:
    tx.execute(
        "DELETE FROM billing_subscribers WHERE id = ? AND merchant_id = ?",
        (subscriber_id, merchant_id),
    )


def subscribers_of(
    tx: Tx, template_id: str, statuses: tuple[str, ...] = LIVE
) -> list[tuple[Subscriber, Schedule]]:
    """The template's subscribers in these statuses, oldest first."""
    marks = ", ".join("?" for _ in statuses)
    rows = tx.all(
        "SELECT data, internal FROM billing_subscribers"
        f" WHERE template_id = ? AND status IN ({marks}) ORDER BY seq",
        (template_id, *statuses),
    )
    return [(_decode_subscriber.decode(r[0]), _decode_schedule.decode(r[1])) for r in rows]


def live_subscribers_of_client(
    tx: Tx, merchant_id: str, client_id: str
) -> list[tuple[Subscriber, Schedule]]:
    rows = tx.all(
        "SELECT data, internal FROM billing_subscribers WHERE client_id = ? AND merchant_id = ?"
        f" AND status IN ({_LIVE}) ORDER BY seq",  # literal: the partial index applies
        (client_id, merchant_id),
    )
    return [(_decode_subscriber.decode(r[0]), _decode_schedule.decode(r[1])) for r in rows]


def page_subscribers(tx: Tx, template_id: str, limit: int, offset: int) -> list[bytes]:
    """Newest first."""
    rows = tx.all(
        "SELECT data FROM billing_subscribers WHERE template_id = ?"
        " ORDER BY seq DESC LIMIT ? OFFSET ?",
        (template_id, limit, offset),
    )
    return [bytes(r[0]) for r in rows]


# -- the purchases billing made --------------------------------------------------------------


def link_purchase(tx: Tx, purchase_id: str, subscriber_id: str, period: int) -> None:
    tx.execute(
        "INSERT INTO billing_purchases (purchase_id, subscriber_id, period) VALUES (?, ?, ?)",
        (purchase_id, subscriber_id, period),
    )


def subscriber_of_purchase(tx: Tx, purchase_id: str) -> str | None:
    row = tx.one(
        "SELECT subscriber_id FROM billing_purchases WHERE purchase_id = ?", (purchase_id,)
    )
    return str(row[0]) if row is not None else None
