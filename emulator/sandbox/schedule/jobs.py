"""Every job kind the services run, with its handler: the one table the runtime registers with
the scheduler (``runtime.runtime``).

Each service declares its kinds next to their handlers (``JOBS``: kind → handler, a handler
takes the context, the job's unit of work and the job); a kind in a schedule leads here, and
from here to its handler by the imports. The kinds' strings are stored in databases and
snapshots: they never change. All of these jobs are atomic (the delivery engine registers its
own async one, ``delivery.send``).
"""

from __future__ import annotations

from collections.abc import Mapping

from emulator.bank.collections import jobs as collection_outcomes
from emulator.bank.mandates import service as mandates
from emulator.bank.payments import service as payments
from emulator.core.auth import service as auth
from emulator.core.retention import jobs as retention
from emulator.gateway.billing import jobs as billing_engine
from emulator.gateway.billing import service_paid as billing_service_paid
from emulator.gateway.payouts import service as payouts
from emulator.gateway.purchases import jobs as purchase_jobs
from emulator.gateway.purchases import service_payer as payer
from emulator.gateway.statements import service as company_statements
from emulator.kernel.context import JobHandler
from emulator.sandbox.holds import service_act as holds_service_act


def _table(*tables: Mapping[str, JobHandler]) -> dict[str, JobHandler]:
    merged: dict[str, JobHandler] = {}
    for table in tables:
        for kind, handler in table.items():
            if kind in merged:
                raise ValueError(f"job kind {kind!r} has two handlers")
            merged[kind] = handler
    return merged


JOBS = _table(
    auth.JOBS,
    purchase_jobs.JOBS,
    payouts.JOBS,
    billing_engine.JOBS,
    company_statements.JOBS,
    mandates.JOBS,
    collection_outcomes.JOBS,
    payments.JOBS,
    retention.JOBS,
    holds_service_act.JOBS,
    payer.JOBS,
)

# Kinds that "advance to the next job" passes by: retention is not the next thing the service
# does.
HOUSEKEEPING = retention.HOUSEKEEPING


# Called in the unit of work of every purchase event (billing follows its bills) and of every
# deleted client (billing ends its subscriptions): (the context, tx, merchant id, the event or
# the client id).
PURCHASE_EVENT_HOOKS = (billing_service_paid.on_purchase_event,)
CLIENT_DELETED_HOOKS = (billing_service_paid.on_client_deleted,)
