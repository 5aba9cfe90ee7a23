"""Balance, turnover and payment methods through HTTP."""

from __future__ import annotations

import pytest

from emulator.core.ledger import repo as ledger
from emulator.core.ledger.model import LedgerEntry
from tests.conftest import EPOCH_S
from tests.http.purchase_helpers import advance, create, pay


async def paid(http, gw, merchant, price: int, currency: str = "ZAR", country: str = "ZA", **card):
    p = await create(
        http, gw, merchant,
        client={"email": f"{country.lower()}@example.com", "country": country},
        purchase={"currency": currency, "products": [{"name": "W", "price": price}]},
    )  # fmt: skip
    body = (await pay(http, p["id"], **card)).json()
    assert body["status"] == "paid"
    return body


async def balance(http, gw, query: str = ""):
    response = await http.get(f"/api/v1/account/json/balance/{query}", headers=gw)
    assert response.status_code == 200, response.text
    return response.json()


def money(total: int, pending: int = 0) -> dict[str, int]:
    return {
        "balance": total, "fee_sell": 0, "reserved": 0, "gross_balance": total,
        "pending_outgoing": pending, "available_balance": total - pending,
    }  # fmt: skip


async def test_balance_per_currency(http, merchant, gw):
    """Paid purchases add, refunds subtract, per currency."""
    assert await balance(http, gw) == {}
    await paid(http, gw, merchant, 1000)
    eur = await paid(http, gw, merchant, 700, currency="EUR", country="DE")
    await http.post(f"/api/v1/purchases/{eur['id']}/refund/", json={"amount": 200}, headers=gw)
    assert await balance(http, gw) == {"EUR": money(500), "ZAR": money(1000)}


async def test_balance_filters_take_several_values(http, merchant, gw):
    await paid(http, gw, merchant, 1000, country="ZA")
    await paid(http, gw, merchant, 300, country="GB")
    await paid(http, gw, merchant, 50, country="US", card_number="5555555555554444")
    assert await balance(http, gw, "?country=ZA") == {"ZAR": money(1000)}
    assert await balance(http, gw, "?country=ZA&country=GB") == {"ZAR": money(1300)}
    assert await balance(http, gw, "?country=GB,US") == {"ZAR": money(350)}
    assert await balance(http, gw, "?payment_method=mastercard") == {"ZAR": money(50)}
    assert await balance(http, gw, "?currency=EUR") == {}
    assert await balance(
        http, gw, f"?brand={merchant['brand_id']}&product=purchase&flow=payform"
    ) == {"ZAR": money(1350)}
    assert await balance(http, gw, "?tokenized=true") == {}
    assert (
        await balance(
            http, gw, "?tokenized=false&terminal_uid=00000000-0000-4000-8000-000000000000"
        )
        == {}
    )


async def test_balance_from_a_past_instant(http, merchant, gw):
    """from: the balance as it was at that Unix time."""
    await paid(http, gw, merchant, 1000)
    await advance(http, 3600)
    await paid(http, gw, merchant, 250)
    assert await balance(http, gw, f"?from={EPOCH_S}") == {"ZAR": money(1000)}
    assert await balance(http, gw, f"?from={EPOCH_S - 1}") == {}
    assert await balance(http, gw) == {"ZAR": money(1250)}


async def test_pending_payouts_are_pending_outgoing(http, merchant, gw, runtime):
    """A pending payout row (as payouts record them) is pending_outgoing until it settles."""
    await paid(http, gw, merchant, 5000)
    payout = LedgerEntry(kind="payout", state="pending", currency="ZAR", amount=-1200,
                         object_type="payout", object_id="p-1", brand_id=merchant["brand_id"])  # fmt: skip
    now_us = runtime.clock.now_us()
    await runtime.db.write(lambda tx: ledger.record(tx, merchant["company_id"], payout, now_us))
    assert await balance(http, gw) == {"ZAR": money(5000, pending=1200)}
    await advance(http, 60)
    settle_us = runtime.clock.now_us()
    await runtime.db.write(
        lambda tx: ledger.set_state(
            tx, merchant["company_id"], "p-1", "payout", "settled", settle_us
        )
    )
    assert await balance(http, gw) == {"ZAR": money(3800)}
    # as of before the settlement, the payout was still on its way out
    assert await balance(http, gw, f"?from={EPOCH_S + 30}") == {"ZAR": money(5000, pending=1200)}
    turnover = (await http.get("/api/v1/account/json/turnover/", headers=gw)).json()
    assert turnover["outgoing"] == {"turnover": 1200, "fee_sell": 0, "count": {"all": 1}}


async def test_void_payout_leaves_no_trace(http, merchant, gw, runtime):
    payout = LedgerEntry(kind="payout", state="pending", currency="ZAR", amount=-100,
                         object_type="payout", object_id="p-2")  # fmt: skip
    now_us = runtime.clock.now_us()
    await runtime.db.write(lambda tx: ledger.record(tx, merchant["company_id"], payout, now_us))
    await runtime.db.write(
        lambda tx: ledger.set_state(tx, merchant["company_id"], "p-2", "payout", "void", now_us)
    )
    assert await balance(http, gw) == {"ZAR": money(0)}


