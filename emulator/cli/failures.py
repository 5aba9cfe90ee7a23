"""How a client verb's failures read: one line on stderr and an exit code (with ``--json``,
also ``{"error": {"status", "code", "message"}}`` on stdout), for each kind of failure. Imported
only when a verb fails (``emulator.cli.client.run``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from emulator.cli.client import Refused, Unreachable, UsageError, dumps, fail, usage_failure
from emulator.cli.wire import TransportFailure
from emulator.kernel.segments import BadPathSegment

if TYPE_CHECKING:
    from emulator.testing.records import EmulatorError


def _loaded(module: str, *names: str) -> tuple[type[BaseException], ...]:
    """Exception classes of ``module`` if it was imported (httpx, msgspec and the test helpers
    are imported only by the verbs that use them: what was not imported was not raised)."""
    found = sys.modules.get(module)
    return tuple(getattr(found, name) for name in names) if found is not None else ()


def failed(json: bool, url: str, answer: float, exc: Exception) -> int:
    if isinstance(exc, (TransportFailure, *_loaded("httpx", "TransportError"))):
        name = exc.name if isinstance(exc, TransportFailure) else type(exc).__name__
        timed_out = isinstance(exc, _loaded("httpx", "TimeoutException")) or (
            isinstance(exc, TransportFailure) and exc.timed_out
        )
        if timed_out:
            message = (
                f"no answer from the emulator at {url} within {answer:g} s ({name});"
                " give --timeout SECONDS to wait longer"
            )
            return fail(json, 1, message, {"status": None, "code": "timeout", "message": message})
        message = (
            f"cannot reach the emulator at {url} ({name}: {exc or 'no answer'});"
            " start one with `payments-emulator serve` or give --url"
        )
        return fail(json, 1, message, {"status": None, "code": "unreachable", "message": message})
    if isinstance(exc, (UsageError, BadPathSegment)):
        return usage_failure(json, str(exc))
    if isinstance(exc, _loaded("httpx", "InvalidURL")):
        return usage_failure(json, f"--url / EMULATOR_URL: {exc}")
    if isinstance(exc, _loaded("emulator.testing.records", "EmulatorError")):
        return _refused(json, url, exc)  # type: ignore[arg-type]
    if isinstance(exc, Unreachable):
        error = {"status": None, "code": exc.code, "message": str(exc)}
        return fail(json, 1, str(exc), error)
    if isinstance(exc, Refused):
        return fail(json, 1, str(exc), {"status": None, "code": "refused", "message": str(exc)})
    if isinstance(exc, (KeyError, TypeError, ValueError, *_loaded("msgspec", "ValidationError"))):
        # an answer of another shape than the emulator's (another service at the URL)
        message = (
            f"the answer from {url} is not what the emulator answers"
            f" ({type(exc).__name__}: {exc}): is this the emulator?"
        )
        return fail(
            json, 1, message, {"status": None, "code": "not_the_emulator", "message": message}
        )
    if isinstance(exc, BrokenPipeError):  # the reader went away (| head)
        return 1
    raise exc


def _refused(json: bool, url: str, exc: EmulatorError) -> int:
    message, code = exc.message, exc.code
    from emulator.testing.records import NotTheEmulator

    if isinstance(exc, NotTheEmulator) or (code == "http_error" and isinstance(exc.body, str)):
        kind = exc.content_type or "no content type"
        message = f"{url} answered {exc.status} ({kind}), not the emulator's JSON: is it one?"
        error = {"status": exc.status, "code": "not_the_emulator", "message": message}
        return fail(json, 1, message, error)
    if code == "http_error":  # the API's own dialect
        message = dumps(exc.body)
    error = {"status": exc.status, "code": code, "message": message}
    return fail(json, 1, f"refused ({exc.status} {code}): {message}", error)
