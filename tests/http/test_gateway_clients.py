"""Gateway clients through HTTP: the real app in-process on a real SQLite file."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.conftest import EPOCH_S

NEW = {
    "email": "payer@example.com",
    "full_name": "Thandi Nkosi",
    "phone": "+27821234567",
    "country": "ZA",
}


def client_body(client_id: str, **fields: Any) -> dict[str, Any]:
    """The whole client object as the gateway returns it."""
    body: dict[str, Any] = {
        "id": client_id,
        "type": "client",
        "created_on": EPOCH_S,
        "updated_on": EPOCH_S,
        "email": "",
        "cc": [],
        "bcc": [],
        "phone": "",
        "full_name": "",
        "personal_code": "",
        "street_address": "",
        "country": "",
        "city": "",
        "zip_code": "",
        "state": "",
        "shipping_street_address": "",
        "shipping_country": "",
        "shipping_city": "",
        "shipping_zip_code": "",
        "shipping_state": "",
        "legal_name": "",
        "brand_name": "",
        "registration_number": "",
        "tax_number": "",
        "bank_account": "",
        "bank_code": "",
        "client_type": None,
        "delivery_methods": [{"method": "email", "options": {}}],
    }
    body.update(fields)
    return body


async def create(http: httpx.AsyncClient, gw: dict[str, str], **fields: Any) -> dict[str, Any]:
    response = await http.post("/api/v1/clients/", json={**NEW, **fields}, headers=gw)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_create_returns_the_whole_client(http, gw):
    """POST /clients/ answers 201 with the full object, unset text fields empty."""
    response = await http.post("/api/v1/clients/", json=NEW, headers=gw)
    assert response.status_code == 201
    body = response.json()
    assert body == client_body(body["id"], **NEW)


async def test_get_returns_what_was_created(http, gw):
    """GET /clients/{id}/ returns the stored client."""
    created = await create(http, gw)
    response = await http.get(f"/api/v1/clients/{created['id']}/", headers=gw)
    assert response.status_code == 200
    assert response.json() == created


async def test_unknown_fields_are_ignored(http, gw):
    """Fields the gateway does not know are ignored, as the real service does."""
    created = await create(http, gw, favourite_colour="teal")
    assert "favourite_colour" not in created


async def test_duplicate_email_is_409(http, gw):
    """A second client with the same email (any case) is duplicate_client."""
    await create(http, gw)
    response = await http.post("/api/v1/clients/", json={"email": "PAYER@example.com"}, headers=gw)
    assert response.status_code == 409
    assert response.json() == {
        "email": {"message": "A client with this email already exists.", "code": "duplicate_client"}
    }


async def test_concurrent_duplicates_cannot_both_win(http, gw):
    """Ten racing creates with one email: exactly one 201, the rest 409."""
    responses = await asyncio.gather(
        *(
            http.post("/api/v1/clients/", json={"email": "race@example.com"}, headers=gw)
            for _ in range(10)
        )
    )
    assert sorted(r.status_code for r in responses) == [201] + [409] * 9


async def test_list_is_paginated_newest_first(http, gw):
    """GET /clients/ pages newest first with full next/previous URLs and no count."""
    ids = [(await create(http, gw, email=f"p{i}@example.com"))["id"] for i in range(5)]
    first = await http.get("/api/v1/clients/?page_size=2", headers=gw)
    assert first.status_code == 200
    body = first.json()
    assert set(body) == {"results", "next", "previous"}
    assert [c["id"] for c in body["results"]] == [ids[4], ids[3]]
    assert body["previous"] is None
    assert body["next"] == "http://emulator/api/v1/clients/?page_size=2&page=2"
    third = (await http.get(body["next"].replace("page=2", "page=3"), headers=gw)).json()
    assert [c["id"] for c in third["results"]] == [ids[0]]
    assert third["next"] is None
    assert third["previous"] == "http://emulator/api/v1/clients/?page_size=2&page=2"


async def test_page_past_the_end_is_404(http, gw):
    """A page beyond the last is 404 'Invalid page.' in the gateway dialect."""
    await create(http, gw)
    response = await http.get("/api/v1/clients/?page=2", headers=gw)
    assert response.status_code == 404
    assert response.json() == {"__all__": {"message": "Invalid page.", "code": "not_found"}}


async def test_list_filters_by_email(http, gw):
    """?email= returns only the client with that address (case-insensitive)."""
    await create(http, gw, email="one@example.com")
    two = await create(http, gw, email="two@example.com")
    body = (await http.get("/api/v1/clients/?email=TWO@example.com", headers=gw)).json()
    assert [c["id"] for c in body["results"]] == [two["id"]]


async def test_an_empty_email_filter_is_no_filter(http, gw):
    """?email= with no value lists every client, as django-filter ignores empty values."""
    one = await create(http, gw, email="one@example.com")
    two = await create(http, gw, email="two@example.com")
    body = (await http.get("/api/v1/clients/?email=", headers=gw)).json()
    assert {c["id"] for c in body["results"]} == {one["id"], two["id"]}


async def test_put_replaces_the_client(http, gw, runtime):
    """PUT sets every field; what is not given returns to its default."""
    created = await create(http, gw, city="Durban")
    runtime.clock.server.set_us(runtime.clock.now_us() + 60_000_000)
    response = await http.put(
        f"/api/v1/clients/{created['id']}/", json={"email": "new@example.com"}, headers=gw
    )
    assert response.status_code == 200
    assert response.json() == client_body(
        created["id"], email="new@example.com", updated_on=EPOCH_S + 60
    )


async def test_patch_changes_only_given_fields(http, gw):
    """PATCH keeps the other fields (email is still required, as the spec says)."""
    created = await create(http, gw, city="Durban")
    response = await http.patch(
        f"/api/v1/clients/{created['id']}/",
        json={"email": created["email"], "city": "Cape Town"},
        headers=gw,
    )
    assert response.status_code == 200
    assert response.json() == {**created, "city": "Cape Town"}


async def test_patch_without_email_is_required(http, gw):
    """Provider quirk kept: email is required on the PATCH body too."""
    created = await create(http, gw)
    response = await http.patch(f"/api/v1/clients/{created['id']}/", json={"city": "X"}, headers=gw)
    assert response.status_code == 400
    assert response.json() == {"email": {"message": "This field is required.", "code": "required"}}


async def test_patch_to_an_existing_email_is_409(http, gw):
    """Changing the email to another client's address is duplicate_client."""
    await create(http, gw, email="taken@example.com")
    other = await create(http, gw, email="other@example.com")
    response = await http.patch(
        f"/api/v1/clients/{other['id']}/", json={"email": "taken@example.com"}, headers=gw
    )
    assert response.status_code == 409


