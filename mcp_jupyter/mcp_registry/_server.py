"""``RegistryServer``: one registry entry, with the launch line, what it needs, and ``connect()``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .. import _hooks as hooks
from ..errors import ConnectionFailed
from ._asking import ask
from ._entries import Entry, Input, Package, Remote, entry_from
from ._launch import Launch, Values, check_runtime, launch_package, launch_remote
from ._launch import missing as missing_values

__all__ = ["RegistryServer"]

_ON_THE_LINE = ("argument", "runtime argument", "URL variable")  # values the launch line cannot do without


class RegistryServer:
    """A server listed in an MCP Registry (or read from a ``server.json``): what it is, how it runs,
    what it needs, and :meth:`connect`.

    ``name``, ``title``, ``description``, ``version``, ``repository``, ``website_url``, ``icons``,
    ``packages`` (ways to run it here), ``remotes`` (servers already running elsewhere), ``status``,
    ``published_at``, ``updated_at``; ``server_json`` is the entry as published. ``stale`` is true for
    an entry kept from an earlier search while the registry cannot be reached."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)

    def __init__(self, entry: Entry, *, registry: str = "", stale_reason: str = "") -> None:
        self._entry = entry
        self.registry = registry
        self.stale_reason = stale_reason

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, registry: str = "") -> RegistryServer:
        """A server from a ``server.json`` object or a registry answer's item."""
        return cls(entry_from(data), registry=registry)

    # -- what it is -----------------------------------------------------------------------------
    name = property(lambda self: self._entry.name, doc="The server's name (reverse DNS, e.g. io.github.x/y).")
    title = property(lambda self: self._entry.title, doc="A display name, when the entry has one.")
    description = property(lambda self: self._entry.description, doc="What the server does, in a line.")
    version = property(lambda self: self._entry.version, doc="The entry's version.")
    repository = property(lambda self: self._entry.repository, doc="The source repository's URL.")
    website_url = property(lambda self: self._entry.website_url, doc="The server's website, if any.")
    icons = property(lambda self: list(self._entry.icons), doc="Icons (``src``, ``mimeType``, ``sizes``).")
    packages = property(
        lambda self: list(self._entry.packages), doc="Ways to run it here (:class:`Package`)."
    )
    remotes = property(
        lambda self: list(self._entry.remotes), doc="Servers already running (:class:`Remote`)."
    )
    status = property(lambda self: self._entry.status, doc="``active``, ``deprecated``... (the registry's).")
    published_at = property(lambda self: self._entry.published_at, doc="When the registry first listed it.")
    updated_at = property(lambda self: self._entry.updated_at, doc="When the registry entry last changed.")

    @property
    def server_json(self) -> dict:
        """The entry's ``server.json`` as published (a copy)."""
        import copy

        return copy.deepcopy(self._entry.server_json)

    @property
    def stale(self) -> bool:
        """Whether this entry comes from an earlier search because the registry cannot be reached."""
        return bool(self.stale_reason)

    @property
    def runs(self) -> str:
        """How it runs, in a few words: its package kinds (runtime, transport) and remotes."""
        parts = []
        for package in self._entry.packages:
            how = ", ".join(p for p in (package.runtime_hint, package.transport) if p)
            parts.append(f"{package.registry_type} ({how})" if how else package.registry_type)
        parts += [f"remote ({remote.type})" for remote in self._entry.remotes]
        return " · ".join(dict.fromkeys(parts)) or "no package or remote listed"

    @property
    def required_env(self) -> list[Input]:
        """The environment variables the first package requires: ``name``, ``description``,
        ``is_secret`` (asked in a password field), ``default``."""
        packages = self._entry.packages
        return [v for v in packages[0].environment_variables if v.is_required] if packages else []

    @property
    def secrets(self) -> list[str]:
        """Names of every secret any package or remote asks for (environment variables, headers,
        arguments, variables)."""
        names: list[str] = []
        for package in self._entry.packages:
            for item in (
                *package.environment_variables,
                *package.package_arguments,
                *package.runtime_arguments,
            ):
                names += _secret_names(item)
        for remote in self._entry.remotes:
            for item in (*remote.headers, *remote.variables.values()):
                names += _secret_names(item)
        return list(dict.fromkeys(names))

    def missing_values(self, package: int = 0, *, remote: int | None = None) -> dict[str, str]:
        """The required values connecting would need with nothing given, name -> what it is
        (``environment variable``, ``header``, ``argument``, ``URL variable``...): secrets are asked
        in a password field, arguments passed as ``arguments={...}``. The kernel's environment counts:
        a variable set there is not missing."""
        try:
            _, values = self._resolve(package, remote, {}, {}, {}, missing="placeholder")
        except ConnectionFailed:  # a package kind that does not run here asks for nothing
            return {}
        return {item.name: where for item, where in values.placeholders}

    def needs_secrets(self, package: int = 0, remote: int | None = None) -> list[str]:
        """The secrets connecting would ask for (in a password field) with nothing given."""
        secrets = set(self.secrets)
        return [name for name in self.missing_values(package, remote=remote) if name in secrets]

    # -- running it -----------------------------------------------------------------------------
    def command(self, package: int = 0, *, arguments: Mapping[str, Any] | None = None) -> str:
        """The launch line the notebook would run for ``packages[package]``: npm ``npx -y pkg@version``,
        pypi ``uvx pkg==version`` (or the package's own command from this environment when uvx is
        missing and that exact version is installed here), oci ``docker run -i --rm image:tag``, with
        the entry's runtime and package arguments; ``arguments`` gives values for arguments (by value
        hint, or flag without dashes) and ``{variables}``. A required argument without a value raises
        ``ConfigError`` saying how to give it. Environment variables are not on the line: they reach
        the server through its environment."""
        launch, values = self._resolve(
            package, None, {}, {}, arguments or {}, missing="placeholder", environ={}
        )
        needed = [(item, where) for item, where in values.placeholders if where in _ON_THE_LINE]
        if needed:
            raise missing_values(self.name, needed)
        return launch.line

    def launch(
        self,
        package: int = 0,
        *,
        remote: int | None = None,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        arguments: Mapping[str, Any] | None = None,
        ask_missing: bool = False,
        placeholders: bool = False,
    ) -> Launch:
        """What connecting would run: the command and environment, or the URL and headers. Required
        values nobody gave raise ``ConfigError``, are asked for (``ask_missing=True``), or stand as
        ``<name>`` (``placeholders=True``, to show the line)."""
        how = "placeholder" if placeholders else "ask" if ask_missing else "raise"
        return self._resolve(package, remote, env or {}, headers or {}, arguments or {}, missing=how)[0]

    def check_runtime(self, package: int = 0) -> Launch:
        """Fail with what to install when ``packages[package]``'s runtime (npx, uvx, docker...) is
        not on PATH; the launch that would run (its ``note`` says what was chosen and why)."""
        chosen = self.way(package)
        preview = self.launch(package, placeholders=True)
        if isinstance(chosen, Package):
            check_runtime(self._entry, chosen, preview)
        return preview

    def _resolve(
        self,
        package: int,
        remote: int | None,
        env: Mapping[str, str],
        headers: Mapping[str, str],
        arguments: Mapping[str, Any],
        *,
        missing: str,
        environ: Mapping[str, str] | None = None,
    ) -> tuple[Launch, Values]:
        values = Values(
            self.name,
            env=env,
            headers=headers,
            arguments=arguments,
            ask=lambda item, where: ask(item, where, server=self.name),
            missing=missing,
        )
        if environ is not None:
            values.environ = environ
        chosen = self.way(package, remote=remote)
        if isinstance(chosen, Remote):
            return launch_remote(chosen, values), values
        return launch_package(self._entry, chosen, values), values

    def way(self, package: int = 0, *, remote: int | None = None) -> Package | Remote:
        """The way to run or reach the server: ``packages[package]``, or ``remotes[remote]`` (an
        entry with no package: its first remote)."""
        entry = self._entry
        if remote is not None or not entry.packages:
            index = remote or 0
            if not entry.remotes:
                raise ConnectionFailed(f"{self.name} lists no package and no remote: nothing to run or reach")
            if not 0 <= index < len(entry.remotes):
                raise ValueError(
                    f"{self.name} has {len(entry.remotes)} remote(s): remote= is 0..{len(entry.remotes) - 1}"
                )
            return entry.remotes[index]
        if not 0 <= package < len(entry.packages):
            raise ValueError(
                f"{self.name} has {len(entry.packages)} package(s): package= is 0..{len(entry.packages) - 1}"
            )
        return entry.packages[package]

    def connect(
        self,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        package: int = 0,
        *,
        remote: int | None = None,
        arguments: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """Run (or reach) the server as a client would from the registry and connect, registered as
        ``name`` (default: the last part of the server's name).

        ``package`` picks which package runs (``remote=N`` reaches a remote instead; an entry with
        only remotes uses the first). A required value nobody gave is asked for: a secret in a
        password field (the kernel's input box; ``getpass`` outside a notebook), never written into
        the notebook, the history or a repr. Environment variables set in the kernel
        (``os.environ``) are used when ``env`` does not give them. A runtime that is not installed
        (npx, uvx, docker) is a clear error saying what to install. ``options`` are
        :func:`mcp_jupyter.connect`'s (``timeout``, ``cwd``, ``auth``, ``mode``...)."""
        from ..client import connect

        launch = self._prepared(package, remote, env, headers, arguments)
        return connect(name or self.local_name, launch.target, **_connect_options(launch, options))

    async def aconnect(
        self,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        package: int = 0,
        *,
        remote: int | None = None,
        arguments: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """Async twin of :meth:`connect` (asking for a missing value still waits for the person)."""
        from ..client import aconnect

        launch = self._prepared(package, remote, env, headers, arguments)
        return await aconnect(name or self.local_name, launch.target, **_connect_options(launch, options))

    def _prepared(
        self,
        package: int,
        remote: int | None,
        env: Mapping[str, str] | None,
        headers: Mapping[str, str] | None,
        arguments: Mapping[str, Any] | None,
    ) -> Launch:
        """Check the runtime first (nobody types a secret for a server that cannot start), then
        resolve every value, asking for what is missing."""
        chosen = self.way(package, remote=remote)
        if isinstance(chosen, Package):
            preview, _ = self._resolve(
                package, remote, env or {}, headers or {}, arguments or {}, missing="placeholder"
            )
            check_runtime(self._entry, chosen, preview)
            if chosen.transport != "stdio":
                raise ConnectionFailed(
                    f"{self.name}: package {package} runs a local {chosen.transport} server, which mcp_jupyter "
                    f"does not start for you: run `{preview.line}` in a terminal, then "
                    f"mj.connect(name, {preview.url!r})"
                )
        return self.launch(
            package, remote=remote, env=env, headers=headers, arguments=arguments, ask_missing=True
        )

    @property
    def local_name(self) -> str:
        """The connection name :meth:`connect` uses by default: the last part of the server's name."""
        tail = self.name.rsplit("/", 1)[-1] or self.name
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", tail).strip("-") or "server"

    def __repr__(self) -> str:
        stale = " (stale)" if self.stale else ""
        return f"<RegistryServer {self.name} {self.version}{stale}: {self.runs}>"


def _secret_names(item: Input) -> list[str]:
    names = [item.name] if item.is_secret else []
    for variable in item.variables.values():
        names += _secret_names(variable)
    return names


def _connect_options(launch: Launch, options: dict[str, Any]) -> dict[str, Any]:
    merged = dict(options)
    if launch.env:
        merged["env"] = {**launch.env, **(options.get("env") or {})}
    if launch.headers:
        merged["headers"] = {**launch.headers, **(options.get("headers") or {})}
    if launch.transport == "sse":
        merged.setdefault("transport", "sse")
    return merged
