"""Expectations from Python (issue 26), against a real emulator served by uvicorn in a thread:
the builders, ``verify`` and ``wait`` raising ``AssertionError`` with the report, ``wait`` with
``advance_up_to``, and a client that goes away cancelling its wait."""

from __future__ import annotations

import json
import socket
import time
from datetime import timedelta

import httpx
import pytest

from emulator.runtime.runtime import Runtime
from emulator.testing import EmulatorClient, EmulatorServer, expect
from tests.live_helpers import executed_payout as payout


def test_builders_make_the_json_the_control_plane_reads():
    made = expect.request("POST", "/api/v1/purchases/{id}/refund/", count=1, id="refund")
    assert made.as_json() == {
        "request": {"method": "POST", "path": "/api/v1/purchases/{id}/refund/"},
        "count": 1,
        "id": "refund",
    }
    sent = expect.delivery("purchase.paid", sink="shop", within=timedelta(minutes=5), after=made)
    assert sent.as_json() == {
        "delivery": {"event": "purchase.paid", "sink": "shop"},
        "within": 300.0,
        "after": "refund",
    }
    body = expect.request(body={"amount": expect.any("integer"), "note": expect.regex("a.*")})
    assert body.as_json()["request"]["body"] == {
        "amount": {"any": "integer"},
        "note": {"regex": "a.*"},
    }
    assert expect.transition("p1", "paid", never=True).as_json() == {
        "transition": {"object_id": "p1", "status": "paid"},
        "never": True,
    }
    with pytest.raises(ValueError, match="give that expectation an id"):
        expect.event("purchase.paid", after=expect.event("purchase.created"))


def test_verify_passes_and_fails_with_the_report(control: EmulatorClient):
    merchant = control.new_merchant()
    done = payout(control, merchant, "4444333322221111")
    report = control.verify(
        merchant,
        expect.request("POST", "/api/v1/payouts/", status=201, count=1),
        expect.transition(done["id"], "success"),
    )
    assert report.ok and len(report.results) == 2
    with pytest.raises(AssertionError) as failed:
        control.verify(merchant, expect.request("POST", "/api/v1/payouts/", count=2))
    assert "expected exactly 2 POST /api/v1/payouts/, saw 1: #" in str(failed.value)
    quiet = control.verify(merchant, expect.event("payout.failed"), check=False)
    assert not quiet.ok and quiet.results[0].message is not None


def test_wait_with_advance_up_to(control: EmulatorClient):
    merchant = control.new_merchant(clock="frozen", now="2026-03-02T08:00:00Z")
    pending = payout(control, merchant, "5555555555554444")
    settled = expect.transition(pending["id"], "success")
    report = control.wait(merchant, settled, advance_up_to=timedelta(days=7))
    assert report.ok and report.at is not None
    assert report.at.isoformat() == "2026-03-05T08:00:00+00:00"
    with pytest.raises(AssertionError, match=r"expected at least 1 event payout\.failed"):
        control.wait(merchant, expect.event("payout.failed"), timeout=0.2)


def _watching(server: EmulatorServer) -> int:
    async def count(rt: Runtime) -> int:
        return rt.notices.watching()

    return server.call(count)


def test_a_client_that_goes_away_cancels_its_wait(server: EmulatorServer, control: EmulatorClient):
    merchant = control.new_merchant()
    body = json.dumps({"expect": [{"event": {"event": "never.happens"}}], "timeout_seconds": 60})
    url = httpx.URL(server.url)
    assert url.port is not None
    sock = socket.create_connection((url.host, url.port), timeout=10)
    try:
        sock.sendall(
            (
                f"POST /_emulator/merchants/{merchant.company_id}/wait HTTP/1.1\r\n"
                f"Host: {url.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n{body}"
            ).encode()
        )
        for _ in range(500):  # until the wait watches its merchant
            if _watching(server) == 1:
                break
            time.sleep(0.01)
        assert _watching(server) == 1
    finally:
        sock.close()
    for _ in range(500):  # the server notices the disconnect and ends the wait
        if _watching(server) == 0:
            break
        time.sleep(0.01)
    assert _watching(server) == 0
