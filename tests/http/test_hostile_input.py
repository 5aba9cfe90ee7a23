"""Hostile input: numbers out of range, URLs aimed at the control plane, control characters in
names, and a client that hangs up in the middle of its body."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.domain.urls import UrlRule, control_path
from emulator.domain.urls import problem as url_problem
from emulator.runtime.runtime import Runtime
from emulator.runtime.settings import from_env
from emulator.serving.app import create_app
from tests.conftest import DEFAULT_CLIENT, settings_for, token_for
from tests.http.bank_helpers import eft_body
from tests.http.purchase_helpers import purchase_body

ZERO = "00000000-0000-0000-0000-000000000000"
OUT_OF_RANGE = [
    '{"seconds": 1e400}',
    '{"days": -1e400}',
    '{"clock": {"now": 1e400}}',
    '{"status": 1e400}',
    '{"name": 123456789012345678901234567890123456789e999}',
    "[1e400]",
    "1e400",
]


def control_bodies(company_id: str) -> list[tuple[str, str]]:
    """Every control-plane endpoint that reads a JSON body."""
    own = f"/_emulator/merchants/{company_id}"
    return [
        ("POST", "/_emulator/merchants"),
        ("POST", "/_emulator/clock/advance"),
        ("POST", "/_emulator/clock/freeze"),
        ("POST", "/_emulator/clock/resume"),
        ("PUT", f"{own}/clock"),
        ("POST", f"{own}/clock/advance"),
        ("POST", f"{own}/clock/freeze"),
        ("POST", f"{own}/clock/resume"),
        ("POST", "/_emulator/scenarios/card-declines-by-reference/activate"),
        ("POST", "/_emulator/scenarios/card-declines-by-reference/deactivate"),
        ("POST", f"/_emulator/purchases/{ZERO}/pay"),
        ("POST", "/_emulator/payouts/x/settle"),
        ("POST", "/_emulator/collections/x/settle"),
        ("POST", "/_emulator/payments/x/settle"),
    ]


async def test_numbers_out_of_range_are_400_on_every_control_plane_body(http, merchant):
    for method, path in control_bodies(merchant["company_id"]):
        for body in OUT_OF_RANGE:
            response = await http.request(
                method, path, content=body, headers={"content-type": "application/json"}
            )
            assert response.status_code == 400, (method, path, body, response.text)
            error = response.json()["error"]
            assert error["code"] == "invalid", (path, body)
            assert "out of range" in error["message"]


async def test_huge_integers_in_durations_are_400(http, merchant):
    own = f"/_emulator/merchants/{merchant['company_id']}/clock/advance"
    for path in ("/_emulator/clock/advance", own):
        for body in ({"seconds": 10**30}, {"days": 2**64}, {"hours": -(10**30)}):
            response = await http.post(path, json=body)
            assert response.status_code == 400, (path, body)
            assert response.json()["error"]["code"] == "invalid"


# -- URLs aimed at the emulator's own control plane --------------------------------------------

CONTROL_SPELLINGS = [
    "http://127.0.0.1:8400/_emulator/reset",
    "http://localhost:8400/_EMULATOR/reset",
    "http://127.0.0.1:8400/%5Femulator/reset",
    "http://127.0.0.1:8400/%5f%65mulator/reset",
    "http://127.0.0.1:8400/%255Femulator/reset",
    "http://127.0.0.1:8400//_emulator//reset",
    "http://127.0.0.1:8400/./_emulator/./reset",
    "http://127.0.0.1:8400/x/../_emulator/reset",
    "http://127.0.0.1:8400/_emulator/sink/x/../../reset",
    "http://127.0.0.1:8400/_emulator/sink/x%2F..%2F..%2Freset",
    "http://127.0.0.1:8400/_emulator/sink/%2e%2e/snapshots/a/restore",
    "http://127.0.0.1:8400/_emulator",
    "https://emulator.internal/_emulator/merchants",
    "http://[::1]:8400/_emulator/clock/advance",
    "http://127.0.0.2:8400/x\\..\\_emulator\\reset",
]
SINK = "http://127.0.0.1:8400/_emulator/sink/{name}"


@pytest.mark.parametrize("url", CONTROL_SPELLINGS)
def test_every_spelling_of_the_control_plane_is_refused(url):
    assert url_problem(url, UrlRule()) == "control_plane"


@pytest.mark.parametrize(
    "url",
    [
        SINK.format(name="hooks"),
        SINK.format(name="hooks") + "/",
        "https://merchant.example/_emulatorish/reset",
        "https://merchant.example/hooks/_emulator",
        "http://localhost:9000/webhooks",
    ],
)
def test_the_sink_and_other_paths_are_allowed(url):
    assert url_problem(url, UrlRule()) is None
    assert not control_path(url.split("8400", 1)[-1])


async def test_webhooks_refuse_the_control_plane_and_keep_the_sink(http, gw):
    for url in CONTROL_SPELLINGS[:4]:
        response = await http.post(
            "/api/v1/webhooks/",
            json={"title": "t", "all_events": True, "callback": url},
            headers=gw,
        )
        assert response.status_code == 400, url
        assert response.json()["callback"]["code"] == "invalid"
        assert "control plane" in response.json()["callback"]["message"]
    made = await http.post(
        "/api/v1/webhooks/",
        json={"title": "t", "all_events": True, "callback": SINK.format(name="ok")},
        headers=gw,
    )
    assert made.status_code == 201, made.text
    patched = await http.patch(
        f"/api/v1/webhooks/{made.json()['id']}/",
        json={"callback": CONTROL_SPELLINGS[5]},
        headers=gw,
    )
    assert patched.status_code == 400
    assert "control plane" in patched.json()["callback"]["message"]


async def test_success_callback_follows_the_webhook_rule(http, gw, merchant):
    cases = {
        CONTROL_SPELLINGS[2]: "control plane",
        "http://merchant.example/paid": "HTTPS",
        "https://merchant.example/pa\nid": "valid URL",
    }
    for url, said in cases.items():
        response = await http.post(
            "/api/v1/purchases/", json=purchase_body(merchant, success_callback=url), headers=gw
        )
        assert response.status_code == 400, url
        assert said in response.json()["success_callback"]["message"]
    fine = await http.post(
        "/api/v1/purchases/",
        json=purchase_body(merchant, success_callback=SINK.format(name="paid")),
        headers=gw,
    )
    assert fine.status_code == 201


def _registration(merchant: dict[str, Any], url: str) -> dict[str, Any]:
    return {
        "clientId": merchant["profiles"][0]["createdByClient"],
        "url": url,
        "callbackType": "EFT_COLLECTION",
        "callbackVersion": "V2",
    }


async def test_bank_callback_urls_refuse_the_control_plane_and_cr_lf(http, v2, merchant):
    for url in CONTROL_SPELLINGS[::3]:
        response = await http.post(
            "/v2/clientcallbackurl/", json=_registration(merchant, url), headers=v2
        )
        assert response.status_code == 400, url
        assert "control plane" in response.json()["value"]["Message"]
    for url in ("https://merchant.example/cb\r\nX-Evil: 1", "https://merchant.example/c b"):
        response = await http.post(
            "/v2/clientcallbackurl/", json=_registration(merchant, url), headers=v2
        )
        assert response.status_code == 400
        assert response.json()["value"]["Message"] == "url: not a valid URL"
    sink = SINK.format(name="bank")
    ok = await http.post("/v2/clientcallbackurl/", json=_registration(merchant, sink), headers=v2)
    assert ok.status_code == 200


async def test_a_test_callback_cannot_reset_the_emulator(http, v2, merchant):
    """The issue's attack: merchant B aims a test callback's overrideUrl at /_emulator/reset."""
    profile = merchant["profiles"][0]["profileCode"]
    created = await http.post("/v2/collection/eft", json=eft_body(profile), headers=v2)
    assert created.status_code == 201
    for url in ("http://127.0.0.1:8400/_emulator/reset", "http://127.0.0.1:8400/_Emulator/reset"):
        response = await http.post(
            f"/v2/callback/test/collection/eft/{created.json()['id']}/",
            json={"collectionStatus": "COMPLETED", "callbackVersion": "V2", "overrideUrl": url},
            headers=v2,
        )
        assert response.status_code == 400
        assert "control plane" in response.json()["value"]["Message"]
    merchants = (await http.get("/_emulator/merchants")).json()["merchants"]
    assert merchant["company_id"] in [m["company_id"] for m in merchants]


# -- plain HTTP to the hosts of a CI network ---------------------------------------------------


async def _app_client(tmp_path: Path, hosts: tuple[str, ...]) -> tuple[Runtime, httpx.AsyncClient]:
    rt = Runtime(settings_for(tmp_path, callback_hosts=hosts))
    await rt.start()
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(rt)), base_url="http://e"
    )
    return rt, client


@pytest.mark.parametrize(
    ("hosts", "url", "accepted"),
    [
        ((), "http://app:8000/webhooks", False),
        (("app", "worker"), "http://app:8000/webhooks", True),
        (("app", "worker"), "http://WORKER/hooks", True),
        (("app",), "http://db:5432/x", False),
        (("*",), "http://anything.internal/x", True),
        (("*",), "http://app:8000/_emulator/reset", False),
        (("app:8000",), "http://app:8000/webhooks", True),
        (("APP:8000",), "http://app:8000/webhooks", True),
        (("app:8000",), "http://app:8001/webhooks", False),
        (("app:8000",), "http://app/webhooks", False),
        (("app:80",), "http://app/webhooks", True),
        (("worker", "app:8000"), "http://worker:9/x", True),
        (("10.0.0.5:8000",), "http://10.0.0.5:8000/x", True),
        (("10.0.0.5:8000",), "http://10.0.0.5:8080/x", False),
        (("[fd00::5]:8000",), "http://[fd00::5]:8000/x", True),
        (("[fd00::5]:8000",), "http://[fd00::5]:9000/x", False),
        (("fd00::5",), "http://[fd00::5]:9000/x", True),
    ],
)
async def test_callback_hosts_allow_plain_http_to_those_hosts(tmp_path, hosts, url, accepted):
    rt, client = await _app_client(tmp_path, hosts)
    try:
        gw = {"Authorization": "Bearer sk_test_emulator_default_key"}
        hook = await client.post(
            "/api/v1/webhooks/",
            json={"title": "t", "all_events": True, "callback": url},
            headers=gw,
        )
        assert (hook.status_code == 201) is accepted, hook.text
        merchant = (await client.get("/_emulator/merchants")).json()["merchants"][0]
        body = purchase_body(merchant, success_callback=url)
        purchase = await client.post("/api/v1/purchases/", json=body, headers=gw)
        assert (purchase.status_code == 201) is accepted, purchase.text
    finally:
        await client.aclose()
        await rt.stop()


async def test_a_host_port_entry_of_the_environment_admits_a_v2_callback(tmp_path):
    """EMULATOR_CALLBACK_HOSTS=app:8000 (the variable, as serve reads it): a v2 callback
    URL on that port is registered, one on another port of the same host is refused."""
    hosts = from_env({"EMULATOR_CALLBACK_HOSTS": "worker, app:8000"})["callback_hosts"]
    assert hosts == ("worker", "app:8000")
    rt, client = await _app_client(tmp_path, hosts)
    try:
        token = await token_for(client, *DEFAULT_CLIENT)
        v2 = {"Authorization": f"Bearer {token}"}
        for url, status in (("http://app:8000/cb", 200), ("http://app:9000/cb", 400)):
            response = await client.post(
                "/v2/clientcallbackurl/",
                json={
                    "clientId": 1001,  # the default merchant's OAuth client (fixtures)
                    "url": url,
                    "callbackType": "EFT_COLLECTION",
                    "callbackVersion": "V2",
                },
                headers=v2,
            )
            assert response.status_code == status, response.text
    finally:
        await client.aclose()
        await rt.stop()


@pytest.mark.parametrize("value", ["app:0", "app:65536", "app:http", "[::1]x", "app:80:80x"])
def test_a_bad_host_port_entry_is_refused(value):
    with pytest.raises(ValueError, match="EMULATOR_CALLBACK_HOSTS"):
        from_env({"EMULATOR_CALLBACK_HOSTS": value})


# -- names with control characters -------------------------------------------------------------


@pytest.mark.parametrize("name", ["snap%0A", "snap%0D%0Ax", "a%00", "ok%09", "x%1B"])
async def test_names_with_control_characters_are_refused(http, name):
    requests = [
        ("POST", f"/_emulator/snapshots/{name}"),
        ("POST", f"/_emulator/snapshots/{name}/restore"),
        ("POST", f"/_emulator/sink/{name}"),
        ("GET", f"/_emulator/sink/{name}"),
        ("DELETE", f"/_emulator/sink/{name}"),
        ("POST", f"/_emulator/scenarios/{name.lower()}/activate"),
        ("POST", f"/_emulator/scenarios/{name.lower()}/deactivate"),
    ]
    for method, path in requests:
        response = await http.request(method, path)
        assert response.status_code == 400, (method, path, response.text)
        assert response.json()["error"]["code"] == "invalid"


async def test_a_scenario_file_named_with_a_newline_is_refused(http):
    body = "name: sneaky\\n\nrules: []\n"
    response = await http.post(
        "/_emulator/scenarios", content=body, headers={"content-type": "application/yaml"}
    )
    assert response.status_code == 400


# -- a client that hangs up in the middle of its body ------------------------------------------


async def hang_up(app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> list[Any]:
    """Send part of a body, then disconnect; what the app sent back."""
    messages = [
        {"type": "http.request", "body": b'{"sec', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"99"), *headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8400),
    }
    await app(scope, receive, send)
    return sent


async def test_a_client_that_disconnects_mid_body_is_no_500(runtime, caplog):
    app = create_app(runtime)
    key = [(b"authorization", b"Bearer sk_test_emulator_default_key")]
    with caplog.at_level(logging.DEBUG):
        for path, headers in [("/_emulator/clock/advance", []), ("/api/v1/purchases/", key)]:
            sent = await hang_up(app, path, headers)
            assert sent[0]["status"] == 499  # nginx's "client closed request"; it never arrives
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    journal = await runtime.journal.list(merchant_id=None, limit=10, before_id=None, after_id=None)
    assert [e["status"] for e in journal if e["path"] == "/api/v1/purchases/"] == [499]


async def test_a_stored_url_aimed_at_the_control_plane_is_never_sent(runtime):
    """A URL stored before the rule (an old database or snapshot) is refused when sending."""
    from emulator.delivery.transport import SelfRoutingTransport

    transport = SelfRoutingTransport(8400, lambda: create_app(runtime))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError, match="control plane"):
            await client.post("http://127.0.0.1:8400/_emulator/reset")
        sink = await client.post("http://127.0.0.1:8400/_emulator/sink/old", json={})
        assert sink.status_code == 200
