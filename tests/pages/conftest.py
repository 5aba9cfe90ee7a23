"""Headless Chromium (Debian's package, installed by `make test`) driven with Selenium."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

DRIVER = "/usr/bin/chromedriver"
BROWSERS = ("/usr/bin/chromium", "/usr/lib/chromium/chromium")


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    """One Chromium for every page test (each module has its own live server)."""
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
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()
