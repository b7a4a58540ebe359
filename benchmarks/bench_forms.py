"""How long a SchemaForm for a 200-property schema takes to build, as a ratio to building a plain
`ipywidgets.VBox` of 200 Labels in the same run (so the number means the same on any machine).

Run: python benchmarks/bench_forms.py [N_PROPERTIES] [REPEATS]
The issue's goal is under a second for the form on this machine; the ratio shows what the form's
structure costs over the cheapest possible widget tree of the same size.
"""

from __future__ import annotations

import sys

import ipywidgets as W
from _timing import median_seconds  # benchmarks/ is on sys.path when a script runs

from mcp_jupyter.widgets import SchemaForm

KINDS = [
    {"type": "string", "description": "A text field"},
    {"type": "integer", "minimum": 0, "maximum": 100, "default": 5},
    {"type": "number"},
    {"type": "boolean", "default": False},
    {"type": "string", "enum": ["a", "b", "c"], "enumNames": ["A", "B", "C"]},
    {"type": "string", "format": "email"},
    {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}},
]


def wide_schema(n: int) -> dict:
    """An object schema with `n` properties cycling through the common kinds; a third required."""
    properties = {f"field_{i}": {**KINDS[i % len(KINDS)], "title": f"Field {i}"} for i in range(n)}
    return {"type": "object", "properties": properties, "required": [f"field_{i}" for i in range(0, n, 3)]}


def main(n: int = 200, repeats: int = 5) -> None:
    """Print the baseline, the form build time and their ratio."""
    schema = wide_schema(n)
    baseline = median_seconds(lambda: W.VBox([W.Label(f"Field {i}") for i in range(n)]), repeats)
    form = median_seconds(lambda: SchemaForm(schema, submit_label="Call"), repeats)
    print(f"VBox of {n} Labels:        {baseline * 1000:8.1f} ms")
    print(f"SchemaForm, {n} properties: {form * 1000:8.1f} ms")
    print(f"ratio form / labels:       {form / baseline:8.1f}x")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
