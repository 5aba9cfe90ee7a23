"""The emulator's HTML pages in a real browser: headless Chromium (Debian's package, installed by
`make test`) driven with Selenium against a live emulator on loopback. The payer's checkout page
(its real form, 3-D Secure's challenge) and the API reference page (its assets, its filter)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import WebDriverWait

from emulator import resources
from emulator.testing import EmulatorServer


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def purchase(server: EmulatorServer) -> dict[str, Any]:
    merchant = resources.default_merchant()
    body = {
        "client": {"email": "payer@example.com"},
        "purchase": {"currency": "ZAR", "products": [{"name": "Widget", "price": 1234}]},
        "brand_id": merchant.brands[0].id,
    }
    headers = {"Authorization": f"Bearer {merchant.api_key}"}
    created = httpx.post(f"{server.url}/api/v1/purchases/", json=body, headers=headers)
    assert created.status_code == 201, created.text
    made: dict[str, Any] = created.json()
    return made


def status_of(server: EmulatorServer, purchase_id: str) -> str:
    headers = {"Authorization": f"Bearer {resources.default_merchant().api_key}"}
    found = httpx.get(f"{server.url}/api/v1/purchases/{purchase_id}/", headers=headers)
    return str(found.json()["status"])


def fill_and_pay(browser: WebDriver, card: str) -> None:
    for field, value in (
        ("cardholder_name", "Jane Payer"),
        ("card_number", card),
        ("expires", "12/29"),
        ("cvc", "123"),
    ):
        browser.find_element(By.ID, field).send_keys(value)
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()


def test_a_payer_pays_on_the_checkout_page(server, browser):
    made = purchase(server)
    browser.get(made["checkout_url"])
    assert "12.34 ZAR" in browser.find_element(By.CSS_SELECTOR, "button[type=submit]").text
    fill_and_pay(browser, "4444 3333 2222 1111")
    WebDriverWait(browser, 10).until(lambda b: status_of(server, made["id"]) == "paid")
    assert status_of(server, made["id"]) == "paid"


def test_a_payer_completes_3d_secure_in_the_browser(server, browser):
    made = purchase(server)
    browser.get(made["checkout_url"])
    fill_and_pay(browser, "5555555555554444")
    complete = WebDriverWait(browser, 10).until(
        seen.element_to_be_clickable((By.CSS_SELECTOR, "button[value=complete]"))
    )
    assert status_of(server, made["id"]) != "paid"  # waiting for the challenge
    complete.click()
    WebDriverWait(browser, 10).until(lambda b: status_of(server, made["id"]) == "paid")


def test_a_declined_card_ends_on_the_failure_page_and_leaves_the_purchase_unpaid(server, browser):
    made = purchase(server)
    browser.get(made["checkout_url"])
    fill_and_pay(browser, "4000000000000002")
    shown = WebDriverWait(browser, 10).until(seen.presence_of_element_located((By.ID, "status")))
    assert (shown.get_attribute("data-status"), shown.text) == ("error", "Payment failed.")
    assert status_of(server, made["id"]) == "error"


def test_the_api_reference_page_renders_with_its_own_assets_and_filters(server, browser):
    browser.get(f"{server.url}/_emulator/docs")
    articles = browser.find_elements(By.CSS_SELECTOR, "article[data-search]")
    assert len(articles) > 50
    # the stylesheet shipped in the package applies (no CDN: the page works offline)
    hidden_rule = browser.execute_script(
        "return [...document.styleSheets].some(s => [...s.cssRules]"
        ".some(r => r.selectorText && r.selectorText.includes('.hidden')))"
    )
    assert hidden_rule
    box = browser.find_element(By.ID, "filter")
    box.send_keys("company_statements cancel")
    WebDriverWait(browser, 5).until(
        lambda b: 0 < len([a for a in articles if a.is_displayed()]) < 5
    )
    shown = [a.text for a in articles if a.is_displayed()]
    assert any("Cancel a statement" in text for text in shown)
