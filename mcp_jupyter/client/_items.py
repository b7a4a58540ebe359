"""What a server offers: tools, resources, resource templates and prompts, and their listings.

Each item is a frozen dataclass copied once from the SDK's type (same field names, so one generic
``from_sdk`` does it) and holds a *weak* reference to the connection that listed it (a
:data:`ConnectionRef`, handed down by the session that listed it): ``tool.form()`` and
``resource.read()`` talk to that very connection, registered or not, and never to another one
that later took its name (they raise "this connection was closed" instead). :class:`ListedBy` says
what an item uses of that connection.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    NamedTuple,
    Protocol,
    TypeAlias,
    TypeVar,
    cast,
    overload,
)

from .. import _hooks as hooks
from .. import _icons as icon_rules
from .._protocol import JSONObject, JSONValue
from .._wording import counted
from ..errors import (
    ConnectionFailed,
    MCPJupyterError,
    NotFound,
    PromptNotFound,
    ResourceNotFound,
    SkillNotFound,
    ToolNotFound,
    did_you_mean,
    suggest,
)
from . import _uri_template as uri_template
from ._ui_extension import ToolUi, tool_ui
from ._ui_extension import visibility as meta_visibility

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ._connection import Connection
    from ._results import ResourceResult

__all__ = [
    "ConnectionRef",
    "ListedBy",
    "Item",
    "Tool",
    "Resource",
    "ResourceTemplate",
    "Prompt",
    "PromptArgument",
    "Skill",
    "SkillFile",
    "LoadedSkill",
    "Listing",
    "Tools",
    "Resources",
    "ResourceTemplates",
    "Prompts",
    "Skills",
    "LISTINGS",
]


class ListedBy(Protocol):
    """What an item uses of the connection that listed it (a :class:`~mcp_jupyter.Connection`)."""

    name: str

    @property
    def status(self) -> str: ...

    @property
    def icon_origin(self) -> str | None: ...

    @property
    def resources(self) -> Resources: ...

    def read(self, uri: str) -> ResourceResult: ...

    def load_skill(self, skill: str | Skill) -> LoadedSkill: ...

    def aload_skill(self, skill: str | Skill) -> Awaitable[LoadedSkill]: ...


ConnectionRef: TypeAlias = "Callable[[], ListedBy | None]"
"""A weak reference to the connection that lists items (``weakref.ref(conn)``): None once it is gone."""


def dump(model: BaseModel | None) -> JSONObject | None:
    """A pydantic model as wire-format JSON data (camelCase keys), or None."""
    if model is None:
        return None
    data: JSONObject = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return data


def _same(value: object) -> object:
    """A field copied as it is."""
    return value


# How a field's SDK value becomes ours, by field name (every other field is copied as it is).
_CONVERT: dict[str, Callable[[Any], object]] = {  # Any: each takes the SDK field it is named for
    "annotations": dump,
    "uri": str,
    "icons": lambda icons: tuple(dump(i) for i in icons) if icons else None,
}


ItemSelf = TypeVar("ItemSelf", bound="Item")


@dataclass(frozen=True)
class Item:
    """What every listed item shares: the SDK object, its server's name, its connection."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)
    raw: Any = field(default=None, repr=False, compare=False, kw_only=True)
    server: str | None = field(default=None, compare=False, kw_only=True)
    _connection_ref: ConnectionRef | None = field(default=None, repr=False, compare=False, kw_only=True)

    @classmethod
    def from_sdk(
        cls: type[ItemSelf], raw: Any, server: str | None = None, connection_ref: ConnectionRef | None = None
    ) -> ItemSelf:
        """Wrap an ``mcp_types`` object listed by server ``server`` through the connection
        ``connection_ref`` refers to (both None: an item of no connection)."""
        values = {
            f.name: _CONVERT.get(f.name, _same)(getattr(raw, f.name, None))
            for f in dataclasses.fields(cls)
            if not f.kw_only
        }
        values.update(cls._adjust(raw, values))
        return cls(**values, raw=raw, server=server, _connection_ref=connection_ref)

    @classmethod
    def _adjust(cls, raw: Any, values: dict[str, Any]) -> dict[str, object]:
        """Fields that are not a plain copy of the SDK's (subclasses)."""
        return {}

    @property
    def connection(self) -> ListedBy:
        """The connection that listed this item; a clear error once it is closed or gone."""
        conn = self._connection_ref() if self._connection_ref is not None else None
        what = f"{type(self).__name__.lower()} {self.key!r}"
        if conn is None:
            raise ConnectionFailed(
                f"this {what} is not attached to an open connection; list it again from one, "
                "e.g. mj.get_connection(name).tools[...]",
                server=self.server,
            )
        if conn.status in ("closed", "dead", "failed"):
            raise ConnectionFailed(
                f"this connection was closed ({self.server!r} is {conn.status}); this {what} belongs to it. "
                f"List it again from the current connection: mj.get_connection({self.server!r})",
                server=self.server,
            )
        return conn

    def _form_connection(self) -> Connection:
        """The connection as the UI's form hooks take it. Only a :class:`Connection` lists items; the
        core knows it by what items use of it (:class:`ListedBy`) and never imports the facade."""
        return cast("Connection", self.connection)

    @property
    def key(self) -> str:
        """The name (or URI) that identifies the item in its listing."""
        return getattr(self, "name", "")

    @property
    def icon(self) -> icon_rules.IconChoice | None:
        """The icon to show for this item (its ``icons``, 2025-11-25), checked by
        :func:`mcp_jupyter._icons.choose` against its server's origin: a ``src`` to load as an
        ``<img>``, a ``note`` saying why none may be, or None when the server gave none."""
        conn = self._connection_ref() if self._connection_ref is not None else None
        try:
            origin = conn.icon_origin if conn is not None else None
        except Exception:  # noqa: BLE001 - a closing connection: data: icons only
            origin = None
        return icon_rules.choose(getattr(self, "icons", None), origin=origin)


