"""Running the notebook server outside a kernel: the entry point of exported scripts.

Outside a kernel there are no cells to race with, so functions run as the SDK runs them (sync
ones on worker threads); the decorators, pandas conversion and error handling are unchanged.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from ._config_snippets import TOKEN_ENV
from ._handle import serve
from ._notebook_server import get_server

__all__ = ["main", "parse_args"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options of an exported server script."""
    parser = argparse.ArgumentParser(description="Serve the functions exported from a notebook over MCP.")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    parser.add_argument("--port", type=int, default=None, help="HTTP port (default: a free one)")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    parser.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Serve stdio (default) or, with ``--http``, Streamable HTTP until interrupted."""
    args = parse_args(argv)
    server = get_server()
    if not args.http:
        server.run("stdio")
        return
    handle = serve(
        args.port, args.host, allow_remote=args.allow_remote, token=os.environ.get(TOKEN_ENV) or None
    )
    # stdout stays clean for tools that print; the URL (and a generated token) go to stderr.
    print(f"Serving {handle.url}", file=sys.stderr, flush=True)
    if not os.environ.get(TOKEN_ENV):
        print(f"Bearer token: {handle.token}", file=sys.stderr, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while handle.running and not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        handle.stop("the process is exiting")
