"""``mj.doctor(target, **connect_options)``: what the target is, and the walk for it.

A target is whatever ``mj.connect`` takes, and the other ways a notebook names a server:

- a command (a string or an argv list): executable, process, stdout, handshake, connect, listings;
- an ``http(s)://`` URL: name resolution, TCP, TLS, the POST, authorization, handshake, connect, listings;
- a config file (``mcp.json``, Claude Desktop's, VS Code's) or its loaded dict: each server's resolved
  command or URL, unset variables named; ``names=`` walks those servers all the way;
- a registry entry (``mj.registry.get(...)``) or a ``server.json`` (path or dict): the entry, the
  package or remote, its runtime, the values it needs, then the command's or URL's walk;
- an ``MCPServer`` object in this kernel: connect and listings.

The walk stops at the first failing step; each step says what it found and, when it failed, what to do.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._client import walk_client
from ._command import find_executable, walk_command
from ._report import Checklist, Diagnosis, Stop
from ._url import walk_url

__all__ = ["adoctor_body", "describe_target"]

DEFAULT_SECONDS = 60.0
_CONFIG_KEYS = ("mcpServers", "servers", "mcp")
_REFERENCE = re.compile(r"\$\{[^}]*\}")


async def adoctor_body(target: Any, **options: Any) -> Diagnosis:
    """Walk ``target`` (on the runtime loop); see the module docstring."""
    names = options.pop("names", None)
    entry_options: dict[str, Any] = {
        k: options.pop(k) for k in ("package", "remote", "arguments") if k in options
    }
    workspace = options.pop("workspace", None)
    checklist = Checklist(describe_target(target))
    try:
        await _walk(checklist, target, options, names, entry_options, workspace)
        checklist.diagnosis.complete = True
    except Stop:
        pass
    return checklist.diagnosis


def describe_target(target: Any) -> str:
    """The target as text, for the report's title."""
    from ..mcp_registry import RegistryServer

    if isinstance(target, RegistryServer):
        return f"registry entry {target.name} {target.version}"
    if isinstance(target, (list, tuple)):
        return shlex.join(map(str, target))
    if isinstance(target, Mapping):
        return "server.json" if _is_server_json(target) else "config"
    if isinstance(target, (str, os.PathLike)):
        return os.fspath(target)
    return getattr(target, "name", None) or type(target).__name__


async def _walk(
    checklist: Checklist,
    target: Any,
    options: dict[str, Any],
    names: Any,
    entry_options: dict[str, Any],
    workspace: Any,
) -> None:
    from .._compat.mcp_sdk import is_server_object
    from ..mcp_registry import RegistryServer

    if isinstance(target, RegistryServer):
        await _walk_entry(checklist, target, options, entry_options)
    elif is_server_object(target):
        await walk_client(checklist, target, options)
    elif isinstance(target, Mapping):
        if _is_server_json(target):
            await _walk_server_json(checklist, dict(target), options, entry_options)
        else:
            await _walk_config(checklist, dict(target), "config", options, names, workspace)
    elif isinstance(target, (str, os.PathLike)) and _is_url(target):
        await _walk_url_then_client(checklist, str(target).strip(), options)
    elif isinstance(target, (str, os.PathLike)) and _json_file(target) is not None:
        data = _json_file(target)
        if isinstance(data, dict) and _is_server_json(data):
            await _walk_server_json(checklist, os.fspath(target), options, entry_options)
        else:
            await _walk_config(checklist, os.fspath(target), os.fspath(target), options, names, workspace)
    elif isinstance(target, (str, list, tuple)):
        argv = _argv(checklist, target)
        await _walk_command_then_client(checklist, argv, options)
    else:
        checklist.add(
            "target",
            "failed",
            f"cannot diagnose a {type(target).__name__}",
            "pass a command, a URL, a config file, a server.json or mj.registry.get(name)",
        )


def _is_url(target: Any) -> bool:
    return str(target).strip().lower().startswith(("http://", "https://"))


def _is_server_json(data: Mapping[str, Any]) -> bool:
    return "name" in data and not any(key in data for key in _CONFIG_KEYS)


def _json_file(target: Any) -> Any:
    """The JSON in ``target`` when it names an existing ``.json`` file (None otherwise)."""
    path = Path(os.fspath(target)).expanduser()
    if path.suffix.lower() != ".json" or not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return {}  # a config walk reports the file's problem