@dataclass(frozen=True)
class Tool(Item):
    """A tool the server offers. ``annotations`` are untrusted hints (camelCase dict)."""

    name: str
    title: str | None
    description: str | None
    input_schema: JSONObject
    output_schema: JSONObject | None
    annotations: JSONObject | None
    icons: tuple[JSONObject, ...] | None = None

    @classmethod
    def _adjust(cls, raw: Any, values: dict[str, Any]) -> dict[str, object]:
        return {
            "input_schema": values["input_schema"] or {},
            "title": values["title"] or (values["annotations"] or {}).get("title"),
        }

    def form(self, **options: Any) -> Any:
        """An interactive form for this tool (fill in, Call, see the result): a widget."""
        return hooks.TOOL_FORM.require()(self._form_connection(), self.name, tool=self, **options)

    @property
    def task_support(self) -> str:
        """Whether the tool runs as a task on a 2025-11-25 server (``execution.taskSupport``):
        ``forbidden`` (also when absent), ``optional`` or ``required`` (docs/tasks.md)."""
        execution = getattr(self.raw, "execution", None)
        return getattr(execution, "task_support", None) or "forbidden"

    @property
    def required(self) -> list[str]:
        """Names of the required arguments."""
        required = self.input_schema.get("required")
        return [name for name in required if isinstance(name, str)] if isinstance(required, list) else []

    @property
    def parameters(self) -> dict[str, JSONValue]:
        """Argument name -> property schema."""
        props = self.input_schema.get("properties")
        return props if isinstance(props, dict) else {}

    @property
    def ui(self) -> ToolUi | None:
        """The MCP App this tool declares (``ToolUi``: resource URI, visibility, CSP, permissions),
        or None. CSP and permissions come from the UI resource's listing entry when the server
        lists it; the HTML's own ``_meta`` (read when the app is shown) takes precedence."""
        meta = getattr(self.raw, "meta", None)
        ui = tool_ui(meta)
        return None if ui is None else tool_ui(meta, self._resource_meta(ui.resource_uri))

    def _resource_meta(self, uri: str) -> object:
        conn = self._connection_ref() if self._connection_ref is not None else None
        try:
            listed = conn.resources.get(uri) if conn is not None else None
        except (MCPJupyterError, RuntimeError):  # closed, no resources, or on the runtime thread
            return None
        return getattr(getattr(listed, "raw", None), "meta", None)

    @property
    def visibility(self) -> tuple[str, ...]:
        """Who the server means to call this tool (MCP Apps ``_meta.ui.visibility``): ``"model"``
        (the agent), ``"app"`` (the server's own app), or both, the default. Informational here:
        the notebook lists and calls every tool; an app may call only tools with ``"app"``, and
        :meth:`Tools.for_model` keeps ``"model"`` ones for a model."""
        return meta_visibility(getattr(self.raw, "meta", None))

    def hint(self, name: str) -> bool | None:
        """An annotation hint (``readOnlyHint``, ``destructiveHint``, ...) or None when unset."""
        value = (self.annotations or {}).get(name)
        return value if isinstance(value, bool) else None

    def to_dict(self) -> JSONObject:
        """The tool as wire-format JSON data."""
        return dump(self.raw) or {}


