"""Cancel and paste while a sync ``mj.connect`` blocks the cell, from JupyterLab's sign-in notification.

A blocked cell cannot take widget clicks, so the card shows a note instead of its buttons, and the
JupyterLab extension shows a notification "Sign in to SERVER at HOST" whose actions go over the MCP
channel (a kernel subshell): Cancel ends the waiting cell at once; "Paste…" opens a dialog
where the person pastes the address the browser ended on, and the cell finishes signed in.
``redirect="paste"`` makes the sign-in need a paste (nothing listens for the redirect).
"""

from __future__ import annotations

import pytest

from mcp_jupyter.demo.oauth_server import start

from ..oauth_agent import sign_in
from .harness import cell, cell_output, run_cell, wait_idle

TIMEOUT = 60_000
KEY_DELAY = 5  # ms between keystrokes (the pasted address is long)

pytestmark = pytest.mark.browser


def test_cancel_then_paste_from_the_notification(open_notebook, demo_oauth_urls) -> None:
    urls = demo_oauth_urls
    host = urls["issuer"].removeprefix("http://")
    connect = f"mj.connect('secure', {urls['mcp']!r}, auth=mj.OAuth(redirect='paste', store=False))"
    page = open_notebook(
        [
            f"import mcp_jupyter as mj\n{connect}",
            f"conn = {connect}\nprint('WHOAMI', conn.call('whoami').structured['subject'])",
        ]
    )

    # Cancel: the card says its buttons cannot answer; the notification's Cancel ends the cell.
    run_cell(page, 0)
    card = cell(page, 0).locator(".mcp-signin-card")
    card.wait_for(timeout=TIMEOUT)
    assert host in card.locator(".mcp-signin-host").inner_text()
    card.locator(".mcp-signin-busy").wait_for(timeout=TIMEOUT)
    assert card.locator(".mcp-signin-cancel").count() == 0
    toast = page.locator(".Toastify__toast", has_text=f"Sign in to secure at {host}")
    toast.wait_for(timeout=TIMEOUT)
    toast.get_by_role("button", name="Cancel").click()
    wait_idle(page)
    assert "cancelled by the user" in cell_output(page, 0)
    toast.wait_for(state="detached", timeout=TIMEOUT)  # auth.done dismissed it

    # Paste: sign in in a browser of its own, then paste where it ended through the notification's dialog.
    run_cell(page, 1)
    card = cell(page, 1).locator(".mcp-signin-card")
    card.wait_for(timeout=TIMEOUT)
    link = card.locator("a.mcp-signin-link").get_attribute("href")
    redirect = sign_in(link, "demo", "demo").redirect
    toast = page.locator(".Toastify__toast", has_text=f"Sign in to secure at {host}")
    toast.wait_for(timeout=TIMEOUT)
    toast.get_by_role("button", name="Paste…").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator("input").wait_for(timeout=TIMEOUT)
    dialog.locator("input").click()
    page.keyboard.type(redirect, delay=KEY_DELAY)
    page.keyboard.press("Enter")
    wait_idle(page)
    assert "WHOAMI demo" in cell_output(page, 1)
    card.locator(".mcp-signin-outcome").wait_for(timeout=TIMEOUT)
    assert "Signed in." in card.inner_text()


@pytest.fixture(scope="module")
def demo_oauth_urls():
    with start() as server:
        yield server.urls
