"""Verifying expectations: parse the set, gather the merchant's records (journal, deliveries,
events and the transitions they show), match them (``domain.expectation_match``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.domain.errors import ControlError
from emulator.domain.expectation_match import Report, evaluate
from emulator.domain.expectation_records import Records
from emulator.domain.expectation_times import ExpectationError, iso_us
from emulator.domain.expectations import (
    DeliverySpec,
    EventSpec,
    ExpectationSet,
    RequestSpec,
    TransitionSpec,
    parse_set,
)
from emulator.kernel.storage import Tx
from emulator.repos import expectations as repo
from emulator.repos import merchants as merchants_repo

if TYPE_CHECKING:
    from emulator.kernel.context import Context


def parse(body: Any) -> ExpectationSet:
    """The set, or a 400 naming the key path."""
    try:
        return parse_set(body)
    except ExpectationError as exc:
        raise ControlError(400, "invalid", str(exc)) from None


async def known_merchant(rt: Context, company_id: str) -> None:
    if await rt.db.read(lambda tx: merchants_repo.get(tx, company_id)) is None:
        raise ControlError(404, "merchant_not_found", f"no merchant with company_id {company_id!r}")


def _gather(tx: Tx, merchant_id: str, expectations: ExpectationSet) -> tuple[Records, int | None]:
    specs = [item.spec for item in expectations.items]
    requests = [s for s in specs if isinstance(s, RequestSpec)]
    objectish = [s for s in specs if isinstance(s, EventSpec | TransitionSpec)]
    found = Records()
    if requests:
        methods = [s.method for s in requests]
        wanted = None if None in methods else sorted({m for m in methods if m is not None})
        paths = [s.path for s in requests]
        like = None if None in paths else sorted({p for p in paths if p is not None})
        bodies = any(s.body is not None for s in requests)
        found = msgspec.structs.replace(
            found, requests=repo.requests(tx, merchant_id, wanted, like, bodies)
        )
    deliveries = [s for s in specs if isinstance(s, DeliverySpec)]
    if deliveries:
        objects = [s.object_id for s in deliveries]
        just = None if None in objects else sorted({i for i in objects if i is not None})
        found = msgspec.structs.replace(found, deliveries=repo.deliveries(tx, merchant_id, just))
    if objectish:
        ids = [s.object_id for s in objectish]
        only = None if None in ids else sorted({i for i in ids if i is not None})
        payloads = any(s.fields is not None for s in objectish)
        found = msgspec.structs.replace(found, events=repo.events(tx, merchant_id, only, payloads))
    return found, repo.created_us(tx, merchant_id)


async def check(
    rt: Context, merchant_id: str, expectations: ExpectationSet, start_us: int | None
) -> Report:
    """The set against what the merchant's records hold now (``start_us``: the set's start;
    None: the set's own ``start``, else the merchant's creation, on its clock)."""
    await rt.journal.flush()  # what was answered before this is in the journal
    records, created = await rt.db.read(lambda tx: _gather(tx, merchant_id, expectations))
    if start_us is None:
        start_us = expectations.start_us
    if start_us is None:
        start_us = created if created is not None else 0
    return evaluate(expectations, records, start_us)


def report_view(report: Report, **extra: Any) -> dict[str, Any]:
    view: dict[str, Any] = {"ok": report.ok, **extra}
    view["results"] = msgspec.to_builtins(report.results)
    return view


async def verify(rt: Context, company_id: str, body: Any) -> dict[str, Any]:
    expectations = parse(body)
    if "timeout_seconds" in body or "advance" in body:
        raise ControlError(400, "invalid", "'timeout_seconds' and 'advance' are for /wait")
    await known_merchant(rt, company_id)
    timeline = rt.scheduler.timeline_of(company_id)
    await rt.deliveries.flush(merchant_id=company_id)  # what is due to go out has gone out
    report = await check(rt, company_id, expectations, None)
    return report_view(report, now=iso_us(timeline.clock.now_us()))
