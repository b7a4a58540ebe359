"""Smoke test of the browser harness: ipywidgets render in JupyterLab and a click reaches the kernel."""

from __future__ import annotations

import pytest

from .harness import cell_output, collect_console_errors, run_cell, wait_idle

WIDGET_CELL = """
import ipywidgets as widgets
label = widgets.Label("not clicked")
label.add_class("smoke-label")
button = widgets.Button(description="Click me")
button.add_class("smoke-button")
def on_click(_button):
    label.value = "clicked!"
button.on_click(on_click)
widgets.VBox([button, label])
"""


@pytest.mark.browser
def test_button_click_round_trips_to_the_kernel(open_notebook):
    """Clicking a rendered Button runs its Python on_click, whose Label change shows up in the page."""
    page = open_notebook([WIDGET_CELL, "print('label is', label.value)"])
    run_cell(page, 0)
    wait_idle(page)

    page.locator(".smoke-button").click()
    page.locator(".smoke-label", has_text="clicked!").wait_for()

    run_cell(page, 1)
    wait_idle(page)
    assert "label is clicked!" in cell_output(page, 1)
    assert not [e for e in collect_console_errors(page) if "widget" in e.lower()]
