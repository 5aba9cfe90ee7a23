"""The console's lists at scale and its Find by id, through the control plane: a list counts
what matches, pages (`offset`), sorts and searches (`q`: e-mail, reference, amount); one
request finds an object of any kind by its id, and bad parameters answer 400."""

from __future__ import annotations

import pytest

from tests.http import purchase_helpers as purchases


async def test_a_list_counts_pages_sorts_and_searches(http, gw, merchant):
    made = []
    for n in range(5):
        body = purchases.purchase_body(
            merchant,
            client={"email": f"buyer{n}@shop.test"},
            reference=f"ORDER-{n}",
            purchase={"currency": "ZAR", "products": [{"name": "W", "price": 1000 + n}]},
        )
        created = await http.post("/api/v1/purchases/", json=body, headers=gw)
        assert created.status_code == 201, created.text
        made.append(created.json()["id"])
    base = f"/_emulator/merchants/{merchant['company_id']}/objects/purchases"

    async def ids(**params: str | int) -> tuple[int, list[str]]:
        answer = await http.get(base, params=params)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        return body["count"], [o["id"] for o in body["objects"]]

    newest = made[::-1]
    assert await ids(limit=2) == (5, newest[:2])
    assert await ids(limit=2, offset=2) == (5, newest[2:4])
    assert await ids(limit=2, offset=4) == (5, newest[4:])
    assert await ids(limit=2, offset=9) == (5, [])
    assert await ids(sort="oldest", limit=3) == (5, made[:3])
    assert await ids(q="BUYER3@shop") == (1, [made[3]])  # an e-mail, any case
    assert await ids(q="order-1") == (1, [made[1]])  # a reference
    assert await ids(q="10.02") == (1, [made[2]])  # an amount in rands
    assert await ids(q="1004") == (1, [made[4]])  # or in cents
    assert await ids(q="nothing like it") == (0, [])
    assert await ids(q="order", status="created", limit=1) == (5, newest[:1])


async def test_find_by_id_asks_once_whatever_the_kind(http, gw, merchant):
    client = await http.post("/api/v1/clients/", json={"email": "c@shop.test"}, headers=gw)
    assert client.status_code == 201, client.text
    client_id = client.json()["id"]
    found = await http.get(f"/_emulator/objects/{client_id.upper()}")
    assert found.status_code == 200, found.text
    assert (found.json()["kind"], found.json()["id"]) == ("clients", client_id)
    assert found.json()["merchant"] == merchant["company_id"]
    missing = await http.get("/_emulator/objects/no-such-object")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"offset": "-1"}, "'offset'"),
        ({"offset": "x"}, "'offset'"),
        ({"sort": "cheapest"}, "'sort'"),
        ({"q": "x" * 129}, "'q'"),
    ],
)
async def test_bad_list_parameters_answer_400(http, merchant, params, says):
    base = f"/_emulator/merchants/{merchant['company_id']}/objects/purchases"
    answer = await http.get(base, params=params)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid"
    assert says in answer.json()["error"]["message"]


async def test_find_as_a_search_answers_a_miss_without_an_error(http, gw, merchant):
    made = await purchases.create(http, gw, merchant)
    hit = await http.get("/_emulator/find", params={"id": made["id"]})
    assert hit.status_code == 200
    assert hit.json()["object"]["kind"] == "purchases"
    assert hit.json()["object"]["status"] == "created"
    miss = await http.get("/_emulator/find", params={"id": "no-such-object"})
    assert miss.status_code == 200
    assert miss.json() == {"id": "no-such-object", "object": None}
