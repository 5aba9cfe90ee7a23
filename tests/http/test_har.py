"""``GET /_emulator/merchants/{company_id}/har`` (issue 26): a merchant's requests and the
deliveries made to it as an HTTP Archive that validates against HAR 1.2 (the schema below is
the specification's required fields and types), in the order of the merchant's clock."""

from __future__ import annotations

from typing import Any

import jsonschema

from tests.delivery.test_deliveries import SINK, paid_out, webhook
from tests.http.clock_helpers import error, gw_of

NAME_VALUE = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["name", "value"],
        "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
    },
}
HAR_1_2 = {
    "type": "object",
    "required": ["log"],
    "properties": {
        "log": {
            "type": "object",
            "required": ["version", "creator", "entries"],
            "properties": {
                "version": {"const": "1.2"},
                "creator": {
                    "type": "object",
                    "required": ["name", "version"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
                },
                "pages": {"type": "array"},
                "entries": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
                "comment": {"type": "string"},
            },
        }
    },
    "$defs": {
        "entry": {
            "type": "object",
            "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
            "properties": {
                "startedDateTime": {"type": "string", "format": "date-time"},
                "time": {"type": "number", "minimum": 0},
                "request": {
                    "type": "object",
                    "required": ["method", "url", "httpVersion", "cookies", "headers",
                                 "queryString", "headersSize", "bodySize"],
                    "properties": {
                        "method": {"type": "string"},
                        "url": {"type": "string", "pattern": "^https?://"},
                        "httpVersion": {"type": "string"},
                        "cookies": {"type": "array"},
                        "headers": NAME_VALUE,
                        "queryString": NAME_VALUE,
                        "postData": {
                            "type": "object",
                            "required": ["mimeType"],
                            "properties": {"mimeType": {"type": "string"},
                                           "text": {"type": "string"}},
                        },
                        "headersSize": {"type": "integer"},
                        "bodySize": {"type": "integer"},
                    },
                },
                "response": {
                    "type": "object",
                    "required": ["status", "statusText", "httpVersion", "cookies", "headers",
                                 "content", "redirectURL", "headersSize", "bodySize"],
                    "properties": {
                        "status": {"type": "integer"},
                        "statusText": {"type": "string"},
                        "headers": NAME_VALUE,
                        "content": {
                            "type": "object",
                            "required": ["size", "mimeType"],
                            "properties": {"size": {"type": "integer"},
                                           "mimeType": {"type": "string"},
                                           "text": {"type": "string"}},
                        },
                        "redirectURL": {"type": "string"},
                        "headersSize": {"type": "integer"},
                        "bodySize": {"type": "integer"},
                    },
                },
                "cache": {"type": "object"},
                "timings": {
                    "type": "object",
                    "required": ["send", "wait", "receive"],
                    "properties": {k: {"type": "number", "minimum": -1}
                                   for k in ("send", "wait", "receive")},
                },
            },
        }
    },
}  # fmt: skip


def validate(har: dict[str, Any]) -> None:
    checker = jsonschema.Draft202012Validator(
        HAR_1_2, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    problems = [f"{list(e.absolute_path)}: {e.message}" for e in checker.iter_errors(har)]
    assert problems == []


async def test_a_merchants_traffic_as_an_http_archive(http, merchant):
    gw = gw_of(merchant)
    await webhook(http, gw, SINK.format(name="har"), all_events=False, events=["payout.success"])
    payout = await paid_out(http, gw, merchant, "4444333322221111")
    response = await http.get(f"/_emulator/merchants/{merchant['company_id']}/har")
    assert response.status_code == 200, response.text
    har = response.json()
    validate(har)
    entries = har["log"]["entries"]
    kinds = [(e["_emulator"]["kind"], e["request"]["method"]) for e in entries]
    assert kinds == [("request", "POST"), ("request", "POST"), ("webhook", "POST")]
    made, _, sent = entries
    assert made["request"]["url"] == "http://emulator/api/v1/webhooks/"
    assert made["response"]["status"] == 201
    assert made["request"]["postData"]["mimeType"] == "application/json"
    assert sent["request"]["url"] == SINK.format(name="har")
    assert sent["response"]["status"] == 200
    assert sent["_emulator"]["object_id"] == payout["id"]
    names = {h["name"] for h in sent["request"]["headers"]}
    assert {"Content-Type", "X-Signature", "X-Event-Id"} <= names
    assert [e["startedDateTime"] for e in entries] == sorted(e["startedDateTime"] for e in entries)
    other = (await http.post("/_emulator/merchants")).json()
    theirs = await http.get(f"/_emulator/merchants/{other['company_id']}/har")
    assert theirs.json()["log"]["entries"] == []  # nothing of another merchant's


async def test_har_refusals(http, merchant):
    unknown = "00000000-0000-4000-8000-000000000000"
    assert error(await http.get(f"/_emulator/merchants/{unknown}/har")) == (
        404,
        "merchant_not_found",
    )
    bad = await http.get(f"/_emulator/merchants/{merchant['company_id']}/har?limit=0")
    assert error(bad) == (400, "invalid")
