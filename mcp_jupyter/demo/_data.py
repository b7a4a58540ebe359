"""The demo server's fixed content: its README, a CSV, a config, catalog items and languages."""

from __future__ import annotations

import json

README = """\
# mcp-jupyter demo server

A small, representative MCP server bundled with `mcp_jupyter`. Run it with
`python -m mcp_jupyter.demo` (stdio) or `python -m mcp_jupyter.demo --http --port 8765`,
or connect to it in-process: `mj.connect("demo", mcp_jupyter.demo.server)`.

- **Tools**: `add`, `echo`, `weather`, `create_user`, `stats`, `table`, `image`, `mixed`,
  `countdown`, `log_messages`, `fail`, `slow`, `lookup`, `crash`, `increment`, `ask_user`,
  `summarize`, `forecast` (sampling with a tool offered to the LLM), `roots`.
- **Resources**: `demo://readme`, `demo://data.csv`, `demo://config.json`, `demo://logo.png`,
  `demo://counter`, `demo://status`, and the template `demo://items/{item_id}`.
- **Prompts**: `review_code(code, language)`, `greeting(name)`.
"""

CITIES = ["Amsterdam", "Berlin", "Lisbon", "Nairobi", "Osaka", "Paris", "Quito", "Toronto"]

NAMES = ["Ada", "Brian", "Chen", "Dana", "Emeka", "Fatima", "Grace", "Hiro", "Ines", "Jonas"]


def table_rows(count: int) -> list[dict[str, object]]:
    """`count` deterministic records (the same ones the CSV resource starts with)."""
    return [
        {
            "id": i + 1,
            "name": NAMES[i % len(NAMES)],
            "city": CITIES[(i * 3) % len(CITIES)],
            "score": round(50 + ((i * 37) % 50) + (i % 7) / 10, 1),
            "active": i % 3 != 0,
        }
        for i in range(count)
    ]


def data_csv() -> str:
    """The `demo://data.csv` resource: ten records as comma-separated values with a header row."""
    rows = table_rows(10)
    lines = [",".join(rows[0])]
    lines += [
        ",".join(str(value).lower() if isinstance(value, bool) else str(value) for value in row.values())
        for row in rows
    ]
    return "\n".join(lines) + "\n"


CONFIG = {
    "name": "mcp-jupyter-demo",
    "features": {"progress": True, "logging": True, "elicitation": True, "sampling": True},
    "limits": {"max_rows": 1000, "max_image_size": 256, "max_sleep_seconds": 600},
    "units": ["metric", "imperial"],
}


def config_json() -> str:
    """The `demo://config.json` resource."""
    return json.dumps(CONFIG, indent=2)


ITEMS: dict[str, dict[str, object]] = {
    "apple": {"name": "Apple", "kind": "fruit", "price": 0.5, "stock": 120},
    "apricot": {"name": "Apricot", "kind": "fruit", "price": 0.8, "stock": 40},
    "banana": {"name": "Banana", "kind": "fruit", "price": 0.25, "stock": 200},
    "basil": {"name": "Basil", "kind": "herb", "price": 1.9, "stock": 15},
    "carrot": {"name": "Carrot", "kind": "vegetable", "price": 0.3, "stock": 90},
    "cherry": {"name": "Cherry", "kind": "fruit", "price": 4.0, "stock": 25},
    "dill": {"name": "Dill", "kind": "herb", "price": 1.5, "stock": 10},
    "eggplant": {"name": "Eggplant", "kind": "vegetable", "price": 1.2, "stock": 30},
}
"""The catalog behind the `demo://items/{item_id}` template (ids complete by prefix)."""

LANGUAGES = [
    "bash",
    "c",
    "c++",
    "c#",
    "go",
    "java",
    "javascript",
    "julia",
    "kotlin",
    "python",
    "r",
    "ruby",
    "rust",
    "sql",
    "swift",
    "typescript",
]
"""Languages the `review_code` prompt's `language` argument completes to."""
