"""The console's create forms and object actions in headless Chromium against a live emulator
(issue 31): a tester creates every object the APIs create from a form with its defaults, each
showing its request as curl and appearing in its list with its state; chooses each outcome (a
declining card, an unpaid and a dispute code of the schedule, a payout card as the payee) and
sees the reason on the status-history line and in the list; and finds the actions an object's
state does not allow disabled with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from emulator.testing import EmulatorServer
from tests.pages.test_console_in_a_browser import WAIT, click, find, press, text_of

PENDING_CARD = "5555555555554444"  # a payout card: pending, settles after three days


def until(browser: WebDriver, check: Any) -> Any:
    """Wait for ``check(browser)``, looking every 50 ms (the page answers in a few)."""
    ignored = (StaleElementReferenceException,)
    return WebDriverWait(browser, WAIT, 0.05, ignored_exceptions=ignored).until(check)


def wait_text(browser: WebDriver, element_id: str, expected: str) -> None:
    until(browser, lambda b: text_of(b, element_id) == expected)


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def open_console(server: EmulatorServer, browser: WebDriver, name: str) -> dict[str, Any]:
    made = httpx.post(f"{server.url}/_emulator/merchants", json={"name": name})
    assert made.status_code == 201, made.text
    merchant: dict[str, Any] = made.json()
    browser.get(f"{server.url}/_emulator/")
    option = f"option[value='{merchant['company_id']}']"
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, option))
    Select(browser.find_element(By.ID, "merchant")).select_by_value(merchant["company_id"])
    until(browser, lambda b: name in text_of(b, "create-of"))
    return merchant


def create(browser: WebDriver, what: str, **fields: Any) -> str:
    """Fill the create form for ``what`` (fields by name, the rest their defaults), press
    Create and answer what the result line says (the created id, or the registration)."""
    Select(browser.find_element(By.ID, "create-what")).select_by_value(what)
    until(browser, lambda b: b.find_elements(By.ID, f"cf-{next(iter(fields), 'x')}") or not fields)
    for name, value in fields.items():
        box = browser.find_element(By.ID, f"cf-{name}")
        if box.tag_name == "select":
            until(browser, lambda b, n=name: b.find_elements(By.CSS_SELECTOR, f"#cf-{n} option"))
            Select(box).select_by_value(value)
        elif box.get_attribute("type") == "checkbox":
            if box.is_selected() != value:
                box.click()
        else:
            box.clear()
            box.send_keys(value)
    before = text_of(browser, "create-result")
    press(browser, browser.find_element(By.ID, "create-send"))
    until(browser, lambda b: text_of(b, "create-result") not in ("", before))
    said = text_of(browser, "create-result")
    assert "error" not in (browser.find_element(By.ID, "create-result").get_attribute("class")), (
        said
    )
    return said


def created_id(browser: WebDriver, kind: str, said: str) -> str:
    """The id the result line names; its detail opens with the server's status, and its row
    in the list shows it too."""
    object_id = said.split()[2].rstrip(":.")
    wait_text(browser, "detail-id", object_id)
    found = httpx.get(
        f"{browser.current_url.split('/_emulator')[0]}/_emulator/objects/{kind}/{object_id}"
    )
    status = found.json()["status"] or ""
    assert said.endswith(f"{object_id}: {status}." if status else f"{object_id}.")
    until(browser, lambda b: text_of(b, "detail-status") == status)
    row = f"#object-list tr[data-id='{object_id}']"
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, row))
    assert status in browser.find_element(By.CSS_SELECTOR, f"{row} td.status").text
    return object_id


def test_a_tester_creates_every_object_from_the_forms(server, browser):
    merchant = open_console(server, browser, "Creating")
    base = server.url

    # a purchase on hold, its reference and callback to the sink; the curl has the real key
    Select(browser.find_element(By.ID, "create-what")).select_by_value("purchase")
    browser.find_element(By.ID, "cf-reference").send_keys("ORDER-7")
    curl = text_of(browser, "create-curl")
    assert (
        f"Authorization: Bearer {merchant['api_key']}" in curl and '"reference":"ORDER-7"' in curl
    )
    said = create(browser, "purchase", price="5.00", quantity="3", skip_capture=True)
    purchase = created_id(browser, "purchases", said)
    made = httpx.get(f"{base}/_emulator/objects/purchases/{purchase}").json()["object"]
    assert (made["purchase"]["total"], made["reference"], made["skip_capture"]) == (
        1500,
        "ORDER-7",
        True,
    )
    assert made["success_callback"].endswith("/_emulator/sink/qa")
    # held when paid, then captured through the gateway; each action's request is shown
    assert f"/_emulator/purchases/{purchase}/pay" in browser.find_element(
        By.ID, "action-curl"
    ).get_attribute("textContent")
    click(browser, "pay")
    wait_text(browser, "detail-status", "hold")
    until(
        browser,
        lambda b: (
            f"/api/v1/purchases/{purchase}/capture/"
            in b.find_element(By.ID, "action-curl").get_attribute("textContent")
        ),
    )
    click(browser, "capture")
    wait_text(browser, "detail-status", "paid")

    client = created_id(browser, "clients", create(browser, "client", email="ann@example.com"))
    payout = created_id(browser, "payouts", create(browser, "payout", amount="12.50"))
    assert httpx.get(f"{base}/_emulator/objects/payouts/{payout}").json()["status"] == "initialized"

    # a webhook to a sink and a v2 callback URL: listed as registered
    assert "registered" in create(browser, "webhook", all_events=False, events="purchase.paid")
    until(browser, lambda b: "purchase.paid" in text_of(b, "create-endpoints"))
    Select(browser.find_element(By.ID, "create-what")).select_by_value("callback")
    assert "TOKEN=$(curl" in text_of(browser, "create-curl")  # the bank's token, fetched first
    assert "registered" in create(browser, "callback", callbackType="DEBICHECK_MANDATE")
    until(browser, lambda b: "DEBICHECK_MANDATE V2" in text_of(b, "create-endpoints"))

    mandate = created_id(browser, "mandates", create(browser, "mandate"))
    assert text_of(browser, "detail-status") == "PENDING_AUTHENTICATION"
    eft = created_id(browser, "mandates", create(browser, "mandate", type="EFT"))
    assert eft != mandate and text_of(browser, "detail-status") == "ACTIVE"
    collection = created_id(browser, "collections", create(browser, "collection", amount="99.00"))
    assert text_of(browser, "detail-status") == "PENDING"
    payment = created_id(browser, "payments", create(browser, "payment"))
    template = created_id(browser, "billing_templates", create(browser, "template", title="Gold"))
    said = create(browser, "subscriber", template=template, client=client)
    subscriber = created_id(browser, "billing_subscribers", said)
    assert len({purchase, client, payout, mandate, collection, payment, template, subscriber}) == 8

    # a refusal is said next to the form, in the error colour
    Select(browser.find_element(By.ID, "create-what")).select_by_value("client")
    box = browser.find_element(By.ID, "cf-email")
    box.clear()
    box.send_keys("not an e-mail")
    press(browser, browser.find_element(By.ID, "create-send"))
    until(browser, lambda b: "email" in text_of(b, "create-result"))
    assert browser.find_element(By.ID, "create-result").get_attribute("class") == "error"


def test_each_outcome_is_chosen_and_shown_and_what_is_not_allowed_is_disabled(server, browser):
    open_console(server, browser, "Outcomes")

    # a payout not yet executed: Settle disabled with why; executed as the payee, pending
    created_id(browser, "payouts", create(browser, "payout"))
    assert not browser.find_element(By.ID, "settle").is_enabled()
    assert "execute this one first" in text_of(browser, "settle-why")
    Select(browser.find_element(By.ID, "payout-card")).select_by_value(PENDING_CARD)
    click(browser, "execute")
    wait_text(browser, "detail-status", "pending")
    until(browser, lambda b: b.find_element(By.ID, "settle").is_enabled())

    # a purchase declined by the chosen card: the reason on its history line and in the list
    purchase = created_id(browser, "purchases", create(browser, "purchase"))
    Select(browser.find_element(By.ID, "card")).select_by_value("4000000000009995")
    click(browser, "pay")
    wait_text(browser, "detail-status", "error")
    reason = "Card declined: insufficient funds. (insufficient_funds)"
    until(browser, lambda b: reason in text_of(b, "detail-history"))
    until(browser, lambda b: reason in text_of(b, "object-list"))
    assert reason in text_of(browser, "action-result")
    Select(browser.find_element(By.ID, "card")).select_by_value("4444333322221111")
    click(browser, "pay")
    wait_text(browser, "detail-status", "paid")
    until(browser, lambda b: not b.find_element(By.ID, "pay").is_enabled())  # paid: no Pay
    assert "this one is paid" in text_of(browser, "pay-why")
    assert purchase in text_of(browser, "detail-id")

    # an outcome chosen on creation (the X-Emulator-Outcome header, shown in the curl)
    Select(browser.find_element(By.ID, "create-what")).select_by_value("purchase")
    Select(browser.find_element(By.ID, "cf-outcome")).select_by_value("decline:lost_card")
    assert "X-Emulator-Outcome: decline:lost_card" in text_of(browser, "create-curl")
    created_id(browser, "purchases", create(browser, "purchase"))
    click(browser, "pay")  # the first card, which pays: the header declines it
    wait_text(browser, "detail-status", "error")
    until(browser, lambda b: "(lost_card)" in text_of(b, "detail-history"))

    # a collection settled UNPAID with code 18, another COMPLETED then DISPUTED with 32
    unpaid = created_id(browser, "collections", create(browser, "collection"))
    Select(browser.find_element(By.ID, "settle-status")).select_by_value("UNPAID")
    Select(browser.find_element(By.ID, "reason-code")).select_by_value("18")
    click(browser, "settle")
    wait_text(browser, "detail-status", "UNPAID")
    until(
        browser,
        lambda b: (
            "UNPAID (collection.unpaid) 18 account holder deceased" in text_of(b, "detail-history")
        ),
    )
    until(browser, lambda b: "18 account holder deceased" in text_of(b, "object-list"))
    until(browser, lambda b: not b.find_element(By.ID, "settle").is_enabled())  # final
    assert "this one is UNPAID, final" in text_of(browser, "settle-why")

    disputed = created_id(browser, "collections", create(browser, "collection"))
    click(browser, "settle")  # COMPLETED, the first choice; no code goes with it
    wait_text(browser, "detail-status", "COMPLETED")
    until(
        browser,
        lambda b: (
            [o.text for o in Select(b.find_element(By.ID, "settle-status")).options] == ["DISPUTED"]
        ),
    )
    codes = [
        o.get_attribute("value") for o in Select(browser.find_element(By.ID, "reason-code")).options
    ]
    assert codes == ["30", "32", "34", "36"]  # a dispute's codes are of authority
    Select(browser.find_element(By.ID, "reason-code")).select_by_value("32")
    click(browser, "settle")
    wait_text(browser, "detail-status", "DISPUTED")
    until(browser, lambda b: "32 debit in contravention" in text_of(b, "detail-history"))
    state = httpx.get(f"{server.url}/_emulator/objects/collections/{disputed}").json()["object"]
    assert state["reasonCode"] == "32" and unpaid != disputed

    # an EFT mandate takes no debtor's answer
    created_id(browser, "mandates", create(browser, "mandate", type="EFT"))
    assert not browser.find_element(By.ID, "authorise").is_enabled()
    assert "EFT ACTIVE" in text_of(browser, "authorise-why")
    find(browser, unpaid)  # Find by id still opens it, its actions as its state allows
    assert not browser.find_element(By.ID, "settle").is_enabled()
