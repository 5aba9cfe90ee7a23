"""Company statements: ask for one, list, read, cancel, and the jobs that generate it on the
emulator clock (pending → processing → success), and its file at the download URL."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from emulator.domain.errors import CompanyStatementNotFound
from emulator.gateway.clients.service import Page
from emulator.gateway.statements import model as domain
from emulator.gateway.statements import repo
from emulator.gateway.statements import (
    rules_files as statement_files,
)
from emulator.gateway.statements import (
    rules_filters as statement_filters,
)
from emulator.gateway.statements.model import CompanyStatement, StatementInput
from emulator.kernel.jobs import Job
from emulator.kernel.storage import Tx

if TYPE_CHECKING:
    from emulator.kernel.context import Context, JobHandler

GENERATE_JOB = "company_statement.generate"
DOWNLOAD_PATH = "/company_statements/{id}/download/{token}/"


def _now(rt: Context) -> int:
    return rt.clock.now_us() // 1_000_000


def _schedule(rt: Context, tx: Tx, merchant_id: str, statement_id: str, trigger: str) -> None:
    """The next step of the generation, a short while later on the merchant's clock."""
    delay = domain.QUEUE_SECONDS if trigger == "begin" else domain.GENERATION_SECONDS
    rt.scheduler.schedule(
        tx,
        GENERATE_JOB,
        rt.clock.now_us() + delay * 1_000_000,
        {"id": statement_id, "trigger": trigger},
        merchant_id=merchant_id,
    )


async def create(
    rt: Context,
    merchant_id: str,
    data: StatementInput,
    params: Iterable[tuple[str, str]],
    query_string: str,
    base_url: str,
) -> CompanyStatement:
    """A statement ``pending``, its generation scheduled; 400 for a bad body or filter."""
    filters = statement_filters.parse(params)
    statement_id, token = rt.ids.uuid(), rt.ids.token(32)
    statement = domain.create(data, statement_id, merchant_id, query_string, _now(rt))
    # Like a payout's execution_url, the URL is the capability: whoever holds it can fetch
    # the file without the API key.
    url = base_url.rstrip("/") + DOWNLOAD_PATH.format(id=statement_id, token=token)

    def unit(tx: Tx) -> CompanyStatement:
        repo.insert(tx, merchant_id, statement, filters, url, token)
        _schedule(rt, tx, merchant_id, statement_id, "begin")
        return statement

    return await rt.db.write(unit)


async def get_raw(rt: Context, merchant_id: str, statement_id: str) -> bytes:
    raw = await rt.db.read(lambda tx: repo.get_raw(tx, merchant_id, statement_id))
    if raw is None:
        raise CompanyStatementNotFound()
    return raw


async def page(rt: Context, merchant_id: str, number: int, size: int) -> Page:
    rows = await rt.db.read(
        lambda tx: repo.page_raw(tx, merchant_id, size + 1, (number - 1) * size)
    )
    return Page(items=rows[:size], has_next=len(rows) > size)


async def cancel(rt: Context, merchant_id: str, statement_id: str) -> CompanyStatement:
    """``cancelled`` while pending or processing; 409 once generated or cancelled."""

    def unit(tx: Tx) -> CompanyStatement:
        found = repo.get(tx, merchant_id, statement_id)
        if found is None:
            raise CompanyStatementNotFound()
        statement = domain.move(found.statement, "cancel", _now(rt))
        repo.update(tx, merchant_id, statement)
        return statement  # the step still scheduled finds it cancelled and does nothing

    return await rt.db.write(unit)


async def download(rt: Context, statement_id: str, token: str) -> tuple[CompanyStatement, bytes]:
    """The generated file at the download URL; 404 for any other id or token."""
    found = await rt.db.read(lambda tx: repo.file(tx, statement_id, token))
    if found is None:
        raise CompanyStatementNotFound()
    return found


def generation_due(rt: Context, tx: Tx, job: Job) -> None:
    """One step: ``begin`` (pending → processing, the next step scheduled) or ``finish``
    (processing → success: the file is made from the merchant's purchases as they are now)."""
    trigger = job.payload.get("trigger")
    found = repo.get(tx, job.merchant_id, str(job.payload.get("id")))
    if found is None or not isinstance(trigger, str) or not domain.can(found.statement, trigger):
        return  # cancelled meanwhile, or the merchant was wiped
    now = _now(rt)
    statement = domain.move(found.statement, trigger, now)
    file = None
    if statement.status == "processing":
        _schedule(rt, tx, found.merchant_id, statement.id, "finish")
    else:
        chosen = [
            p
            for p, internal in repo.purchases(tx, found.merchant_id)
            if statement_filters.matches(found.filters, p, internal)
        ]
        table = statement_files.rows(chosen, statement.timezone)
        file = statement_files.render(statement.format, table, now)
        statement.download_url = found.download_url
    repo.update(tx, found.merchant_id, statement, file)


JOBS: dict[str, JobHandler] = {GENERATE_JOB: generation_due}
