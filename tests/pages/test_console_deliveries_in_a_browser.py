"""The console's delivery operations in headless Chromium against a live emulator: a tester
switches a webhook off (its message is held) and on (it is sent), replays the filtered
deliveries, filters the log by exhausted, sets auto-disable and sees the endpoint switched off
after days of failures on the clock."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from emulator.testing import EmulatorServer
from tests.pages.test_console_in_a_browser import api, press, text_of, until

DOWN = "http://127.0.0.1:9/hook"  # nothing listens: refused


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def payout(server: EmulatorServer, merchant: dict[str, str]) -> None:
    made = api(server, merchant["api_key"], "/api/v1/payouts/", {
        "client": {"email": "payee@example.com"}, "payment": {"amount": 700, "currency": "ZAR"},
        "brand_id": merchant["brand_id"]})  # fmt: skip
    card = {"card_number": "4444333322221111", "cardholder_name": "Jane Doe",
            "expiry_month": "12", "expiry_year": "30"}  # fmt: skip
    executed = httpx.post(made["execution_url"], json=card)
    assert executed.status_code == 200, executed.text


def endpoint_state(browser, hook_id: str) -> str:
    rows = browser.find_elements(By.CSS_SELECTOR, f"#endpoint-list tr[data-endpoint='{hook_id}']")
    return str(rows[0].find_elements(By.TAG_NAME, "td")[2].text) if rows else ""


def test_a_tester_switches_replays_and_sees_an_auto_disable(server, browser):
    merchant = httpx.post(f"{server.url}/_emulator/merchants", json={"name": "Ops"}).json()
    sink = f"{server.url}/_emulator/sink/ops"
    hook = api(server, merchant["api_key"], "/api/v1/webhooks/",
               {"title": "ops", "events": ["payout.success"], "callback": sink})  # fmt: skip
    payout(server, merchant)
    browser.get(f"{server.url}/_emulator/")
    company = merchant["company_id"]
    until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"option[value='{company}']"))
    Select(browser.find_element(By.ID, "merchant")).select_by_value(company)
    until(browser, lambda b: endpoint_state(b, hook["id"]) == "on")

    row = f"#endpoint-list tr[data-endpoint='{hook['id']}'] button"
    press(browser, browser.find_element(By.CSS_SELECTOR, row))
    until(browser, lambda b: endpoint_state(b, hook["id"]) == "off")
    payout(server, merchant)
    until(browser, lambda b: endpoint_state(b, hook["id"]) == "off, 1 held")
    assert len(httpx.get(sink).json()["messages"]) == 1
    press(browser, browser.find_element(By.CSS_SELECTOR, row))
    until(browser, lambda b: "1 held message(s) sent" in text_of(b, "notice"))
    assert len(httpx.get(sink).json()["messages"]) == 2

    Select(browser.find_element(By.ID, "dfilter-outcome")).select_by_value("ok")
    press(browser, browser.find_element(By.ID, "replay-filtered"))
    until(browser, lambda b: text_of(b, "notice") == "2 message(s) sent again.")
    assert len(httpx.get(sink).json()["messages"]) == 4

    # a second webhook that never answers, auto-disabled after a day of failures
    down = api(server, merchant["api_key"], "/api/v1/webhooks/",
               {"title": "down", "events": ["payout.success"], "callback": DOWN})  # fmt: skip
    days = browser.find_element(By.ID, "auto-days")
    days.send_keys("1")
    press(browser, browser.find_element(By.ID, "auto-save"))
    until(browser, lambda b: "after 1 day(s)" in text_of(b, "notice"))
    payout(server, merchant)
    advanced = httpx.post(f"{server.url}/_emulator/clock/advance", json={"days": 2})
    assert advanced.status_code == 200
    until(browser, lambda b: "auto-disabled" in endpoint_state(b, down["id"]))
    assert "auto disabled" in text_of(browser, "endpoint-events")
    assert "only failures for 1 days" in text_of(browser, "endpoint-events")

    Select(browser.find_element(By.ID, "dfilter-outcome")).select_by_value("exhausted")
    until(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, "#delivery-list tr"))