async def test_turnover_in_a_period(http, merchant, gw):
    """Turnover is the document's TurnoverPair: incoming and outgoing sums and counts in
    [from, to)."""
    first = await paid(http, gw, merchant, 1000)
    await advance(http, 100)
    await paid(http, gw, merchant, 400)
    await http.post(f"/api/v1/purchases/{first['id']}/refund/", json={"amount": 100}, headers=gw)
    response = await http.get("/api/v1/account/json/turnover/", headers=gw)
    assert response.json() == {
        "incoming": {"turnover": 1400, "fee_sell": 0, "count": {"all": 2}},
        "outgoing": {"turnover": 100, "fee_sell": 0, "count": {"all": 1}},
    }
    window = await http.get(
        f"/api/v1/account/json/turnover/?from={EPOCH_S + 50}&to={EPOCH_S + 200}", headers=gw
    )
    assert window.json()["incoming"] == {"turnover": 400, "fee_sell": 0, "count": {"all": 1}}
    early = await http.get(f"/api/v1/account/json/turnover/?to={EPOCH_S + 1}", headers=gw)
    assert early.json()["outgoing"]["count"] == {"all": 0}


async def test_turnover_of_several_currencies_follows_the_currency_filter(http, merchant, gw):
    """With money in several currencies the answer is still one pair: ``currency`` picks the
    currencies it sums (the pair names none), as the document's filter says."""
    await paid(http, gw, merchant, 1000)
    await paid(http, gw, merchant, 700, currency="EUR", country="DE")

    async def turnover(query: str) -> dict:
        response = await http.get(f"/api/v1/account/json/turnover/{query}", headers=gw)
        assert response.status_code == 200, response.text
        return response.json()

    none = {"turnover": 0, "fee_sell": 0, "count": {"all": 0}}
    assert await turnover("?currency=EUR") == {
        "incoming": {"turnover": 700, "fee_sell": 0, "count": {"all": 1}},
        "outgoing": none,
    }
    assert await turnover("?currency=ZAR") == {
        "incoming": {"turnover": 1000, "fee_sell": 0, "count": {"all": 1}},
        "outgoing": none,
    }
    assert await turnover("?currency=ZAR,EUR") == await turnover("")
    assert (await turnover(""))["incoming"] == {
        "turnover": 1700,
        "fee_sell": 0,
        "count": {"all": 2},
    }
    assert await turnover("?currency=USD") == {"incoming": none, "outgoing": none}


@pytest.mark.parametrize(
    ("query", "field", "code"),
    [
        ("?currency=XXY", "currency", "invalid"),
        ("?brand=nope", "brand", "invalid_uuid"),
        ("?terminal_uid=1", "terminal_uid", "invalid_uuid"),
        ("?country=UK", "country", "invalid"),
        ("?payment_method=cash", "payment_method", "invalid"),
        ("?product=gift", "product", "invalid"),
        ("?flow=fax", "flow", "invalid"),
        ("?tokenized=maybe", "tokenized", "invalid"),
        ("?from=yesterday", "from", "invalid"),
        ("?from=-5", "from", "invalid"),
    ],
)
async def test_balance_bad_filters(http, gw, query, field, code):
    response = await http.get(f"/api/v1/account/json/balance/{query}", headers=gw)
    assert response.status_code == 400
    assert response.json()[field]["code"] == code


async def test_payment_methods(http, merchant, gw):
    response = await http.get(
        "/api/v1/payment_methods/",
        params={"brand_id": merchant["brand_id"], "currency": "ZAR"},
        headers=gw,
    )
    assert response.status_code == 200
    assert response.json() == {
        "available_payment_methods": ["visa", "mastercard"],
        "by_country": {"any": ["card"]},
        "country_names": {"any": "Other"},
        "names": {"visa": "Visa", "mastercard": "Mastercard"},
        "logos": {
            "visa": "/static/images/icon-visa.svg",
            "mastercard": "/static/images/icon-mastercard.svg",
        },
        "card_methods": ["visa", "mastercard"],
    }


async def test_payment_methods_needs_brand_and_currency(http, merchant, gw):
    response = await http.get("/api/v1/payment_methods/", headers=gw)
    assert response.status_code == 400
    assert response.json() == {
        "brand_id": {"message": "This field is required.", "code": "required"},
        "currency": {"message": "This field is required.", "code": "required"},
    }
    other = await http.get(
        "/api/v1/payment_methods/",
        params={"brand_id": "00000000-0000-4000-8000-000000000000", "currency": "ZAR"}, headers=gw,
    )  # fmt: skip
    assert other.json() == {"brand_id": {"message": "No brand with this id.", "code": "invalid"}}


async def test_turnover_to_before_from_is_a_400(http, gw):
    response = await http.get("/api/v1/account/json/turnover/?from=2000&to=1000", headers=gw)
    assert response.status_code == 400
    assert response.json()["to"]["code"] == "invalid"
