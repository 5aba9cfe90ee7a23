"""Company statements through HTTP: asked for, generated on the emulator clock (pending →
processing → success), listed, cancelled, and the file at the download URL."""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

import httpx
import pytest
from openpyxl import load_workbook

from tests.conftest import DEFAULT_KEY, EPOCH_S
from tests.http.purchase_helpers import advance, create, pay

UNKNOWN = "00000000-0000-4000-8000-000000000000"
HEADER = [
    "id", "created_on", "updated_on", "paid_on", "status", "reference", "reference_generated",
    "brand_id", "product", "client_email", "client_full_name", "client_country", "currency",
    "total", "refunded_amount", "payment_method", "products",
]  # fmt: skip


async def ask(
    http: httpx.AsyncClient, gw: dict[str, str], query: str = "", **body: Any
) -> dict[str, Any]:
    response = await http.post(f"/api/v1/company_statements/{query}", json=body, headers=gw)
    assert response.status_code == 201, response.text
    statement: dict[str, Any] = response.json()
    return statement


async def read(http: httpx.AsyncClient, gw: dict[str, str], sid: str) -> dict[str, Any]:
    response = await http.get(f"/api/v1/company_statements/{sid}/", headers=gw)
    assert response.status_code == 200, response.text
    statement: dict[str, Any] = response.json()
    return statement


async def generated(http: httpx.AsyncClient, gw: dict[str, str], sid: str) -> dict[str, Any]:
    """The statement once its two steps have run (2 s in the queue, 3 s generating)."""
    await advance(http, 5)
    statement = await read(http, gw, sid)
    assert statement["status"] == "success"
    return statement


async def download(http: httpx.AsyncClient, url: str) -> httpx.Response:
    """The file, fetched as a browser would: no API key."""
    response = await http.get(httpx.URL(url).path)
    assert response.status_code == 200, response.text
    return response


def csv_rows(response: httpx.Response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.text)))


async def paid_purchase(http, gw, merchant, **fields: Any) -> dict[str, Any]:
    p = await create(http, gw, merchant, **fields)
    body: dict[str, Any] = (await pay(http, p["id"])).json()
    return body


async def test_a_statement_is_generated_on_the_emulator_clock(http, merchant, gw):
    """201 ``pending``; 2 s later ``processing`` (began_on), 3 s after that ``success`` with
    its download_url; each step is a job of the merchant's schedule."""
    statement = await ask(http, gw, format="csv", timezone="UTC")
    sid = statement["id"]
    assert statement == {
        "id": sid,
        "type": "company_statement",
        "created_on": EPOCH_S,
        "updated_on": EPOCH_S,
        "format": "csv",
        "timezone": "UTC",
        "is_test": True,
        "company_uid": merchant["company_id"],
        "query_string": "",
        "status": "pending",
        "download_url": None,
        "began_on": None,
        "finished_on": None,
    }
    schedule = (await http.get(f"/_emulator/merchants/{merchant['company_id']}/schedule")).json()
    assert schedule["jobs"] == [
        {
            "due": "2026-01-05T09:00:02Z",
            "kind": "company_statement.generation",
            "object_type": "company_statement",
            "object_id": sid,
            "description": f"statement {sid[:8]}… starts being generated (processing)",
        }
    ]
    await advance(http, 1)
    assert (await read(http, gw, sid))["status"] == "pending"
    await advance(http, 1)
    processing = await read(http, gw, sid)
    assert processing == {
        **statement,
        "status": "processing",
        "began_on": EPOCH_S + 2,
        "updated_on": EPOCH_S + 2,
    }
    schedule = (await http.get(f"/_emulator/merchants/{merchant['company_id']}/schedule")).json()
    assert [(j["due"], j["description"]) for j in schedule["jobs"]] == [
        ("2026-01-05T09:00:05Z", f"statement {sid[:8]}… is generated (success): its file is ready")
    ]
    await advance(http, 3)
    done = await read(http, gw, sid)
    assert done == {
        **statement,
        "status": "success",
        "began_on": EPOCH_S + 2,
        "finished_on": EPOCH_S + 5,
        "updated_on": EPOCH_S + 5,
        "download_url": f"http://emulator/company_statements/{sid}/download/{done['download_url'].split('/')[-2]}/",
    }
    response = await download(http, done["download_url"])
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    assert response.headers["content-disposition"] == (
        f'attachment; filename="statement-{sid}.csv"'
    )
    assert csv_rows(response) == [HEADER]


