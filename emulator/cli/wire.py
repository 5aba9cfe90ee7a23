"""The control-plane requests of a client verb over ``http.client`` (the standard library): a
verb starts without importing httpx (with httpcore, and trio when it is installed, about
0.15 s of a verb's 0.4 s). Only ``http://`` URLs: an ``https://`` emulator is asked through
``EmulatorClient`` (httpx, with its certificate handling), as before.

The answers are read as ``EmulatorClient.call`` reads them: a JSON object, ``EmulatorError``
for an error status, ``NotTheEmulator`` for a body that is not a JSON object (those, and
httpx, are imported only then). A failure to connect or to be answered in time is a
``TransportFailure`` named as httpx names it (``ConnectError``, ``ReadTimeout``)."""

from __future__ import annotations

import http.client
import json as jsonlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

if TYPE_CHECKING:
    import httpx


class TransportFailure(Exception):
    """No answer: ``name`` is what httpx calls the same failure."""

    timed_out = False

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(problem)
        self.name = name


class TransportTimeout(TransportFailure):
    timed_out = True


class _Request:
    """What ``EmulatorError`` reads of a request (its method and URL)."""

    def __init__(self, method: str, url: str) -> None:
        self.method, self.url = method, url


class _Headers(dict[str, str]):
    pass


class Answer:
    """An answer, with the part of ``httpx.Response`` that ``EmulatorError`` reads."""

    def __init__(self, request: _Request, status: int, headers: _Headers, body: bytes) -> None:
        self.request, self.status_code, self.headers, self.content = request, status, headers, body

    @property
    def is_error(self) -> bool:
        return self.status_code >= 400

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return jsonlib.loads(self.content)


def _param(value: Any) -> str:
    """A query value as httpx writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Wire:
    """One keep-alive connection to ``url`` (``http://host[:port][/prefix]``)."""

    def __init__(
        self, url: str, token: str | None, connect_seconds: float, answer_seconds: float
    ) -> None:
        parts = urlsplit(url)
        self.url, self.prefix = url, parts.path.rstrip("/")
        self.host, self.port = parts.hostname or "", parts.port or 80
        self.connect_seconds, self.answer_seconds = connect_seconds, answer_seconds
        self.headers = {"Accept": "*/*", "User-Agent": "payments-emulator-cli"}
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            connection = http.client.HTTPConnection(
                self.host, self.port, timeout=self.connect_seconds
            )
            try:
                connection.connect()
            except TimeoutError as exc:
                raise TransportTimeout("ConnectTimeout", str(exc) or "timed out") from None
            except OSError as exc:
                raise TransportFailure("ConnectError", str(exc)) from None
            if connection.sock is not None:
                connection.sock.settimeout(self.answer_seconds)
            self._connection = connection
        return self._connection

    def request(
        self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None
    ) -> Answer:
        """``path`` relative to ``/_emulator/``."""
        target = f"{self.prefix}/_emulator/{path}"
        if params:
            target += "?" + urlencode({k: _param(v) for k, v in params.items()})
        headers = dict(self.headers)
        body = None
        if json is not None:
            body = jsonlib.dumps(json).encode()
            headers["Content-Type"] = "application/json"
        connection = self._connect()
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
        except TimeoutError as exc:
            self.close()
            raise TransportTimeout("ReadTimeout", str(exc) or "timed out") from None
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            raise TransportFailure("RemoteProtocolError", str(exc) or "no answer") from None
        fields = _Headers((k.lower(), v) for k, v in response.getheaders())
        if response.will_close:
            self.close()
        request = _Request(method, f"{self.url}{target[len(self.prefix) :]}")
        return Answer(request, response.status, fields, content)

    def call(
        self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One control-plane request; its JSON object (as ``EmulatorClient.call``)."""
        answer = self.request(method, path, json=json, params=params)
        if answer.is_error:
            from emulator.testing.records import EmulatorError

            raise EmulatorError(answer)  # type: ignore[arg-type]  # the part it reads
        try:
            body = answer.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            from emulator.testing.records import NotTheEmulator

            raise NotTheEmulator(answer)  # type: ignore[arg-type]
        return body


def api_answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON of a gateway or bank answer (an empty body: ``{}``); ``EmulatorError`` for an
    error status."""
    if response.is_error:
        from emulator.testing.records import EmulatorError

        raise EmulatorError(response)
    body: dict[str, Any] = response.json() if response.content else {}
    return body
