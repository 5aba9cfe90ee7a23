"""The console's receiver check in headless Chromium against a live emulator: a tester
chooses a merchant, gives the URL of the app's webhook receiver (a careless one of our own),
runs the check and reads each check's result and the score."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from emulator.testing import EmulatorServer
from tests import receivers
from tests.pages.test_console_in_a_browser import press, text_of, until


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def rows(browser) -> list[list[str]]:
    found = browser.find_elements(By.CSS_SELECTOR, "#receiver-results tr")
    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in found]


def test_a_tester_checks_a_receiver_and_reads_the_score(server, browser):
    merchant = httpx.post(f"{server.url}/_emulator/merchants", json={"name": "Receiving"}).json()
    headers = {"Authorization": f"Bearer {merchant['api_key']}"}
    with (
        httpx.Client(base_url=f"{server.url}/api/v1/", headers=headers) as gateway,
        receivers.serving(receivers.careless(gateway)) as url,
    ):
        hook = {"title": "App", "events": ["payout.success"], "callback": url}
        assert gateway.post("webhooks/", json=hook).status_code == 201
        browser.get(f"{server.url}/_emulator/")
        option = f"option[value='{merchant['company_id']}']"
        until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, option))
        Select(browser.find_element(By.ID, "merchant")).select_by_value(merchant["company_id"])
        browser.find_element(By.ID, "receiver-url").send_keys(url)
        press(browser, browser.find_element(By.ID, "run-receiver-check"))
        until(browser, lambda b: len(rows(b)) == 9)
    found = {name: (result, why) for name, result, why in rows(browser)}
    assert found["valid"][0] == "PASS" and found["old_replay"][0] == "WARN"
    assert found["duplicate"][0] == "FAIL"
    assert "/refund/" in found["duplicate"][1]
    assert text_of(browser, "receiver-summary").startswith(f"Score 56/100 for {url}: 3 failed")
    # a refusal is said in the panel
    url_box = browser.find_element(By.ID, "receiver-url")
    url_box.clear()
    url_box.send_keys("http://example.com/hook")
    press(browser, browser.find_element(By.ID, "run-receiver-check"))
    until(browser, lambda b: "Refused" in text_of(b, "receiver-summary"))
    assert "The callback URL must use HTTPS" in text_of(browser, "receiver-summary")
