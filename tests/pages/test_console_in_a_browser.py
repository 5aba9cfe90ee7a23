"""The QA console (/_emulator/) in headless Chromium against a live emulator on loopback: a
tester creates a merchant, finds a purchase, pays it with a declining card then a good one,
sees the status change and the delivery arrive live, advances the clock from the page and sees
a pending payout settle; activates a scenario; sees a refused YAML's located error; gives the
admin token once. And the checkout page's failure page leads back to paying."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from emulator.testing import EmulatorServer

WAIT = 10  # seconds; the page polls every second
# `EMULATOR_SCREENSHOT=docs/console.png pytest tests/pages` refreshes the README's picture
SCREENSHOT = os.environ.get("EMULATOR_SCREENSHOT")


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def until(browser: WebDriver, check: Any) -> Any:
    """Wait for ``check(browser)``; lists the page re-renders may go stale meanwhile."""
    ignored = (StaleElementReferenceException,)
    return WebDriverWait(browser, WAIT, ignored_exceptions=ignored).until(check)


def press(browser: WebDriver, element: Any) -> None:
    """Click it as a user would, once it is in the middle of the window (chromedriver scrolls
    it to the top, under the page's sticky header)."""
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def text_of(browser: WebDriver, element_id: str) -> str:
    return str(browser.find_element(By.ID, element_id).text)


def wait_text(browser: WebDriver, element_id: str, expected: str) -> None:
    until(browser, lambda b: text_of(b, element_id) == expected)


def api(server: EmulatorServer, key: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    made = httpx.post(f"{server.url}{path}", json=body, headers={"Authorization": f"Bearer {key}"})
    assert made.status_code == 201, made.text
    found: dict[str, Any] = made.json()
    return found


def find(browser: WebDriver, object_id: str) -> None:
    box = browser.find_element(By.ID, "find")
    box.clear()
    box.send_keys(object_id + "\n")
    wait_text(browser, "detail-id", object_id)


def confirm(browser: WebDriver, says: str) -> None:
    """The question asked beside the control just pressed: it says ``says``; answer yes."""
    box = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, ".confirm"))
    assert says in box.text, box.text
    press(browser, box.find_element(By.CSS_SELECTOR, ".confirm-yes"))


def pay(browser: WebDriver, card: str) -> None:
    Select(browser.find_element(By.ID, "card")).select_by_value(card)
    press(browser, browser.find_element(By.ID, "pay"))


def test_a_tester_drives_the_emulator_from_the_console(server, browser, tmp_path):
    browser.get(f"{server.url}/")  # redirects to the console
    assert browser.current_url == f"{server.url}/_emulator/"
    assert "SANDBOX" in text_of(browser, "notice").upper() + browser.page_source.upper()
    wait_text(browser, "clock-now", "2026-03-02T08:00:00Z")

    # a merchant, and its credentials to copy
    browser.find_element(By.ID, "merchant-name").send_keys("Browser QA")
    press(browser, browser.find_element(By.ID, "create-merchant"))
    until(browser, lambda b: "Browser QA" in text_of(b, "credentials"))
    merchants = httpx.get(f"{server.url}/_emulator/merchants").json()["merchants"]
    merchant = next(m for m in merchants if m["name"] == "Browser QA")
    assert merchant["api_key"] in text_of(browser, "curl")

    # the integrator's purchase (its success callback goes to the sink) and a pending payout
    sink = f"{server.url}/_emulator/sink/browser"
    purchase = api(server, merchant["api_key"], "/api/v1/purchases/", {
        "client": {"email": "payer@example.com"}, "brand_id": merchant["brand_id"],
        "purchase": {"currency": "ZAR", "products": [{"name": "Widget", "price": 1234}]},
        "success_callback": sink,
    })  # fmt: skip
    payout = api(server, merchant["api_key"], "/api/v1/payouts/", {
        "client": {"email": "payee@example.com"}, "brand_id": merchant["brand_id"],
        "payment": {"amount": 1500, "currency": "ZAR", "description": "Refund"},
    })  # fmt: skip
    executed = httpx.post(
        payout["execution_url"],
        json={"card_number": "5555555555554444", "cardholder_name": "Jane Doe",
              "expiry_month": "12", "expiry_year": "30"},
    )  # fmt: skip
    assert executed.json()["status"] == "pending"

    # find the purchase by id; a declining card, then a good one
    find(browser, purchase["id"])
    assert text_of(browser, "detail-status") == "created"
    pay(browser, "4000000000000002")
    wait_text(browser, "detail-status", "error")
    pay(browser, "4444333322221111")
    wait_text(browser, "detail-status", "paid")
    history = text_of(browser, "detail-history")
    assert history.index("error") < history.index("paid")
    # the success callback appears in the live list without a reload
    until(
        browser,
        lambda b: any(
            "purchase.paid" in row.text and sink in row.text
            for row in b.find_elements(By.CSS_SELECTOR, "#delivery-list tr")
        ),
    )
    assert httpx.get(sink).json()["messages"]  # it arrived
    shot = Path(SCREENSHOT) if SCREENSHOT else tmp_path / "console.png"
    browser.execute_script("document.getElementById('objects').scrollIntoView()")
    assert browser.save_screenshot(str(shot))

    # the payout waits three days: its job is on the schedule, which links to it
    settlement = "//tbody[@id='schedule-list']/tr[contains(., 'payout.settlement')]//a"
    until(browser, lambda b: b.find_elements(By.XPATH, settlement))
    press(browser, browser.find_element(By.XPATH, settlement))
    wait_text(browser, "detail-id", payout["id"])
    assert text_of(browser, "detail-status") == "pending"
    assert "payout.settlement" in text_of(browser, "detail-jobs")
    press(browser, browser.find_element(By.CSS_SELECTOR, "button[data-advance='days:3']"))
    confirm(browser, "This moves the server clock: 2 of 2 merchant(s) follow it")
    wait_text(browser, "detail-status", "success")
    wait_text(browser, "clock-now", "2026-03-05T08:00:00Z")
    press(browser, browser.find_element(By.CSS_SELECTOR, "button[data-advance='month']"))
    confirm(browser, "moves the server clock")
    wait_text(browser, "clock-now", "2026-04-05T08:00:00Z")
    browser.execute_script("document.getElementById('advance-date').value = '2026-04-06T09:30'")
    press(browser, browser.find_element(By.CSS_SELECTOR, "#advance-to button"))
    confirm(browser, "moves the server clock")
    wait_text(browser, "clock-now", "2026-04-06T09:30:00Z")


