"""An in-process MCPServer in two versions, for diff and record/replay tests.

``create("1")`` / ``create("2")`` build either version; the module-level ``server`` is the version
named by the ``VERSIONED_SERVER_VERSION`` environment variable (default "1"), so a recorded test
that imports it replays against version 2 when that variable says so.

Version 2 changes: ``add`` answers one too many, ``greet`` gains a required ``punctuation``
argument, ``stamp`` stays volatile (a new timestamp each call), ``multiply`` is new, ``legacy`` is
gone, ``info://version`` reads "2", and the ``hello`` prompt says "Hi" instead of "Hello".
"""

from __future__ import annotations

import os
import time

from mcp.server.mcpserver import MCPServer


def create(version: str = "1") -> MCPServer:
    server = MCPServer("versioned", version=version) if _takes_version() else MCPServer("versioned")
    v2 = version == "2"

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b + (1 if v2 else 0)

    if v2:

        @server.tool()
        def greet(name: str, punctuation: str) -> str:
            """Greet someone."""
            return f"Hello, {name}{punctuation}"

        @server.tool()
        def multiply(a: int, b: int) -> int:
            """Multiply two integers."""
            return a * b

    else:

        @server.tool()
        def greet(name: str) -> str:
            """Greet someone."""
            return f"Hello, {name}!"

        @server.tool()
        def legacy() -> str:
            """A tool version 2 removes."""
            return "old"

    @server.tool()
    def stamp(label: str) -> dict:
        """A label and a volatile timestamp."""
        return {"label": label, "timestamp": time.time()}

    @server.resource("info://version", mime_type="text/plain")
    def version_info() -> str:
        """The server's version."""
        return version

    @server.prompt()
    def hello(name: str) -> str:
        """Say hello."""
        return f"{'Hi' if v2 else 'Hello'} {name}"

    return server


def _takes_version() -> bool:
    import inspect

    return "version" in inspect.signature(MCPServer.__init__).parameters


server = create(os.environ.get("VERSIONED_SERVER_VERSION", "1"))
