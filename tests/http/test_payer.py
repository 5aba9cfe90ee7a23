"""The payer: the checkout page's real form, direct post, 3-D Secure and every test card."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.conftest import EPOCH_S
from tests.http.purchase_helpers import (
    CARD,
    THREE_DS_FAIL,
    THREE_DS_PASS,
    create,
    events,
    form,
    get,
    pay,
    statuses,
)


class Forms(HTMLParser):
    """The forms of a page: action, method and the names of their inputs and buttons."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, object]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a["action"], "method": a["method"], "fields": {}})
        elif tag in ("input", "button") and self.forms and a.get("name"):
            fields = self.forms[-1]["fields"]
            assert isinstance(fields, dict)
            fields.setdefault(a["name"], a.get("value") or "")


def parse_forms(html: str) -> list[dict[str, object]]:
    parser = Forms()
    parser.feed(html)
    return parser.forms


async def submit_checkout(http, purchase_id: str, **values: str):
    """Open the checkout page, fill its form as a browser would and submit it."""
    page = await http.get(f"/p/{purchase_id}/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "<script" not in page.text
    (checkout,) = parse_forms(page.text)
    assert checkout["method"] == "post"
    fields = dict(checkout["fields"])  # type: ignore[call-overload]
    assert {"cardholder_name", "card_number", "expires", "cvc"} <= set(fields)
    fields.update(values)
    return await http.post(str(checkout["action"]), data=fields)


async def test_checkout_page_form_pays_and_redirects(http, merchant, gw, runtime):
    """Submitting the page's own form pays and redirects (303) to success_redirect."""
    p = await create(http, gw, merchant, success_redirect="https://shop.example/ok",
                     failure_redirect="https://shop.example/fail")  # fmt: skip
    response = await submit_checkout(http, p["id"], **form())
    assert response.status_code == 303
    assert response.headers["location"] == "https://shop.example/ok"
    paid = await get(http, gw, p["id"])
    assert paid["status"] == "paid"
    assert paid["viewed_on"] == EPOCH_S
    assert statuses(paid) == ["created", "viewed", "paid"]
    assert paid["payment"]["amount"] == 1000
    assert paid["transaction_data"]["payment_method"] == "visa"
    assert paid["transaction_data"]["extra"]["masked_pan"] == "444433******1111"
    kinds = [k for k, _ in await events(runtime, p["id"])]
    assert kinds == ["purchase.created", "purchase.viewed", "purchase.paid"]


async def test_checkout_decline_redirects_to_failure_and_can_retry(http, merchant, gw):
    """A declined card goes to failure_redirect; the payer may try again and pay."""
    p = await create(http, gw, merchant, failure_redirect="https://shop.example/fail")
    response = await submit_checkout(http, p["id"], **form("4000000000000002"))
    assert response.headers["location"] == "https://shop.example/fail"
    failed = await get(http, gw, p["id"])
    assert failed["status"] == "error"
    page = await http.get(f"/p/{p['id']}/")
    assert "do not honour" in page.text
    response = await submit_checkout(http, p["id"], **form())
    assert (await get(http, gw, p["id"]))["status"] == "paid"
    assert response.headers["location"] == f"/p/{p['id']}/result/"
    result = await http.get(response.headers["location"])
    assert 'data-status="paid"' in result.text


async def test_checkout_invalid_card_data_shows_the_form_again(http, merchant, gw):
    p = await create(http, gw, merchant)
    response = await submit_checkout(http, p["id"], **form("4444333322221112"))
    assert response.status_code == 400
    assert "Luhn" in response.text and "<form" in response.text
    assert (await get(http, gw, p["id"]))["status"] == "viewed"


DECLINES = [
    ("4000000000000002", "do_not_honour"),
    ("4000000000009995", "insufficient_funds"),
    ("4000000000000069", "expired_card"),
    ("4000000000000127", "invalid_card_number"),
    ("4000000000009987", "lost_card"),
    ("4000000000009979", "stolen_card"),
    ("4100000000000019", "suspected_fraud"),
    ("4000000000000101", "validation_cvc_invalid"),
    ("4000000000006975", "exceeds_withdrawal_limit"),
    ("4000000000000119", "issuer_not_available"),
    ("4242424242424242", "invalid_card_number"),  # any other Luhn-valid number
]


@pytest.mark.parametrize(("number", "reason"), DECLINES)
async def test_declining_test_cards(http, merchant, gw, runtime, number, reason):
    """Each decline card: status error, the attempt's error code is its reason."""
    p = await create(http, gw, merchant)
    body = (await pay(http, p["id"], card_number=number)).json()
    assert body["status"] == "error"
    (attempt,) = body["transaction_data"]["attempts"]
    assert attempt["successful"] is False
    assert attempt["error"]["code"] == reason
    assert f"reason: {reason}" in attempt["error"]["message"]
    assert [k for k, _ in await events(runtime, p["id"])][-1] == "purchase.payment_failure"


async def test_wrong_cvc_declines(http, merchant, gw):
    p = await create(http, gw, merchant)
    body = (await pay(http, p["id"], card_number=CARD, cvc="999")).json()
    assert body["transaction_data"]["attempts"][0]["error"]["code"] == "do_not_honour"
    assert "do_not_honour" in body["transaction_data"]["attempts"][0]["error"]["message"]


@pytest.mark.parametrize(
    ("card", "field", "message"),
    [
        ({"card_number": "4444333322221112"}, "card_number", "Card number is not valid (Luhn check failed)."),
        ({"card_number": "4444 3333 x"}, "card_number", "Card number must be 12 to 19 digits."),
        ({"card_number": "4" * 20}, "card_number", "Card number must be 12 to 19 digits."),
        ({"cardholder_name": "Jäne"}, "cardholder_name", "Cardholder name must be 1 to 30 Latin letters, spaces, apostrophes, dots or dashes."),
        ({"cardholder_name": "J" * 31}, "cardholder_name", "Cardholder name must be 1 to 30 Latin letters, spaces, apostrophes, dots or dashes."),
        ({"expires": "13/30"}, "expires", "Expiry must be MM/YY."),
        ({"expires": "12/25"}, "expires", "The card has expired."),
        ({"cvc": "12"}, "cvc", "CVC must be 3 or 4 digits."),
    ],
)  # fmt: skip
async def test_invalid_card_data(http, merchant, gw, card, field, message):
    """The spec's card field validation: 400 invalid_card_data naming the field (s2s)."""
    p = await create(http, gw, merchant)
    body = {**form(), **card}
    response = await http.post(f"/p/{p['id']}/direct_post/?s2s=true", json=body)
    assert response.status_code == 400
    assert response.json() == {
        "status": "error",
        "error": {"code": "invalid_card_data", "message": message},
    }
    assert (await get(http, gw, p["id"]))["status"] == "created"


async def test_expiry_this_month_is_accepted(http, merchant, gw):
    p = await create(http, gw, merchant)
    assert (await pay(http, p["id"], expires="01/26")).json()["status"] == "paid"


async def test_whitelist_excludes_the_card(http, merchant, gw):
    """A card whose method payment_method_whitelist excludes: payment_method_not_available."""
    p = await create(http, gw, merchant, payment_method_whitelist=["mastercard"])
    response = await http.post(f"/p/{p['id']}/direct_post/?s2s=true", json=form())
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "payment_method_not_available"
    ok = await http.post(f"/p/{p['id']}/direct_post/?s2s=true", json=form(THREE_DS_PASS))
    assert ok.json()["status"] == "3DS_required"


async def test_direct_post_s2s_executes_and_is_single_use(http, merchant, gw):
    """s2s JSON: {"status": "executed"}; the URL then answers direct_post_expired."""
    p = await create(http, gw, merchant)
    response = await http.post(p["direct_post_url"] + "?s2s=true", json=form())
    assert response.status_code == 200
    assert response.json() == {"status": "executed"}
    assert (await get(http, gw, p["id"]))["transaction_data"]["flow"] == "direct_post"
    again = await http.post(p["direct_post_url"] + "?s2s=true", json=form())
    assert again.status_code == 400
    assert again.json() == {
        "status": "error",
        "error": {
            "code": "direct_post_expired",
            "message": "Direct post URL has expired or has already been used.",
        },
    }


async def test_direct_post_s2s_authorized_and_error(http, merchant, gw):
    held = await create(http, gw, merchant, skip_capture=True)
    response = await http.post(held["direct_post_url"] + "?s2s=true", json=form())
    assert response.json() == {"status": "authorized"}
    failing = await create(http, gw, merchant)
    response = await http.post(
        failing["direct_post_url"] + "?s2s=true", json=form("4000000000009995")
    )
    assert response.status_code == 400
    assert response.json()["status"] == "error"
    assert response.json()["error"]["code"] == "card_declined"


async def test_direct_post_expires_after_15_minutes(http, merchant, gw):
    p = await create(http, gw, merchant)
    await http.post("/_emulator/clock/advance", json={"seconds": 901})
    response = await http.post(p["direct_post_url"] + "?s2s=true", json=form())
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "direct_post_expired"


async def test_direct_post_form_redirects(http, merchant, gw):
    """The form variant (urlencoded, remember_card) redirects like the checkout page."""
    p = await create(http, gw, merchant, success_redirect="https://shop.example/ok")
    response = await http.post(p["direct_post_url"], data={**form(), "remember_card": "on"})
    assert response.status_code == 303
    assert response.headers["location"] == "https://shop.example/ok"
    assert (await get(http, gw, p["id"]))["is_recurring_token"] is True


async def test_3ds_challenge_page_passes(http, merchant, gw):
    """5555...4444: the payer is sent to a challenge page; completing it pays."""
    p = await create(http, gw, merchant, success_redirect="https://shop.example/ok")
    response = await submit_checkout(http, p["id"], **form(THREE_DS_PASS))
    assert response.status_code == 303
    challenge_url = response.headers["location"]
    assert challenge_url.startswith(f"/p/{p['id']}/3ds/")
    page = await http.get(challenge_url)
    assert "555555******4444" in page.text
    (challenge,) = parse_forms(page.text)
    done = await http.post(str(challenge["action"]), data={"action": "complete"})
    assert done.headers["location"] == "https://shop.example/ok"
    paid = await get(http, gw, p["id"])
    assert paid["status"] == "paid" and paid["transaction_data"]["payment_method"] == "mastercard"
    stale = await http.post(str(challenge["action"]), data={"action": "complete"})
    assert stale.status_code == 409


async def test_3ds_failing_card(http, merchant, gw):
    """4000 0084 0000 1629: the challenge fails with 3ds_authentication_failed."""
    p = await create(http, gw, merchant)
    response = await http.post(p["direct_post_url"] + "?s2s=true", json=form(THREE_DS_FAIL))
    body = response.json()
    assert body["status"] == "3DS_required" and body["method"] == "GET"
    assert body["url"].startswith(f"http://emulator/p/{p['id']}/3ds/")
    page = await http.get(body["url"])
    (challenge,) = parse_forms(page.text)
    await http.post(str(challenge["action"]), data={"action": "complete"})
    failed = await get(http, gw, p["id"])
    assert failed["status"] == "error"
    assert failed["transaction_data"]["attempts"][0]["error"]["code"] == "3ds_authentication_failed"


async def test_3ds_cancelled_by_the_payer_fails(http, merchant, gw):
    p = await create(http, gw, merchant)
    response = await submit_checkout(http, p["id"], **form(THREE_DS_PASS))
    (challenge,) = parse_forms((await http.get(response.headers["location"])).text)
    await http.post(str(challenge["action"]), data={"action": "cancel"})
    failed = await get(http, gw, p["id"])
    assert failed["transaction_data"]["attempts"][0]["error"]["code"] == "3ds_authentication_failed"


@pytest.mark.parametrize(("number", "status"), [(THREE_DS_PASS, "paid"), (THREE_DS_FAIL, "error")])
async def test_control_plane_pay_completes_3ds(http, merchant, gw, number, status):
    """/_emulator/purchases/{id}/pay completes the challenge with the card's result."""
    p = await create(http, gw, merchant)
    body = (await pay(http, p["id"], card_number=number)).json()
    assert body["status"] == status


async def test_control_plane_pay_defaults_and_errors(http, merchant, gw):
    p = await create(http, gw, merchant)
    response = await http.post(f"/_emulator/purchases/{p['id']}/pay")
    assert response.status_code == 200
    assert response.json()["transaction_data"]["extra"]["masked_pan"] == "444433******1111"
    missing = await http.post("/_emulator/purchases/00000000-0000-4000-8000-000000000000/pay")
    assert missing.status_code == 404
    assert missing.json() == {"error": {"code": "purchase_not_found", "message": "No such object"}}
    bad = await http.post(f"/_emulator/purchases/{p['id']}/pay", json={"cvc": 123})
    assert bad.status_code == 400


async def test_unknown_purchase_pages_are_404(http):
    for path in ("/p/nope/", "/p/00000000-0000-4000-8000-000000000000/"):
        response = await http.get(path)
        assert response.status_code == 404
        assert "No such object" in response.text


@pytest.mark.parametrize("number", ["4444333322221111", "4000000000000259", THREE_DS_PASS])
async def test_approving_cards_pay(http, merchant, gw, number):
    """The default card, the slow-capture card (paid at once without skip_capture) and the
    3-D Secure card that passes: paid, with the card's method in transaction_data."""
    p = await create(http, gw, merchant)
    body = (await pay(http, p["id"], card_number=number)).json()
    assert body["status"] == "paid"
    assert body["transaction_data"]["attempts"][0]["successful"] is True
    assert body["transaction_data"]["payment_method"] == (
        "mastercard" if number[0] == "5" else "visa"
    )


async def test_a_head_request_does_not_make_the_purchase_viewed(http, merchant, gw):
    from tests.http.purchase_helpers import create, get

    p = await create(http, gw, merchant)
    assert (await http.head(f"/p/{p['id']}/")).status_code == 200
    assert (await get(http, gw, p["id"]))["status"] == "created"
    await http.get(f"/p/{p['id']}/")
    assert (await get(http, gw, p["id"]))["status"] == "viewed"
