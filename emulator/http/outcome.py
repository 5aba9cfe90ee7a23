"""The ``X-Emulator-Outcome`` header of the gateway's and bank's creating calls:
read and checked in the interface's dialect, in force while the creating call runs, then
kept with the object made (``emulator/sandbox/scenarios/service_outcomes.py``). ``serve
--no-outcome-header`` ignores it, as the platform would."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from starlette.requests import Request

from emulator.domain.errors import ApiError, BankBadRequest, FieldError
from emulator.http.common import NOTE_KEY, header, runtime
from emulator.sandbox.scenarios import service_outcomes as outcome_header
from emulator.scenarios import outcomes

_HEADER = outcomes.HEADER.lower().encode()


def forced_of(request: Request, kind: outcomes.Kind) -> outcomes.Forced | None:
    """The header's outcome for a creating call of ``kind`` (None: none given, or ignored);
    a 400 in the interface's dialect naming the allowed forms when it is not one."""
    value = header(request, _HEADER)
    if value is None or not runtime(request).settings.outcome_header:
        return None
    try:
        return outcomes.parse(value, kind)
    except outcomes.BadOutcome as exc:
        error: ApiError
        if kind == "collection":
            error = BankBadRequest(str(exc))
        else:
            error = FieldError(outcomes.HEADER, "invalid", str(exc))
        raise error from None


@contextlib.contextmanager
def forcing(forced: outcomes.Forced | None) -> Iterator[None]:
    """The decisions made while the creating call runs answer from ``forced``."""
    token = outcomes.REQUESTED.set(forced)
    try:
        yield
    finally:
        outcomes.REQUESTED.reset(token)


async def keep(
    request: Request, forced: outcomes.Forced | None, merchant_id: str, object_id: str
) -> None:
    """Keep ``forced`` with the object made, and say so in the request's journal entry."""
    if forced is None:
        return
    where = f"{request.method} {request.url.path}"
    name = await outcome_header.keep(runtime(request), merchant_id, object_id, forced, where)
    kept = f" (scenario activation {name})" if name else ""
    request.scope[NOTE_KEY] = f"{outcomes.HEADER}: {forced.value} forced {object_id}{kept}"