def test_scenarios_activate_in_one_click_and_a_refused_file_shows_where(server, browser):
    browser.get(f"{server.url}/_emulator/")
    row = '#scenario-list tr[data-scenario="insufficient-funds"]'
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, row))
    press(browser, browser.find_element(By.CSS_SELECTOR, f"{row} .activate-all"))
    until(browser, lambda b: "everyone" in b.find_element(By.CSS_SELECTOR, f"{row} .active").text)
    active = httpx.get(f"{server.url}/_emulator/scenarios").json()["scenarios"]
    assert next(s["active"] for s in active if s["name"] == "insufficient-funds")
    press(browser, browser.find_element(By.CSS_SELECTOR, f"{row} .deactivate"))
    until(browser, lambda b: b.find_element(By.CSS_SELECTOR, f"{row} .active").text == "")

    box = browser.find_element(By.ID, "scenario-yaml")
    box.send_keys(
        "name: broken\nrules:\n  - when: purchase.payment\n    then: {result: paid}\n"
        "  - when: purchase.payment\n    match: {reference: x}\n    then: {result: maybe}\n"
    )
    press(browser, browser.find_element(By.ID, "load-scenario"))
    marked = until(browser, lambda b: b.find_element(By.ID, "scenario-error-line"))
    assert marked.get_attribute("data-line") == "7"
    assert "result: maybe" in marked.text
    assert "rules[1].then.result" in text_of(browser, "scenario-message")


def test_the_console_asks_for_the_admin_token_once(browser):
    with EmulatorServer(admin_token="qa token") as guarded:
        browser.get(f"{guarded.url}/_emulator/")
        box = until(browser, lambda b: b.find_element(By.ID, "token"))
        until(browser, lambda b: box.is_displayed())
        box.send_keys(Keys.TAB)
        assert browser.switch_to.active_element.text == "Use it"
        browser.switch_to.active_element.send_keys(Keys.TAB)  # the page behind is inert
        behind = "return !!document.activeElement.closest('header, main')"
        assert browser.execute_script(behind) is False
        box.click()
        box.send_keys("qa token\n")
        until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#merchant-list tr"))
        browser.refresh()  # kept in a cookie: not asked again
        until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#merchant-list tr"))
        assert not browser.find_element(By.ID, "token").is_displayed()


