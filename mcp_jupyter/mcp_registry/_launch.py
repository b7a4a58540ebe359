"""How a notebook runs a registry entry: the launch line of a package, or the URL and headers of a remote.

The line is the one MCP clients run for each package kind (runtime arguments before the package,
package arguments after it)::

    npm   npx -y [runtime args] @scope/pkg@1.2.0 [package args]       (runtimeHint replaces npx)
    pypi  uvx [runtime args] pkg==1.2.0 [package args]                 (runtimeHint replaces uvx)
    oci   docker run -i --rm [runtime args] [-e NAME ...] image:tag [package args]
    nuget dnx [runtime args] Pkg@1.2.0 --yes [-- package args]

Values come from, in order: what the caller gives (``env=``, ``headers=``, ``arguments=``), the
entry's fixed ``value`` (``{curly}`` variables filled in), the kernel's environment (environment
variables only), the entry's ``default``, and finally the person, asked in a password field for a
secret (:mod:`._asking`). Environment variables reach the server through the process environment,
never the command line (``docker run -e NAME`` passes the name; docker reads the value from its own
environment), so a secret never shows in the launch line, ``conn.spec`` or an error.

A PyPI package needs ``uvx`` (from uv). Without it, a package already installed in the kernel's own
environment at the entry's exact version runs from there (its console script), which is what uvx
would run; otherwise connecting says to install uv.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ConfigError, ConnectionFailed
from ._entries import Argument, Entry, Input, Package, Remote

__all__ = ["Launch", "Values", "launch_package", "launch_remote", "RUNTIMES", "INSTALL"]

RUNTIMES = {"npm": "npx", "pypi": "uvx", "oci": "docker", "nuget": "dnx"}
"""The runtime each package kind runs with when the entry gives no ``runtimeHint``."""

RUNNERS = {"npm": ("npx", "bunx"), "pypi": ("uvx", "pipx"), "oci": ("docker", "podman"), "nuget": ("dnx",)}
"""Runtime hints that run a package of that kind with the same line (``pipx run`` for pipx). Any
other hint (a real entry says ``python`` for a PyPI package) runs with the kind's default instead."""

INSTALL = {
    "npx": "Node.js, which brings npx (https://nodejs.org)",
    "node": "Node.js (https://nodejs.org)",
    "uvx": "uv, which brings uvx (pip install uv, or https://docs.astral.sh/uv/)",
    "uv": "uv (pip install uv, or https://docs.astral.sh/uv/)",
    "docker": "Docker (https://docs.docker.com/get-docker/)",
    "dnx": "the .NET 10 SDK, which brings dnx (https://dotnet.microsoft.com/download)",
}
"""What to install for a runtime that is not on PATH."""

_VARIABLE = re.compile(r"\{([A-Za-z0-9_.-]+)\}")


class Missing(ConfigError):
    """A required value nobody gave (raised when asking is not allowed)."""

    def __init__(self, message: str, *, inputs: list[Input]) -> None:
        self.inputs = inputs
        super().__init__(message)


@dataclass
class Values:
    """Where values come from: the caller's ``env``, ``headers`` and ``arguments``, the kernel's
    environment, and ``ask(input, where)`` for a required value nobody gave. ``missing`` says what
    to do without one: ``"ask"``, ``"raise"`` (:class:`Missing`), or ``"placeholder"`` (``<name>``,
    for showing a launch line)."""

    server: str
    env: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    arguments: Mapping[str, Any] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    ask: Callable[[Input, str], str] | None = None
    missing: str = "raise"
    asked: list[str] = field(default_factory=list)  # names of the values a person typed
    placeholders: list[tuple[Input, str]] = field(default_factory=list)  # (input, where) stood in for

    def need(self, item: Input, where: str) -> str:
        """A required value nobody gave: ask for it, raise, or stand in a placeholder."""
        if self.missing == "placeholder":
            self.placeholders.append((item, where))
            return f"<{item.name}>"
        if self.missing == "ask" and self.ask is not None:
            value = self.ask(item, where)
            self.asked.append(item.name)
            return value
        raise missing(self.server, [(item, where)])

    def fill(self, template: str, variables: Mapping[str, Input], where: str) -> str:
        """``template`` with each ``{name}`` replaced by its variable's value (unknown names stay)."""

        def substitute(match: re.Match) -> str:
            name = match.group(1)
            if name in variables:
                value = self.variable(variables[name], where)
                return match.group(0) if value is None else value
            given = self.arguments.get(name, self.env.get(name))
            return match.group(0) if given is None else str(given)

        return _VARIABLE.sub(substitute, template)

    def variable(self, item: Input, where: str) -> str | None:
        """The value of a template variable (given in ``arguments``, fixed, default, or asked)."""
        given = self.arguments.get(item.name)
        if given is not None:
            return str(given)
        if item.value is not None:
            return self.fill(item.value, item.variables, where)
        if item.default is not None:
            return item.default
        return self.need(item, "URL variable" if where == "URL" else "variable") if item.is_required else None