@dataclass(frozen=True)
class Resource(Item):
    """A concrete resource the server lists."""

    uri: str
    name: str
    title: str | None
    description: str | None
    mime_type: str | None
    size: int | None
    annotations: JSONObject | None
    icons: tuple[JSONObject, ...] | None = None

    def read(self) -> Any:
        """Read this resource through the connection that listed it."""
        return self.connection.read(self.uri)

    @property
    def key(self) -> str:
        """The resource's URI."""
        return self.uri


@dataclass(frozen=True)
class ResourceTemplate(Item):
    """A parameterized resource (RFC 6570 URI template)."""

    uri_template: str
    name: str
    title: str | None
    description: str | None
    mime_type: str | None
    annotations: JSONObject | None
    icons: tuple[JSONObject, ...] | None = None

    @property
    def key(self) -> str:
        """The URI template."""
        return self.uri_template

    @property
    def variables(self) -> list[str]:
        """The template's variable names, in order."""
        try:
            return uri_template.variables(self.uri_template)
        except uri_template.TemplateError:  # a malformed template from a server lists no variables
            return []

    def expand(self, **values: Any) -> str:
        """Expand the template with ``values`` (RFC 6570, every operator, prefix and explode):
        strings, numbers, booleans, lists and dicts; ``None`` leaves a variable out."""
        return uri_template.expand(self.uri_template, values)

    def form(self, **options: Any) -> Any:
        """An interactive form for this template (variables with completion, Read): a widget."""
        return hooks.TEMPLATE_FORM.require()(self._form_connection(), self, **options)


@dataclass(frozen=True)
class PromptArgument:
    """One argument of a prompt."""

    name: str
    description: str | None
    required: bool


