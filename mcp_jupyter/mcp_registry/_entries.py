"""What a registry entry says: a ``server.json`` (schema 2025-12-11) read into small, typed objects.

The registry API wraps each ``server.json`` as ``{"server": {...}, "_meta": {...}}``; the registry's
own facts (status, when it was published and updated, whether it is the latest version) are under
``_meta["io.modelcontextprotocol.registry/official"]``. Reading is tolerant: an entry from another
registry, or from an older schema, still reads, and what is missing is simply absent. Validation
against the schema is :mod:`._server_json`'s job, for a server author's own file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Input", "Argument", "Package", "Remote", "Entry", "entry_from", "OFFICIAL_META"]

OFFICIAL_META = "io.modelcontextprotocol.registry/official"
"""The ``_meta`` key under which the registry says what it knows about an entry."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _bool(value: Any) -> bool:
    return value is True


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _object(value: Any) -> Mapping[str, Any]:
    """A JSON object, or an empty one when ``value`` is missing or of another type."""
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class Input:
    """One value a server needs: an environment variable, a header, or a variable of a template.

    ``value`` is a fixed value (``{curly}`` names in it are ``variables``, filled in first),
    ``default`` what is used when nobody gives one, ``is_secret`` whether it is a password, token or
    key (asked in a password field, never shown)."""

    name: str
    description: str = ""
    is_required: bool = False
    is_secret: bool = False
    default: str | None = None
    value: str | None = None
    placeholder: str = ""
    choices: tuple[str, ...] = ()
    format: str = "string"
    variables: dict[str, Input] = field(default_factory=dict)

    @classmethod
    def read(cls, name: str, data: Mapping[str, Any]) -> Input:
        """An input from its JSON object (``name`` given, since a variable's name is its key)."""
        variables = _object(data.get("variables"))
        return cls(
            name=name,
            description=_text(data.get("description")),
            is_required=_bool(data.get("isRequired")),
            is_secret=_bool(data.get("isSecret")),
            default=_scalar(data.get("default")),
            value=_scalar(data.get("value")),
            placeholder=_text(data.get("placeholder")),
            choices=tuple(str(c) for c in _list(data.get("choices"))),
            format=_text(data.get("format")) or "string",
            variables={
                str(key): cls.read(str(key), var)
                for key, var in variables.items()
                if isinstance(var, Mapping)
            },
        )


def _scalar(value: Any) -> str | None:
    """A JSON scalar as the string a command line or header carries (booleans as true/false)."""
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Argument(Input):
    """A command-line argument: ``positional`` (its ``value``, or what is given for ``value_hint``)
    or ``named`` (``name`` is the flag, e.g. ``--port``). ``is_repeated`` takes a list of values."""

    kind: str = "positional"
    value_hint: str = ""
    is_repeated: bool = False

    @property
    def key(self) -> str:
        """The name a value is given under in ``arguments={...}``: the value hint of a positional,
        the flag without its dashes of a named argument."""
        if self.kind == "named":
            return self.name.lstrip("-")
        return self.value_hint or self.name

    @classmethod
    def read_argument(cls, data: Mapping[str, Any]) -> Argument:
        """An argument from its JSON object."""
        base = Input.read(_text(data.get("name")), data)
        return cls(
            **{f: getattr(base, f) for f in Input.__dataclass_fields__},
            kind="named" if data.get("type") == "named" else "positional",
            value_hint=_text(data.get("valueHint")),
            is_repeated=_bool(data.get("isRepeated")),
        )


