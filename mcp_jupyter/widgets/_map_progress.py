"""The progress bar ``conn.map`` shows in notebooks."""

from __future__ import annotations

import time

import ipywidgets as W

from mcp_jupyter.consent._presenters import current_cell_parent

from ._consent_cards import display_in_cell


class MapProgress:
    """An ipywidgets progress bar, displayed at once in the running cell and updated by trait sets
    from the runtime thread (never blocks; at most ten redraws a second)."""

    def __init__(self, total: int, label: str) -> None:
        self.total = total
        self.done = 0
        self._last = 0.0
        # The whole label: ipywidgets' default description width cuts anything past a dozen characters.
        self.bar = W.IntProgress(
            value=0, min=0, max=max(total, 1), description=label, style={"description_width": "initial"}
        )
        self.text = W.Label(f"0/{total}")
        self.box = W.HBox([self.bar, self.text])
        self.box.add_class("mcpj-map-progress")
        parent = current_cell_parent()
        if parent is not None:
            display_in_cell(self.box, parent)  # the runtime thread must name the cell it shows in
        else:
            from IPython.display import display

            display(self.box)

    def step(self) -> None:
        """One more call finished."""
        self.update(self.done + 1)

    def update(self, done: int) -> None:
        """``done`` of ``total`` finished (reported by others, e.g. Dask workers, in any order)."""
        self.done = min(done, self.total)
        now = time.monotonic()
        if self.done == self.total or now - self._last > 0.1:
            self._last = now
            self.bar.value = self.done
            self.text.value = f"{self.done}/{self.total}"
