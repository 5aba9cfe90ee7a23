"""The built-in receiver's messages."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.kernel.clock import from_us, iso
from emulator.kernel.storage import Tx


def insert(
    tx: Tx, name: str, at_us: int, method: str, path: str, headers: dict[str, str], body: str
) -> int:
    cursor = tx.execute(
        "INSERT INTO sink_messages (name, received_us, method, path, headers, body)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (name, at_us, method, path, msgspec.json.encode(headers).decode(), body),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def messages(tx: Tx, name: str) -> list[dict[str, Any]]:
    """Oldest first; ``json`` holds the body when it is JSON, as is (``msgspec.Raw``, checked
    to be one JSON value, encoded into the answer without a copy as Python objects: a sink
    read by the soak holds hundreds of 3 KB events, parsed they took 17 MB for each read)."""
    out = []
    for r in tx.all("SELECT * FROM sink_messages WHERE name = ? ORDER BY id", (name,)):
        try:
            parsed: Any = _as_json(r["body"])
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):  # kept as text only
            parsed = None
        out.append(
            {
                "id": r["id"],
                "received_at": iso(from_us(r["received_us"])),
                "method": r["method"],
                "path": r["path"],
                "headers": _as_json(r["headers"]),
                "body": r["body"],
                "json": parsed,
            }
        )
    return out


def _as_json(text: str) -> msgspec.Raw:
    return msgspec.json.decode(text, type=msgspec.Raw)


def clear(tx: Tx, name: str) -> int:
    return tx.execute("DELETE FROM sink_messages WHERE name = ?", (name,)).rowcount
