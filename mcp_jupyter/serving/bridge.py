"""A stdio <-> Streamable HTTP bridge, for clients that can only launch a command.

Claude Desktop and Cursor start MCP servers as child processes speaking stdio. To let them use a
notebook served with ``mj.serve()``::

    python -m mcp_jupyter.serving.bridge http://127.0.0.1:PORT/mcp --token-env MCP_JUPYTER_TOKEN

with the token in that environment variable (so it never appears in a process listing). Messages
are relayed unchanged in both directions; the HTTP session (``Mcp-Session-Id``) is handled by the
SDK's transport.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio

__all__ = ["main"]

DEFAULT_TOKEN_ENV = "MCP_JUPYTER_TOKEN"


async def _pump(source, sink) -> None:
    async with sink:
        async for message in source:
            if isinstance(message, Exception):  # a transport hiccup: report, keep relaying
                print(f"mcp_jupyter.serving.bridge: {message!r}", file=sys.stderr, flush=True)
                continue
            await sink.send(message)


async def bridge(url: str, token: str | None) -> None:
    """Relay MCP messages between this process's stdio and the server at ``url`` until stdin closes."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.server.stdio import stdio_server

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    timeout = httpx2.Timeout(30.0, read=None)  # server-sent streams stay open
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as (http_read, http_write),
        stdio_server() as (stdio_read, stdio_write),
        anyio.create_task_group() as tasks,
    ):
        tasks.start_soon(_pump, http_read, stdio_write)
        await _pump(stdio_read, http_write)
        tasks.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    """``python -m mcp_jupyter.serving.bridge URL [--token-env VAR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m mcp_jupyter.serving.bridge", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("url", help="the Streamable HTTP endpoint, e.g. http://127.0.0.1:PORT/mcp")
    parser.add_argument(
        "--token-env",
        default=DEFAULT_TOKEN_ENV,
        help=f"environment variable holding the bearer token (default {DEFAULT_TOKEN_ENV})",
    )
    args = parser.parse_args(argv)
    token = os.environ.get(args.token_env)
    if not token:
        print(
            f"mcp_jupyter.serving.bridge: ${args.token_env} is empty; the server will answer 401. "
            "Put the token printed by mj.serve() in that variable.",
            file=sys.stderr,
        )
    anyio.run(bridge, args.url, token)


if __name__ == "__main__":
    main()
