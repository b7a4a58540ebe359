"""Server configuration files: Claude Desktop / Cursor ``mcpServers`` and VS Code ``servers``.

Both formats map a name to either a command (``command``, ``args``, ``env``, ``cwd``) or a URL
(``url``, ``headers``, optional ``type``: ``http``/``streamable-http``/``sse``). Values may
reference environment variables as ``${env:VAR}`` (VS Code) or ``${VAR}`` (Claude/Cursor),
with an optional default: ``${env:VAR:-fallback}``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, did_you_mean

__all__ = [
    "ServerSpec",
    "load_config",
    "parse_config",
    "parse_servers_section",
    "expand_env",
    "config_files",
    "discover",
]

_REF = re.compile(r"\$\{([^}]*)\}")
_ENV_REF = re.compile(r"^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$")


def vscode_variables(workspace: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """VS Code's predefined variables this client can know: ``${workspaceFolder}`` (``workspace``,
    default the current directory: the notebook's folder in a kernel), its basename, ``${userHome}``,
    ``${pathSeparator}`` and its shorthand ``${/}``."""
    folder = Path(workspace).expanduser().resolve() if workspace is not None else Path.cwd()
    return {
        "workspaceFolder": str(folder),
        "workspaceFolderBasename": folder.name,
        "userHome": str(Path.home()),
        "pathSeparator": os.sep,
        "/": os.sep,
    }


@dataclass
class ServerSpec:
    """One configured server: a command line or a URL, with its options."""

    name: str
    command: list[str] | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    transport: str = "auto"  # "auto" | "http" | "sse"
    disabled: bool = False

    @property
    def target(self) -> list[str] | str:
        """What ``mj.connect`` takes as its target."""
        return self.url if self.url is not None else list(self.command or [])


def expand_env(
    value: Any,
    environ: Mapping[str, str] | None = None,
    *,
    where: str = "",
    predefined: dict[str, str] | None = None,
) -> Any:
    """Resolve ``${env:VAR}`` / ``${VAR}`` / ``${env:VAR:-default}`` and VS Code's predefined
    variables (``predefined``, e.g. :func:`vscode_variables`) in strings, recursively in lists and
    dicts; any other ``${...}`` (``${input:...}``, ``${command:...}``...) is a clear error."""
    environ = os.environ if environ is None else environ
    predefined = vscode_variables() if predefined is None else predefined
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            body = match.group(1)
            if body in predefined:
                return predefined[body]
            ref = _ENV_REF.match(body)
            if ref is None:
                raise ConfigError(
                    f"{where or 'the configuration'} uses ${{{body}}}, which only VS Code itself can resolve; "
                    f"supported: ${{env:VAR}}, ${{VAR}}, ${{env:VAR:-default}}, "
                    + ", ".join(f"${{{name}}}" for name in predefined)
                    + "; put the value in the config (or in env) instead"
                )
            var, default = ref.group(1), ref.group(2)
            if var in environ:
                return environ[var]
            if default is not None:
                return default
            raise ConfigError(
                f"{where or 'the configuration'} uses ${{env:{var}}} but the environment variable {var} "
                f"is not set; set it (os.environ[{var!r}] = ...) or give a default: ${{env:{var}:-value}}"
            )

        return _REF.sub(substitute, value)
    if isinstance(value, list):
        return [expand_env(v, environ, where=where, predefined=predefined) for v in value]
    if isinstance(value, dict):
        return {k: expand_env(v, environ, where=where, predefined=predefined) for k, v in value.items()}
    return value


def _entry_to_spec(
    name: str, entry: Any, environ: Mapping[str, str] | None, predefined: dict[str, str] | None = None
) -> ServerSpec:
    where = f"server {name!r}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected an object with 'command' or 'url', got {type(entry).__name__}")
    entry = expand_env(entry, environ, where=where, predefined=predefined)
    kind = str(entry.get("type", "")).lower()
    disabled = bool(entry.get("disabled", False))
    if "url" in entry or kind in ("http", "sse", "streamable-http", "streamablehttp"):
        url = entry.get("url")
        if not isinstance(url, str) or not url:
            raise ConfigError(f"{where}: type {kind!r} needs a 'url'")
        headers = entry.get("headers") or {}
        if not isinstance(headers, dict):
            raise ConfigError(f"{where}: 'headers' must be an object of name -> value")
        transport = "sse" if kind == "sse" else ("http" if kind else "auto")
        return ServerSpec(
            name,
            url=url,
            headers={str(k): str(v) for k, v in headers.items()},
            transport=transport,
            disabled=disabled,
        )
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        raise ConfigError(f"{where}: needs a 'command' (with optional 'args') or a 'url'")
    args = entry.get("args") or []
    if not isinstance(args, list):
        raise ConfigError(f"{where}: 'args' must be a list of strings")
    env = entry.get("env") or {}
    if not isinstance(env, dict):
        raise ConfigError(f"{where}: 'env' must be an object of name -> value")
    cwd = entry.get("cwd")
    return ServerSpec(
        name,
        command=[command, *map(str, args)],
        env={str(k): str(v) for k, v in env.items()},
        cwd=str(cwd) if cwd else None,
        disabled=disabled,
    )


def parse_config(
    data: Any,
    *,
    environ: Mapping[str, str] | None = None,
    source: str = "config",
    workspace: str | os.PathLike[str] | None = None,
) -> dict[str, ServerSpec]:
    """Parse a loaded config (``{"mcpServers": {...}}``, ``{"servers": {...}}`` or a bare mapping).

    ``workspace`` is what ``${workspaceFolder}`` means (default: the current directory)."""
    servers = parse_servers_section(data, source)
    predefined = vscode_variables(workspace)
    return {name: _entry_to_spec(name, entry, environ, predefined) for name, entry in servers.items()}


def parse_servers_section(data: Any, source: str = "config") -> dict[str, Any]:
    """The name -> entry mapping of a loaded config (``mcpServers``, ``servers``, VS Code's
    settings ``mcp.servers``, or a bare mapping of entries), not yet resolved."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a JSON object with 'mcpServers' or 'servers'")
    servers = data.get("mcpServers", data.get("servers"))
    if servers is None:
        # VS Code's settings.json: {"mcp": {"servers": ...}}
        if "mcp" in data and isinstance(data["mcp"], dict):
            servers = data["mcp"].get("servers")
        elif all(isinstance(v, dict) and ("command" in v or "url" in v) for v in data.values()) and data:
            servers = data
    if not isinstance(servers, dict):
        raise ConfigError(
            f"{source}: no 'mcpServers' (Claude Desktop/Cursor) or 'servers' (VS Code) object found"
        )
    return servers


