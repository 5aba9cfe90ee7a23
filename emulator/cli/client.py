"""What the client verbs of ``payments-emulator`` share: the connection to a running emulator
(``--url``, ``--admin-token``, ``--timeout``), output (human lines, or ``--json``), durations,
names checked as the server checks them, and the exit codes: 0 done, 1 the emulator refused
(its message) or cannot be reached, 2 a usage error. Every failure is one line on stderr
(server text with its control characters escaped); with ``--json`` it is also one JSON object
on stdout: ``{"error": {"status": int or null, "code": str, "message": str}}``.

A verb starts at once: this module and the parser import neither httpx nor msgspec nor the
test helpers; ``Context.call`` asks over ``emulator.cli.wire`` (the standard library), and
``Context.client`` (an httpx ``EmulatorClient``) is made only for a verb that needs more.
``tests/test_cli_imports.py`` checks what a verb imports."""

from __future__ import annotations

import argparse
import json as jsonlib
import math
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from emulator.cli.wire import Wire
from emulator.kernel.segments import BadPathSegment, has_control, path_segment

if TYPE_CHECKING:
    import httpx

    from emulator.testing.client import EmulatorClient
    from emulator.testing.records import Merchant

DEFAULT_URL = "http://127.0.0.1:8400"
PROG = "payments-emulator"
CONNECT_SECONDS = 5.0  # at most this long to connect...
ANSWER_SECONDS = 30.0  # ...and this long for an answer (--timeout sets it)


class UsageError(Exception):
    """A usage error found after parsing (a duration, a URL, an instant): exit code 2."""


class Refused(Exception):
    """The verb cannot do what was asked on this emulator (an unknown merchant, an event that
    did not come): exit code 1, one line."""


class Unreachable(Exception):
    """No emulator answers at the URL: exit code 1, one line."""

    code = "unreachable"


class NoAnswer(Unreachable):
    """The emulator took longer than ``--timeout`` to answer."""

    code = "timeout"


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_INVISIBLE = {*range(0x202A, 0x202F), *range(0x2066, 0x206A)}  # bidirectional overrides


def _escaped(char: str) -> str:
    point = ord(char)
    if point < 0x20 or 0x7F <= point < 0xA0:
        return _ESCAPES.get(char) or f"\\x{point:02x}"
    return f"\\u{point:04x}" if point in _INVISIBLE else char


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (and bidirectional overrides) shown
    as escapes (``\\x1b``, ``\\n``), so server-provided text cannot drive the terminal."""
    if not has_control(text) and not any(ord(c) in _INVISIBLE for c in text):
        return text
    return "".join(_escaped(c) for c in text)


def segment(value: str, what: str) -> str:
    """``value`` as one path segment (percent-encoded); a usage error when it cannot be one."""
    try:
        return path_segment(value, what)
    except BadPathSegment as exc:
        raise UsageError(str(exc)) from None


def company_segment(company_id: str, what: str) -> str:
    """A company id as one path segment: a usage error when it cannot be one, or holds a '/'
    (no route could take it: encoded, it would only ever be a 404)."""
    encoded = segment(company_id, what)
    if "/" in company_id:
        raise UsageError(f"{what} {company_id!r}: a company_id has no '/'")
    return encoded


class Context:
    """One run of a client verb: ``call`` for a control-plane request, ``client`` (made when
    first used) for the rest of ``EmulatorClient``."""

    def __init__(
        self, url: str, token: str | None, json: bool, merchant: str | None, answer: float
    ) -> None:
        self.url, self.token, self.json, self.merchant = url, token, json, merchant
        self.answer = answer
        self._wire = (
            Wire(url, token, min(answer, CONNECT_SECONDS), answer)
            if url.startswith("http://")
            else None
        )
        self._client: EmulatorClient | None = None

    @property
    def timeout(self) -> httpx.Timeout:
        return timeouts(self.answer)

    @property
    def client(self) -> EmulatorClient:
        if self._client is None:
            from emulator.testing.client import EmulatorClient

            self._client = EmulatorClient(self.url, admin_token=self.token, timeout=self.timeout)
        return self._client

    def call(
        self, method: str, path: str, *, json: Any = None, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """One control-plane request (``path`` relative to ``/_emulator/``); its JSON answer."""
        if self._wire is None:
            return self.client.call(method, path, json=json, params=params)
        return self._wire.call(method, path, json=json, params=params)

    def close(self) -> None:
        if self._wire is not None:
            self._wire.close()
        if self._client is not None:
            self._client.close()

    def emit(self, data: Any, lines: list[str]) -> None:
        """``data`` as JSON with ``--json``, else the human ``lines`` (control characters in
        them, from names the server holds, escaped)."""
        if self.json:
            print(dumps(data))
        else:
            for line in lines:
                print(printable(line))

    @property
    def merchant_segment(self) -> str:
        """``--merchant`` as a path segment (checked when the verb started)."""
        return segment(self.merchant or "", "--merchant")

    def merchant_record(self, company_id: str | None = None) -> Merchant:
        """The merchant named (``--merchant``) or the default one, with its credentials, as
        ``GET /_emulator/merchants`` lists them."""
        wanted = company_id or self.merchant
        listed = self.call("GET", "merchants")["merchants"]
        if not listed:
            raise Refused("the emulator has no merchant")
        if wanted is None:
            from emulator.resources import default_merchant

            seeded = default_merchant().company_id
            found = next((m for m in listed if m["company_id"] == seeded), listed[0])
        else:
            found = next((m for m in listed if m["company_id"] == wanted), None)
            if found is None:
                raise Refused(f"--merchant: no merchant {wanted} on {self.url}")
        import msgspec

        from emulator.testing.records import Merchant

        return msgspec.convert(found, Merchant)


Handler = Callable[[Context, argparse.Namespace], int]


def client_parent() -> argparse.ArgumentParser:
    """The options every client verb takes. Their defaults are left out of the namespace, so
    a verb's own sub-verb (``clock --json advance 1d``) does not overwrite them."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--url",
        default=argparse.SUPPRESS,
        help=f"the running emulator (env EMULATOR_URL, default {DEFAULT_URL})",
    )
    parent.add_argument(
        "--admin-token",
        default=argparse.SUPPRESS,
        help="the control plane's token, if it has one (env EMULATOR_ADMIN_TOKEN)",
    )
    parent.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help='JSON output, for scripts (errors too, as {"error": {...}})',
    )
    parent.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        default=argparse.SUPPRESS,
        help=f"wait at most this long for each answer (default {ANSWER_SECONDS:g}; connecting:"
        f" at most {CONNECT_SECONDS:g})",
    )
    return parent