@dataclass(frozen=True)
class Prompt(Item):
    """A prompt template the server offers."""

    name: str
    title: str | None
    description: str | None
    arguments: tuple[PromptArgument, ...]
    icons: tuple[JSONObject, ...] | None = None

    @classmethod
    def _adjust(cls, raw: Any, values: dict[str, Any]) -> dict[str, object]:
        args = values["arguments"] or []
        return {"arguments": tuple(PromptArgument(a.name, a.description, bool(a.required)) for a in args)}

    def form(self, **options: Any) -> Any:
        """An interactive form for this prompt (arguments with completion, rendered messages): a widget."""
        return hooks.PROMPT_FORM.require()(self._form_connection(), self.name, prompt=self, **options)

    @property
    def required(self) -> list[str]:
        """Names of the required arguments."""
        return [a.name for a in self.arguments if a.required]


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill as its listing entry describes it: ``size`` in bytes and ``digest``
    (``sha256:<hex>``), which the file must match when it is read."""

    uri: str
    digest: str | None
    size: int | None


@dataclass(frozen=True)
class Skill(Item):
    """An agent skill the server offers (the ``io.modelcontextprotocol/skills`` extension).

    Listing a skill reads none of its files; :meth:`load` reads them, each checked against
    ``files`` (size, digest) and ``SKILL.md`` against ``frontmatter``. ``files`` is empty when the
    server lists them as ``"dynamic"`` (``dynamic`` is then True: only ``SKILL.md`` is loaded)."""

    name: str
    description: str | None
    uri: str
    frontmatter: JSONObject
    files: tuple[SkillFile, ...]
    dynamic: bool = False

    @classmethod
    def from_entry(
        cls, entry: JSONObject, server: str | None = None, connection_ref: ConnectionRef | None = None
    ) -> Skill:
        """A skill from one ``skills/list`` entry (wire JSON) listed by server ``server`` through the
        connection ``connection_ref`` refers to."""
        given = entry.get("frontmatter")
        frontmatter: JSONObject = given if isinstance(given, dict) else {}
        uri = str(entry.get("uri") or "")
        resources = entry.get("resources")
        files = tuple(
            SkillFile(str(r.get("uri")), _str_or_none(r.get("digest")), _int_or_none(r.get("size")))
            for r in (resources if isinstance(resources, list) else [])
            if isinstance(r, dict) and r.get("uri")
        )
        name, description = frontmatter.get("name"), frontmatter.get("description")
        return cls(
            name=str(name) if name else uri,
            description=description if isinstance(description, str) else None,
            uri=uri,
            frontmatter=frontmatter,
            files=files,
            dynamic=resources == "dynamic",
            raw=entry,
            server=server,
            _connection_ref=connection_ref,
        )

    def load(self) -> LoadedSkill:
        """Read and verify this skill's files through the connection that listed it (see
        :meth:`~mcp_jupyter.Connection.load_skill`)."""
        return self.connection.load_skill(self)

    async def aload(self) -> LoadedSkill:
        """Async twin of :meth:`load`."""
        return await self.connection.aload_skill(self)

    def to_dict(self) -> JSONObject:
        """The listing entry as wire-format JSON data."""
        return dict(self.raw or {})


def _str_or_none(value: JSONValue) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: JSONValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class LoadedSkill:
    """A loaded skill: every file read and verified against the listing.

    ``text`` is ``SKILL.md``; ``files`` maps each file's URI to its content (``str`` for text,
    ``bytes`` for a blob), ``SKILL.md`` included; ``frontmatter`` is ``SKILL.md``'s."""

    name: str
    uri: str
    text: str
    files: dict[str, str | bytes]
    frontmatter: JSONObject
    server: str | None = None

    def _repr_markdown_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<LoadedSkill {self.name!r} of {self.server!r}: {counted(len(self.files), 'file')} verified>"


# -- listings ----------------------------------------------------------------------------------

ItemT = TypeVar("ItemT", bound=Item)
D = TypeVar("D")


class Listing(Sequence[ItemT], Generic[ItemT]):
    """An ordered, read-only collection of tools/resources/... indexable by position or key."""

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)
    kind: ClassVar[str] = "item"
    not_found: ClassVar[type[NotFound]] = NotFound
    columns: ClassVar[tuple[str, ...]] = ()  # the item fields shown as table columns, in order
    computed: ClassVar[tuple[str, ...]] = ()  # the columns :meth:`_computed` adds after them

    def __init__(self, items: Sequence[ItemT], server: str = "") -> None:
        self._items = list(items)
        self._by_key = {item.key: item for item in self._items}
        self.server = server

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[ItemT]:
        return iter(self._items)

    @overload
    def __getitem__(self, key: int | str) -> ItemT: ...
    @overload
    def __getitem__(self, key: slice) -> list[ItemT]: ...

    def __getitem__(self, key: int | str | slice) -> ItemT | list[ItemT]:
        if isinstance(key, (int, slice)):
            return self._items[key]
        try:
            return self._by_key[key]
        except KeyError:
            where = f" on server {self.server!r}" if self.server else ""
            raise self.not_found(
                f"no {self.kind} {key!r}{where}; {did_you_mean(str(key), self._by_key)}",
                suggestions=suggest(str(key), self._by_key),
                server=self.server or None,
            ) from None

    def __contains__(self, key: object) -> bool:
        return key in self._by_key or key in self._items

    def keys(self) -> list[str]:
        """The names (or URIs) in order."""
        return [item.key for item in self._items]

    names = keys

    @overload
    def get(self, key: str) -> ItemT | None: ...
    @overload
    def get(self, key: str, default: D) -> ItemT | D: ...

    def get(self, key: str, default: object = None) -> object:
        """The item with that name/URI, or ``default``."""
        return self._by_key.get(key, default)

    def to_records(self) -> list[dict[str, object]]:
        """Rows of plain data for a table: the listing's columns, plus any computed ones."""
        return [{**{c: getattr(item, c) for c in self.columns}, **self._computed(item)} for item in self]

    def _computed(self, item: ItemT) -> dict[str, object]:
        return {}

    def to_dataframe(self) -> Any:  # a pandas DataFrame (pandas ships no types)
        """The listing as a pandas DataFrame: the same columns whether it lists items or none."""
        import pandas as pd

        return pd.DataFrame.from_records(self.to_records(), columns=[*self.columns, *self.computed])

    def __repr__(self) -> str:
        where = f" of {self.server!r}" if self.server else ""
        shown = ", ".join(self.keys()[:8]) + (", ..." if len(self) > 8 else "")
        return f"<{type(self).__name__}{where}: {len(self)} [{shown}]>"