def test_a_failed_payment_page_leads_back_to_paying(server, browser):
    merchant = httpx.get(f"{server.url}/_emulator/merchants").json()["merchants"][0]
    purchase = api(server, merchant["api_key"], "/api/v1/purchases/", {
        "client": {"email": "payer@example.com"}, "brand_id": merchant["brand_id"],
        "purchase": {"currency": "ZAR", "products": [{"name": "Sock", "price": 1999,
                                                      "quantity": 2}]},
    })  # fmt: skip
    browser.get(purchase["checkout_url"])
    assert "39.98 ZAR" in text_of(browser, "total")
    assert "4000000000009995" in text_of(browser, "sandbox")
    for field, value in (("cardholder_name", "Jane"), ("card_number", "4000000000009995"),
                         ("expires", "12/29"), ("cvc", "123")):  # fmt: skip
        browser.find_element(By.ID, field).send_keys(value)
    press(browser, browser.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    until(browser, lambda b: b.find_elements(By.ID, "reason"))
    assert "insufficient_funds" in text_of(browser, "reason")
    press(browser, browser.find_element(By.ID, "retry"))
    until(browser, lambda b: b.find_elements(By.ID, "card_number"))


def click(browser: WebDriver, element_id: str) -> None:
    press(browser, browser.find_element(By.ID, element_id))


def test_the_bank_side_the_feeds_and_snapshots_from_the_console(server, browser):
    browser.get(f"{server.url}/_emulator/")
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#merchant-list tr"))
    # a merchant with its own clock: frozen, then real, then frozen again from the page
    browser.find_element(By.ID, "merchant-name").send_keys("Bank QA")
    click(browser, "merchant-own")
    click(browser, "create-merchant")
    until(browser, lambda b: text_of(b, "clock-own") == "(merchant's own)")
    assert text_of(browser, "clock-mode") == "frozen"
    click(browser, "resume")
    wait_text(browser, "clock-mode", "real")
    click(browser, "freeze")
    wait_text(browser, "clock-mode", "frozen")

    merchants = httpx.get(f"{server.url}/_emulator/merchants").json()["merchants"]
    merchant = next(m for m in merchants if m["name"] == "Bank QA")
    token = httpx.post(
        f"{server.url}/oauth2/token",
        auth=(merchant["client_id"], merchant["client_secret"]),
        data={"grant_type": "client_credentials"},
    ).json()["access_token"]
    v2 = {"Authorization": f"Bearer {token}"}
    profile = merchant["profiles"][0]
    sink = f"{server.url}/_emulator/sink/bank"
    registered = httpx.post(f"{server.url}/v2/clientcallbackurl/", headers=v2, json={
        "clientId": profile["createdByClient"], "url": sink, "callbackType": "EFT_COLLECTION",
        "callbackVersion": "V2"})  # fmt: skip
    assert registered.status_code == 200, registered.text
    debtor = {"accountNumber": "110000001", "branchCode": "051001", "accountType": "CURRENT",
              "name": "J Doe"}  # fmt: skip
    collection = httpx.post(f"{server.url}/v2/collection/eft", headers=v2, json={
        "debtor": debtor, "amountCents": 12_345, "currency": "ZAR", "serviceType": "ONEDAY",
        "profileCode": profile["profileCode"], "externalReference": "REF-1",
        "abbreviatedName": "GYM", "contractReference": "C-1", "frequency": "MONTHLY",
        "entryClass": "35"}).json()  # fmt: skip
    mandate = httpx.post(f"{server.url}/v2/mandate/debicheck", headers=v2, json={
        "debtor": {**debtor, "accountNumber": "62000000001", "branchCode": "250655"},
        "profileCode": profile["profileCode"], "externalReference": "DC-1",
        "contractReference": "C-9", "authenticationType": "REALTIME", "maxAmountCents": 50_000,
        "debitSequence": "RCUR", "trackingEnabled": True}).json()  # fmt: skip

    # act as the debtor's bank
    find(browser, mandate["id"])
    click(browser, "authorise")
    wait_text(browser, "detail-status", "AUTHENTICATED")
    find(browser, collection["id"])
    assert text_of(browser, "detail-status") == "PENDING"
    Select(browser.find_element(By.ID, "settle-status")).select_by_value("UNPAID")
    click(browser, "settle")
    wait_text(browser, "detail-status", "UNPAID")
    click(browser, "trigger-callback")
    until(browser, lambda b: "sent to 1 URL" in text_of(b, "action-result"))

    # the callbacks arrive live; one is sent again from its row
    rows = "#delivery-list tr[data-delivery]"
    # pending (on creation), unpaid (settled), unpaid again (the trigger)
    until(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, rows)) == 3)
    before = len(browser.find_elements(By.CSS_SELECTOR, rows))
    press(browser, browser.find_element(By.CSS_SELECTOR, f"{rows} .resend"))
    until(browser, lambda b: text_of(b, "notice").startswith("Re-sent as message"))
    until(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, rows)) == before + 1)
    browser.find_element(By.ID, "dfilter-outcome").send_keys("failed")
    until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, rows))  # all succeeded

    # the sink, the journal (filtered by path) and the objects list (filtered by status)
    name = browser.find_element(By.ID, "sink-name")
    name.clear()
    name.send_keys("bank\n")
    until(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#sink-list li")) == before + 1)
    browser.find_element(By.ID, "jfilter-path").send_keys("/v2/collection")
    until(browser, lambda b: "POST /v2/collection/eft" in text_of(b, "journal-list"))
    assert "/v2/mandate" not in text_of(browser, "journal-list")
    Select(browser.find_element(By.ID, "kind")).select_by_value("collections")
    browser.find_element(By.ID, "status-filter").send_keys("UNPAID\n")
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"tr[data-id='{collection['id']}']"))

    # a snapshot, saved and restored
    snapshot = browser.find_element(By.ID, "snapshot-name")
    snapshot.clear()
    snapshot.send_keys("qa-bank\n")
    item = "#snapshot-list li[data-snapshot='qa-bank'] button"
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, item))
    press(browser, browser.find_element(By.CSS_SELECTOR, item))
    confirm(browser, "Restoring qa-bank replaces the state of every merchant")
    until(browser, lambda b: text_of(b, "notice") == "Restored qa-bank.")