def _argv(checklist: Checklist, target: Any) -> list[str]:
    if isinstance(target, str):
        try:
            argv = shlex.split(target)
        except ValueError as exc:
            checklist.add("command", "failed", f"cannot split {target!r}: {exc}", "fix the quoting")
            raise
    else:
        argv = [os.fspath(a) for a in target]
    if not argv:
        checklist.add("command", "failed", "the command is empty", "pass e.g. 'python -m mcp_jupyter.demo'")
    return argv


def _seconds(options: dict[str, Any]) -> float:
    return float(options.get("connect_timeout") or DEFAULT_SECONDS)


async def _walk_command_then_client(checklist: Checklist, argv: list[str], options: dict[str, Any]) -> None:
    await walk_command(
        checklist, argv, env=options.get("env"), cwd=options.get("cwd"), seconds=_seconds(options)
    )
    await walk_client(checklist, argv, options)


async def _walk_url_then_client(checklist: Checklist, url: str, options: dict[str, Any]) -> None:
    outcome = await walk_url(checklist, url, headers=options.get("headers"), seconds=_seconds(options))
    if outcome.proceed:
        await walk_client(checklist, url, options)


# -- config files ----------------------------------------------------------------------------------


async def _walk_config(
    checklist: Checklist, source: Any, where: str, options: dict[str, Any], names: Any, workspace: Any
) -> None:
    from ..client._config import (
        _read_json,
        expand_env,
        parse_config,
        parse_servers_section,
        vscode_variables,
    )
    from ..errors import ConfigError

    with checklist.sync_step("config file") as step:
        try:
            if isinstance(source, dict):
                data = source
            else:
                path = Path(source).expanduser()
                if not path.is_file():
                    step.fail(
                        f"no file at {source!r}", "pass the path of an mcp.json / claude_desktop_config.json"
                    )
                    return
                data = _read_json(path)
                if workspace is None and path.resolve().parent.name == ".vscode":
                    workspace = path.resolve().parent.parent
            servers = parse_servers_section(data, where)
        except ConfigError as exc:
            step.fail(str(exc), "fix the file: it is JSON with an mcpServers (or servers) object")
            return
        step.detail = f"{len(servers)} server(s): {', '.join(servers)}"
    predefined = vscode_variables(workspace)
    resolved: dict[str, Any] = {}
    chosen = [names] if isinstance(names, str) else list(names or [])
    for name, entry in servers.items():
        if chosen and name not in chosen:
            continue
        problems = _unset_variables(entry, name, expand_env, predefined, ConfigError)
        if problems:
            checklist.add(
                f"server {name}",
                "failed",
                "; ".join(problems),
                "set each variable in the kernel (os.environ['NAME'] = ...) or give a default: ${env:NAME:-value}",
                stop=False,
            )
            continue
        try:
            spec = parse_config({"mcpServers": {name: entry}}, source=where, workspace=workspace)[name]
        except ConfigError as exc:
            checklist.add(f"server {name}", "failed", str(exc), "fix this server's entry", stop=False)
            continue
        resolved[name] = spec
        checklist.add(f"server {name}", "ok", _spec_line(spec), stop=False)
    if not chosen:
        if checklist.diagnosis.failed is not None:
            raise Stop("config")
        return
    await _walk_configured(checklist, chosen, resolved, servers, options)


def _unset_variables(
    entry: Any, name: str, expand_env: Any, predefined: dict, error: type[Exception]
) -> list[str]:
    """Every ``${...}`` in the entry that cannot be resolved, said as the client says it."""
    problems: list[str] = []
    for text in _strings(entry):
        for reference in _REFERENCE.findall(text):
            try:
                expand_env(reference, where=f"server {name!r}", predefined=predefined)
            except error as exc:
                if str(exc) not in problems:
                    problems.append(str(exc))
    return problems


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def _spec_line(spec: Any) -> str:
    if spec.url:
        headers = f" (headers: {', '.join(spec.headers)})" if spec.headers else ""
        return f"url {spec.url}{headers}" + (" [disabled]" if spec.disabled else "")
    env = f" (env: {', '.join(spec.env)})" if spec.env else ""
    return f"command {shlex.join(spec.command or [])}{env}" + (" [disabled]" if spec.disabled else "")


