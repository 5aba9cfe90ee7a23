"""What the client verbs of ``payments-emulator`` share: the connection to a running emulator
(``--url``, ``--admin-token``), output (human lines, or ``--json``), durations, and the exit
codes: 0 done, 1 the emulator refused (its message) or cannot be reached, 2 a usage error."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import msgspec

from emulator.kernel.clock import CLOCK_RANGE, in_clock_range, iso, parse_iso, to_us
from emulator.testing import EmulatorClient, EmulatorError, Merchant

DEFAULT_URL = "http://127.0.0.1:8400"
PROG = "payments-emulator"


class UsageError(Exception):
    """A usage error found after parsing (a duration, a URL, an instant): exit code 2."""


class Refused(Exception):
    """The verb cannot do what was asked on this emulator (an unknown merchant, an event that
    did not come): exit code 1, one line."""


class Unreachable(Exception):
    """No emulator answers at the URL: exit code 1, one line."""


@dataclass
class Context:
    """One run of a client verb."""

    url: str
    client: EmulatorClient
    json: bool
    merchant: str | None

    def emit(self, data: Any, lines: list[str]) -> None:
        """``data`` as JSON with ``--json``, else the human ``lines``."""
        if self.json:
            print(msgspec.json.encode(data).decode())
        else:
            for line in lines:
                print(line)

    def merchant_record(self, company_id: str | None = None) -> Merchant:
        """The merchant named (``--merchant``) or the default one, with its credentials, as
        ``GET /_emulator/merchants`` lists them."""
        wanted = company_id or self.merchant
        listed = self.client.call("GET", "merchants")["merchants"]
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
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output, for scripts"
    )
    return parent


def merchant_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--merchant", metavar="COMPANY_ID", default=argparse.SUPPRESS, help=what)


def _url(args: argparse.Namespace) -> str:
    given = getattr(args, "url", None)
    url = str(given or os.environ.get("EMULATOR_URL") or DEFAULT_URL).rstrip("/")
    parsed = httpx.URL(url) if re.match(r"^https?://[^/\s]+", url) else None
    if parsed is None or not parsed.host:
        raise UsageError(f"--url / EMULATOR_URL must be an http:// or https:// URL, not {url!r}")
    return url


def run(handler: Handler, args: argparse.Namespace) -> int:
    """Run a client verb; every failure is one line on stderr and its exit code."""
    json = bool(getattr(args, "json", False))
    try:
        url = _url(args)
        token = getattr(args, "admin_token", None) or os.environ.get("EMULATOR_ADMIN_TOKEN")
        with EmulatorClient(url, admin_token=token or None, timeout=120.0) as client:
            context = Context(url, client, json, getattr(args, "merchant", None))
            try:
                return handler(context, args)
            except httpx.TransportError as exc:
                problem = str(exc) or "no answer"
                raise Unreachable(
                    f"cannot reach the emulator at {url} ({type(exc).__name__}: {problem});"
                    " start one with `payments-emulator serve` or give --url"
                ) from None
    except UsageError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except EmulatorError as exc:
        message = exc.message
        if exc.code == "http_error" and not isinstance(exc.body, str):  # the API's own dialect
            message = msgspec.json.encode(exc.body).decode()
        if json:
            error = {"status": exc.status, "code": exc.code, "message": message}
            print(msgspec.json.encode({"error": error}).decode())
        print(f"{PROG}: refused ({exc.status} {exc.code}): {message}", file=sys.stderr)
        return 1
    except (Refused, Unreachable) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (| head)
        return 1
    except KeyboardInterrupt:
        return 130


DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$")
UNITS = ("days", "hours", "minutes", "seconds")


def parse_duration(text: str) -> dict[str, float]:
    """``3d``, ``90m``, ``2h30m``, ``45s``, ``10`` (seconds): the advance body's
    days/hours/minutes/seconds (only those given)."""
    match = DURATION.match(text.strip()) if text.strip() else None
    if match is None or not any(match.groups()):
        raise UsageError(
            f"duration {text!r}: use days, hours, minutes and seconds like 3d, 90m, 2h30m, 45s"
        )
    body: dict[str, float] = {}
    for unit, value in zip(UNITS, match.groups(), strict=True):
        if value is not None:
            number = float(value)
            body[unit] = int(number) if number.is_integer() else number
    return body


def duration_seconds(body: dict[str, float]) -> float:
    factors = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}
    return sum(factors[unit] * value for unit, value in body.items())


def parse_instant(text: str, flag: str) -> str:
    """An ISO-8601 instant (naive means UTC) in the clock's range, as the emulator writes it."""
    try:
        moment = parse_iso(text)
    except ValueError:
        raise UsageError(f"{flag}: {text!r} is not an ISO-8601 instant") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if not in_clock_range(to_us(moment)):
        raise UsageError(f"{flag}: {text!r} must be {CLOCK_RANGE}")
    return iso(moment)


def when(value: str | datetime) -> str:
    return value if isinstance(value, str) else iso(value)


@contextmanager
def progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    """A one-line status on a terminal (rewritten in place), ended by a newline; nothing
    when ``enabled`` is false (stdout is not a terminal, or ``--json``)."""
    shown = [False]

    def show(text: str) -> None:
        if enabled:
            sys.stdout.write(f"\r\x1b[K{text}")
            sys.stdout.flush()
            shown[0] = True

    try:
        yield show
    finally:
        if shown[0]:
            sys.stdout.write("\n")
            sys.stdout.flush()


def on_terminal(context: Context) -> bool:
    return not context.json and sys.stdout.isatty()
