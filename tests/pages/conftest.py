"""Headless Chromium (Debian's package, installed by `make test`) driven with Selenium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

DRIVER = "/usr/bin/chromedriver"
BROWSERS = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")


HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here drives the browser (`make quick` leaves them out: -m "not browser")."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """One Chromium for every page test of this process (each module has its own live
    server); under pytest-xdist each worker has its own, with a profile of its own and its
    driver on a free port."""
    binary = next((path for path in BROWSERS if shutil.which(path)), None)
    assert binary is not None and shutil.which(DRIVER), (
        "headless Chromium is missing: `make test` installs Debian's chromium and chromium-driver"
    )
    options = Options()
    options.binary_location = binary
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER, port=0), options=options)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()