@dataclass(frozen=True)
class Package:
    """One way to run the server on this machine: a package of ``registry_type`` (npm, pypi, oci,
    nuget, mcpb...) named ``identifier`` at ``version``, started with ``runtime_hint`` (npx, uvx,
    docker, dnx...), over ``transport`` (``stdio``, or a local ``streamable-http``/``sse`` URL)."""

    registry_type: str
    identifier: str
    version: str = ""
    runtime_hint: str = ""
    transport: str = "stdio"
    transport_url: str = ""
    transport_headers: tuple[Input, ...] = ()
    runtime_arguments: tuple[Argument, ...] = ()
    package_arguments: tuple[Argument, ...] = ()
    environment_variables: tuple[Input, ...] = ()
    registry_base_url: str = ""
    file_sha256: str = ""

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> Package:
        """A package from its JSON object."""
        transport = _object(data.get("transport"))
        return cls(
            registry_type=_text(data.get("registryType")),
            identifier=_text(data.get("identifier")),
            version=_text(data.get("version")),
            runtime_hint=_text(data.get("runtimeHint")),
            transport=_text(transport.get("type")) or "stdio",
            transport_url=_text(transport.get("url")),
            transport_headers=tuple(_inputs(transport.get("headers"))),
            runtime_arguments=tuple(
                Argument.read_argument(a)
                for a in _list(data.get("runtimeArguments"))
                if isinstance(a, Mapping)
            ),
            package_arguments=tuple(
                Argument.read_argument(a)
                for a in _list(data.get("packageArguments"))
                if isinstance(a, Mapping)
            ),
            environment_variables=tuple(_inputs(data.get("environmentVariables"))),
            registry_base_url=_text(data.get("registryBaseUrl")),
            file_sha256=_text(data.get("fileSha256")),
        )

    @property
    def summary(self) -> str:
        """How it runs in a few words: ``npm @scope/pkg 1.2.0 (npx, stdio)``."""
        how = ", ".join(p for p in (self.runtime_hint, self.transport) if p)
        return f"{self.registry_type} {self.identifier} {self.version}".strip() + (f" ({how})" if how else "")


def _inputs(items: Any) -> list[Input]:
    return [Input.read(_text(i.get("name")), i) for i in _list(items) if isinstance(i, Mapping)]


@dataclass(frozen=True)
class Remote:
    """A server already running somewhere: ``type`` (``streamable-http`` or ``sse``), its ``url``
    (``{curly}`` names are ``variables``, e.g. a tenant) and the ``headers`` it expects."""

    type: str
    url: str
    headers: tuple[Input, ...] = ()
    variables: dict[str, Input] = field(default_factory=dict)

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> Remote:
        """A remote from its JSON object."""
        variables = _object(data.get("variables"))
        return cls(
            type=_text(data.get("type")) or "streamable-http",
            url=_text(data.get("url")),
            headers=tuple(_inputs(data.get("headers"))),
            variables={
                str(key): Input.read(str(key), var)
                for key, var in variables.items()
                if isinstance(var, Mapping)
            },
        )

    @property
    def summary(self) -> str:
        """``remote streamable-http https://...``."""
        return f"remote {self.type} {self.url}"


@dataclass(frozen=True)
class Entry:
    """A registry entry: its ``server.json`` read, and what the registry says about it."""

    name: str
    description: str = ""
    title: str = ""
    version: str = ""
    repository: str = ""
    website_url: str = ""
    icons: tuple[Mapping[str, Any], ...] = ()
    packages: tuple[Package, ...] = ()
    remotes: tuple[Remote, ...] = ()
    status: str = ""
    published_at: str = ""
    updated_at: str = ""
    is_latest: bool | None = None
    server_json: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def entry_from(item: Mapping[str, Any]) -> Entry:
    """An :class:`Entry` from one item of a registry answer (``{"server": ..., "_meta": ...}``) or
    from a bare ``server.json`` object."""
    server = item.get("server")
    if not isinstance(server, Mapping):
        server = item  # a bare server.json
    official = _object(_object(item.get("_meta")).get(OFFICIAL_META))
    repository = _object(server.get("repository"))
    latest = official.get("isLatest")
    return Entry(
        name=_text(server.get("name")),
        description=_text(server.get("description")),
        title=_text(server.get("title")),
        version=_text(server.get("version")),
        repository=_text(repository.get("url")),
        website_url=_text(server.get("websiteUrl")),
        icons=tuple(i for i in _list(server.get("icons")) if isinstance(i, Mapping)),
        packages=tuple(Package.read(p) for p in _list(server.get("packages")) if isinstance(p, Mapping)),
        remotes=tuple(Remote.read(r) for r in _list(server.get("remotes")) if isinstance(r, Mapping)),
        status=_text(official.get("status")) or _text(server.get("status")),
        published_at=_text(official.get("publishedAt")),
        updated_at=_text(official.get("updatedAt")) or _text(official.get("publishedAt")),
        is_latest=latest if isinstance(latest, bool) else None,
        server_json=dict(server),
    )