async def test_the_csv_holds_the_merchants_purchases_in_its_time_zone(http, merchant, gw):
    """One row per purchase of the merchant, oldest first, times in the statement's zone;
    another merchant's purchases are not in it."""
    first = await paid_purchase(
        http, gw, merchant, reference="ORDER-1",
        client={"email": "ann@example.com", "full_name": "Ann Payer", "country": "ZA"},
    )  # fmt: skip
    await advance(http, 60)
    second = await create(http, gw, merchant)
    other = {"Authorization": f"Bearer {DEFAULT_KEY}"}
    await create(http, other, {"brand_id": "4b0d6e2a-1c3f-4a5b-8d7e-9f0a1b2c3d4e"})
    statement = await ask(http, gw, timezone="Africa/Johannesburg")
    assert statement["format"] == "csv"
    done = await generated(http, gw, statement["id"])
    assert csv_rows(await download(http, done["download_url"])) == [
        HEADER,
        [
            first["id"], "2026-01-05T11:00:00+02:00", "2026-01-05T11:00:00+02:00",
            "2026-01-05T11:00:00+02:00", "paid", "ORDER-1", first["reference_generated"],
            merchant["brand_id"], "purchase", "ann@example.com", "Ann Payer", "ZA", "ZAR",
            "1000", "0", "visa", "Widget",
        ],
        [
            second["id"], "2026-01-05T11:01:00+02:00", "2026-01-05T11:01:00+02:00", "",
            "created", "", second["reference_generated"], merchant["brand_id"], "purchase",
            "payer@example.com", "", "ZA", "ZAR", "1000", "0", "", "Widget",
        ],
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("?status=paid", ["paid-zar"], id="status"),
        pytest.param("?status=created,paid", ["paid-zar", "open-eur"], id="status-several"),
        pytest.param("?currency=EUR", ["open-eur"], id="currency"),
        pytest.param("?country=DE&country=ZA", ["paid-zar", "open-eur"], id="country-repeated"),
        pytest.param("?q=ORDER-7", ["paid-zar"], id="q-reference"),
        pytest.param("?q=bob@", ["open-eur"], id="q-email"),
        pytest.param("?products=gadget", ["open-eur"], id="products"),
        pytest.param("?total=2500", ["open-eur"], id="total"),
        pytest.param("?payment_method=visa", ["paid-zar"], id="payment-method"),
        pytest.param("?three_d_secure=false&status=paid", ["paid-zar"], id="three-d-secure"),
        pytest.param(f"?from={EPOCH_S + 10}", ["open-eur"], id="from"),
        pytest.param(f"?to={EPOCH_S + 10}", ["paid-zar"], id="to"),
        pytest.param(f"?paid_from={EPOCH_S}&paid_to={EPOCH_S + 1}", ["paid-zar"], id="paid"),
        pytest.param(f"?updated_from={EPOCH_S + 10}", ["open-eur"], id="updated"),
        pytest.param("?product=purchase", ["paid-zar", "open-eur"], id="product"),
        pytest.param("?product=invoice", [], id="product-none"),
        pytest.param(f"?shop_id={UNKNOWN}", [], id="shop-none"),
        pytest.param("?unknown=1", ["paid-zar", "open-eur"], id="unknown-ignored"),
    ],
)
async def test_the_query_string_filters_the_purchases(http, merchant, gw, query, expected):
    """The document's filters, given as query parameters of the POST; several values are
    repeated or comma-separated; the statement keeps its ``query_string``."""
    paid = await paid_purchase(http, gw, merchant, reference="ORDER-7")
    await advance(http, 20)
    open_eur = await create(
        http, gw, merchant,
        client={"email": "bob@example.com", "country": "DE"},
        purchase={"currency": "EUR", "products": [{"name": "Gadget", "price": 2500}]},
    )  # fmt: skip
    names = {paid["id"]: "paid-zar", open_eur["id"]: "open-eur"}
    statement = await ask(http, gw, query, format="csv")
    assert statement["query_string"] == query.removeprefix("?")
    done = await generated(http, gw, statement["id"])
    rows = csv_rows(await download(http, done["download_url"]))[1:]
    assert [names[r[0]] for r in rows] == expected


