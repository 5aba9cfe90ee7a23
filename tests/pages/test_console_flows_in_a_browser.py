"""The console's flows panel in headless Chromium against a live emulator (issue 27): a tester
sees the library, runs a flow and watches its numbered run's steps arrive, follows the run's
link, then exports a merchant's session with "Export as flow" and gets a flow that replays."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import yaml
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from emulator.testing import EmulatorServer
from tests.pages.test_console_in_a_browser import press, text_of, until

FLOW = "payout-settles-after-three-days"


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def step_rows(browser) -> list[list[str]]:
    found = browser.find_elements(By.CSS_SELECTOR, "#flow-run-steps tr")
    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in found]


def test_a_tester_runs_a_flow_and_exports_a_session(server, browser):
    own = {"name": "Recorded", "clock": {"mode": "frozen", "now": "2026-03-02T08:00:00Z"}}
    merchant = httpx.post(f"{server.url}/_emulator/merchants", json=own).json()
    body = {"brand_id": merchant["brand_id"], "client": {"email": "payer@example.com"},
            "purchase": {"products": [{"name": "Book", "price": 2500}]}}  # fmt: skip
    key = {"Authorization": f"Bearer {merchant['api_key']}"}
    purchase = httpx.post(f"{server.url}/api/v1/purchases/", json=body, headers=key).json()
    assert httpx.post(f"{server.url}/_emulator/purchases/{purchase['id']}/pay").is_success

    browser.get(f"{server.url}/_emulator/#flows")
    run = until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"[data-run-flow='{FLOW}']"))
    library = text_of(browser, "flow-library")
    assert "card-purchase-paid" in library and "subscription-year" in library
    press(browser, run[0])
    until(browser, lambda b: text_of(b, "flow-run-state") == "passed")
    assert text_of(browser, "flow-run-number") == "#1"
    assert text_of(browser, "flow-run-flow") == FLOW
    steps = step_rows(browser)
    assert [s[1] for s in steps] == ["passed"] * 5
    assert steps[3][3] == "2026-03-05T08:00:00Z" and steps[3][4] == "advance 3d"
    until(browser, lambda b: "passed" in text_of(b, "flow-runs"))
    link = browser.find_element(By.CSS_SELECTOR, "#flow-runs a").get_attribute("href")
    assert "#run=" in link
    browser.get(link)  # the run's link opens it again
    until(browser, lambda b: len(step_rows(b)) == 5)

    Select(browser.find_element(By.ID, "merchant")).select_by_value(merchant["company_id"])
    until(browser, lambda b: "Recorded" in text_of(b, "export-of"))
    export = browser.find_element(By.ID, "export-flow")
    assert export.text == "Export as flow"
    assert export.get_attribute("download") == f"{merchant['company_id']}.flow.yaml"
    href = export.get_attribute("href")
    assert href.endswith(f"/_emulator/merchants/{merchant['company_id']}/flow.yaml")
    flow = yaml.safe_load(httpx.get(href).text)
    assert {"act": {"pay": "${purchase_1.id}"}} in flow["steps"]
