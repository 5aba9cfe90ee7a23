"""``python -m bench.floor``: a create-purchase's statements captured and replayed (the SQL
floor), and the HTTP floor app answering as the emulator does."""

from __future__ import annotations

import httpx

from bench import floor
from bench.floor_app import create_app

BODY = (
    b'{"client": {"email": "a@bench.example"}, "brand_id": "6f1c1c7e-3d0e-4a57-9a57-6d2ee7a0f1a1",'
    b' "purchase": {"currency": "ZAR", "products": [{"name": "Bench", "price": 1000}]}}'
)


def test_the_sql_floor_replays_each_purchases_writes(capsys) -> None:
    """Every write of a create-purchase is captured (its client, the purchase, both events,
    the due job, the journal's entries) and replayed with its CPU per purchase."""
    floor.main(["--purchases", "64", "--no-served"])
    out = capsys.readouterr().out
    head, _, rest = out.partition("\n")
    per_purchase = float(head.split(": ")[1].split()[0])
    assert 6 <= per_purchase <= 12, head
    for statement in (
        "INSERT INTO clients",
        "INSERT INTO purchases",
        "INSERT INTO outbox",
        "INSERT INTO jobs",
        "INSERT INTO requests",
        "COMMIT",
    ):
        assert statement in rest, f"{statement} missing:\n{out}"
    replayed = next(x for x in out.splitlines() if "64 a transaction" in x)
    assert float(replayed.split("transaction")[1].split()[0]) > 0


async def test_the_http_floor_answers_as_told() -> None:
    """The floor app decodes the body into the emulator's own struct: 201 with the answer it
    was given, 400 when the struct refuses the body."""
    transport = httpx.ASGITransport(app=create_app(b'{"id": "x"}'))
    async with httpx.AsyncClient(transport=transport, base_url="http://floor") as http:
        taken = await http.post("/purchases", content=BODY)
        refused = await http.post("/purchases", content=b'{"brand_id": 5}')
    assert (taken.status_code, taken.content) == (201, b'{"id": "x"}')
    assert taken.headers["content-type"] == "application/json"
    assert refused.status_code == 400