def missing(server: str, needed: list[tuple[Input, str]]) -> Missing:
    """The error for required values nobody gave (the first one explained)."""
    item, where = needed[0]
    more = (
        f" (and {len(needed) - 1} more: {', '.join(i.name for i, _ in needed[1:])})"
        if len(needed) > 1
        else ""
    )
    return Missing(
        f"{server} needs {_describe(item, where)}{more}: {_how_to_give(item, where)}",
        inputs=[i for i, _ in needed],
    )


def _describe(item: Input, where: str) -> str:
    kind = "the secret " if item.is_secret else "the "
    about = f" ({_short(item.description)})" if item.description else ""
    return f"{kind}{where} {item.name}{about}"


def _how_to_give(item: Input, where: str) -> str:
    if where.startswith("environment"):
        return (
            f"connect with .connect() to be asked for it{' in a password field' if item.is_secret else ''}, "
            f"set os.environ[{item.name!r}] in the kernel, or pass env={{{item.name!r}: ...}}"
        )
    if where.startswith("header"):
        return f"connect with .connect() to be asked for it, or pass headers={{{item.name!r}: ...}}"
    return f"pass arguments={{{item.name!r}: ...}}"


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class Launch:
    """What connecting runs: a command (``argv``, ``env``) or a URL (``url``, ``headers``).

    ``env`` and ``headers`` hold values, secrets included: they go to the connection and nowhere
    else (not in ``repr``). ``note`` says what was chosen and why (e.g. no uvx)."""

    transport: str  # "stdio" | "http" | "sse"
    argv: list[str] = field(default_factory=list)
    url: str = ""
    env: dict[str, str] = field(default_factory=dict, repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    runtime: str = ""
    note: str = ""

    @property
    def line(self) -> str:
        """The command line (quoted as a shell would need it), or the URL."""
        return shlex.join(self.argv) if self.argv else self.url

    @property
    def target(self) -> str | list[str]:
        """What ``mj.connect`` takes: the argv, or the URL."""
        return list(self.argv) if self.argv else self.url


# -- packages --------------------------------------------------------------------------------------


def launch_package(entry: Entry, package: Package, values: Values, *, local_fallback: bool = True) -> Launch:
    """The launch of ``package`` (a stdio command; a local HTTP package's command and URL)."""
    env = _environment(package.environment_variables, values)
    runtime_args = _arguments(package.runtime_arguments, values, "runtime argument")
    package_args = _arguments(package.package_arguments, values, "argument")
    kind = package.registry_type
    runtime, note = _runtime(package)
    if kind == "npm":
        yes = [] if runtime != "npx" or {"-y", "--yes"} & set(runtime_args) else ["-y"]
        argv = [runtime, *yes, *runtime_args, _versioned(package, "@"), *package_args]
    elif kind == "pypi":
        run = ["run"] if runtime == "pipx" else []
        argv = [runtime, *run, *runtime_args, _versioned(package, "=="), *package_args]
    elif kind == "oci":
        flags = [part for name in env for part in ("-e", name)]
        argv = [runtime, "run", "-i", "--rm", *runtime_args, *flags, _image(package), *package_args]
    elif kind == "nuget":
        tail = ["--", *package_args] if package_args else []
        argv = [runtime, *runtime_args, _versioned(package, "@"), "--yes", *tail]
    else:
        raise ConnectionFailed(_unsupported(entry, package))
    launch = Launch(transport="stdio", argv=argv, env=env, runtime=runtime, note=note)
    if kind == "pypi" and local_fallback and shutil.which(runtime) is None:
        _run_installed_copy(launch, package, package_args)
    if package.transport in ("streamable-http", "sse"):
        launch.transport = "http" if package.transport == "streamable-http" else "sse"
        launch.url = values.fill(package.transport_url, {}, "URL")
        launch.headers = _headers(package.transport_headers, values)
    return launch


def _runtime(package: Package) -> tuple[str, str]:
    """The runtime to run ``package`` with, and a note when the entry's hint is not one."""
    default = RUNTIMES.get(package.registry_type, "")
    hint = package.runtime_hint
    if not hint or hint == default:
        return default, ""
    if hint in RUNNERS.get(package.registry_type, ()):
        return hint, ""
    return (
        default,
        f"the entry's runtime hint {hint!r} does not run a {package.registry_type} package; {default} does",
    )


def _versioned(package: Package, separator: str) -> str:
    return f"{package.identifier}{separator}{package.version}" if package.version else package.identifier


def _image(package: Package) -> str:
    """The image reference: the identifier carries its tag or digest (schema 2025-12-11); older
    entries give the tag as ``version``."""
    name = package.identifier
    last = name.rsplit("/", 1)[-1]
    if "@" in name or ":" in last or not package.version:
        return name
    return f"{name}:{package.version}"


def _unsupported(entry: Entry, package: Package) -> str:
    others = [
        f"package={i}"
        for i, p in enumerate(entry.packages)
        if p.registry_type in RUNTIMES and p is not package
    ]
    if entry.remotes:
        others.append("remote=0")
    choose = f"; choose another way to run it ({', '.join(others)})" if others else ""
    if package.registry_type == "mcpb":
        what = "an MCP bundle (mcpb): mcp_jupyter does not download and unpack bundles"
    else:
        what = f"a {package.registry_type or 'package'} package, which mcp_jupyter does not know how to run"
    return f"{entry.name}: {package.identifier} is {what}{choose}"


def _run_installed_copy(launch: Launch, package: Package, package_args: list[str]) -> None:
    """No uvx: run the package from the kernel's environment when that exact version is installed."""
    script = installed_script(package.identifier, package.version)
    if script is None:
        return
    launch.argv = [script, *package_args]
    launch.note = (
        f"{launch.runtime} is not installed here; {package.identifier} {package.version} is installed in this "
        "kernel's environment, so its own command runs"
    )
    launch.runtime = ""


def installed_script(distribution: str, version: str) -> str | None:
    """The console script of ``distribution`` at exactly ``version`` in this environment (the one
    named like the distribution, or its only one), or None."""
    from importlib import metadata

    try:
        dist = metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return None
    if version and dist.version != version:
        return None
    scripts = [ep for ep in dist.entry_points if ep.group == "console_scripts"]
    chosen = [ep for ep in scripts if ep.name == distribution] or (scripts if len(scripts) == 1 else [])
    if not chosen:
        return None
    folder = os.path.dirname(sys.executable)
    path = os.path.join(folder, chosen[0].name + (".exe" if os.name == "nt" else ""))
    return path if os.path.exists(path) else None


def check_runtime(entry: Entry, package: Package, launch: Launch) -> None:
    """Fail with what to install when the launch's runtime is not on PATH."""
    exe = launch.argv[0] if launch.argv else ""
    if not exe or os.sep in exe or shutil.which(exe) is not None:
        return
    install = INSTALL.get(exe, f"{exe} (the entry's runtime hint)")
    also = (
        f", or install the package in this kernel's environment (pip install "
        f"{package.identifier}=={package.version}), which runs without uvx"
        if package.registry_type == "pypi" and package.version
        else ""
    )
    raise ConnectionFailed(
        f"{entry.name} runs with {exe} ({package.registry_type} package {package.identifier}), which is not "
        f"installed here: install {install}{also}, then connect again"
    )


# -- remotes ---------------------------------------------------------------------------------------


def launch_remote(remote: Remote, values: Values) -> Launch:
    """The URL (its variables filled in) and headers of a remote."""
    url = values.fill(remote.url, remote.variables, "URL")
    transport = "sse" if remote.type == "sse" else "http"
    return Launch(transport=transport, url=url, headers=_headers(remote.headers, values))


# -- values ----------------------------------------------------------------------------------------


def _environment(variables: tuple[Input, ...], values: Values) -> dict[str, str]:
    env: dict[str, str] = {}
    for item in variables:
        value = _value(
            item, values.env.get(item.name), values.environ.get(item.name), values, "environment variable"
        )
        if value is not None:
            env[item.name] = value
    return env


def _headers(headers: tuple[Input, ...], values: Values) -> dict[str, str]:
    given = {k.lower(): v for k, v in values.headers.items()}
    out = {k: v for k, v in values.headers.items()}
    for item in headers:
        if item.name.lower() in given:
            continue
        value = _value(item, None, None, values, "header")
        if value is not None:
            out[item.name] = value
    return out


def _value(item: Input, given: Any, environ: str | None, values: Values, where: str) -> str | None:
    """One value, from the first source that has it (see the module docstring)."""
    if given is not None:
        return str(given)
    if item.value is not None:
        return values.fill(item.value, item.variables, f"{where} {item.name}")
    if environ is not None:
        return environ
    if item.default is not None:
        return item.default
    return values.need(item, where) if item.is_required else None


def _arguments(arguments: tuple[Argument, ...], values: Values, where: str) -> list[str]:
    argv: list[str] = []
    for arg in arguments:
        for value in _argument_values(arg, values, where):
            argv.extend([arg.name, value] if arg.kind == "named" else [value])
    return argv


def _argument_values(arg: Argument, values: Values, where: str) -> list[str]:
    given = values.arguments.get(arg.key, values.arguments.get(arg.name) if arg.name else None)
    if isinstance(given, (list, tuple)):
        return [str(v) for v in given]
    value = _value(replace(arg, name=arg.key), given, None, values, where)  # asked for by its key
    return [] if value is None else [value]
