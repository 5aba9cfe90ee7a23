"""Waiting for expectations: check, and until they hold, either wait for the next notice of
the merchant (a journaled request, a committed event, a recorded delivery attempt:
``kernel.notices``), or with ``advance``, step the merchant's own clock to its next due job
(never past ``up_to``) and check again. The answer comes at the first instant every item
holds, or when ``timeout_seconds`` of real time have passed (``ok`` false then).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from emulator.domain.errors import ControlError
from emulator.kernel.notices import ANY
from emulator.kernel.storage import Tx
from emulator.kernel.timeline import Timeline
from emulator.sandbox.control import service as control
from emulator.sandbox.deliveries import service as deliveries
from emulator.sandbox.expectations.model import ExpectationSet
from emulator.sandbox.expectations.rules_match import Report
from emulator.sandbox.expectations.rules_times import ExpectationError, iso_us, parse_duration
from emulator.sandbox.expectations.service import (
    check,
    ensure_indexes,
    known_merchant,
    parse,
    report_view,
)

if TYPE_CHECKING:
    from emulator.kernel.context import Context

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0
QUICK_SECONDS = 0.001  # a check's read that took less is made on the event loop's thread next
MAX_TIMEOUT = 600.0


class WaitRequest(msgspec.Struct, frozen=True):
    expectations: ExpectationSet
    timeout: float = DEFAULT_TIMEOUT
    up_to_us: int | None = None  # with ``advance``: how far the merchant's clock may move


def parse_wait(body: Any) -> WaitRequest:
    expectations = parse(body)
    timeout = body.get("timeout_seconds", DEFAULT_TIMEOUT)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or not 0 <= timeout <= MAX_TIMEOUT
    ):
        raise ControlError(
            400,
            "invalid",
            f"timeout_seconds: must be a number of seconds from 0 to {MAX_TIMEOUT:g}",
        )
    advance = body.get("advance")
    up_to_us = None
    if advance is not None:
        if not isinstance(advance, dict) or set(advance) != {"up_to"}:
            raise ControlError(400, "invalid", 'advance: must be {"up_to": a duration}')
        try:
            up_to_us = parse_duration("advance.up_to", advance["up_to"])
        except ExpectationError as exc:
            raise ControlError(400, "invalid", str(exc)) from None
    return WaitRequest(expectations, float(timeout), up_to_us)


async def wait(rt: Context, company_id: str, body: Any) -> dict[str, Any]:
    asked = parse_wait(body)
    await known_merchant(rt, company_id)
    await ensure_indexes(rt)
    if asked.up_to_us is not None:
        timeline = await control.own_timeline(rt, company_id)  # 409 when it follows the server's
    else:
        timeline = rt.scheduler.timeline_of(company_id)
    began_us = timeline.clock.now_us()
    start_us = asked.expectations.start_us if asked.expectations.start_us is not None else began_us
    limit_us = None if asked.up_to_us is None else began_us + asked.up_to_us
    loop = asyncio.get_running_loop()
    deadline = loop.time() + asked.timeout  # real seconds: how long the caller waits
    waiting = Waiting(rt, company_id, asked.expectations, start_us, timeline, limit_us)
    await rt.deliveries.flush(merchant_id=company_id)  # what is due to go out has gone out
    with rt.notices.watch(company_id, notices_of(asked.expectations)) as noticed:
        while True:
            noticed.clear()  # before the look: a notice during it is not lost
            report = await waiting.check()
            if report.ok:
                break
            left = deadline - loop.time()
            if left <= 0:
                break
            if limit_us is not None and await waiting.step():
                continue
            try:
                await asyncio.wait_for(noticed.wait(), timeout=left)
            except TimeoutError:
                report = await waiting.check()
                break
    now_us = timeline.clock.now_us()
    extra: dict[str, Any] = {"timed_out": not report.ok, "now": iso_us(now_us)}
    if report.ok:
        extra["at"] = iso_us(now_us)
    if limit_us is not None:
        extra["advanced"] = {"from": iso_us(began_us), "jobs_run": waiting.jobs_run}
    return report_view(report, **extra)


def notices_of(expectations: ExpectationSet) -> frozenset[str]:
    """The notices that may change whether the set holds: its items' kinds' records."""
    return frozenset(NOTICE_OF[item.kind] for item in expectations.items)


NOTICE_OF = {"request": "request", "delivery": "delivery", "event": "event", "transition": "event"}


class Waiting:
    """One wait's state: what it checks, and (with ``advance``) how far it has stepped."""

    def __init__(
        self,
        rt: Context,
        company_id: str,
        expectations: ExpectationSet,
        start_us: int,
        timeline: Timeline,
        limit_us: int | None,
    ) -> None:
        self.rt, self.company_id, self.expectations = rt, company_id, expectations
        self.start_us, self.timeline, self.limit_us = start_us, timeline, limit_us
        self.jobs_run = 0
        self.quick = False  # its last read took under QUICK_SECONDS: the next on the loop

    async def check(self) -> Report:
        return await check(self.rt, self.company_id, self.expectations, self.start_us, self.read)

    async def read(self, unit: Callable[[Tx], T]) -> T:
        """A check's read: on the reader's thread, or right on the event loop (a point read:
        no hop to a thread and back, which under load took most of the time from a notice to
        the answer) while this wait's reads take under ``QUICK_SECONDS`` there."""
        quick = self.quick

        def timed(tx: Tx) -> T:
            started = time.perf_counter()
            try:
                return unit(tx)
            finally:
                self.quick = time.perf_counter() - started < QUICK_SECONDS

        if quick:
            return await self.rt.db.read_point(timed)
        return await self.rt.db.read(timed)

    async def step(self) -> bool:
        """Advance the merchant's clock to its next due job (what falls due then runs, and
        what it sends goes out); False when none is due by ``limit_us``. A step runs to its
        end even if the caller goes away meanwhile (shielded): an advance is never cut."""
        assert self.limit_us is not None
        job = await self.rt.scheduler.next_job(self.timeline)
        if job is None or job.due_us > self.limit_us:
            return False
        target = max(job.due_us, self.timeline.clock.now_us())
        answer = await asyncio.shield(self._advance(target))
        self.jobs_run += int(answer["jobs_run"])
        return True

    async def _advance(self, target_us: int) -> dict[str, Any]:
        answer = await control.advance(self.rt, control.Advance(to_us=target_us), self.timeline)
        await self.rt.deliveries.flush(merchant_id=self.company_id)  # its sends have gone out
        return answer


async def deliveries_after(
    rt: Context,
    merchant_id: str | None,
    object_id: str | None,
    kind: str | None,
    limit: int,
    after_id: int,
    seconds: float,
) -> dict[str, Any]:
    """The delivery attempts after ``after_id`` (oldest first, as ``GET /_emulator/deliveries
    ?after=``), once there is one, woken by each attempt recorded (of the merchant, or of any
    with none given); none, and ``timed_out``, when ``seconds`` of real time pass first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    with rt.notices.watch(merchant_id or ANY, frozenset({"delivery"})) as noticed:
        while True:
            noticed.clear()  # before the look: an attempt during it is not lost
            found = await deliveries.recent(rt, merchant_id, object_id, kind, limit, None, after_id)
            left = deadline - loop.time()
            if found or left <= 0:
                break
            try:
                await asyncio.wait_for(noticed.wait(), timeout=left)
            except TimeoutError:
                found = await deliveries.recent(
                    rt, merchant_id, object_id, kind, limit, None, after_id
                )
                break
    return {"deliveries": found, "timed_out": not found}