_HINTS = (
    ("readOnlyHint", "read-only"),
    ("destructiveHint", "destructive"),
    ("idempotentHint", "idempotent"),
    ("openWorldHint", "open-world"),
)


class Tools(Listing[Tool]):
    """The tools of a server, every one of them, whatever its MCP Apps visibility: the notebook is
    where a developer tests the server, app-only tools included. :meth:`for_model` is the subset a
    host may hand to a model."""

    kind = "tool"
    not_found = ToolNotFound
    columns = ("name", "title", "description")
    computed = ("arguments", "annotations", "visibility")

    def for_model(self) -> Tools:
        """The tools a host may put in a model's tool list: those whose visibility includes
        ``"model"`` (the MCP Apps spec keeps app-only tools, visibility ``["app"]``, out of the
        agent's list). Whoever hands these tools to a model (sampling with tools) uses this."""
        return type(self)([t for t in self if "model" in t.visibility], self.server)

    def _computed(self, t: Tool) -> dict[str, object]:
        return {
            "arguments": ", ".join(a + ("*" if a in t.required else "") for a in t.parameters),
            "annotations": ", ".join(label for key, label in _HINTS if t.hint(key)),
            "visibility": ", ".join(t.visibility),
        }


class Resources(Listing[Resource]):
    """The concrete resources of a server (indexable by URI)."""

    kind = "resource"
    not_found = ResourceNotFound
    columns = ("uri", "name", "title", "mime_type", "size", "description")


class ResourceTemplates(Listing[ResourceTemplate]):
    """The resource templates of a server (indexable by URI template or name)."""

    kind = "resource template"
    not_found = ResourceNotFound
    columns = ("uri_template", "name", "title", "mime_type", "description")

    def __init__(self, items: Sequence[ResourceTemplate], server: str = "") -> None:
        super().__init__(items, server)
        for item in self._items:
            self._by_key.setdefault(item.name, item)


class Prompts(Listing[Prompt]):
    """The prompts of a server."""

    kind = "prompt"
    not_found = PromptNotFound
    columns = ("name", "title", "description")
    computed = ("arguments",)

    def _computed(self, p: Prompt) -> dict[str, object]:
        return {"arguments": ", ".join(a.name + ("*" if a.required else "") for a in p.arguments)}


class Skills(Listing[Skill]):
    """The skills of a server (indexable by name or by ``SKILL.md`` URI). Listing reads no file."""

    kind = "skill"
    not_found = SkillNotFound
    columns = ("name", "description", "uri")
    computed = ("files",)

    def __init__(self, items: Sequence[Skill], server: str = "") -> None:
        super().__init__(items, server)
        for item in self._items:  # names should be unique, URIs are
            self._by_key.setdefault(item.uri, item)

    def _computed(self, s: Skill) -> dict[str, object]:
        return {"files": "dynamic" if s.dynamic else len(s.files)}


class ListingSpec(NamedTuple):
    """How one kind of listing is fetched from the SDK client and wrapped."""

    method: str  # the SDK client's list method
    attribute: str  # the page's attribute holding the items
    item: type[Item]
    listing: type[Listing[Any]]  # Tools, Resources...: each of its own item type


LISTINGS: dict[str, ListingSpec] = {
    "tools": ListingSpec("list_tools", "tools", Tool, Tools),
    "resources": ListingSpec("list_resources", "resources", Resource, Resources),
    "resource_templates": ListingSpec(
        "list_resource_templates", "resource_templates", ResourceTemplate, ResourceTemplates
    ),
    "prompts": ListingSpec("list_prompts", "prompts", Prompt, Prompts),
}
