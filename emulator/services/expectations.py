"""Verifying expectations: parse the set, gather the merchant's records (journal, deliveries,
events and the transitions they show), match them (``domain.expectation_match``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from emulator.domain.errors import ControlError
from emulator.domain.expectation_match import NEAR_SCAN, Report, evaluate
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
    """The records that may match some item, each kind read once, narrowed in SQL."""
    specs = [item.spec for item in expectations.items]
    requests = [s for s in specs if isinstance(s, RequestSpec)]
    deliveries = [s for s in specs if isinstance(s, DeliverySpec)]
    events = [s for s in specs if isinstance(s, EventSpec)]
    transitions = [s for s in specs if isinstance(s, TransitionSpec)]
    found = Records(
        requests=repo.requests(tx, merchant_id, requests) if requests else [],
        deliveries=repo.deliveries(tx, merchant_id, deliveries) if deliveries else [],
        events=repo.events(tx, merchant_id, events, transitions) if events or transitions else [],
    )
    return found, repo.created_us(tx, merchant_id)


def _tails(tx: Tx, merchant_id: str, kinds: set[type]) -> Records:
    """The latest records of these kinds (bounded): where the failed items' closest
    candidates are looked for."""
    return Records(
        requests=repo.tail_requests(tx, merchant_id, NEAR_SCAN) if RequestSpec in kinds else [],
        deliveries=(
            repo.tail_deliveries(tx, merchant_id, NEAR_SCAN) if DeliverySpec in kinds else []
        ),
        events=(
            repo.tail_events(tx, merchant_id, NEAR_SCAN)
            if kinds & {EventSpec, TransitionSpec}
            else []
        ),
    )


async def check(
    rt: Context, merchant_id: str, expectations: ExpectationSet, start_us: int | None
) -> Report:
    """The set against what the merchant's records hold now (``start_us``: the set's start;
    None: the set's own ``start``, else the merchant's creation, on its clock). When an item
    failed with no match at all, a second, bounded read finds its closest candidates."""
    await rt.journal.flush()  # what was answered before this is in the journal
    records, created = await rt.db.read(lambda tx: _gather(tx, merchant_id, expectations))
    if start_us is None:
        start_us = expectations.start_us
    if start_us is None:
        start_us = created if created is not None else 0
    report = evaluate(expectations, records, start_us)
    unmatched = {
        type(expectations.items[r.index].spec)
        for r in report.results
        if not r.ok and not r.matches and r.message is not None
    }
    if not unmatched:
        return report
    near = await rt.db.read(lambda tx: _tails(tx, merchant_id, unmatched))
    return evaluate(expectations, records, start_us, near)


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