async def test_an_xlsx_statement_is_a_workbook(http, merchant, gw):
    """``xlsx``: one sheet, the same header and rows (money as numbers), stamped with the
    emulator's instant rather than the wall clock."""
    paid = await paid_purchase(http, gw, merchant)
    statement = await ask(http, gw, format="xlsx", timezone="UTC")
    done = await generated(http, gw, statement["id"])
    response = await download(http, done["download_url"])
    assert response.headers["content-type"] == (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    )
    book = load_workbook(io.BytesIO(response.content))
    sheet = book["Statement"]
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert values[0] == HEADER
    assert values[1][:5] == [
        paid["id"], "2026-01-05T09:00:00+00:00", "2026-01-05T09:00:00+00:00",
        "2026-01-05T09:00:00+00:00", "paid",
    ]  # fmt: skip
    assert (values[1][13], values[1][14]) == (1000, 0)
    assert len(values) == 2
    assert book.properties.created is not None
    assert book.properties.created.isoformat() == "2026-01-05T09:00:05"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        # zip dates count seconds in twos: 09:00:05 is stored as 09:00:04
        assert {info.date_time for info in archive.infolist()} == {(2026, 1, 5, 9, 0, 4)}


async def test_cancel_stops_the_generation(http, merchant, gw):
    """Cancelled while pending or processing, the next step does nothing; a cancelled or
    generated statement cannot be cancelled (409, the gateway's ``__all__``)."""
    refused = {
        "__all__": {
            "message": "This action is not available for the statement in its current status.",
            "code": "company_statement_invalid_status",
        }
    }
    pending = await ask(http, gw)
    cancel = await http.post(f"/api/v1/company_statements/{pending['id']}/cancel/", headers=gw)
    assert (cancel.status_code, cancel.json()) == (200, {**pending, "status": "cancelled"})
    processing = await ask(http, gw)
    await advance(http, 2)
    path = f"/api/v1/company_statements/{processing['id']}/cancel/"
    stopped = await http.post(path, headers=gw)
    assert (stopped.status_code, stopped.json()["status"]) == (200, "cancelled")
    done = await ask(http, gw)
    await advance(http, 5)
    for statement in (pending, processing):
        now = await read(http, gw, statement["id"])
        assert (now["status"], now["download_url"], now["finished_on"]) == ("cancelled", None, None)
        again = await http.post(f"/api/v1/company_statements/{statement['id']}/cancel/", headers=gw)
        assert (again.status_code, again.json()) == (409, refused)
    assert (await read(http, gw, done["id"]))["status"] == "success"
    late = await http.post(f"/api/v1/company_statements/{done['id']}/cancel/", headers=gw)
    assert (late.status_code, late.json()) == (409, refused)


async def test_statements_are_listed_newest_first_and_paginated(http, merchant, gw):
    """The gateway's list shape: results, next, previous (full URLs)."""
    made = [await ask(http, gw) for _ in range(3)]
    listed = await http.get("/api/v1/company_statements/?page_size=2", headers=gw)
    assert listed.json() == {
        "results": [made[2], made[1]],
        "next": "http://emulator/api/v1/company_statements/?page_size=2&page=2",
        "previous": None,
    }
    second = await http.get(listed.json()["next"], headers=gw)
    assert second.json()["results"] == [made[0]]
    other = await http.get(
        "/api/v1/company_statements/", headers={"Authorization": f"Bearer {DEFAULT_KEY}"}
    )
    assert [s["id"] for s in other.json()["results"]] == []


