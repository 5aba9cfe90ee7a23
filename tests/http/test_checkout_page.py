"""The checkout page shows each line's amount for its quantity, says it is a sandbox with the
test cards to use, and a failed payment's page says why and links back to try again."""

from __future__ import annotations

from tests.http.purchase_helpers import create, form


async def test_line_amounts_account_for_quantity(http, merchant, gw):
    products = [
        {"name": "Socks", "price": 1999, "quantity": 2},
        {"name": "Hat", "price": 500, "quantity": 1, "discount": 100},
    ]
    p = await create(http, gw, merchant, purchase={"currency": "ZAR", "products": products})
    page = (await http.get(f"/p/{p['id']}/")).text
    assert "2 &times; 19.99 ZAR" in page
    assert '<td class="amount">39.98 ZAR</td>' in page
    assert '<td class="amount">4.00 ZAR</td>' in page  # less its discount
    assert '<span id="total">43.98 ZAR</span>' in page  # the lines add up to the total


async def test_the_checkout_page_is_a_sandbox_with_its_test_cards(http, merchant, gw):
    p = await create(http, gw, merchant)
    page = (await http.get(f"/p/{p['id']}/")).text
    assert 'id="sandbox"' in page
    for number, outcome in (
        ("4444333322221111", "paid, no 3-D Secure"),
        ("4000000000009995", "card_declined, insufficient_funds"),
    ):
        assert f"<code>{number}</code></td><td>{outcome}" in page


async def test_a_failed_payment_says_why_and_links_back(http, merchant, gw):
    p = await create(http, gw, merchant)
    paid = await http.post(f"/p/{p['id']}/", data=form("4000000000009995"))
    assert paid.headers["location"] == f"/p/{p['id']}/result/"
    page = (await http.get(paid.headers["location"])).text
    assert 'data-status="error"' in page
    assert 'id="reason"' in page and "insufficient_funds" in page
    # one decline text: the reason said once, not in the message, its tail and a code
    reason = page.split('id="reason">')[1].split("</p>")[0]
    assert reason == "Card declined: insufficient funds. (insufficient_funds)"
    retry = (await http.get(f"/p/{p['id']}/")).text  # the form again, with the last decline
    assert retry.split('id="error">')[1].split("</p>")[0] == reason
    assert f'<a id="retry" href="/p/{p["id"]}/">' in page
    again = await http.post(f"/p/{p['id']}/", data=form())
    done = (await http.get(again.headers["location"])).text
    assert 'data-status="paid"' in done and 'id="retry"' not in done
