"""The console's request journal shows the keys a request's body had that the platform ignores
(emulator/http/lint.py), under the request, plainly."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from emulator.testing import EmulatorServer

WAIT = 10  # seconds; the page polls every second
SCREENSHOT = os.environ.get("EMULATOR_WARNINGS_SCREENSHOT")  # a path: the journal, as seen


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def test_the_journal_shows_a_requests_ignored_keys(server, browser):
    merchant = httpx.post(f"{server.url}/_emulator/merchants").json()
    body = {
        "client": {"email": "payer@example.com"},
        "purchase": {"currency": "ZAR", "products": [{"name": "A", "price": 100}], "notse": "x"},
        "brand_id": merchant["brand_id"],
    }
    made = httpx.post(
        f"{server.url}/api/v1/purchases/",
        json=body,
        headers={"Authorization": f"Bearer {merchant['api_key']}"},
    )
    assert made.status_code == 201, made.text
    clean = httpx.get(
        f"{server.url}/api/v1/clients/",
        headers={"Authorization": f"Bearer {merchant['api_key']}"},
    )
    assert clean.status_code == 200

    browser.get(f"{server.url}/_emulator/#journal")

    def rows(b):
        found = b.find_elements(By.CSS_SELECTOR, "#journal-list tr")
        return found if len(found) >= 2 else None

    ignored = (StaleElementReferenceException,)
    WebDriverWait(browser, WAIT, ignored_exceptions=ignored).until(rows)
    warnings = browser.find_elements(By.CSS_SELECTOR, "#journal-list ul.warnings li")
    assert [w.text for w in warnings] == ["unknown key purchase.notse (did you mean notes?)"]
    row = warnings[0].find_element(By.XPATH, "ancestor::tr")
    assert "POST /api/v1/purchases/" in row.text
    assert warnings[0].is_displayed()
    if SCREENSHOT:
        browser.execute_script("document.getElementById('journal').scrollIntoView()")
        browser.save_screenshot(SCREENSHOT)
