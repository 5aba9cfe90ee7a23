"""The v2 lists (GET /v2/mandate/eft, GET /v2/collection/debicheck) in SQL: filtered, in seq
order and paged by the database, so a page costs the same with 100 or 100,000 objects.

Every filter that SQL can state exactly is a WHERE term: the object's own columns (status,
external reference, statement) or ``json_extract`` of its stored JSON, which holds the same
values the Python objects do. The date filters (a collection's dates as South African dates)
stay in Python (``collection_filters.matches``) over rows streamed in seq order, stopping at
the page's end.
"""

from __future__ import annotations


def json_path(path: str) -> str:
    """The SQL of a value in a row's stored JSON."""
    return f"json_extract(CAST(data AS TEXT), '{path}')"


def page_sql(table: str, where: str) -> str:
    """A page's rows: the seqs picked first (a deep OFFSET walks an index that covers the
    filters, not the rows), then those rows read."""
    return (
        f"SELECT data FROM {table} WHERE seq IN (SELECT seq FROM {table} WHERE {where}"
        " ORDER BY seq LIMIT ? OFFSET ?) ORDER BY seq"
    )
