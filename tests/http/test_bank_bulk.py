"""Bulk EFT payments by CSV: rows in error do not sink the others; the download."""

from __future__ import annotations

import csv
import io

import pytest

from tests.http.bank_helpers import advance, bad_request

HEADER = "profileCode,externalReference,abbreviatedName,contractReference,amountCents,paymentDate,serviceType,realTimeClearing,debtor.accountNumber,debtor.branchCode,creditor.accountNumber,creditor.branchCode,creditor.name"


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


def csv_of(profile):
    return "\n".join(
        [
            HEADER,
            f"{profile},B-1,PAYROLL,INV-1,1000,2026-01-05T00:00:00Z,ONEDAY,true,4052218811,051001,110000001,250655,Ann",
            f"{profile},B-2,PAYROLL,INV-2,abc,2026-01-05T00:00:00Z,ONEDAY,false,4052218811,051001,62000000001,250655,Bob",
            f"{profile},B-3,PAYROLL,INV-3,600000000,2026-01-05T00:00:00Z,ONEDAY,false,4052218811,051001,62000000001,250655,Cy",
            "NOPE,B-4,PAYROLL,INV-4,100,2026-01-05T00:00:00Z,ONEDAY,false,4052218811,051001,62000000001,250655,Di",
            f"{profile},B-5,PAYROLL,INV-5,2500,2026-01-05T00:00:00Z,TWODAY,,4052218811,051001,110000002,250655,Ed",
        ]
    )


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


async def test_upload_keeps_good_rows_and_reports_bad_ones(http, v2, profile):
    response = await http.post(
        "/v2/payment/eft/upload/csv",
        content=csv_of(profile).encode(),
        headers={**v2, "Content-Type": "text/csv"},
    )
    assert response.status_code == 200
    summary = response.json()
    assert {k: summary[k] for k in ("rows", "accepted", "errors")} == {
        "rows": 5,
        "accepted": 2,
        "errors": 3,
    }
    bulk_id = summary["bulkUploadId"]
    await advance(http, 41)
    download = await http.get(f"/v2/collection/eft/download/csv/{bulk_id}", headers=v2)
    assert download.status_code == 200
    assert download.headers["content-type"].startswith("text/csv")
    rows = rows_of(download.text)
    assert [(r["line"], r["outcome"], r["status"], r["error"]) for r in rows] == [
        ("2", "ACCEPTED", "COMPLETED", ""),
        ("3", "ERROR", "", "amountCents: 'abc' is not a whole number of cents"),
        ("4", "ERROR", "", "amountCents: exceeds industry imposed limits"),
        ("5", "ERROR", "", "profile code does not exist"),
        ("6", "ACCEPTED", "UNPAID", ""),
    ]
    payment = await http.get(f"/v2/payment/eft/{rows[0]['paymentId']}/status", headers=v2)
    assert payment.json()["bulkUploadId"] == bulk_id
    errors = await http.get(f"/v2/collection/eft/download/csv/{bulk_id}?isError=true", headers=v2)
    assert [r["line"] for r in rows_of(errors.text)] == ["3", "4", "5"]
    others = await http.get(f"/v2/collection/eft/download/csv/{bulk_id}?isError=false", headers=v2)
    assert [(r["line"], r["outcome"]) for r in rows_of(others.text)] == [
        ("2", "ACCEPTED"),
        ("6", "ACCEPTED"),
    ]


async def test_an_amount_of_thousands_of_digits_is_a_row_in_error(http, v2, profile):
    rows = csv_of(profile).splitlines()[:2]
    rows.append(rows[1].replace(",B-1,", ",B-9,").replace(",1000,", "," + "9" * 5000 + ","))
    response = await http.post(
        "/v2/payment/eft/upload/csv", content="\n".join(rows).encode(), headers=v2
    )
    assert response.status_code == 200
    summary = response.json()
    assert (summary["accepted"], summary["errors"]) == (1, 1)
    url = f"/v2/collection/eft/download/csv/{summary['bulkUploadId']}?isError=true"
    errors = rows_of((await http.get(url, headers=v2)).text)
    assert [(r["line"], r["error"]) for r in errors] == [
        ("3", "amountCents: Expected `int` <= 1000000000000000")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", "file: the CSV has no header row", id="empty"),
        pytest.param(HEADER, "file: the CSV has no rows", id="no-rows"),
        pytest.param(
            "profileCode,colour\nX,red", "file: unknown column 'colour'", id="unknown-column"
        ),
        pytest.param(
            "profileCode,profileCode,amountCents\nX,Y,1",
            "file: column 'profileCode' appears twice",
            id="repeated-column",
        ),
        pytest.param(
            'profileCode,amountCents,debtor.accountNumber,creditor.accountNumber\n"'
            + "a" * 200_000
            + '",1,1,1',
            "file: not a valid CSV (field larger than field limit (131072))",
            id="huge-field",
        ),
        pytest.param(
            "profileCode,amountCents\nX,1",
            "file: missing column 'debtor.accountNumber'",
            id="missing-column",
        ),
    ],
)
async def test_bad_files_are_400(http, v2, text, message):
    response = await http.post("/v2/payment/eft/upload/csv", content=text.encode(), headers=v2)
    assert response.json() == bad_request(message)


async def test_download_of_an_unknown_upload(http, v2):
    missing = await http.get(
        "/v2/collection/eft/download/csv/6f1c2b7e-0000-4000-8000-000000000000", headers=v2
    )
    assert missing.status_code == 404
    bad = await http.get("/v2/collection/eft/download/csv/abc", headers=v2)
    assert bad.json() == bad_request("The value 'abc' is not valid for bulkUploadId.")
    not_utf8 = await http.post("/v2/payment/eft/upload/csv", content=b"\xff\xfe", headers=v2)
    assert not_utf8.json() == bad_request("file: the CSV is not UTF-8")


async def test_a_file_over_1_mib_is_taken_up_to_4_mib(http, v2, profile):
    """Thousands of rows are more than a JSON body's 1 MiB; the CSV may have 4 MiB."""
    row = (
        f"{profile},B-{{}},PAYROLL,{'C' * 120},1000,2026-01-05T00:00:00Z,ONEDAY,false,"
        f"4052218811,051001,62000000001,250655,{'N' * 60}"
    )
    rows = [row.format(n) for n in range(4_000)]
    text = "\n".join([HEADER, *rows])
    assert len(text) > 1024 * 1024
    response = await http.post("/v2/payment/eft/upload/csv", content=text.encode(), headers=v2)
    assert response.status_code == 200, response.text
    assert (response.json()["accepted"], response.json()["errors"]) == (4_000, 0)
    too_big = (HEADER + "\n" + "x" * (4 * 1024 * 1024)).encode()
    response = await http.post("/v2/payment/eft/upload/csv", content=too_big, headers=v2)
    assert response.json() == bad_request("Request body is too large (limit 4194304 bytes).")
