"""A delivery attempt as the control plane and the gateway show it: its fields, its copy, its
duration in milliseconds."""

from __future__ import annotations

from typing import Any

import msgspec

from emulator.delivery.client import wire_headers
from emulator.kernel.clock import TIME_HEADER, from_us, iso


def attempt_view(row: dict[str, Any]) -> dict[str, Any]:
    """An attempt as the control plane shows it (every detail, body included). ``headers``:
    every header that went on the wire, in order: the HTTP client's own (Host, Accept...,
    rebuilt by its own rules, ``client.wire_headers``), the message's, the attempt's
    ``X-Emulator-Time`` (its instant, stamped when it was sent) and Content-Length."""
    body = bytes(row["body"])
    at = iso(from_us(row["at_us"]))
    view = {
        "id": row["id"],
        "message_id": row["message_id"],
        "merchant": row["merchant_id"],
        "kind": row["kind"],
        "target_id": row["target_id"],
        "event_id": row["event_id"],
        "event_type": row["event_type"],
        "object_type": row["object_type"],
        "object_id": row["object_id"],
        "url": row["url"],
        "headers": wire_headers(
            row["url"],
            {**msgspec.json.decode(row["headers"]), TIME_HEADER: at},
            len(body),
        ),
        "body": body.decode("utf-8", "replace"),
        "attempt": row["attempt"],
        "at": at,
        "status": row["status"],
        "error": row["error"],
        "success": bool(row["success"]),
        "duration_ms": milliseconds(row["duration_us"]),
    }
    if row.get("copies") is not None:  # one of several sends of its event (migration 0017)
        view.update(copy_view(row["copy"], row["copies"], row["cause"]))
    return view


def copy_view(copy: int, copies: int, cause: str | None) -> dict[str, Any]:
    """``copy`` of ``copies``, and what made it one: ``{"kind": "scenario" | "hold" |
    "replay" | "outcome_header", "id": the scenario's name, the hold's id, the message
    replayed or the decision point}``."""
    kind, _, ident = (cause or "").partition(":")
    return {"copy": copy, "copies": copies, "cause": {"kind": kind, "id": ident} if kind else None}


def milliseconds(duration_us: int | None) -> float | None:
    """Microseconds as milliseconds (to the microsecond); None stays None (old rows)."""
    return None if duration_us is None else duration_us / 1000
