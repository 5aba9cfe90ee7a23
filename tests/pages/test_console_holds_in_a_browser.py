"""The console's holds panel in headless Chromium against a live emulator: a tester holds the
chosen merchant's next payout.success, sees it held with its buttons, edits its body and
releases it; the receiver gets the edited message, signed again."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from emulator.testing import EmulatorServer
from tests.delivery.test_deliveries import verify
from tests.live_helpers import executed_payout
from tests.pages.test_console_in_a_browser import press, text_of, until


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def test_a_tester_holds_edits_and_releases_a_delivery(server, browser):
    with server.client() as control:
        merchant = control.new_merchant(name="Holding")
        sink = control.sink("console-holds")
        with control.gateway(merchant) as gateway:
            body = {"title": "all", "callback": sink.url, "all_events": True}
            hook = gateway.post("webhooks/", json=body).json()
        browser.get(f"{server.url}/_emulator/")
        company = merchant.company_id
        until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"option[value='{company}']"))
        Select(browser.find_element(By.ID, "merchant")).select_by_value(company)
        until(browser, lambda b: "Holding" in text_of(b, "holds-of"))
        sections = [
            a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "nav a")
        ]
        assert sections[0].endswith("#holds")  # the first section: shown prominently

        Select(browser.find_element(By.ID, "hold-kind")).select_by_value("delivery")
        browser.find_element(By.ID, "hold-match").send_keys('{"event_type": "payout.success"}')
        press(browser, browser.find_element(By.ID, "create-hold"))
        until(browser, lambda b: "armed" in text_of(b, "hold-list"))

        executed_payout(control, merchant, "4444333322221111")
        until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#hold-list tr.holding"))
        row = browser.find_element(By.CSS_SELECTOR, "#hold-list tr.holding")
        assert "payout.success" in row.text
        labels = [b.text for b in row.find_elements(By.TAG_NAME, "button")]
        assert labels == ["Release", "Edit and release", "Drop", "Send twice", "+1 hour"]
        assert not [m for m in sink.messages() if m.json["event_type"] == "payout.success"]

        press(browser, row.find_element(By.CSS_SELECTOR, ".hold-edit-open"))
        box = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, "#hold-list .hold-edit"))
        edited = {**json.loads(box.get_attribute("value")), "reference": "edited in the console"}
        browser.execute_script("arguments[0].value = arguments[1]", box, json.dumps(edited))
        press(browser, browser.find_element(By.CSS_SELECTOR, "#hold-list .hold-send"))
        until(browser, lambda b: "released (call)" in text_of(b, "hold-list"))
        [message] = [m for m in sink.messages() if m.json["event_type"] == "payout.success"]
        assert message.json["reference"] == "edited in the console"
        verify(hook["public_key"], message.headers["x-signature"], message.body.encode())