async def test_delete_then_get_is_404(http, gw):
    """DELETE answers 204 with no body; the client is gone afterwards."""
    created = await create(http, gw)
    response = await http.delete(f"/api/v1/clients/{created['id']}/", headers=gw)
    assert (response.status_code, response.content) == (204, b"")
    again = await http.get(f"/api/v1/clients/{created['id']}/", headers=gw)
    assert again.status_code == 404
    assert again.json() == {"__all__": {"message": "No such object", "code": "client_not_found"}}


async def test_another_merchants_client_is_404(http, gw):
    """A client of another merchant does not exist for this one."""
    other = (await http.post("/_emulator/merchants")).json()
    theirs = await create(http, {"Authorization": f"Bearer {other['api_key']}"})
    for method in ("GET", "PUT", "PATCH", "DELETE"):
        response = await http.request(
            method, f"/api/v1/clients/{theirs['id']}/", json={"email": "x@example.com"}, headers=gw
        )
        assert response.status_code == 404, method
        assert response.json()["__all__"]["code"] == "client_not_found"
    listed = (await http.get("/api/v1/clients/", headers=gw)).json()
    assert listed["results"] == []


async def test_a_path_id_that_is_not_a_uuid_is_invalid_uuid(http, gw):
    """/clients/not-a-uuid/ is a 400 invalid_uuid on id."""
    response = await http.get("/api/v1/clients/not-a-uuid/", headers=gw)
    assert response.status_code == 400
    assert response.json() == {
        "id": {"message": "'not-a-uuid' is not a valid UUID.", "code": "invalid_uuid"}
    }


async def test_recurring_tokens_is_an_empty_page(http, gw):
    """A client's recurring tokens list is a (for now empty) paginated list."""
    created = await create(http, gw)
    response = await http.get(f"/api/v1/clients/{created['id']}/recurring_tokens/", headers=gw)
    assert response.status_code == 200
    assert response.json() == {"results": [], "next": None, "previous": None}


async def test_recurring_tokens_of_an_unknown_client_is_404(http, gw):
    """Recurring tokens of a client that does not exist: client_not_found."""
    response = await http.get(
        "/api/v1/clients/00000000-0000-4000-8000-000000000000/recurring_tokens/", headers=gw
    )
    assert response.status_code == 404


async def test_feed_lists_the_clients_activity_newest_first(http, gw):
    """The feed shows what happened to the client, newest first."""
    created = await create(http, gw)
    await http.patch(
        f"/api/v1/clients/{created['id']}/", json={"email": created["email"]}, headers=gw
    )
    response = await http.get(f"/api/v1/clients/{created['id']}/feed/", headers=gw)
    assert response.status_code == 200
    body = response.json()
    assert [(e["event_type"], e["object_id"], e["created_on"]) for e in body["results"]] == [
        ("client.updated", created["id"], EPOCH_S),
        ("client.created", created["id"], EPOCH_S),
    ]
    assert (body["next"], body["previous"]) == (None, None)


async def test_trailing_slash_is_redirected(http, gw):
    """/clients without the slash redirects (method kept) to /clients/."""
    response = await http.get("/api/v1/clients", headers=gw)
    assert response.status_code == 307
    assert response.headers["location"] == "http://emulator/api/v1/clients/"


async def test_a_refused_change_writes_no_event(http, gw, runtime):
    """State and its events commit together: a 409 leaves no event behind."""
    await create(http, gw)
    await http.post("/api/v1/clients/", json={"email": NEW["email"]}, headers=gw)
    rows = await runtime.db.read(lambda tx: tx.all("SELECT event_type FROM outbox"))
    assert [r[0] for r in rows] == ["client.created"]


async def test_racing_patches_and_deletes_never_fail_badly(http, gw):
    """Concurrent PATCH and DELETE of one client: each answer is a success or a clean 404."""
    created = await create(http, gw)
    path = f"/api/v1/clients/{created['id']}/"
    calls = [
        http.patch(path, json={"email": created["email"], "city": f"c{i}"}, headers=gw)
        for i in range(8)
    ]
    calls.insert(4, http.delete(path, headers=gw))
    statuses = [r.status_code for r in await asyncio.gather(*calls)]
    assert statuses.count(204) == 1
    assert set(statuses) <= {200, 204, 404}
    assert (await http.get(path, headers=gw)).status_code == 404
