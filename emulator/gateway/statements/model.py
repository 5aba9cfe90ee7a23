"""Company statements (OpenAPI ``CompanyStatement``): the object, its request body and its
status machine as one table.

A statement is asked for with a ``format`` and a ``timezone`` (the body) and purchase filters
(the query string); it is generated later, on the emulator clock, by durable jobs. Pure: each
function takes ``now`` (Unix seconds) and returns a new statement.
"""

from __future__ import annotations

import msgspec

from emulator.domain import validation
from emulator.domain.errors import CompanyStatementInvalidStatus, FieldError, ValidationFailed
from emulator.gateway.billing.rules_schedule import is_zone

# Statuses (the document names pending, processing and success; cancelled is the emulator's
# word for a generation stopped by POST .../cancel/):
#   pending     asked for, waiting in the queue
#   processing  being generated (``began_on`` is set)
#   success     generated: ``download_url`` serves the file, ``finished_on`` is set (final)
#   cancelled   stopped before it was generated (final)
STATUSES = ("pending", "processing", "success", "cancelled")

# (status, trigger) -> next status
TRANSITIONS: dict[tuple[str, str], str] = {
    ("pending", "begin"): "processing",
    ("processing", "finish"): "success",
    ("pending", "cancel"): "cancelled",
    ("processing", "cancel"): "cancelled",
}

FORMATS = ("csv", "xlsx")
FORMAT_MAX = 32  # the document's maxLength of ``format``

# On the emulator clock: the queue, then the generation (each step one durable job).
QUEUE_SECONDS = 2
GENERATION_SECONDS = 3


class StatementInput(msgspec.Struct, forbid_unknown_fields=False):
    """The POST body; read-only fields of the document are ignored, ``null`` is absent."""

    format: str | None = None
    timezone: str | None = None


class CompanyStatement(msgspec.Struct, kw_only=True):
    id: str
    type: str = "company_statement"
    created_on: int
    updated_on: int
    format: str
    timezone: str
    is_test: bool = True
    company_uid: str
    query_string: str
    status: str = "pending"
    download_url: str | None = None  # null until the file is ready
    began_on: int | None = None
    finished_on: int | None = None


def validate(data: StatementInput) -> tuple[str, str]:
    """(format, timezone) of a request: ``csv`` and ``UTC`` when not given."""
    errors: list[FieldError | None] = []
    fmt = "csv" if data.format is None else data.format
    zone = "UTC" if data.timezone is None else data.timezone
    if len(fmt) > FORMAT_MAX:
        errors.append(validation.max_length("format", fmt, FORMAT_MAX))
    elif fmt not in FORMATS:
        errors.append(
            validation.invalid("format", f'"{fmt[:64]}" is not a valid choice (csv, xlsx).')
        )
    if not is_zone(zone):
        errors.append(validation.invalid("timezone", f"'{zone[:64]}' is not a time zone."))
    found = [e for e in errors if e is not None]
    if found:
        raise ValidationFailed(found)
    return fmt, zone


def create(
    data: StatementInput, statement_id: str, company_id: str, query_string: str, now: int
) -> CompanyStatement:
    fmt, zone = validate(data)
    return CompanyStatement(
        id=statement_id,
        created_on=now,
        updated_on=now,
        format=fmt,
        timezone=zone,
        company_uid=company_id,
        query_string=query_string,
    )


def move(statement: CompanyStatement, trigger: str, now: int) -> CompanyStatement:
    """Apply ``trigger`` by the table; ``CompanyStatementInvalidStatus`` when it has no row."""
    status = TRANSITIONS.get((statement.status, trigger))
    if status is None:
        raise CompanyStatementInvalidStatus()
    changes: dict[str, object] = {"status": status, "updated_on": now}
    if status == "processing":
        changes["began_on"] = now
    if status == "success":
        changes["finished_on"] = now
    return msgspec.structs.replace(statement, **changes)


def can(statement: CompanyStatement, trigger: str) -> bool:
    return (statement.status, trigger) in TRANSITIONS
