"""Run the demo server: ``python -m mcp_jupyter.demo`` (stdio) or ``... --http --port N`` (Streamable HTTP)."""

from __future__ import annotations

import argparse
import logging
import sys

from mcp_jupyter.demo._app import SERVER_NAME, create_server

__all__ = ["main", "parse_args"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: stdio by default, Streamable HTTP on 127.0.0.1 with ``--http``."""
    parser = argparse.ArgumentParser(
        prog="python -m mcp_jupyter.demo", description=f"Run the {SERVER_NAME} MCP server."
    )
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port on 127.0.0.1 (default: 8765)")
    parser.add_argument("--path", default="/mcp", help="HTTP endpoint path (default: /mcp)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run the demo server until the client disconnects (stdio) or the process is interrupted (HTTP)."""
    args = parse_args(argv)
    # Server-side logs (failed tools, crashes) go to stderr, where clients show them on failure.
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    # Its own process: the crash tool may really end it.
    server = create_server(allow_crash=True)
    if not args.http:
        server.run("stdio")
        return
    # Only ever 127.0.0.1: the demo has no authentication. The SDK enables DNS-rebinding checks for it.
    print(f"{SERVER_NAME}: serving http://127.0.0.1:{args.port}{args.path}", file=sys.stderr, flush=True)
    server.run("streamable-http", host="127.0.0.1", port=args.port, streamable_http_path=args.path)


if __name__ == "__main__":
    main()
