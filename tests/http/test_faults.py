"""http.request faults and the rate limiter, in each interface's own dialect."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from emulator.domain import errors
from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import RateLimitSetting
from emulator.serving.app import create_app
from tests.conftest import DEFAULT_KEY, EPOCH_S, settings_for, token_for


def scenario(name: str, then: str, match: str = "{}", times: str = "") -> str:
    counted = f"\n    times: {times}" if times else ""
    return (
        f"name: {name}\nrules:\n  - when: http.request\n    match: {match}\n"
        f"    then: {then}{counted}\n"
    )


async def activate(http, text: str, merchant: dict | None = None) -> None:
    loaded = await http.post("/_emulator/scenarios", content=text)
    assert loaded.status_code == 201, loaded.text
    body = {"merchant": merchant["company_id"]} if merchant else None
    name = loaded.json()["name"]
    assert (await http.post(f"/_emulator/scenarios/{name}/activate", json=body)).status_code == 200


def gw(merchant):
    return {"Authorization": f"Bearer {merchant['api_key']}"}


async def v2(http, merchant):
    token = await token_for(http, merchant["client_id"], merchant["client_secret"])
    return {"Authorization": f"Bearer {token}"}


GATEWAY_BODIES = {
    500: ("server_error", "Internal server error."),
    502: ("upstream_unavailable", "Upstream unavailable."),
    503: ("temporary_maintenance", "Temporarily unavailable for maintenance."),
    504: ("upstream_timeout", "Upstream did not answer in time."),
}
BANK_MESSAGES = {500: "Internal server error", 502: "Bad Gateway", 503: "Service Unavailable",
                 504: "Gateway Timeout"}  # fmt: skip


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_server_faults_in_each_dialect(http, merchant, status):
    bank_headers = await v2(http, merchant)  # before the fault: token requests are faulted too
    await activate(http, scenario("down", f"{{status: {status}}}"), merchant)
    gateway = await http.get("/api/v1/clients/", headers=gw(merchant))
    code, message = GATEWAY_BODIES[status]
    assert gateway.status_code == status
    assert gateway.json() == {"__all__": {"message": message, "code": code}}
    assert issubclass(errors.FAULTS[status], errors.ApiError)
    bank = await http.get("/v2/merchantprofile", headers=bank_headers)
    assert bank.status_code == status
    assert bank.json() == {"statusCode": status, "message": BANK_MESSAGES[status]}


async def test_the_token_endpoint_is_faulted_in_its_own_dialect(http, merchant):
    await activate(http, scenario("auth-down", "{status: 503}", "{interface: auth}"), merchant)
    response = await http.post(
        "/oauth2/token",
        auth=(merchant["client_id"], merchant["client_secret"]),
        data={"grant_type": "client_credentials"},
    )
    assert response.status_code == 503
    assert response.json() == {
        "error": "temporarily_unavailable",
        "error_description": "Temporarily unavailable for maintenance.",
    }
    assert response.headers["Retry-After"] == "1"


async def test_a_counted_fault_answers_that_many_times_then_the_api_works(http, merchant):
    await activate(http, scenario("burst", "{status: 502}", times="2"), merchant)
    statuses = [
        (await http.get("/api/v1/clients/", headers=gw(merchant))).status_code for _ in range(4)
    ]
    assert statuses == [502, 502, 200, 200]


async def test_matching_by_method_and_path(http, merchant):
    await activate(
        http,
        scenario("no-creates", "{status: 503, retry_after_seconds: 30}",
                 "{method: POST, path: {prefix: /api/v1/clients}}"),
        merchant,
    )  # fmt: skip
    created = await http.post("/api/v1/clients/", json={"email": "a@b.co"}, headers=gw(merchant))
    assert created.status_code == 503
    assert created.headers["Retry-After"] == "30"
    listed = await http.get("/api/v1/clients/", headers=gw(merchant))
    assert listed.status_code == 200 and listed.json()["results"] == []  # nothing was created


async def test_an_injected_429_carries_the_rate_limit_headers(http, merchant):
    await activate(http, scenario("throttle", "{status: 429, retry_after_seconds: 7}"), merchant)
    response = await http.get("/api/v1/clients/", headers=gw(merchant))
    assert response.status_code == 429
    assert response.json() == {
        "__all__": {"message": "Rate limit exceeded.", "code": "rate_limit_exceeded"}
    }
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert response.headers["X-RateLimit-Reset"] == str(EPOCH_S + 7)
    assert response.headers["Retry-After"] == "7"
    assert response.headers["X-RateLimit-Limit"] == "60"  # nominal: no --rate-limit is set


async def test_delay_is_real_latency(http, merchant):
    await activate(http, scenario("slow", "{delay_ms: 300}"), merchant)
    started = time.perf_counter()
    response = await http.get("/api/v1/clients/", headers=gw(merchant))
    assert response.status_code == 200
    assert time.perf_counter() - started >= 0.3


async def test_drop_in_process_raises_what_a_dropped_connection_raises(http, merchant):
    await activate(http, scenario("flaky", "{drop: true}", times="1"), merchant)
    with pytest.raises(httpx.RemoteProtocolError):
        await http.get("/api/v1/clients/", headers=gw(merchant))
    assert (await http.get("/api/v1/clients/", headers=gw(merchant))).status_code == 200
    journal = (
        await http.get("/_emulator/requests", params={"merchant": merchant["company_id"]})
    ).json()
    assert [r["status"] for r in journal["requests"][:2]] == [200, 0]  # newest first; 0: no answer


async def test_a_scenario_rate_limit_answers_429_until_the_window_ends(http, merchant):
    await activate(
        http, scenario("limited", "{rate_limit: {limit: 3, window_seconds: 60}}"), merchant
    )
    answers = [await http.get("/api/v1/clients/", headers=gw(merchant)) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    window_end = EPOCH_S - EPOCH_S % 60 + 60
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"3"}
    assert {a.headers["X-RateLimit-Reset"] for a in answers} == {str(window_end)}
    assert answers[3].headers["Retry-After"] == str(window_end - EPOCH_S)
    assert answers[3].json()["__all__"]["code"] == "rate_limit_exceeded"
    # the window ends on the emulator clock
    await http.post("/_emulator/clock/advance", json={"seconds": window_end - EPOCH_S})
    assert (await http.get("/api/v1/clients/", headers=gw(merchant))).status_code == 200


async def test_the_v2_dialect_of_a_429(http, merchant):
    headers = await v2(http, merchant)
    await activate(
        http, scenario("limited", "{rate_limit: {limit: 1}}", "{interface: bank}"), merchant
    )
    assert (await http.get("/v2/merchantprofile", headers=headers)).status_code == 200
    over = await http.get("/v2/merchantprofile", headers=headers)
    assert over.status_code == 429
    assert over.json() == {"statusCode": 429, "message": "Too Many Requests"}
    assert over.headers["X-RateLimit-Limit"] == "1"


async def test_the_rate_limit_setting_is_per_merchant(tmp_path: Path):
    settings = settings_for(tmp_path, rate_limit=RateLimitSetting(2, 10))
    async with Runtime(settings) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
            a = (await http.post("/_emulator/merchants")).json()
            b = (await http.post("/_emulator/merchants")).json()
            first = [
                (await http.get("/api/v1/clients/", headers=gw(a))).status_code for _ in range(3)
            ]
            assert first == [200, 200, 429]
            assert (await http.get("/api/v1/clients/", headers=gw(b))).status_code == 200
            # no credentials, no merchant: the limiter does not count it (the 401 is the answer)
            assert (await http.get("/api/v1/clients/")).status_code == 401
            # the control plane is never limited
            for _ in range(5):
                assert (await http.get("/_emulator/clock")).status_code == 200
            await http.post("/_emulator/clock/advance", json={"seconds": 10})
            assert (await http.get("/api/v1/clients/", headers=gw(a))).status_code == 200


async def test_the_journal_records_faulted_requests_with_their_merchant(http, merchant):
    await activate(http, scenario("down", "{status: 502}"), merchant)
    await http.get("/api/v1/clients/", headers=gw(merchant))
    entries = (
        await http.get("/_emulator/requests", params={"merchant": merchant["company_id"]})
    ).json()
    assert entries["requests"][0]["status"] == 502


def test_drop_over_a_real_connection_closes_it_without_an_answer():
    """Under uvicorn the connection is aborted: the client sees the server hang up, and the
    server writes no 500 of its own and keeps serving."""
    from emulator.testing import EmulatorServer

    with EmulatorServer() as server, server.client() as control:
        merchant = control.new_merchant()
        name = control.load_scenario(scenario("hang-up", "{drop: true}", times="1"))
        control.activate_scenario(name, merchant)
        with control.gateway(merchant) as gateway:
            with pytest.raises(httpx.RemoteProtocolError):
                gateway.get("clients/")
            assert gateway.get("clients/").status_code == 200


async def test_windows_start_over_after_a_reset_and_with_a_new_activation(http):
    default = {"Authorization": f"Bearer {DEFAULT_KEY}"}  # the default merchant survives resets
    await activate(http, scenario("limited", "{rate_limit: {limit: 1}}"))
    assert [
        (await http.get("/api/v1/clients/", headers=default)).status_code for _ in range(2)
    ] == [200, 429]
    await http.post("/_emulator/scenarios/limited/deactivate")
    await http.post("/_emulator/scenarios/limited/activate")
    assert (await http.get("/api/v1/clients/", headers=default)).status_code == 200
    await http.post("/_emulator/reset")
    await activate(http, scenario("limited", "{rate_limit: {limit: 1}}"))
    assert (await http.get("/api/v1/clients/", headers=default)).status_code == 200


async def test_only_the_right_client_secret_speaks_for_a_merchant(tmp_path: Path):
    """Before its handler, a request is the merchant's only with credentials that are
    valid: a wrong secret must not spend the merchant's rate limit."""
    settings = settings_for(tmp_path, rate_limit=RateLimitSetting(1, 60))
    async with Runtime(settings) as rt:
        transport = httpx.ASGITransport(app=create_app(rt))
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as http:
            a = (await http.post("/_emulator/merchants")).json()
            for _ in range(3):
                wrong = await http.post(
                    "/oauth2/token", auth=(a["client_id"], "wrong"),
                    data={"grant_type": "client_credentials"},
                )  # fmt: skip
                assert wrong.status_code == 400
            assert (await http.get("/api/v1/clients/", headers=gw(a))).status_code == 200
