"""What the control plane and the token endpoint answer, as typed records for test helpers,
and the OAuth client-credentials auth for httpx. Re-exported by ``emulator.testing``."""

from __future__ import annotations

import base64
import functools
import os
import ssl
import urllib.request
from collections.abc import Generator
from datetime import datetime
from typing import Any

import httpx
import msgspec

from emulator.kernel.clock import Mode
from emulator.kernel.segments import BadPathSegment, has_control, path_segment


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """httpx's default verifying TLS context, made once per process: each ``httpx.Client``
    would load the CA bundle again (20-70 ms, more than the rest of a typical test)."""
    return httpx.create_ssl_context()


class _SharedTransport(httpx.HTTPTransport):
    """The process's pool of keep-alive connections, shared by the helpers' clients: closing
    a client leaves its connections open for the next test's clients."""

    def close(self) -> None:
        """Nothing: the pool is the process's."""

    def __exit__(self, *exc_info: object) -> None:
        """Nothing: the pool is the process's."""


KEEPALIVE_SECONDS = 2.0
_SHARED: dict[int, httpx.HTTPTransport] = {}  # by process id: a forked child makes its own
# Options that say how a client connects: a client given one has a transport of its own.
_OWN_TRANSPORT = ("limits", "http1", "http2")


def _shared_transport() -> httpx.HTTPTransport:
    """The process's transport (made on first use), verifying with the shared TLS context; no
    limit on connections open at once (long-polling waits hold one each); an idle connection
    is dropped after ``KEEPALIVE_SECONDS``, before the server would close it under a request
    (uvicorn closes one idle for 5 s)."""
    pid = os.getpid()
    found = _SHARED.get(pid)
    if found is None:
        limits = httpx.Limits(
            max_connections=None, max_keepalive_connections=20, keepalive_expiry=KEEPALIVE_SECONDS
        )
        found = _SHARED.setdefault(pid, _SharedTransport(verify=_tls_context(), limits=limits))
    return found


