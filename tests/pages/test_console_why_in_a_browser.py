"""The console's "why" in headless Chromium against a live emulator: a payout whose
payout.success a scenario sent three times shows "copy 2 of 3" with the scenario's name
linked; the delivery view shows every header that went on the wire; a purchase whose payment
a hold released as a decline says the hold did it, with a link to it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from selenium.webdriver.common.by import By

from emulator.testing import EmulatorServer
from tests.live_helpers import executed_payout
from tests.pages.test_console_in_a_browser import press, until

DUPLICATES = """name: dup-hooks
rules:
  - when: webhook.delivery
    match: {event_type: payout.success}
    then: {copies: 3}
"""


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(clock="frozen", start="2026-03-02T08:00:00Z") as live:
        yield live


def test_copies_every_header_and_a_holds_why(server, browser):
    with server.client() as control:
        merchant = control.new_merchant(name="Why")
        sink = control.sink("console-why")
        company = merchant.company_id
        with control.gateway(merchant) as gateway:
            body = {"title": "all", "callback": sink.url, "all_events": True}
            assert gateway.post("webhooks/", json=body).status_code == 201
            control.load_scenario(DUPLICATES)
            control.activate_scenario("dup-hooks", merchant)
            payout = executed_payout(control, merchant, "4444333322221111")
            hold = control.call(
                "POST", f"merchants/{company}/holds", json={"kind": "purchase.payment"}
            )
            purchase = gateway.post(
                "purchases/",
                json={
                    "client": {"email": "payer@example.com"},
                    "purchase": {"currency": "ZAR", "products": [{"name": "W", "price": 999}]},
                    "brand_id": merchant.brand_id,
                },
            ).json()
        control.call("POST", f"purchases/{purchase['id']}/pay", json={})
        decline = {"result": "declined", "reason": "insufficient_funds"}
        control.call("POST", f"merchants/{company}/holds/{hold['id']}/release", json=decline)

    browser.get(f"{server.url}/_emulator/?merchant={company}&kind=payouts&object={payout['id']}")
    rows = until(
        browser,
        lambda b: [
            r.text
            for r in b.find_elements(By.CSS_SELECTOR, "#detail-deliveries tr")
            if "payout.success" in r.text
        ],
    )
    tags = sorted(re.search(r"copy \d of \d \(scenario [\w-]+\)", r).group() for r in rows)
    assert tags == [f"copy {n} of 3 (scenario dup-hooks)" for n in (1, 2, 3)], rows
    link = browser.find_element(By.CSS_SELECTOR, "#detail-deliveries .copy-tag a")
    assert link.get_attribute("href").endswith("#scenarios") and link.text == "dup-hooks"

    live = until(
        browser,
        lambda b: [
            r
            for r in b.find_elements(By.CSS_SELECTOR, "#delivery-list tr")
            if "payout.success" in r.text and "copy 2 of 3" in r.text
        ],
    )
    press(browser, live[0].find_element(By.TAG_NAME, "summary"))
    shown = live[0].find_element(By.TAG_NAME, "pre").text
    for name in ("Host", "Accept", "Accept-Encoding", "Connection", "User-Agent",
                 "Content-Type", "X-Signature", "X-Event-Id", "X-Emulator-Time",
                 "Content-Length"):  # fmt: skip
        assert f'"{name}":' in shown, (name, shown)

    browser.get(
        f"{server.url}/_emulator/?merchant={company}&kind=purchases&object={purchase['id']}"
    )
    why = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, "#detail-why .why-hold"))
    assert f"Hold {hold['id']} took its purchase.payment decision" in why.text
    assert "released with the outcome" in why.text and "insufficient_funds" in why.text
    assert why.find_element(By.TAG_NAME, "a").get_attribute("href").endswith("#holds")
