"""Fixtures for browser tests: one JupyterLab and one Chromium for the whole tests/browser package.

``lab_server``      the running JupyterLab (``harness.LabServer``: .url, .token, .root_dir, .api())
``browser_context`` the Playwright persistent Chromium context
``open_notebook``   ``open_notebook(cells: list[str], name: str | None = None) -> Page``; kernels are shut
                    down after the test. A test's first notebook opens in the worker's JupyterLab page that
                    the previous test left (emptied to the ``?reset`` layout: ``harness.clear_lab_page``),
                    as a person opens one notebook after another in the same tab (measured in the suite:
                    about 0.7 CPU-s and a second or two saved per page; docs/architecture.md). A test
                    marked ``fresh_lab_page`` (it watches a page from its start, or changes settings the
                    page keeps) gets new pages, and a failed test's pages are never handed on.

Everything in tests/browser is marked ``browser`` automatically (``make fast-test`` deselects it). A
missing Chromium or a lab that does not start is a test ERROR, never a skip: CI must prove the UI works.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .harness import (
    PAGE_TIMEOUT_MS,
    HarnessError,
    LabServer,
    clear_lab_page,
    launch_browser,
    open_notebook_in,
    open_notebook_page,
    shutdown_notebook_sessions,
    start_lab,
)

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/browser as ``browser`` so ``-m "not browser"`` skips them all."""
    for item in items:
        if HERE in Path(item.fspath).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Keep each phase's report on the item, so fixtures can tell in teardown whether the test failed."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def save_screenshot(page, directory: Path) -> None:
    """Save a full-page screenshot of a failed test's page and say where (shown with the failure)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{len(list(directory.iterdir()))}.png"
    try:
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot of the failed page: {path}", file=sys.stderr)
    except Exception as error:  # the page may already be gone; the test's own failure matters more
        print(f"could not take a screenshot: {error}", file=sys.stderr)


@pytest.fixture(scope="package")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """A JupyterLab on 127.0.0.1 with isolated config/data/runtime dirs, shared by all browser tests."""
    try:
        lab = start_lab(tmp_path_factory.mktemp("lab"))
    except HarnessError as error:
        pytest.fail(str(error), pytrace=False)
    yield lab
    lab.stop()


@pytest.fixture(scope="package")
def browser_context(tmp_path_factory: pytest.TempPathFactory):
    """Headless Debian Chromium (Playwright persistent context), shared by all browser tests.

    Package-scoped rather than session-scoped so Playwright's sync machinery is gone before the
    non-browser tests (which run asyncio loops of their own) start.
    """
    from playwright.sync_api import expect, sync_playwright

    # expect()'s own default is 5 s: too short a deadline for a round trip through a kernel and a server on a
    # loaded machine. Deadlines here are for hangs, never measurements.
    expect.set_options(timeout=PAGE_TIMEOUT_MS)
    with sync_playwright() as playwright:
        try:
            context = launch_browser(playwright, tmp_path_factory.mktemp("chromium-profile"))
        except HarnessError as error:
            pytest.fail(str(error), pytrace=False)
        yield context
        context.close()


class LabTab:
    """The worker's reusable JupyterLab page: at most one, handed from test to test."""

    def __init__(self) -> None:
        self.page: object | None = None

    def take(self) -> object | None:
        page, self.page = self.page, None
        return page

    def give_back(self, page) -> None:
        """Keep ``page`` for the next test if it can be emptied; close it otherwise."""
        if self.page is None and clear_lab_page(page):
            self.page = page
        else:
            page.close()

    def close(self) -> None:
        if (page := self.take()) is not None and not page.is_closed():
            page.close()


@pytest.fixture(scope="package")
def lab_tab(browser_context) -> Iterator[LabTab]:
    """The JupyterLab page tests hand on to each other (see ``open_notebook``)."""
    tab = LabTab()
    yield tab
    tab.close()


@pytest.fixture
def open_notebook(
    request: pytest.FixtureRequest, lab_server: LabServer, browser_context, lab_tab: LabTab
) -> Iterator[Callable[..., object]]:
    """Return ``open_notebook(cells, name=None) -> Page``: write a notebook of code cells, open it, wait idle.

    Names default to the test's name, so a failing test's notebook is easy to find in the lab's root dir.
    """
    names: list[str] = []
    pages: list[object] = []
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", request.node.name)[:80]
    shared = request.node.get_closest_marker("fresh_lab_page") is None
    if not shared:  # an idle page on the same workspace would save its own layout over this test's
        lab_tab.close()

    def open_(cells: list[str], name: str | None = None):
        name = name or f"{stem}-{len(names)}.ipynb"
        names.append(name)  # before opening, so a kernel started by a half-open page is still shut down
        page = lab_tab.take() if shared and not pages else None
        if page is not None:
            try:
                open_notebook_in(page, lab_server, name, cells)
            except Exception as error:  # the page the last test left is unwell: never this test's failure
                print(
                    f"the shared lab page could not open {name} ({error}); loading a new page",
                    file=sys.stderr,
                )
                page.close()
                page = None
        if page is None:
            page = open_notebook_page(browser_context, lab_server, name, cells)
        pages.append(page)
        return page

    yield open_
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for index, page in enumerate(pages):
        if failed:
            save_screenshot(page, lab_server.root_dir.parent / "screenshots")
        if index == 0 and shared and not failed:
            lab_tab.give_back(page)  # empties it first: its notebooks close before their kernels go
        else:
            page.close()
    shutdown_notebook_sessions(lab_server, names)