def seconds(text: str) -> float:
    """``--timeout``: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def timeouts(answer: float | None) -> httpx.Timeout:
    """Connect within ``CONNECT_SECONDS`` (or ``answer`` if shorter), answer within ``answer``
    seconds (``ANSWER_SECONDS`` by default)."""
    import httpx

    answer = ANSWER_SECONDS if answer is None else answer
    return httpx.Timeout(answer, connect=min(answer, CONNECT_SECONDS))


def _url(args: argparse.Namespace) -> str:
    given = getattr(args, "url", None)
    url = str(given or os.environ.get("EMULATOR_URL") or DEFAULT_URL).rstrip("/")
    problem = f"--url / EMULATOR_URL must be an http:// or https:// URL, not {url!r}"
    if has_control(url) or any(c.isspace() for c in url):
        raise UsageError(f"{problem} (it holds spaces or control characters)")
    if not re.match(r"^https?://[^/\s]+", url):
        raise UsageError(problem)
    try:
        parsed = urlsplit(url)
        parsed.port  # noqa: B018  # a port out of range or not a number is refused here
    except ValueError as exc:
        raise UsageError(f"{problem} ({exc})") from None
    if not parsed.hostname:
        raise UsageError(problem)
    return url


def fail(json: bool, exit_code: int, line: str, error: dict[str, Any]) -> int:
    """One failure: one line on stderr; with ``--json`` its ``{"error": ...}`` on stdout."""
    if json:
        print(dumps({"error": error}), flush=True)
    print(f"{PROG}: {printable(line)}", file=sys.stderr, flush=True)
    return exit_code


def usage_failure(json: bool, message: str) -> int:
    return fail(json, 2, message, {"status": None, "code": "usage", "message": message})


def run(handler: Handler, args: argparse.Namespace) -> int:
    """Run a client verb; every failure is one line on stderr and its exit code (with
    ``--json``, also ``{"error": {"status", "code", "message"}}`` on stdout)."""
    json = bool(getattr(args, "json", False))
    url = "the URL"
    answer = ANSWER_SECONDS
    try:
        url = _url(args)
        token = getattr(args, "admin_token", None) or os.environ.get("EMULATOR_ADMIN_TOKEN")
        merchant = getattr(args, "merchant", None)
        if merchant is not None:
            company_segment(merchant, "--merchant")
        answer = getattr(args, "timeout", None) or ANSWER_SECONDS
        context = Context(url, token or None, json, merchant, answer)
        try:
            return handler(context, args)
        finally:
            context.close()
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # each kind its line (emulator.cli.failures), the rest raised again
        from emulator.cli.failures import failed

        return failed(json, url, answer, exc)


def dumps(data: Any) -> str:
    """``data`` as one line of JSON, as msgspec writes it (compact, UTF-8 as is); msgspec
    itself for what the standard library cannot write (records, instants)."""
    try:
        return jsonlib.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        import msgspec

        return msgspec.json.encode(data).decode()
