"""The QA console's remaining controls in headless Chromium, in two sessions on one live
server: the "New test purchase" button, a 3-D Secure failure, Copy JSON, +1 hour, +1 day and
"Next job", a payout settled as failed (it ends in error), a mandate rejected, the "failed" deliveries filter
with a failed row and its response time, a scenario loaded from a YAML file. Then the page
with the keyboard alone: every tab stop is visible and not under the sticky header, Enter
finds by id and pays, filters take Enter without leaving the page, a live update keeps focus."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from emulator.testing import EmulatorServer
from tests.pages.test_console_in_a_browser import api, click, find, press, text_of, until, wait_text

DOWN = "http://127.0.0.1:9/hook"  # the discard port: nothing listens, connections are refused
PENDING_CARD = "5555555555554444"  # a payout card: pending, settles after three days
EXECUTE = {"cardholder_name": "Jane Doe", "expiry_month": "12", "expiry_year": "30"}


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def merchant_named(server: EmulatorServer, name: str) -> dict[str, Any]:
    merchants = httpx.get(f"{server.url}/_emulator/merchants").json()["merchants"]
    found: dict[str, Any] = next(m for m in merchants if m["name"] == name)
    return found


def pending_payout(server: EmulatorServer, merchant: dict[str, Any]) -> dict[str, Any]:
    payout = api(server, merchant["api_key"], "/api/v1/payouts/", {
        "client": {"email": "payee@example.com"}, "brand_id": merchant["brand_id"],
        "payment": {"amount": 1500, "currency": "ZAR", "description": "Refund"},
    })  # fmt: skip
    executed = httpx.post(payout["execution_url"], json={"card_number": PENDING_CARD, **EXECUTE})
    assert executed.json()["status"] == "pending", executed.text
    return payout


def bank_mandate(server: EmulatorServer, merchant: dict[str, Any]) -> dict[str, Any]:
    token = httpx.post(
        f"{server.url}/oauth2/token",
        auth=(merchant["client_id"], merchant["client_secret"]),
        data={"grant_type": "client_credentials"},
    ).json()["access_token"]
    made = httpx.post(
        f"{server.url}/v2/mandate/debicheck",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "debtor": {"accountNumber": "62000000001", "branchCode": "250655",
                       "accountType": "CURRENT", "name": "J Doe"},
            "profileCode": merchant["profiles"][0]["profileCode"], "externalReference": "DC-2",
            "contractReference": "C-2", "authenticationType": "REALTIME",
            "maxAmountCents": 50_000, "debitSequence": "RCUR",
        },
    )  # fmt: skip
    assert made.status_code in (200, 201), made.text
    found: dict[str, Any] = made.json()
    return found


def clipboard(browser: WebDriver) -> str:
    script = "const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done('!' + e));"
    return str(browser.execute_async_script(script))


def test_the_console_s_other_controls(server, browser, tmp_path):
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": server.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    browser.get(f"{server.url}/_emulator/")
    wait_text(browser, "clock-now", "2026-03-02T08:00:00Z")
    browser.find_element(By.ID, "merchant-name").send_keys("Controls QA")
    click(browser, "merchant-own")
    click(browser, "create-merchant")
    until(browser, lambda b: text_of(b, "clock-own") == "(merchant's own)")
    merchant = merchant_named(server, "Controls QA")
    hook = httpx.post(
        f"{server.url}/api/v1/webhooks/",
        json={"title": "down", "all_events": True, "callback": DOWN},
        headers={"Authorization": f"Bearer {merchant['api_key']}"},
    )
    assert hook.status_code == 201, hook.text

    # the "New test purchase" button, then a card whose 3-D Secure fails
    click(browser, "new-purchase")
    until(browser, lambda b: text_of(b, "notice").startswith("Purchase "))
    purchase_id = text_of(browser, "notice").split()[1]
    wait_text(browser, "detail-id", purchase_id)
    assert text_of(browser, "detail-status") == "created"
    purchase = httpx.get(f"{server.url}/_emulator/objects/purchases/{purchase_id}").json()
    assert purchase["object"]["purchase"]["total"] == 3998
    Select(browser.find_element(By.ID, "card")).select_by_value("4000008400001629")
    click(browser, "pay")
    wait_text(browser, "detail-status", "error")
    until(browser, lambda b: "3ds_authentication_failed" in text_of(b, "action-result"))

    # Copy JSON puts the object's JSON on the clipboard
    click(browser, "copy-json")
    wait_text(browser, "notice", "JSON copied.")
    copied = clipboard(browser)
    assert copied == text_of(browser, "detail-json") and f'"id": "{purchase_id}"' in copied

    # paid with a good card: its success callback reaches the sink; the webhooks fail
    Select(browser.find_element(By.ID, "card")).select_by_value("4444333322221111")
    click(browser, "pay")
    wait_text(browser, "detail-status", "paid")

    # deliveries to a receiver that is down: the "failed" filter shows them, and only them
    rows = "#delivery-list tr[data-delivery]"
    down_rows = f"//tbody[@id='delivery-list']/tr[@data-outcome='failed'][contains(., '{DOWN}')]"
    until(browser, lambda b: b.find_elements(By.XPATH, down_rows))
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"{rows}[data-outcome='ok']"))
    Select(browser.find_element(By.ID, "dfilter-outcome")).select_by_value("failed")
    until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, f"{rows}[data-outcome='ok']"))
    failed = browser.find_elements(By.CSS_SELECTOR, rows)
    assert failed and all(r.get_attribute("data-outcome") == "failed" for r in failed)
    assert "no answer" in failed[0].text and DOWN in failed[0].text
    took = failed[0].find_element(By.CSS_SELECTOR, "td.ms").text
    assert float(took) >= 0  # a refused connection is timed too
    Select(browser.find_element(By.ID, "dfilter-outcome")).select_by_value("")

    # +1 hour, +1 day, then "Next job" goes to the first job on the merchant's schedule
    start = instant(text_of(browser, "clock-now"))
    press(browser, browser.find_element(By.CSS_SELECTOR, "button[data-advance='hours:1']"))
    wait_text(browser, "clock-now", iso(start + timedelta(hours=1)))
    press(browser, browser.find_element(By.CSS_SELECTOR, "button[data-advance='days:1']"))
    wait_text(browser, "clock-now", iso(start + timedelta(days=1, hours=1)))
    pending_payout(server, merchant)  # the schedule holds at least its settlement
    schedule = f"{server.url}/_emulator/merchants/{merchant['company_id']}/schedule"
    due = httpx.get(schedule).json()["jobs"][0]["due"]
    click(browser, "advance-next")
    wait_text(browser, "clock-now", due)
    until(browser, lambda b: text_of(b, "advanced").startswith(f"Now {due};"))

    # a pending payout settled as failed
    other = pending_payout(server, merchant)
    find(browser, other["id"])
    assert text_of(browser, "detail-status") == "pending"
    Select(browser.find_element(By.ID, "settle-status")).select_by_value("failed")
    click(browser, "settle")
    wait_text(browser, "detail-status", "error")  # a payout that fails to settle
    assert "payout_failed" in text_of(browser, "action-result")

    # a mandate the debtor rejects
    mandate = bank_mandate(server, merchant)
    find(browser, mandate["id"])
    click(browser, "reject")
    wait_text(browser, "detail-status", "REJECTED")

    # a scenario uploaded as a YAML file
    text = (
        "name: uploaded-file\ndescription: from a file\nrules:\n"
        "  - when: purchase.payment\n    then: {result: declined}\n"
    )
    path = tmp_path / "uploaded.yaml"
    path.write_text(text)
    browser.find_element(By.ID, "scenario-file").send_keys(str(path))
    until(browser, lambda b: b.find_element(By.ID, "scenario-yaml").get_attribute("value") == text)
    click(browser, "load-scenario")
    wait_text(browser, "notice", "Scenario uploaded-file loaded (1 rule(s)).")
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "tr[data-scenario='uploaded-file']"))


FOCUS = """
const el = document.activeElement, style = getComputedStyle(el);
const rect = el.getBoundingClientRect(), header = document.querySelector("header");
return {
  id: el.id, tag: el.tagName, text: (el.textContent || el.value || "").trim().slice(0, 40),
  outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
  inHeader: header.contains(el), top: rect.top, bottom: rect.bottom,
  headerBottom: header.getBoundingClientRect().bottom, height: innerHeight,
};
"""


def tab(browser: WebDriver, keys: str = Keys.TAB) -> dict[str, Any]:
    ActionChains(browser).send_keys(keys).perform()
    found: dict[str, Any] = browser.execute_script(FOCUS)
    return found


def test_the_console_works_with_the_keyboard_alone(server, browser):
    made = httpx.post(f"{server.url}/_emulator/merchants", json={"name": "Keys QA"}).json()
    purchase = api(server, made["api_key"], "/api/v1/purchases/", {
        "client": {"email": "payer@example.com"}, "brand_id": made["brand_id"],
        "success_callback": f"{server.url}/_emulator/sink/keys",
        "purchase": {"currency": "ZAR", "products": [{"name": "Key", "price": 500}]},
    })  # fmt: skip
    browser.get(f"{server.url}/_emulator/")
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#scenario-list tr"))
    browser.execute_script("window.stayed = true")

    # every tab stop, in order: its focus is drawn and it is not hidden under the sticky header
    stops = []
    for _ in range(200):
        at = tab(browser)
        if stops and (at["tag"] == "BODY" or at["id"] == stops[0]["id"]):
            break  # past the last control (to the browser's own) or round to the first
        stops.append(at)
        assert at["outline"], f"no visible focus on {at}"
        if not at["inHeader"]:
            assert at["headerBottom"] - 1 <= at["top"] < at["height"] - 10, at  # it is seen
    ids = [s["id"] for s in stops]
    assert ids[:7] == ["merchant", "", "", "", "", "advance-next", "find"]
    for control in ("merchant-name", "create-merchant", "freeze", "advance-date", "kind",
                    "status-filter", "dfilter-outcome", "jfilter-path", "sink-name",
                    "scenario-yaml", "scenario-file", "load-scenario", "snapshot-name"):  # fmt: skip
        assert control in ids, control

    # find by id with Enter; focus moves to the object, Tab reaches the card, then Pay
    browser.execute_script("document.activeElement.blur()")
    while tab(browser)["id"] != "find":
        pass
    ActionChains(browser).send_keys(purchase["id"], Keys.ENTER).perform()
    wait_text(browser, "detail-id", purchase["id"])
    assert browser.execute_script(FOCUS)["id"] == "detail-title"
    assert tab(browser)["id"] == "card"
    assert (
        Select(browser.find_element(By.ID, "card")).first_selected_option.get_attribute("value")
        == "4444333322221111"
    )
    assert tab(browser)["id"] == "pay"
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_text(browser, "detail-status", "paid")

    # the filters take Enter and stay on the page
    for field, value in (("dfilter-object", purchase["id"]), ("dfilter-event", "purchase.paid"),
                         ("jfilter-path", "/api/v1"), ("status-filter", "paid")):  # fmt: skip
        browser.find_element(By.ID, field).send_keys(value, Keys.ENTER)
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"tr[data-id='{purchase['id']}']"))
    assert browser.execute_script("return window.stayed") is True
    rows = "#delivery-list tr[data-delivery]"
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, rows))
    assert all("purchase.paid" in r.text for r in browser.find_elements(By.CSS_SELECTOR, rows))

    # Re-send with Enter: the new attempt arrives live and focus stays on the same button
    first = browser.find_element(By.CSS_SELECTOR, f"{rows} .resend")
    sent = first.find_element(By.XPATH, "./ancestor::tr").get_attribute("data-delivery")
    browser.execute_script("arguments[0].focus()", first)
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    until(browser, lambda b: text_of(b, "notice").startswith("Re-sent as message"))
    until(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, rows)) == 2)
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "resend"
    assert focused.find_element(By.XPATH, "./ancestor::tr").get_attribute("data-delivery") == sent
