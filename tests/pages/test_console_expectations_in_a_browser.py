"""The console's expectations panel in headless Chromium against a live emulator: a tester
chooses a merchant, pastes an expectation set (JSON, then YAML, with the keyboard), verifies
it, and reads the report: the item that held with its matches, the one that failed with its
sentence."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from emulator.testing import EmulatorServer
from tests.pages.test_console_in_a_browser import press, text_of, until


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def rows(browser) -> list[list[str]]:
    found = browser.find_elements(By.CSS_SELECTOR, "#expect-results tr")
    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in found]


def test_a_tester_pastes_a_set_and_reads_the_report(server, browser):
    merchant = httpx.post(f"{server.url}/_emulator/merchants", json={"name": "Expecting"}).json()
    made = httpx.post(
        f"{server.url}/api/v1/clients/",
        json={"email": "payer@example.com"},
        headers={"Authorization": f"Bearer {merchant['api_key']}"},
    )
    assert made.status_code == 201
    browser.get(f"{server.url}/_emulator/")
    until(
        browser,
        lambda b: b.find_elements(By.CSS_SELECTOR, f"option[value='{merchant['company_id']}']"),
    )
    Select(browser.find_element(By.ID, "merchant")).select_by_value(merchant["company_id"])
    until(browser, lambda b: "Expecting" in text_of(b, "expect-of"))

    held = {"id": "client", "request": {"method": "POST", "path": "/api/v1/clients/"}, "count": 1}
    missing = {"delivery": {"event": "purchase.paid", "sink": "shop"}}
    box = browser.find_element(By.ID, "expect-set")
    box.send_keys(json.dumps({"expect": [held, missing]}))
    press(browser, browser.find_element(By.ID, "verify-expect"))
    until(browser, lambda b: len(rows(b)) == 2)
    (index, result, sentence, matches), failed = rows(browser)
    assert (index, result) == ("0 client", "ok")
    assert sentence == "exactly 1 POST /api/v1/clients/"
    assert matches.startswith("#") and " at 2026-03-02T08:00:00Z" in matches
    assert failed[1] == "FAILED"
    assert failed[2] == "expected at least 1 purchase.paid delivered to sink 'shop', saw none"
    assert text_of(browser, "expect-summary").startswith("1 of 2 expectations held")

    # YAML, verified from the keyboard (Ctrl+Enter in the box)
    box.clear()
    box.send_keys(
        "expect:", Keys.ENTER, "  - request: {method: GET}", Keys.ENTER, "    never: true"
    )
    box.send_keys(Keys.CONTROL, Keys.ENTER)
    until(browser, lambda b: len(rows(b)) == 1 and rows(b)[0][1] == "ok")
    assert text_of(browser, "expect-summary").startswith("1 of 1 expectations held")

    # a refusal names the key path
    box.clear()
    box.send_keys('{"expect": [{"event": {}, "within": "5x"}]}')
    press(browser, browser.find_element(By.ID, "verify-expect"))
    until(browser, lambda b: "Refused" in text_of(b, "expect-summary"))
    assert 'expect[0].within: "5x" is not a duration' in text_of(browser, "expect-summary")
