"""Verifying expectations: parse the set, gather the merchant's records (journal, deliveries,
events and the transitions they show), match them (``sandbox.expectations.rules_match``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

from emulator.core.merchants import repo as merchants_repo
from emulator.domain.errors import ControlError
from emulator.kernel.storage import Tx
from emulator.sandbox.expectations import repo, repo_counts, repo_recent
from emulator.sandbox.expectations import repo_indexes as indexes
from emulator.sandbox.expectations.model import (
    DeliverySpec,
    EventSpec,
    ExpectationSet,
    Item,
    RequestSpec,
    Spec,
    TransitionSpec,
    parse_set,
)
from emulator.sandbox.expectations.model_records import Records
from emulator.sandbox.expectations.rules_match import LISTED, NEAR_SCAN, Report, evaluate
from emulator.sandbox.expectations.rules_times import ExpectationError, iso_us

if TYPE_CHECKING:
    from emulator.kernel.context import Context

T = TypeVar("T")


def parse(body: Any) -> ExpectationSet:
    """The set, or a 400 naming the key path."""
    try:
        return parse_set(body)
    except ExpectationError as exc:
        raise ControlError(400, "invalid", str(exc)) from None


async def ensure_indexes(rt: Context) -> None:
    """The expectations' own indexes (``repo_indexes.LAZY_INDEXES``), created by the
    first verify or wait of a database that lacks them."""
    missing = await rt.db.read(indexes.missing_indexes)
    if missing:
        await rt.db.write(lambda tx: indexes.create_indexes(tx, missing))


async def known_merchant(rt: Context, company_id: str) -> None:
    if await rt.db.read(lambda tx: merchants_repo.get(tx, company_id)) is None:
        raise ControlError(404, "merchant_not_found", f"no merchant with company_id {company_id!r}")


class Gathered(msgspec.Struct, frozen=True):
    """Each item's records (the rows that may match it), and the totals of the items that
    SQL counted alone (their records are then only their first matches)."""

    records: dict[int, Records]
    counted: dict[int, int]
    created_us: int | None


def _countable(item: Item, expectations: ExpectationSet, anchors: set[str]) -> bool:
    """No window, no order, no item after it: its matches matter only by their number and
    the first few named."""
    return (
        item.within_us is None
        and item.after_us is None
        and item.after_id is None
        and not expectations.in_order
        and (item.id is None or item.id not in anchors)
        and not isinstance(item.spec, TransitionSpec)
    )


def _records_of(tx: Tx, merchant_id: str, spec: Spec) -> Records:
    """The rows that may match ``spec``, narrowed in SQL."""
    if isinstance(spec, RequestSpec):
        return Records(requests=repo.requests(tx, merchant_id, [spec]))
    if isinstance(spec, DeliverySpec):
        return Records(deliveries=repo.deliveries(tx, merchant_id, [spec]))
    if isinstance(spec, EventSpec):
        return Records(events=repo.events(tx, merchant_id, [spec], []))
    return Records(events=repo.events(tx, merchant_id, [], [spec]))


def _gather(tx: Tx, merchant_id: str, expectations: ExpectationSet) -> Gathered:
    """Each item's records, read in one transaction: counted in SQL where SQL decides the
    item alone, else the rows that may match it."""
    anchors = {item.after_id for item in expectations.items if item.after_id is not None}
    records: dict[int, Records] = {}
    counted: dict[int, int] = {}
    for item in expectations.items:
        spec = item.spec
        if _countable(item, expectations, anchors) and not isinstance(spec, TransitionSpec):
            found = repo_counts.counted(tx, merchant_id, spec, LISTED)
            if found is not None:
                counted[item.index], records[item.index] = found
                continue
        records[item.index] = _records_of(tx, merchant_id, spec)
    return Gathered(records, counted, repo_recent.created_us(tx, merchant_id))


def _tails(tx: Tx, merchant_id: str, kinds: set[type]) -> Records:
    """The latest records of these kinds (bounded): where the failed items' closest
    candidates are looked for."""
    return Records(
        requests=repo_recent.tail_requests(tx, merchant_id, NEAR_SCAN)
        if RequestSpec in kinds
        else [],
        deliveries=(
            repo_recent.tail_deliveries(tx, merchant_id, NEAR_SCAN) if DeliverySpec in kinds else []
        ),
        events=(
            repo_recent.tail_events(tx, merchant_id, NEAR_SCAN)
            if kinds & {EventSpec, TransitionSpec}
            else []
        ),
    )


class Reader(Protocol):
    """How a check reads (``Database.read`` unless told otherwise)."""

    def __call__(self, unit: Callable[[Tx], T], /) -> Awaitable[T]: ...


async def check(
    rt: Context,
    merchant_id: str,
    expectations: ExpectationSet,
    start_us: int | None,
    read: Reader | None = None,
) -> Report:
    """The set against what the merchant's records hold now (``start_us``: the set's start;
    None: the set's own ``start``, else the merchant's creation, on its clock). When an item
    failed with no match at all, a second, bounded read finds its closest candidates."""
    if any(isinstance(item.spec, RequestSpec) for item in expectations.items):
        await rt.journal.flush()  # what was answered before this is in the journal
    read = read or rt.db.read
    gathered = await read(lambda tx: _gather(tx, merchant_id, expectations))
    if start_us is None:
        start_us = expectations.start_us
    if start_us is None:
        start_us = gathered.created_us if gathered.created_us is not None else 0
    records, counted = gathered.records, gathered.counted
    report = evaluate(expectations, records, start_us, counted=counted)
    unmatched = {
        type(expectations.items[r.index].spec)
        for r in report.results
        if not r.ok and not r.matches and r.message is not None
    }
    if not unmatched:
        return report
    near = await read(lambda tx: _tails(tx, merchant_id, unmatched))
    return evaluate(expectations, records, start_us, near, counted)


def report_view(report: Report, **extra: Any) -> dict[str, Any]:
    view: dict[str, Any] = {"ok": report.ok, **extra}
    view["results"] = msgspec.to_builtins(report.results)
    return view


async def verify(rt: Context, company_id: str, body: Any) -> dict[str, Any]:
    expectations = parse(body)
    if "timeout_seconds" in body or "advance" in body:
        raise ControlError(400, "invalid", "'timeout_seconds' and 'advance' are for /wait")
    await known_merchant(rt, company_id)
    await ensure_indexes(rt)
    timeline = rt.scheduler.timeline_of(company_id)
    await rt.deliveries.flush(merchant_id=company_id)  # what is due to go out has gone out
    report = await check(rt, company_id, expectations, None)
    return report_view(report, now=iso_us(timeline.clock.now_us()))
