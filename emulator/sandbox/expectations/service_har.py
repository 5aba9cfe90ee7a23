"""A merchant's traffic as an HTTP Archive (HAR 1.2): the requests its app made (the journal)
and the deliveries made to it (webhooks, callbacks), in the order of the merchant's clock, each
at its emulated instant. CI keeps it as an artefact; a browser's developer tools open it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

import msgspec

from emulator import __version__
from emulator.sandbox.expectations import repo_recent
from emulator.sandbox.expectations.rules_times import iso_us
from emulator.sandbox.expectations.service import known_merchant

if TYPE_CHECKING:
    from emulator.kernel.context import Context

HTTP = "HTTP/1.1"


def _mime(text: str) -> str:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return "application/json"
    return "application/x-www-form-urlencoded" if "=" in text and " " not in text else "text/plain"


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _ms(duration_us: Any) -> float:
    return 0.0 if duration_us is None else round(int(duration_us) / 1000, 3)


def _entry(started_us: int, time_ms: float, request: dict[str, Any], response: dict[str, Any],
           extra: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    return {
        "startedDateTime": iso_us(started_us),
        "time": time_ms,
        "request": request,
        "response": response,
        "cache": {},
        "timings": {"send": 0, "wait": time_ms, "receive": 0},
        "_emulator": extra,
    }


def _request_entry(row: dict[str, Any], base_url: str) -> dict[str, Any]:
    query = str(row["query"])
    url = f"{base_url}{row['path']}" + (f"?{query}" if query else "")
    body, answer = str(row["request_body"]), str(row["response_body"])
    request: dict[str, Any] = {
        "method": row["method"],
        "url": url,
        "httpVersion": HTTP,
        "cookies": [],
        "headers": [],
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(query, True)],
        "headersSize": -1,
        "bodySize": _size(body),
    }
    if body:
        request["postData"] = {"mimeType": _mime(body), "text": body}
    response = {
        "status": row["status"],
        "statusText": "",
        "httpVersion": HTTP,
        "cookies": [],
        "headers": [],
        "content": {"size": _size(answer), "mimeType": _mime(answer), "text": answer},
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": _size(answer),
    }
    extra = {"kind": "request", "id": row["id"], "interface": row["interface"]}
    return _entry(row["at_us"], _ms(row["duration_us"]), request, response, extra)


def _delivery_entry(row: dict[str, Any]) -> dict[str, Any]:
    headers = msgspec.json.decode(row["headers"], type=dict[str, str])
    body = bytes(row["body"]).decode("utf-8", "replace")
    request: dict[str, Any] = {
        "method": "POST",
        "url": row["url"],
        "httpVersion": HTTP,
        "cookies": [],
        "headers": [{"name": k, "value": v} for k, v in headers.items()],
        "queryString": [],
        "postData": {"mimeType": headers.get("Content-Type", _mime(body)), "text": body},
        "headersSize": -1,
        "bodySize": _size(body),
    }
    response: dict[str, Any] = {
        "status": row["status"] or 0,  # 0: no answer came (see _emulator.error)
        "statusText": "",
        "httpVersion": HTTP,
        "cookies": [],
        "headers": [],
        "content": {"size": 0, "mimeType": ""},
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": -1,
    }
    extra = {
        "kind": row["kind"],
        "id": row["id"],
        "event": row["event_type"],
        "object_id": row["object_id"],
        "attempt": row["attempt"],
        "success": bool(row["success"]),
        "error": row["error"],
    }
    return _entry(row["at_us"], _ms(row["duration_us"]), request, response, extra)


async def har(rt: Context, company_id: str, base_url: str, limit: int) -> dict[str, Any]:
    """The merchant's latest ``limit`` requests and ``limit`` delivery attempts, merged in
    the order of their instants (a request before a delivery of the same instant)."""
    await known_merchant(rt, company_id)
    await rt.journal.flush()
    await rt.deliveries.flush(merchant_id=company_id)

    def read(tx: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return repo_recent.journal_rows(tx, company_id, limit), repo_recent.delivery_rows(
            tx, company_id, limit
        )

    requests, deliveries = await rt.db.read(read)
    keyed = [((r["at_us"], 0, r["id"]), _request_entry(r, base_url)) for r in requests]
    keyed += [((d["at_us"], 1, d["id"]), _delivery_entry(d)) for d in deliveries]
    keyed.sort(key=lambda pair: pair[0])
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "payments-emulator", "version": __version__},
            "pages": [],
            "entries": [entry for _, entry in keyed],
            "comment": f"merchant {company_id}; instants on its clock",
        }
    }