async def _walk_configured(
    checklist: Checklist, chosen: list[str], resolved: dict[str, Any], servers: dict, options: dict[str, Any]
) -> None:
    from ..errors import did_you_mean

    stopped = False
    for name in chosen:
        if name not in servers:
            checklist.add(
                f"server {name}",
                "failed",
                f"the config has no server {name!r}; {did_you_mean(name, servers)}",
                stop=False,
            )
            stopped = True
            continue
        spec = resolved.get(name)
        if spec is None:
            stopped = True
            continue
        walk = Checklist(checklist.diagnosis.target, prefix=f"{name}: ")
        walk.diagnosis = checklist.diagnosis
        merged = {
            **options,
            "env": {**spec.env, **(options.get("env") or {})},
            "headers": {**spec.headers, **(options.get("headers") or {})},
        }
        if spec.cwd and "cwd" not in options:
            merged["cwd"] = spec.cwd
        if spec.transport != "auto":
            merged.setdefault("transport", spec.transport)
        try:
            if spec.url:
                await _walk_url_then_client(walk, spec.url, merged)
            else:
                await _walk_command_then_client(walk, list(spec.command or []), merged)
        except Stop:
            stopped = True
    if stopped:
        raise Stop("config")


# -- registry entries and server.json ---------------------------------------------------------------


async def _walk_server_json(
    checklist: Checklist, source: Any, options: dict[str, Any], entry_options: dict[str, Any]
) -> None:
    from ..errors import InvalidServerJson
    from ..mcp_registry import SCHEMA_VERSION, load_server_json

    with checklist.sync_step("server.json") as step:
        try:
            server = load_server_json(source)
        except InvalidServerJson as exc:
            step.fail(str(exc), "fix each field named above (its JSON path), then run the doctor again")
            return
        step.detail = f"{server.name} {server.version}: valid against the server.json schema {SCHEMA_VERSION}"
    await _walk_entry(checklist, server, options, entry_options, announce=False)


async def _walk_entry(
    checklist: Checklist,
    server: Any,
    options: dict[str, Any],
    entry_options: dict[str, Any],
    *,
    announce: bool = True,
) -> None:
    from ..errors import ConfigError, ConnectionFailed
    from ..mcp_registry import Package

    if announce:
        stale = f" (kept from the last search: {server.stale_reason})" if server.stale else ""
        checklist.add("registry entry", "ok", f"{server.name} {server.version} from {server.registry}{stale}")
    package, remote = entry_options.get("package", 0), entry_options.get("remote")
    given = {
        "env": options.get("env"),
        "headers": options.get("headers"),
        "arguments": entry_options.get("arguments"),
    }
    with checklist.sync_step("package") as step:
        try:
            chosen = server.way(package, remote=remote)
            preview = server.launch(package, remote=remote, placeholders=True, **given)
        except (ConnectionFailed, ValueError) as exc:
            step.fail(str(exc), "choose another package (package=N) or a remote (remote=N)")
            return
        step.detail = f"{chosen.summary}: {preview.line}"
    if isinstance(chosen, Package):
        with checklist.sync_step("runtime") as step:
            try:
                server.check_runtime(package)
            except ConnectionFailed as exc:
                step.fail(str(exc), "install it, then run the doctor again")
                return
            if preview.note:
                step.warn(preview.note)
            else:
                step.detail = (
                    f"{preview.argv[0]} → {find_executable(preview.argv[0], None, options.get('cwd'))}"
                )
            if chosen.transport != "stdio":
                step.fail(
                    f"this package runs a local {chosen.transport} server, which the notebook does not start for you",
                    f"run `{preview.line}` in a terminal, then diagnose its URL: mj.doctor({preview.url!r})",
                )
    with checklist.sync_step("required values") as step:
        try:
            launch = server.launch(package, remote=remote, **given)
        except ConfigError as exc:
            step.fail(
                str(exc),
                "connect with .connect() to be asked (secrets in a password field), or pass the values",
            )
            return
        named = [*launch.env, *launch.headers]
        step.detail = f"every required value is there ({', '.join(named)})" if named else "it needs no values"
    merged = {k: v for k, v in options.items() if k not in ("env", "headers")}
    if launch.env:
        merged["env"] = launch.env
    if launch.headers:
        merged["headers"] = launch.headers
    if launch.transport == "sse":
        merged.setdefault("transport", "sse")
    if launch.argv:
        await _walk_command_then_client(checklist, list(launch.argv), merged)
    else:
        await _walk_url_then_client(checklist, launch.url, merged)