@pytest.mark.parametrize(
    ("query", "body", "errors"),
    [
        pytest.param("", {"format": "pdf"}, {"format": "invalid"}, id="format"),
        pytest.param("", {"format": "x" * 33}, {"format": "max_length"}, id="format-long"),
        pytest.param("", {"timezone": "Mars/Base"}, {"timezone": "invalid"}, id="timezone"),
        pytest.param("", {"format": 1}, {"format": "invalid"}, id="format-type"),
        pytest.param("?brand_id=nope", {}, {"brand_id": "invalid_uuid"}, id="brand-id"),
        pytest.param("?from=yesterday", {}, {"from": "invalid"}, id="from"),
        pytest.param("?currency=XXY", {}, {"currency": "invalid"}, id="currency"),
        pytest.param("?status=lost", {}, {"status": "invalid"}, id="status"),
        pytest.param("?total=lots", {}, {"total": "invalid"}, id="total"),
        pytest.param("?three_d_secure=maybe", {}, {"three_d_secure": "invalid"}, id="3ds"),
    ],
)
async def test_a_bad_request_is_a_400(http, gw, query, body, errors):
    """Body and query are checked before anything is stored, in the gateway's dialect."""
    response = await http.post(f"/api/v1/company_statements/{query}", json=body, headers=gw)
    assert response.status_code == 400
    assert {field: e["code"] for field, e in response.json().items()} == errors
    listed = await http.get("/api/v1/company_statements/", headers=gw)
    assert listed.json()["results"] == []


async def test_defaults_and_null_fields(http, gw):
    """No body, or nulls: ``csv`` in ``UTC``; read-only fields of the body are ignored."""
    empty = await http.post("/api/v1/company_statements/", headers=gw)
    assert (empty.status_code, empty.json()["format"], empty.json()["timezone"]) == (
        201,
        "csv",
        "UTC",
    )
    nulls = await ask(http, gw, format=None, timezone=None, status="success", id="x")
    assert (nulls["format"], nulls["timezone"], nulls["status"]) == ("csv", "UTC", "pending")


async def test_unknown_statements_and_download_urls_are_404(http, merchant, gw):
    """Unknown or another merchant's statement: ``company_statement_not_found``; a download
    URL with the wrong token, or before the file exists, is a 404 too."""
    not_found = {"__all__": {"message": "No such object", "code": "company_statement_not_found"}}
    theirs = await ask(http, {"Authorization": f"Bearer {DEFAULT_KEY}"})
    for sid in (UNKNOWN, theirs["id"]):
        for method, suffix in (("GET", ""), ("POST", "cancel/")):
            response = await http.request(
                method, f"/api/v1/company_statements/{sid}/{suffix}", headers=gw
            )
            assert (response.status_code, response.json()) == (404, not_found)
    bad = await http.get("/api/v1/company_statements/nope/", headers=gw)
    assert (bad.status_code, bad.json()["id"]["code"]) == (400, "invalid_uuid")
    mine = await ask(http, gw)
    early = await http.get(f"/company_statements/{mine['id']}/download/whatever/")
    assert (early.status_code, early.json()) == (404, not_found)
    done = await generated(http, gw, mine["id"])
    wrong = done["download_url"].rsplit("/", 2)[0] + "/wrong/"
    response = await http.get(httpx.URL(wrong).path)
    assert (response.status_code, response.json()) == (404, not_found)
    assert (await http.get("/company_statements/nope/download/x/")).status_code == 404


async def test_null_format_and_timezone_mean_the_defaults(http, gw):
    """Like every gateway body: null for an optional field is the field left out."""
    statement = await ask(http, gw, format=None, timezone=None)
    assert (statement["format"], statement["timezone"]) == ("csv", "UTC")
