"""The helpers' clients share the process's connections (issue 32: the test loop): a test's
clients reuse those of the tests before it, instead of each making and closing its own.
(``EmulatorServer.client()`` calls its app in process, over no connection: the control
clients here are made with the server's URL, as against a served emulator.)"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from emulator.testing import EmulatorClient, EmulatorError, EmulatorServer


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer() as running:
        yield running


def _local_address(response: httpx.Response) -> tuple[str, int]:
    """The client side of the connection the response came on."""
    address: tuple[str, int] = response.extensions["network_stream"].get_extra_info("client_addr")
    return address


def _health_from(client: httpx.Client) -> tuple[str, int]:
    response = client.get("health")
    assert response.status_code == 200
    return _local_address(response)


def test_a_closed_clients_connection_serves_the_next_client(server: EmulatorServer):
    """Three tests' worth of clients, each closed before the next is made: the control
    clients and a merchant's gateway client all ride one connection."""
    with EmulatorClient(server.url) as first:
        used = _health_from(first.http)
        merchant = first.new_merchant()
    with EmulatorClient(server.url) as second:
        assert _health_from(second.http) == used
        with second.gateway(merchant) as gateway:
            listed = gateway.get("webhooks/")
            assert listed.status_code == 200 and _local_address(listed) == used


def test_clients_at_once_have_a_connection_each(server: EmulatorServer):
    """A connection serves one request at a time: a client whose request is still being
    answered (a wait held open) never lends it to another."""
    with EmulatorClient(server.url) as waiting, EmulatorClient(server.url) as other:
        with waiting.http.stream(
            "GET", "sink/held/wait", params={"count": 1, "timeout_seconds": 0.2}
        ) as held:
            assert _health_from(other.http) != _local_address(held)


@pytest.mark.parametrize(
    "options", [{"limits": httpx.Limits(max_connections=1)}, {"http1": True}, {"verify": True}]
)
def test_a_client_told_how_to_connect_has_connections_of_its_own(
    server: EmulatorServer, options: dict[str, object]
):
    with EmulatorClient(server.url) as shared:
        used = _health_from(shared.http)
        merchant = shared.new_merchant()
    with merchant.gateway(server.url, **options) as own:
        response = own.get("webhooks/")
        assert response.status_code == 200 and _local_address(response) != used


def test_a_proxy_in_the_environment_is_still_used(
    server: EmulatorServer, monkeypatch: pytest.MonkeyPatch
):
    """httpx reads proxy variables only for a client without a transport of its own: with one
    set, the helpers' clients are made as before, and go through the proxy (none listens on
    port 9 here: the request fails instead of reaching the emulator directly)."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    with EmulatorClient(server.url) as client, pytest.raises(httpx.TransportError):
        client.health()


def test_the_servers_own_control_clients_call_its_app_in_process(server: EmulatorServer):
    """``server.client()`` answers as a client over HTTP does, over no connection: the same
    answers, errors with the same code, a sink's wait answered by a message."""
    with server.client() as inside, EmulatorClient(server.url) as outside:
        answer = inside.http.get("health")
        assert "network_stream" not in answer.extensions  # no socket under it
        assert answer.json() == outside.health()
        merchant = inside.new_merchant(clock="frozen", now="2030-01-01T00:00:00Z")
        assert inside.clock(merchant) == outside.clock(merchant)
        with pytest.raises(EmulatorError) as refused:
            inside.clock("no-such-merchant")
        assert (refused.value.status, refused.value.code) == (404, "merchant_not_found")
        sink = inside.sink(prefix="inproc")
        outside.http.post(f"sink/{sink.segment}", json={"n": 1}).raise_for_status()
        [message] = sink.wait_for(1)
        assert message.json == {"n": 1}


def test_an_in_process_call_keeps_the_clients_read_timeout(server: EmulatorServer):
    """A wait longer than the client's timeout is ``httpx.ReadTimeout``, as over HTTP."""
    with server.client(timeout=0.2) as client, pytest.raises(httpx.ReadTimeout):
        client.call("GET", "sink/never/wait", params={"count": 1, "timeout_seconds": 3})


def test_an_in_process_call_to_a_stopped_server_is_a_connect_error():
    with EmulatorServer() as stopping:
        client = stopping.client()
        assert client.health()["status"] == "ok"
    with client, pytest.raises(httpx.ConnectError):
        client.health()


def test_an_in_process_call_sends_what_httpx_would(server: EmulatorServer):
    """``EmulatorClient.call`` in process skips httpx's request objects: the sink records the
    same method, path, headers and body as for the same request sent through httpx (a JSON
    body, and none)."""
    with server.client() as client:
        sink = client.sink(prefix="direct")
        path = f"sink/{sink.segment}"
        body = {"name": "é x", "n": [1, 2.5, None, True]}
        client.call("POST", path, json=body)
        client.http.post(path, json=body)
        client.call("POST", path)
        client.http.post(path)
        first, second, third, fourth = sink.wait_for(4)
    for direct, through_httpx in ((first, second), (third, fourth)):
        assert (direct.method, direct.path, direct.headers, direct.body) == (
            through_httpx.method,
            through_httpx.path,
            through_httpx.headers,
            through_httpx.body,
        )
    assert first.json == body and third.headers["content-length"] == "0"


def test_an_in_process_error_names_the_request_as_over_http(server: EmulatorServer):
    with server.client() as inside, EmulatorClient(server.url) as outside:
        errors = []
        for client in (inside, outside):
            with pytest.raises(EmulatorError) as refused:
                client.call("POST", "merchants/no-such-merchant/clock/advance", json={"seconds": 1})
            errors.append((refused.value.status, refused.value.code, str(refused.value)))
        assert errors[0] == errors[1]
        assert errors[0][:2] == (404, "merchant_not_found")


def test_a_client_with_event_hooks_calls_through_httpx(server: EmulatorServer):
    """What the short path would skip (a hook on the client's requests) is still called."""
    seen: list[str] = []
    with server.client() as client:
        client.http.event_hooks["request"].append(lambda request: seen.append(request.url.path))
        assert client.health()["status"] == "ok"
    assert seen == ["/_emulator/health"]
