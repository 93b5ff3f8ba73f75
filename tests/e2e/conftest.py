"""A real `oracle serve` on the session's snapshot, and headless Chromium (Debian's package)
driven by Playwright. Where Playwright or Chromium is missing, or Chromium cannot start, every
browser test is skipped, saying why; `.ci/run` installs Chromium."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.servers import start_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1280, "height": 1000}
PHONE = {"width": 390, "height": 844}


# Per module: Playwright's own event loop is closed before other tests run theirs.
@pytest.fixture(scope="module")
def chromium():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')")
    if not CHROMIUM.exists():
        pytest.skip(f"no browser at {CHROMIUM} (apt-get install chromium); the dashboard is untested in a browser")
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        except Exception as failure:  # any launch failure means: no browser on this machine
            pytest.skip(f"Chromium at {CHROMIUM} did not start: {str(failure).splitlines()[0]}")
        yield browser
        browser.close()


def stop_server(process) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


@pytest.fixture(scope="session")
def dashboard_base(built_warehouse, tmp_path_factory):
    """The server the pages are read from. `start_server` lifts the free tier's hourly limit, as
    a whole suite of page loads from one address would exhaust it."""
    process, base = start_server(built_warehouse, tmp_path_factory.mktemp("dashboard-data"))
    yield base
    stop_server(process)


@pytest.fixture(scope="session")
def api(dashboard_base):
    """The same answers the pages fetch, read directly."""
    with httpx.Client(base_url=dashboard_base, timeout=30) as client:
        yield client


@pytest.fixture
def page(chromium):
    """A fresh browser context; a script error on the page fails the test."""
    context = chromium.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], f"script errors on the page: {errors}"


def open_page(page, url: str):
    """Load a dashboard page and wait until its script has filled it in."""
    page.goto(url)
    page.wait_for_selector("main[aria-busy='false']", timeout=20_000)
    return page
