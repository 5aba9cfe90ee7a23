"""The file of a company statement: one row per purchase, as CSV or XLSX. Pure: the purchases
and the instant of generation are arguments; the bytes are made in memory.

The columns are the emulator's own (the document does not show the file): money in minor
units, as the API gives it; times in the statement's time zone as ISO 8601 with the offset.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from emulator.gateway.billing.rules_schedule import zone
from emulator.gateway.purchases.model import Purchase
from emulator.gateway.statements.rules_filters import product_of

COLUMNS = (
    "id",
    "created_on",
    "updated_on",
    "paid_on",
    "status",
    "reference",
    "reference_generated",
    "brand_id",
    "product",
    "client_email",
    "client_full_name",
    "client_country",
    "currency",
    "total",
    "refunded_amount",
    "payment_method",
    "products",
)
MEDIA_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
Cell = str | int


def _time(at: int | None, tz: ZoneInfo) -> str:
    if not at:
        return ""
    return datetime.fromtimestamp(at, UTC).astimezone(tz).isoformat()


def row(p: Purchase, tz: ZoneInfo) -> list[Cell]:
    return [
        p.id,
        _time(p.created_on, tz),
        _time(p.updated_on, tz),
        _time(p.payment.paid_on if p.payment is not None else None, tz),
        p.status,
        p.reference,
        p.reference_generated,
        p.brand_id,
        product_of(p),
        p.client.email,
        p.client.full_name,
        p.client.country,
        p.purchase.currency,
        p.purchase.total,
        p.refunded_amount,
        p.transaction_data.payment_method,
        "; ".join(item.name for item in p.purchase.products),
    ]


def rows(purchases: Sequence[Purchase], timezone: str) -> list[list[Cell]]:
    tz = zone(timezone)
    return [row(p, tz) for p in purchases]


def render(fmt: str, table: list[list[Cell]], now: int) -> bytes:
    """The file: a header row of ``COLUMNS``, then ``table``."""
    return _xlsx(table, now) if fmt == "xlsx" else _csv(table)


def _csv(table: list[list[Cell]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    writer.writerows(table)
    return out.getvalue().encode()


def _xlsx(table: list[list[Cell]], now: int) -> bytes:
    """The sheet through openpyxl, stamped with the emulator's instant (the workbook's
    created/modified and every zip entry): no wall-clock time ends up in the file. openpyxl
    is imported here, when a statement asks for it: it costs a cold start about 0.1 s."""
    from openpyxl import Workbook
    from openpyxl.writer.excel import ExcelWriter

    at = datetime.fromtimestamp(now, UTC).replace(tzinfo=None)
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Statement"
    sheet.append(list(COLUMNS))
    for line in table:
        sheet.append(line)
    book.properties.created = book.properties.modified = at
    raw = io.BytesIO()
    ExcelWriter(book, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED)).save()
    return _stamped(raw.getvalue(), at)


def _stamped(data: bytes, at: datetime) -> bytes:
    """The zip again, every entry dated ``at`` (zip dates start in 1980)."""
    date_time = max(at, datetime(1980, 1, 1)).timetuple()[:6]
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=date_time)
            entry.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(entry, source.read(info.filename))
    return out.getvalue()
