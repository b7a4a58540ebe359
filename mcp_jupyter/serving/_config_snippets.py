"""Ready-to-paste client configurations for a running notebook server.

Each entry is text a person copies as-is: VS Code's ``.vscode/mcp.json``, Claude Desktop's and
Cursor's ``mcpServers`` (through the stdio bridge, since those clients launch a command), the MCP
Inspector's CLI, and the lines another notebook uses to connect.
"""

from __future__ import annotations

import json
import shlex
import sys

TOKEN_ENV = "MCP_JUPYTER_TOKEN"
INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


def vscode_config(name: str, url: str, token: str) -> dict:
    """``.vscode/mcp.json`` content (VS Code speaks Streamable HTTP directly)."""
    return {"servers": {name: {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}}}


def bridge_config(name: str, url: str, token: str, python: str | None = None) -> dict:
    """``mcpServers`` content for clients that launch a stdio command (Claude Desktop, Cursor)."""
    return {
        "mcpServers": {
            name: {
                "command": python or sys.executable,
                "args": ["-m", "mcp_jupyter.serving.bridge", url, "--token-env", TOKEN_ENV],
                "env": {TOKEN_ENV: token},
            }
        }
    }


def inspector_command(url: str, token: str) -> str:
    """An MCP Inspector CLI command listing the tools."""
    return " ".join(
        [
            "npx",
            INSPECTOR,
            "--cli",
            shlex.quote(url),
            "--transport http",
            "--header",
            shlex.quote(f"Authorization: Bearer {token}"),
            "--method tools/list",
        ]
    )


def config_snippets(name: str, url: str, token: str) -> dict[str, str]:
    """All snippets, keyed ``vscode``, ``claude_desktop``, ``cursor``, ``inspector``, ``mcp_connect``, ``python``."""
    bridge = json.dumps(bridge_config(name, url, token), indent=2)
    return {
        "vscode": json.dumps(vscode_config(name, url, token), indent=2),
        "claude_desktop": bridge,
        "cursor": bridge,
        "inspector": inspector_command(url, token),
        "mcp_connect": f'%mcp connect {name} {url} --header "Authorization: Bearer {token}"',
        "python": f'conn = mj.connect({name!r}, {url!r}, headers={{"Authorization": "Bearer {token}"}})',
    }


SNIPPET_TITLES = {
    "vscode": "VS Code (.vscode/mcp.json)",
    "claude_desktop": "Claude Desktop (claude_desktop_config.json), through the stdio bridge",
    "cursor": "Cursor (~/.cursor/mcp.json), through the stdio bridge",
    "inspector": "MCP Inspector (CLI)",
    "mcp_connect": "Another notebook (magic)",
    "python": "Another notebook (Python)",
}
