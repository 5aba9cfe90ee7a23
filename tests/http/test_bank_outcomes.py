"""Collection outcomes on the clock: test accounts, action dates on business days, settle."""

from __future__ import annotations

import pytest

from tests.conftest import token_for
from tests.http.bank_helpers import advance, advance_to, debtor, eft_body


@pytest.fixture
def profile(merchant):
    return merchant["profiles"][0]["profileCode"]


async def create(http, v2, profile, account, **changes):
    body = eft_body(profile, reference=f"R-{account}", debtor=debtor(account), **changes)
    response = await http.post("/v2/collection/eft", json=body, headers=v2)
    assert response.status_code == 201, response.text
    return response.json()


async def fresh_token(http, merchant):
    token = await token_for(http, merchant["client_id"], merchant["client_secret"])
    return {"Authorization": f"Bearer {token}"}


async def status_of(http, v2, collection):
    response = await http.get(f"/v2/collection/eft/{collection['id']}/status", headers=v2)
    return response.json()


@pytest.mark.parametrize(
    ("account", "at_39s", "at_41s", "at_81s", "code", "reason"),
    [
        pytest.param("110000001", "PENDING", "COMPLETED", "COMPLETED", None, None, id="completed"),
        pytest.param(
            "110000002", "PENDING", "UNPAID", "UNPAID", "02", "not provided for", id="unpaid"
        ),
        pytest.param(
            "210000001",
            "PENDING",
            "COMPLETED",
            "DISPUTED",
            "30",
            "no authority to debit",
            id="disputed",
        ),
    ],
)
async def test_fast_test_accounts(http, v2, profile, account, at_39s, at_41s, at_81s, code, reason):
    """The 40-second test accounts move as DESIGN.md says when the clock advances."""
    created = await create(http, v2, profile, account)
    await advance(http, 39)
    assert (await status_of(http, v2, created))["status"] == at_39s
    await advance(http, 2)
    assert (await status_of(http, v2, created))["status"] == at_41s
    await advance(http, 40)
    final = await status_of(http, v2, created)
    assert final["status"] == at_81s
    assert (final["reasonCode"], final["reason"]) == (code, reason)


async def test_whole_instruction_rejected_at_once(http, v2, profile):
    """910000001: the answer itself is REJECTED."""
    created = await create(http, v2, profile, "910000001")
    assert created["status"] == "REJECTED"
    assert created["reason"] == "instruction rejected by the bank"


async def test_rejected_in_the_batch_on_the_action_date(http, v2, profile, merchant):
    """910000002: PENDING until the action date is processed (18:00 SAST), then REJECTED."""
    created = await create(http, v2, profile, "910000002")
    await advance_to(http, "2026-01-06T15:59:59Z")
    v2 = await fresh_token(http, merchant)  # the first one lived 24 hours
    assert (await status_of(http, v2, created))["status"] == "PENDING"
    await advance_to(http, "2026-01-06T16:00:00Z")
    final = await status_of(http, v2, created)
    assert (final["status"], final["reason"]) == ("REJECTED", "rejected in the batch")


async def test_any_other_account_completes_on_its_action_date_with_a_statement(
    http, v2, profile, merchant
):
    """Any other account: COMPLETED at 18:00 SAST on the action date, with its statementId."""
    created = await create(http, v2, profile, "62000000001")
    await advance_to(http, "2026-01-06T15:59:59Z")
    v2 = await fresh_token(http, merchant)  # the first one lived 24 hours
    assert (await status_of(http, v2, created))["status"] == "PENDING"
    await advance_to(http, "2026-01-06T16:00:00Z")
    final = await status_of(http, v2, created)
    assert final["status"] == "COMPLETED"
    assert final["statementId"] is not None


async def test_a_days_completions_share_one_statement(http, v2, profile, merchant):
    """Collections completing in one advance on one action date land on one statement of the
    creditor's account, which lists them all."""
    made = [
        await create(http, v2, profile, "62000000001", externalReference=f"SHARED-{n}")
        for n in range(4)
    ]
    await advance_to(http, "2026-01-06T16:00:00Z")
    v2 = await fresh_token(http, merchant)
    done = [await status_of(http, v2, c) for c in made]
    assert {c["status"] for c in done} == {"COMPLETED"}
    [statement_id] = {c["statementId"] for c in done}
    account = done[0]["creditor"]["accountNumber"]
    statement = await http.get(f"/v2/bankaccountstatement/{account}/{statement_id}", headers=v2)
    assert statement.status_code == 200, statement.text
    assert len(statement.json()["lines"]) == 4
    assert statement.json()["totalCents"] == 4 * made[0]["amountCents"]


