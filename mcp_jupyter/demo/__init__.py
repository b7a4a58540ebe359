"""The bundled demo MCP server: a small but representative server to explore from a notebook.

- :data:`server`: a ready-made server for in-process use (``mj.connect("demo", mcp_jupyter.demo.server)``);
- :func:`create_server`: a fresh one with its own state; :data:`SERVER_NAME`, :data:`SERVER_VERSION`.

Run it as a subprocess over stdio (``python -m mcp_jupyter.demo``) or over Streamable HTTP
(``python -m mcp_jupyter.demo --http --port 8765``, endpoint ``http://127.0.0.1:8765/mcp``).
Connect and list what it offers (``conn.tools``, ``conn.resources``, ``conn.prompts``): every tool,
resource and prompt describes itself, and their names are stable.

A second demo, :mod:`mcp_jupyter.demo.oauth_server`, is an OAuth authorization server with a login
page and a protected MCP server behind it, for trying sign-in
(``python -m mcp_jupyter.demo.oauth_server``).
"""

from mcp_jupyter.demo._app import SERVER_NAME, SERVER_VERSION, create_server

server = create_server()
"""A ready-made demo server for in-process use; `create_server()` makes a fresh one with its own state.

Its ``crash`` tool refuses to run, so a call cannot kill the kernel the server lives in."""

__all__ = ["SERVER_NAME", "SERVER_VERSION", "create_server", "server"]
