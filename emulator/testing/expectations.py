"""Expectations from Python: typed builders (``expect.request(...)``, ``expect.delivery(...)``,
``expect.transition(...)``, ``expect.event(...)``) and the client's ``verify`` and ``wait``,
which raise ``AssertionError`` with the report when an expectation does not hold::

    control.verify(merchant, expect.request("POST", "/api/v1/purchases/{id}/refund/", count=1))
    control.wait(
        merchant,
        expect.transition(payout_id, "success"),
        expect.delivery("payout.success", sink=sink, count=1),
        advance_up_to=timedelta(days=7),
    )
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import httpx
import msgspec

from emulator.kernel.clock import iso
from emulator.testing.records import EmulatorError, Merchant, merchant_path

Duration = str | float | timedelta  # "5m", "3d", seconds, or a timedelta
Outcome = Literal["ok", "failed", "exhausted", "any"]
Api = Literal["gateway", "bank", "oauth"]
AnyType = Literal["string", "number", "integer", "boolean", "object", "array", "null", "value"]


def _duration(value: Duration) -> str | float:
    return value.total_seconds() if isinstance(value, timedelta) else value


class Expectation(msgspec.Struct, frozen=True):
    """One item of an expectation set, as the control plane reads it (``as_json()``)."""

    kind: str
    fields: dict[str, Any]
    item: dict[str, Any] = {}

    def as_json(self) -> dict[str, Any]:
        return {self.kind: self.fields, **self.item}


def _item(
    kind: str,
    fields: dict[str, Any],
    *,
    id: str | None,
    count: int | None,
    at_least: int | None,
    at_most: int | None,
    never: bool,
    within: Duration | None,
    after: str | datetime | Expectation | None,
) -> Expectation:
    item: dict[str, Any] = {"id": id, "count": count, "at_least": at_least, "at_most": at_most}
    if never:
        item["never"] = True
    if within is not None:
        item["within"] = _duration(within)
    if isinstance(after, Expectation):
        if after.item.get("id") is None:
            raise ValueError("after=: give that expectation an id=")
        item["after"] = after.item["id"]
    elif isinstance(after, datetime):
        item["after"] = iso(after if after.tzinfo is not None else after.replace(tzinfo=UTC))
    elif after is not None:
        item["after"] = after
    present = {k: v for k, v in fields.items() if v is not None}
    return Expectation(kind, present, {k: v for k, v in item.items() if v is not None})


class Expect:
    """The builders; ``expect`` is the one instance. Each takes the item keys too: ``id``,
    ``count`` / ``at_least`` / ``at_most`` / ``never``, ``within`` and ``after`` (an instant,
    or another expectation that has an ``id``)."""

    @staticmethod
    def any(json_type: AnyType = "value") -> dict[str, str]:
        """A value of this JSON type, in a ``body`` or ``fields`` subset."""
        return {"any": json_type}

    @staticmethod
    def regex(pattern: str) -> dict[str, str]:
        """A string the whole of which matches ``pattern``."""
        return {"regex": pattern}

    @staticmethod
    def request(
        method: str | None = None,
        path: str | None = None,
        *,
        body: Any = None,
        status: int | str | None = None,
        api: Api | None = None,
        id: str | None = None,
        count: int | None = None,
        at_least: int | None = None,
        at_most: int | None = None,
        never: bool = False,
        within: Duration | None = None,
        after: str | datetime | Expectation | None = None,
    ) -> Expectation:
        """The app called us: ``path`` a template (``/purchases/{id}/``) or a glob."""
        fields = {"method": method, "path": path, "body": body, "status": status, "api": api}
        return _item("request", fields, id=id, count=count, at_least=at_least,
                     at_most=at_most, never=never, within=within, after=after)  # fmt: skip

    @staticmethod
    def delivery(
        event: str | None = None,
        *,
        url: str | None = None,
        sink: Any = None,
        object_id: str | None = None,
        outcome: Outcome | None = None,
        attempt: int | None = None,
        kind: str | None = None,
        id: str | None = None,
        count: int | None = None,
        at_least: int | None = None,
        at_most: int | None = None,
        never: bool = False,
        within: Duration | None = None,
        after: str | datetime | Expectation | None = None,
    ) -> Expectation:
        """We delivered to the app: ``sink`` a ``Sink`` or its name."""
        sink_name = getattr(sink, "name", sink)
        fields = {"event": event, "url": url, "sink": sink_name, "object_id": object_id,
                  "outcome": outcome, "attempt": attempt, "kind": kind}  # fmt: skip
        return _item("delivery", fields, id=id, count=count, at_least=at_least,
                     at_most=at_most, never=never, within=within, after=after)  # fmt: skip

    @staticmethod
    def transition(
        object_id: str | None = None,
        status: str = "",
        *,
        object_type: str | None = None,
        fields: dict[str, Any] | None = None,
        id: str | None = None,
        count: int | None = None,
        at_least: int | None = None,
        at_most: int | None = None,
        never: bool = False,
        within: Duration | None = None,
        after: str | datetime | Expectation | None = None,
    ) -> Expectation:
        """An object reached a status (by id, or by ``object_type`` and ``fields``)."""
        values = {"object_id": object_id, "status": status or None,
                  "object_type": object_type, "fields": fields}  # fmt: skip
        return _item("transition", values, id=id, count=count, at_least=at_least,
                     at_most=at_most, never=never, within=within, after=after)  # fmt: skip

    @staticmethod
    def event(
        event: str | None = None,
        object_id: str | None = None,
        *,
        object_type: str | None = None,
        fields: dict[str, Any] | None = None,
        id: str | None = None,
        count: int | None = None,
        at_least: int | None = None,
        at_most: int | None = None,
        never: bool = False,
        within: Duration | None = None,
        after: str | datetime | Expectation | None = None,
    ) -> Expectation:
        """An event was emitted (for an object)."""
        values = {"event": event, "object_id": object_id, "object_type": object_type,
                  "fields": fields}  # fmt: skip
        return _item("event", values, id=id, count=count, at_least=at_least,
                     at_most=at_most, never=never, within=within, after=after)  # fmt: skip


expect = Expect()


class ExpectationMatch(msgspec.Struct, frozen=True):
    ref: str
    id: int | str
    at: datetime


class ExpectationResult(msgspec.Struct, frozen=True):
    index: int
    kind: str
    ok: bool
    description: str
    expected: str
    matched: int
    matches: list[ExpectationMatch]
    id: str | None = None
    message: str | None = None
    candidates: list[dict[str, Any]] = []


class ExpectationReport(msgspec.Struct, frozen=True):
    """The control plane's answer: ``ok``, one result per item; a wait's ``at`` (the instant
    it all held) and ``timed_out``."""

    ok: bool
    now: datetime
    results: list[ExpectationResult]
    at: datetime | None = None
    timed_out: bool = False

    def text(self) -> str:
        lines = ["expectations did not hold:" if not self.ok else "expectations held:"]
        for r in self.results:
            name = f"[{r.index}]" + (f" {r.id}" if r.id else "")
            lines.append(f"  {'ok    ' if r.ok else 'FAILED'} {name}: {r.message or r.description}")
        return "\n".join(lines)


def _body(items: tuple[Expectation | dict[str, Any], ...], in_order: bool) -> dict[str, Any]:
    expect_ = [i.as_json() if isinstance(i, Expectation) else i for i in items]
    body: dict[str, Any] = {"expect": expect_}
    if in_order:
        body["in_order"] = True
    return body


class ExpectationsMixin:
    """``verify`` and ``wait`` of ``EmulatorClient``."""

    http: httpx.Client

    def _expectations(
        self, merchant: Merchant | str, verb: str, body: dict[str, Any], timeout: float | None
    ) -> ExpectationReport:
        extra: dict[str, Any] = {} if timeout is None else {"timeout": timeout + 10.0}
        response = self.http.post(merchant_path(merchant, verb), json=body, **extra)
        if response.is_error:
            raise EmulatorError(response)
        return msgspec.convert(response.json(), ExpectationReport)

    def verify(
        self,
        merchant: Merchant | str,
        *items: Expectation | dict[str, Any],
        in_order: bool = False,
        check: bool = True,
    ) -> ExpectationReport:
        """Whether what happened to ``merchant`` meets ``items`` now; ``AssertionError`` with
        the report when not (``check=False``: just the report)."""
        report = self._expectations(merchant, "verify", _body(items, in_order), None)
        if check and not report.ok:
            raise AssertionError(report.text())
        return report

    def wait(
        self,
        merchant: Merchant | str,
        *items: Expectation | dict[str, Any],
        timeout: float = 10.0,
        advance_up_to: Duration | None = None,
        in_order: bool = False,
        check: bool = True,
    ) -> ExpectationReport:
        """Until ``items`` hold for ``merchant`` or ``timeout`` real seconds pass; with
        ``advance_up_to``, its own clock steps from one due job to the next, no further than
        that; ``AssertionError`` with the report when they did not hold in time."""
        body = _body(items, in_order)
        body["timeout_seconds"] = timeout
        if advance_up_to is not None:
            body["advance"] = {"up_to": _duration(advance_up_to)}
        report = self._expectations(merchant, "wait", body, timeout)
        if check and not report.ok:
            raise AssertionError(report.text())
        return report
