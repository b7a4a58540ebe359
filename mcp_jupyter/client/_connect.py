"""``mj.connect`` / ``mj.aconnect`` / ``mj.connect_config``: open a connection and register it by name.

The facade's entry points: each makes the connection's settings once (a
:class:`~mcp_jupyter.client._options.ConnectionOptions`), builds the :class:`Connection`, starts it
and puts it in the book of connections by name (:mod:`._connections`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from typing import Any

from .._wording import counted
from ..errors import ConnectionFailed
from ..runtime import runtime
from ._config import load_config, parse_config, select
from ._connection import DEFAULT_MAX_TIMEOUT, DEFAULT_TIMEOUT, Connection
from ._connections import register
from ._options import ConnectionOptions
from ._runtime_methods import blocking, on_runtime

__all__ = ["connect", "aconnect", "connect_config"]


async def _open_registered(name: str, target: object, options: ConnectionOptions) -> Connection:
    """On the runtime loop: build, start and register the connection; the one it replaces is closed."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a connection needs a name, e.g. mj.connect('demo', 'python -m mcp_jupyter.demo')")
    conn = Connection.with_options(name, target, options)
    await conn._session.start()
    old = register(conn)
    if old is not None:
        await old._session.close()
        old._session.cleanup()
    return conn


# on_runtime is typed for methods (a positional first parameter); aconnect's first is the public
# keyword-able ``name``, which the signature keeps as it is.
@on_runtime  # type: ignore[arg-type]
async def aconnect(
    name: str,
    target: Any,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    max_timeout: float | None = DEFAULT_MAX_TIMEOUT,
    connect_timeout: float | None = None,
    mode: str = "auto",
    transport: str = "auto",
    **callbacks: Any,
) -> Connection:
    """Connect to an MCP server and register the connection under ``name``.

    ``target`` is a command line (``"npx -y @modelcontextprotocol/server-everything"`` or an argv
    list; ``env`` and ``cwd`` apply) run over stdio, an ``http(s)://`` URL spoken to over
    Streamable HTTP (falling back to legacy HTTP+SSE; ``headers`` e.g. a bearer token;
    ``transport="sse"`` forces SSE), or an ``MCPServer`` object in this kernel. ``auth`` signs in
    with OAuth: ``mj.OAuth(...)`` (client id/secret, CIMD URL, scopes, client credentials...),
    ``"oauth"``, or ``False`` (never); left at None, a server that answers 401 with OAuth
    metadata gets a sign-in by itself and stored tokens are reused (docs/auth.md). Requests time out
    after ``timeout`` seconds without an answer or progress (each progress notification restarts
    it; 60 s) or ``max_timeout`` seconds in all (600 s); ``None`` means no limit, and each call can
    override both. ``mode`` is ``"auto"`` (newest protocol, falling back to the initialize
    handshake) or ``"legacy"`` (initialize handshake only). ``callbacks``: ``sampling_callback``,
    ``elicitation_callback``, ``list_roots_callback`` (instead of the consent layer),
    ``validate=False`` (skip the argument check), ``max_line_bytes`` (the longest stdout line a
    stdio server may write, 64 MB), ``roots`` (None: the roots of ``mj.roots``; a list of
    directories: exactly those for this connection; False: no roots, so a server such as the
    filesystem server keeps the directories it was started with) and ``roots_wait`` (seconds to
    wait for a server's first roots request when roots are offered, 2). Connecting again with a name in use replaces (closes) the old
    connection.
    """
    # The keyword arguments above (help() shows them; a test holds them to ConnectionOptions' fields).
    given = {key: value for key, value in locals().items() if key not in ("name", "target", "callbacks")}
    return await _open_registered(name, target, ConnectionOptions.of("connect", {**given, **callbacks}))


connect = blocking(aconnect)


def connect_config(
    config: str | os.PathLike[str] | Mapping[str, Any],
    names: list[str] | str | None = None,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    mode: str = "auto",
    workspace: str | os.PathLike[str] | None = None,
) -> dict[str, Connection]:
    """Connect to the servers of an ``mcpServers`` (Claude Desktop/Cursor) or ``servers`` (VS Code) config.

    ``config`` is a file path or an already-loaded dict; ``names`` picks entries (default: all
    enabled ones). ``${env:VAR}`` / ``${VAR}`` values are resolved from the environment, and VS
    Code's ``${workspaceFolder}`` (``workspace``, else the folder holding ``.vscode/``, else the
    current directory: the notebook's folder), ``${userHome}`` and ``${pathSeparator}``.
    Returns name -> Connection. If one server fails, the others stay connected and the error
    names the failing one.
    """
    if isinstance(config, Mapping):
        specs = parse_config(config, workspace=workspace)
    else:
        specs = load_config(config, workspace=workspace)
    chosen = select(specs, [names] if isinstance(names, str) else names)
    result: dict[str, Connection] = {}
    failures: list[str] = []
    for spec in chosen:
        try:
            options = ConnectionOptions(
                env=spec.env,
                cwd=spec.cwd,
                headers=spec.headers,
                timeout=timeout,
                mode=mode,
                transport=spec.transport,
            )
            result[spec.name] = runtime().call(partial(_open_registered, spec.name, spec.target, options))
        except Exception as exc:  # noqa: BLE001 - reported together below
            failures.append(f"{spec.name}: {exc}")
    if failures:
        connected = ", ".join(result) or "none"
        raise ConnectionFailed(
            f"{len(failures)} of {counted(len(chosen), 'configured server')} failed (connected: {connected}):\n"
            + "\n".join(failures)
        )
    return result