@pytest.mark.parametrize(
    ("service", "submitted", "requested", "action"),
    [
        pytest.param("SAMEDAY", None, None, "2026-01-05", id="sameday-before-cutoff"),
        pytest.param("ONEDAY", None, None, "2026-01-06", id="oneday"),
        pytest.param("TWODAY", None, None, "2026-01-07", id="twoday"),
        pytest.param(
            "SAMEDAY", "2026-01-05T12:30:00Z", None, "2026-01-06", id="sameday-after-cutoff"
        ),
        pytest.param(
            "ONEDAY", "2026-01-09T10:00:00Z", None, "2026-01-12", id="friday-oneday-to-monday"
        ),
        pytest.param(
            "ONEDAY", "2026-01-10T08:00:00Z", None, "2026-01-13", id="saturday-counts-from-monday"
        ),
        pytest.param(
            "ONEDAY", None, "2026-01-20T00:00:00Z", "2026-01-20", id="later-requested-date"
        ),
        pytest.param(
            "ONEDAY", None, "2026-01-04T00:00:00Z", "2026-01-06", id="past-requested-date"
        ),
        pytest.param("ONEDAY", None, "2026-01-17T00:00:00Z", "2026-01-19", id="saturday-requested"),
        pytest.param(
            "ONEDAY", None, "2026-04-03T08:00:00Z", "2026-04-07", id="good-friday-and-family-day"
        ),
        pytest.param("ONEDAY", None, "2026-12-25T08:00:00Z", "2026-12-28", id="christmas"),
    ],
)
async def test_action_dates_use_south_african_business_days(
    http, merchant, profile, service, submitted, requested, action
):
    """Service type, the 14:00 SAST cut-off, weekends and public holidays set the action date."""
    if submitted is not None:
        await advance_to(http, submitted)
    token = await token_for(http, merchant["client_id"], merchant["client_secret"])
    changes = {"serviceType": service}
    if requested is not None:
        changes["collectionDate"] = requested
    headers = {"Authorization": f"Bearer {token}"}
    created = await create(http, headers, profile, "62000000001", **changes)
    assert created["actionDate"] == action


async def test_settle_acts_as_the_bank_now(http, v2, profile):
    """/_emulator/collections/{id}/settle: COMPLETED by default, then DISPUTED; a later job
    for it does nothing."""
    created = await create(http, v2, profile, "110000002")
    settled = await http.post(f"/_emulator/collections/{created['id']}/settle")
    assert settled.status_code == 200
    assert settled.json()["status"] == "COMPLETED"
    disputed = await http.post(
        f"/_emulator/collections/{created['id']}/settle", json={"status": "DISPUTED"}
    )
    assert disputed.json()["status"] == "DISPUTED"
    await advance(http, 60)  # the planned UNPAID no longer applies
    assert (await status_of(http, v2, created))["status"] == "DISPUTED"


async def test_settle_refuses_what_the_state_does_not_allow(http, v2, profile):
    created = await create(http, v2, profile, "110000001")
    response = await http.post(
        f"/_emulator/collections/{created['id']}/settle", json={"status": "DISPUTED"}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "invalid_state"
    unknown = await http.post("/_emulator/collections/nope/settle")
    assert unknown.status_code == 404
    bad = await http.post(f"/_emulator/collections/{created['id']}/settle", json={"status": "X"})
    assert bad.status_code == 400


async def test_completed_collections_are_lines_of_their_statement(http, v2, profile, merchant):
    """Two completions on one action date share a statement; its lines are the collections."""
    first = await create(http, v2, profile, "110000001")
    body = eft_body(profile, reference="R-2", debtor=debtor("210000001"), amountCents=5_000)
    second = (await http.post("/v2/collection/eft", json=body, headers=v2)).json()
    pending = await create(http, v2, profile, "62000000001")
    await advance(http, 41)
    done = await status_of(http, v2, first)
    assert (await status_of(http, v2, second))["statementId"] == done["statementId"]
    account = done["creditor"]["accountNumber"]
    response = await http.get(
        f"/v2/bankaccountstatement/{account}/{done['statementId']}", headers=v2
    )
    assert response.status_code == 200
    statement = response.json()
    assert (statement["id"], statement["accountNumber"], statement["statementDate"]) == (
        done["statementId"],
        account,
        "2026-01-06",
    )
    assert [line["collectionId"] for line in statement["lines"]] == [first["id"], second["id"]]
    assert statement["totalCents"] == 12_345 + 5_000
    assert pending["id"] not in [line["collectionId"] for line in statement["lines"]]
    wrong_account = await http.get(
        f"/v2/bankaccountstatement/999/{done['statementId']}", headers=v2
    )
    assert wrong_account.status_code == 404
    not_uuid = await http.get(f"/v2/bankaccountstatement/{account}/abc", headers=v2)
    assert not_uuid.status_code == 400
    await advance(http, 40)  # 210000001 is disputed: reversed, its line no longer counts
    response = await http.get(
        f"/v2/bankaccountstatement/{account}/{done['statementId']}", headers=v2
    )
    statement = response.json()
    assert [line["status"] for line in statement["lines"]] == ["COMPLETED", "DISPUTED"]
    assert statement["totalCents"] == 12_345