def load_config(
    path: str | os.PathLike[str],
    *,
    environ: Mapping[str, str] | None = None,
    workspace: str | os.PathLike[str] | None = None,
) -> dict[str, ServerSpec]:
    """Read and parse a config file (JSON; ``//`` comments as in VS Code's files are allowed).

    ``${workspaceFolder}`` is ``workspace``, else the folder holding ``.vscode/`` for a
    ``.vscode/mcp.json``, else the current directory."""
    file = Path(path).expanduser()
    if workspace is None and file.resolve().parent.name == ".vscode":
        workspace = file.resolve().parent.parent
    if not file.is_file():
        raise ConfigError(
            f"no config file at {str(file)!r}; pass the path of an mcp.json / claude_desktop_config.json"
        )
    return parse_config(_read_json(file), environ=environ, source=str(file), workspace=workspace)


def _read_json(file: Path) -> Any:
    """The JSON in ``file`` (``//`` and ``/* */`` comments and trailing commas allowed)."""
    text = file.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        try:
            return json.loads(_strip_jsonc(text))
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{file}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            ) from None


def config_files(workspace: str | os.PathLike[str] | None = None) -> list[Path]:
    """The well-known MCP config files that exist, in this order: the workspace's (default: the
    current directory, a notebook's folder) ``mcp.json``, ``.vscode/mcp.json``, ``.cursor/mcp.json``;
    then the user's Cursor ``~/.cursor/mcp.json``, Claude Desktop's ``claude_desktop_config.json``
    and VS Code's user ``mcp.json`` (macOS, Windows and Linux locations)."""
    folder = Path(workspace).expanduser() if workspace is not None else Path.cwd()
    home = Path.home()
    appdata = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    user_dirs = [home / "Library" / "Application Support", appdata, home / ".config"]
    candidates = [
        folder / "mcp.json",
        folder / ".vscode" / "mcp.json",
        folder / ".cursor" / "mcp.json",
        home / ".cursor" / "mcp.json",
        *(base / "Claude" / "claude_desktop_config.json" for base in user_dirs),
        *(base / "Code" / "User" / "mcp.json" for base in user_dirs),
    ]
    found: list[Path] = []
    for path in candidates:
        try:
            if path.is_file() and path.resolve() not in {f.resolve() for f in found}:
                found.append(path)
        except OSError:  # an unreadable folder is a file we cannot use
            continue
    return found


def discover(workspace: str | os.PathLike[str] | None = None) -> list[tuple[Path, ServerSpec]]:
    """Every server configured in :func:`config_files`, as (file, spec). Never raises: a file that
    cannot be read, or one entry that cannot be resolved (an unset ``${env:VAR}``), is skipped."""
    found: list[tuple[Path, ServerSpec]] = []
    for file in config_files(workspace):
        try:
            data = _read_json(file)
            servers = parse_servers_section(data)
        except (ConfigError, OSError, UnicodeDecodeError):
            continue
        where = file.resolve().parent.parent if file.resolve().parent.name == ".vscode" else workspace
        for name, entry in servers.items():
            try:
                spec = parse_config({"mcpServers": {name: entry}}, source=str(file), workspace=where)[name]
            except ConfigError:
                continue
            found.append((file, spec))
    return found


def select(specs: dict[str, ServerSpec], names: list[str] | None) -> list[ServerSpec]:
    """The specs to connect: ``names`` in order, or every enabled one."""
    if not names:
        return [s for s in specs.values() if not s.disabled]
    missing = [n for n in names if n not in specs]
    if missing:
        raise ConfigError(f"the config has no server {missing[0]!r}; {did_you_mean(missing[0], specs)}")
    return [specs[n] for n in names]


def _strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments and trailing commas outside strings (JSON with comments)."""
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(ch)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))