def with_tls_context(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` for ``httpx.Client`` with the shared TLS context, unless they say how to
    verify (``verify``, or ``cert``, which httpx would load into the context); and the
    process's shared transport (its pool of connections), unless they say how to connect
    (``transport``, ``limits``, ``http1``, ``http2``) or the environment names a proxy (httpx
    reads it only for a client without a transport). A test's clients then reuse the
    connections of the tests before it: no connection made and accepted per client, and no
    socket left in TIME_WAIT per client in a long suite."""
    if "verify" in options or "cert" in options or "transport" in options:
        return options
    shared = not any(name in options for name in _OWN_TRANSPORT) and not (
        options.get("trust_env", True) and urllib.request.getproxies_environment()
    )
    added = {"transport": _shared_transport()} if shared else {}
    return {**options, "verify": _tls_context(), **added}


__all__ = ["BadPathSegment", "has_control", "path_segment"]  # where they were first


class EmulatorError(Exception):
    """The emulator answered with an error status; ``code`` and ``message`` come from its body
    (control plane ``{"error": {code, message}}`` or OAuth ``{error, error_description}``)."""

    def __init__(self, response: httpx.Response) -> None:
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            self.code, self.message = str(error.get("code")), str(error.get("message"))
        elif isinstance(error, str):
            self.code, self.message = error, str(body.get("error_description", ""))
        else:
            self.code, self.message = "http_error", str(body)[:500]
        self.status, self.body = response.status_code, body
        self.content_type = response.headers.get("content-type", "").split(";")[0].strip()
        request = response.request
        super().__init__(
            f"{request.method} {request.url} -> {self.status} {self.code}: {self.message}"
        )


class NotTheEmulator(EmulatorError):
    """A success status whose body is not a JSON object (a web page, say): whatever answers
    at the URL is not the emulator's control plane. ``code`` is ``not_the_emulator``."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response)
        self.code = "not_the_emulator"
        self.message = (
            f"the answer ({self.status}, {self.content_type or 'no content type'}) is not the"
            " control plane's JSON: is this the emulator?"
        )


def json_object(response: httpx.Response) -> dict[str, Any]:
    """The JSON object of a control-plane answer; ``EmulatorError`` for an error status,
    ``NotTheEmulator`` for a body that is not a JSON object."""
    if response.is_error:
        raise EmulatorError(response)
    try:
        body = response.json()
    except ValueError:
        raise NotTheEmulator(response) from None
    if not isinstance(body, dict):
        raise NotTheEmulator(response)
    return body


class ClockInfo(msgspec.Struct, frozen=True):
    """A clock as the control plane shows it. ``own`` says, for a merchant's clock, whether
    the merchant owns it (False: it follows the server clock); None for the server clock."""

    now: datetime
    mode: Mode
    own: bool | None = None


class ScheduledJob(msgspec.Struct, frozen=True):
    """A pending job as ``GET /_emulator/schedule`` shows it: when it is due, a stable ``kind``
    (``purchase.expiry``, ``token.expiry``, ``payout.settlement``, ``delivery.attempt``, ...),
    the object it acts on and a one-line ``description``."""

    due: datetime
    kind: str
    object_type: str | None
    object_id: str | None
    description: str


class Profile(msgspec.Struct, frozen=True, rename="camel"):
    """A merchant profile of the bank interface (v2)."""

    profile_code: str
    id: int
    created_by_client: int


class ClientCredentials(httpx.Auth):
    """OAuth 2.0 client credentials for ``/v2``: a token from ``/oauth2/token`` on first use and
    a new one after a 401 (tokens expire after 24 hours of emulator time, and one ``advance``
    can pass that). To test token handling itself, make your own requests."""

    requires_response_body = True

    def __init__(self, token_url: str, client_id: str, client_secret: str) -> None:
        self.token_url = token_url
        self._basic = "Basic " + base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
        self.access_token: str | None = None

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        fresh = self.access_token is None
        if self.access_token is None:
            self.access_token = yield from self._fetch()
        request.headers["Authorization"] = f"Bearer {self.access_token}"
        response = yield request
        if response.status_code == 401 and not fresh:
            self.access_token = yield from self._fetch()
            request.headers["Authorization"] = f"Bearer {self.access_token}"
            yield request

    def _fetch(self) -> Generator[httpx.Request, httpx.Response, str]:
        form = {"grant_type": "client_credentials"}
        headers = {"Authorization": self._basic}
        response = yield httpx.Request("POST", self.token_url, headers=headers, data=form)
        if response.status_code != 200:
            raise EmulatorError(response)
        token: str = response.json()["access_token"]
        return token


class Merchant(msgspec.Struct, frozen=True):
    """An isolated merchant's credentials, as ``POST /_emulator/merchants`` returns them."""

    company_id: str
    name: str
    brand_id: str
    api_key: str
    production_api_key: str
    client_id: str
    client_secret: str
    profiles: tuple[Profile, ...] = ()
    brand_ids: tuple[str, ...] = ()

    def gateway(self, server_url: str, **client_options: Any) -> httpx.Client:
        """httpx client for ``<url>/api/v1/`` with this merchant's sandbox API key."""
        headers = {"Authorization": f"Bearer {self.api_key}", **client_options.pop("headers", {})}
        base_url = f"{server_url.rstrip('/')}/api/v1/"
        return httpx.Client(base_url=base_url, headers=headers, **with_tls_context(client_options))

    def bank(self, server_url: str, **client_options: Any) -> httpx.Client:
        """httpx client for ``<url>/v2/`` with an access token of this merchant's OAuth client."""
        url = server_url.rstrip("/")
        auth = ClientCredentials(f"{url}/oauth2/token", self.client_id, self.client_secret)
        return httpx.Client(base_url=f"{url}/v2/", auth=auth, **with_tls_context(client_options))


class SinkMessage(msgspec.Struct, frozen=True):
    """One request the built-in receiver recorded; ``json`` is the parsed body or None."""

    id: int
    received_at: datetime
    method: str
    path: str
    headers: dict[str, str]
    body: str
    json: Any


# msgspec resolves a struct's (string) annotations on first use and keeps the result. Resolve
# them now, at import: if the first use came inside freezegun's freeze_time, "datetime" would
# resolve to its FakeDatetime and every later decode in the process would fail.
for _struct in (ClockInfo, ScheduledJob, Profile, Merchant, SinkMessage):
    msgspec.json.Decoder(_struct)


def merchant_path(merchant: Merchant | str, *rest: str) -> str:
    """A merchant's control-plane path (``merchants/{company_id}/...``), its id one segment."""
    company_id = merchant.company_id if isinstance(merchant, Merchant) else merchant
    return "/".join(("merchants", path_segment(company_id, "company_id"), *rest))
