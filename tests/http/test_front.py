"""The front layer's own pieces (its behaviour is the whole HTTP suite's)."""

from __future__ import annotations

from emulator.http.middleware import _Instants
from emulator.kernel.clock import LATEST_US, from_us, iso


def test_time_header_reads_as_the_clock_prints_the_instant():
    """X-Emulator-Time is formatted from a prefix kept per second: the same text as ``iso``,
    with and without microseconds, within a second and across seconds, to the clock's end."""
    instants = _Instants()
    moments = [
        0,
        1,
        1_764_000_000_000_000,
        1_764_000_000_000_001,
        1_764_000_000_999_999,
        1_764_000_001_000_000,
        1_764_000_001_500_000,
        1_700_000_000_250_000,
        LATEST_US - 1,
        LATEST_US - 1_000_000,
    ]
    for us in moments:
        assert instants.encode(us) == iso(from_us(us)).encode(), us


async def test_a_server_error_is_answered_in_the_dialect_journaled_and_raised(runtime):
    """A bug behind the front layer: the caller gets the interface's 500 with the emulator's
    time, the journal records it with its answer, and the error still reaches the server."""
    import pytest

    from emulator.http.accesslog import AccessLog
    from emulator.http.faults import Faults
    from emulator.http.middleware import Front
    from emulator.serving.app import DIALECTS

    async def broken(scope, receive, send):
        raise RuntimeError("a bug")

    front = Front(
        broken,
        broken,
        runtime,
        Faults(runtime, DIALECTS),
        AccessLog(),
        DIALECTS.server_error,
        DIALECTS.api_error,
    )
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/v1/clients/",
        "query_string": b"",
        "headers": [],
    }
    with pytest.raises(RuntimeError, match="a bug"):
        await front(scope, receive, send)
    assert sent[0]["status"] == 500
    headers = dict(sent[0]["headers"])
    assert b"x-emulator-time" in headers
    entries = await runtime.journal.list(merchant_id=None, limit=5, before_id=None)
    assert [(e["path"], e["status"]) for e in entries] == [("/api/v1/clients/", 500)]
    assert entries[0]["response_body"] == sent[1]["body"].decode()
