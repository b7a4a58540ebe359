"""Finding servers: the MCP Registry and ``server.json``.

``mj.registry`` is the kernel's :class:`RegistryClient` (the official registry, or
``MCP_REGISTRY_URL``, or any ``mj.registry.url`` speaking the same API)::

    mj.registry.search("sqlite").to_dataframe()     # the latest servers whose name matches
    server = mj.registry.get("io.github.modelcontextprotocol/server-time")
    server.command()                                # 'uvx mcp-server-time==2026.10.19'
    server.required_env                             # names, descriptions, which are secret
    conn = server.connect()                         # asks for a missing secret in a password field

    mj.connect_server_json("server.json")           # your own server.json, checked, then connected

What a registry entry says is read into :class:`RegistryServer` (its :class:`Package` and
:class:`Remote` ways to run, the :class:`Input` values they need); :func:`validate_server_json` checks
a ``server.json`` against the bundled schema (2025-12-11). docs/registry.md has the details.
"""

from ._api import DEFAULT_TIMEOUT, OFFICIAL_REGISTRY, RegistryClient, RegistrySearch
from ._entries import Argument, Input, Package, Remote
from ._launch import Launch
from ._server import RegistryServer
from ._server_json import (
    SCHEMA_URL,
    SCHEMA_VERSION,
    connect_server_json,
    load_server_json,
    validate_server_json,
)

registry = RegistryClient()
"""The kernel's registry client (``mj.registry``)."""

__all__ = [
    "DEFAULT_TIMEOUT",
    "OFFICIAL_REGISTRY",
    "SCHEMA_URL",
    "SCHEMA_VERSION",
    "Argument",
    "Input",
    "Launch",
    "Package",
    "RegistryClient",
    "RegistrySearch",
    "RegistryServer",
    "Remote",
    "connect_server_json",
    "load_server_json",
    "registry",
    "validate_server_json",
]
