"""Result and listing objects: the SDK's types wrapped once, for people and for presentation.

Nothing above the API layer touches ``mcp_types``: tools, resources, prompts, content blocks and
results are plain objects with readable attributes, ``.raw`` for the SDK object, and
``to_dataframe()`` where a table makes sense. Server data is untrusted; these objects keep it
as data and never render it (rendering, with escaping, lives in ``mcp_jupyter.display``).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = [
    "MAX_DECODE_BYTES",
    "Tool",
    "Resource",
    "ResourceTemplate",
    "Prompt",
    "PromptArgument",
    "Listing",
    "Tools",
    "Resources",
    "ResourceTemplates",
    "Prompts",
    "TextBlock",
    "ImageBlock",
    "AudioBlock",
    "ResourceLinkBlock",
    "EmbeddedResourceBlock",
    "UnknownBlock",
    "ContentBlock",
    "ToolResult",
    "ResourceContent",
    "ResourceResult",
    "PromptMessage",
    "PromptResult",
    "LogEntry",
    "wrap_block",
]

MAX_DECODE_BYTES = 64 * 1024 * 1024
"""Base64 payloads whose decoded size would exceed this are refused (checked before decoding)."""


def _dump(model: Any) -> dict | None:
    """A pydantic model as wire-format JSON data (camelCase keys), or None."""
    if model is None:
        return None
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def _connection(server: str | None) -> Any:
    """The registered connection an item came from (for its convenience methods)."""
    from .registry import get_connection

    if server is None:
        raise ValueError("this object was not listed by a registered connection")
    return get_connection(server)


def decoded_size(data_b64: str) -> int:
    """The number of bytes ``data_b64`` decodes to, computed without decoding."""
    n = len(data_b64)
    return max(0, n * 3 // 4 - data_b64[-2:].count("=")) if n else 0


def decode_base64(data_b64: str, *, limit: int = MAX_DECODE_BYTES, what: str = "payload") -> bytes:
    """Decode base64 after checking its size against ``limit``; a clear error on bad data."""
    size = decoded_size(data_b64)
    if size > limit:
        raise ValueError(
            f"the {what} is {size:,} bytes, over the {limit:,}-byte limit; read .data_b64 instead"
        )
    try:
        return base64.b64decode(data_b64, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"the server sent invalid base64 for this {what}: {exc}") from None


# -- listings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """A tool the server offers. ``annotations`` are untrusted hints (camelCase dict)."""

    name: str
    title: str | None
    description: str | None
    input_schema: dict
    output_schema: dict | None
    annotations: dict | None
    raw: Any = field(repr=False, compare=False)
    server: str | None = field(default=None, compare=False)

    @classmethod
    def from_sdk(cls, tool: Any, server: str | None = None) -> Tool:
        """Wrap an ``mcp_types.Tool`` listed by connection ``server``."""
        annotations = _dump(tool.annotations)
        title = tool.title or (annotations or {}).get("title")
        return cls(
            tool.name,
            title,
            tool.description,
            tool.input_schema or {},
            tool.output_schema,
            annotations,
            tool,
            server,
        )

    def form(self, **options: Any) -> Any:
        """An interactive form for this tool (fill in, Call, see the result): a widget."""
        from .widgets.tool_form import ToolForm

        return ToolForm(_connection(self.server), self.name, **options)

    @property
    def required(self) -> list[str]:
        """Names of the required arguments."""
        return list(self.input_schema.get("required") or [])

    @property
    def parameters(self) -> dict:
        """Argument name -> property schema."""
        props = self.input_schema.get("properties")
        return props if isinstance(props, dict) else {}

    def hint(self, name: str) -> bool | None:
        """An annotation hint (``readOnlyHint``, ``destructiveHint``, ...) or None when unset."""
        return (self.annotations or {}).get(name)

    def to_dict(self) -> dict:
        """The tool as wire-format JSON data."""
        return _dump(self.raw) or {}


@dataclass(frozen=True)
class Resource:
    """A concrete resource the server lists."""

    uri: str
    name: str
    title: str | None
    description: str | None
    mime_type: str | None
    size: int | None
    annotations: dict | None
    raw: Any = field(repr=False, compare=False)
    server: str | None = field(default=None, compare=False)

    @classmethod
    def from_sdk(cls, res: Any, server: str | None = None) -> Resource:
        """Wrap an ``mcp_types.Resource`` listed by connection ``server``."""
        annotations = _dump(res.annotations)
        return cls(
            str(res.uri),
            res.name,
            res.title,
            res.description,
            res.mime_type,
            res.size,
            annotations,
            res,
            server,
        )

    def read(self) -> ResourceResult:
        """Read this resource through its connection."""
        return _connection(self.server).read(self.uri)

    @property
    def key(self) -> str:
        return self.uri


@dataclass(frozen=True)
class ResourceTemplate:
    """A parameterized resource (RFC 6570 URI template)."""

    uri_template: str
    name: str
    title: str | None
    description: str | None
    mime_type: str | None
    annotations: dict | None
    raw: Any = field(repr=False, compare=False)
    server: str | None = field(default=None, compare=False)

    @classmethod
    def from_sdk(cls, tpl: Any, server: str | None = None) -> ResourceTemplate:
        """Wrap an ``mcp_types.ResourceTemplate`` listed by connection ``server``."""
        return cls(
            tpl.uri_template,
            tpl.name,
            tpl.title,
            tpl.description,
            tpl.mime_type,
            _dump(tpl.annotations),
            tpl,
            server,
        )

    @property
    def variables(self) -> list[str]:
        """The template's variable names, in order."""
        from mcp.shared.uri_template import UriTemplate

        try:
            return list(UriTemplate.parse(self.uri_template).variable_names)
        except Exception:  # noqa: BLE001 - a malformed template from a server lists no variables
            return []

    def expand(self, **values: Any) -> str:
        """Expand the template with ``values`` (RFC 6570)."""
        from mcp.shared.uri_template import UriTemplate

        return UriTemplate.parse(self.uri_template).expand(values)


@dataclass(frozen=True)
class PromptArgument:
    """One argument of a prompt."""

    name: str
    description: str | None
    required: bool


@dataclass(frozen=True)
class Prompt:
    """A prompt template the server offers."""

    name: str
    title: str | None
    description: str | None
    arguments: tuple[PromptArgument, ...]
    raw: Any = field(repr=False, compare=False)
    server: str | None = field(default=None, compare=False)

    @classmethod
    def from_sdk(cls, prompt: Any, server: str | None = None) -> Prompt:
        """Wrap an ``mcp_types.Prompt`` listed by connection ``server``."""
        args = tuple(
            PromptArgument(a.name, a.description, bool(a.required)) for a in (prompt.arguments or [])
        )
        return cls(prompt.name, prompt.title, prompt.description, args, prompt, server)

    def form(self, **options: Any) -> Any:
        """An interactive form for this prompt (arguments with completion, rendered messages): a widget."""
        from .widgets.prompt_form import PromptForm

        return PromptForm(_connection(self.server), self.name, **options)

    @property
    def required(self) -> list[str]:
        """Names of the required arguments."""
        return [a.name for a in self.arguments if a.required]


ItemT = TypeVar("ItemT")


class Listing(Sequence, Generic[ItemT]):
    """An ordered, read-only collection of tools/resources/... indexable by position or key."""

    _key_attr = "name"
    _kind = "item"

    def __init__(self, items: Sequence[ItemT], server: str = "") -> None:
        self._items = list(items)
        self._by_key = {getattr(i, self._key_attr): i for i in self._items}
        self.server = server

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[ItemT]:
        return iter(self._items)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, slice)):
            return self._items[key]
        try:
            return self._by_key[key]
        except KeyError:
            from .errors import ToolNotFound, did_you_mean

            where = f" on server {self.server!r}" if self.server else ""
            raise ToolNotFound(
                f"no {self._kind} {key!r}{where}; {did_you_mean(str(key), self._by_key)}",
                suggestions=__import__("mcp_jupyter.errors").errors.suggest(str(key), self._by_key),
                server=self.server or None,
            ) from None

    def __contains__(self, key: object) -> bool:
        return key in self._by_key or key in self._items

    def keys(self) -> list[str]:
        """The names (or URIs) in order."""
        return list(self._by_key)

    names = keys

    def get(self, key: str, default: Any = None) -> Any:
        """The item with that name/URI, or ``default``."""
        return self._by_key.get(key, default)

    def to_records(self) -> list[dict]:
        """Rows of plain data for a table."""
        raise NotImplementedError

    def to_dataframe(self) -> Any:
        """The listing as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame.from_records(self.to_records())

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
    """The tools of a server."""

    _kind = "tool"

    def to_records(self) -> list[dict]:
        return [
            {
                "name": t.name,
                "title": t.title,
                "description": t.description,
                "arguments": ", ".join(a + ("*" if a in t.required else "") for a in t.parameters),
                "annotations": ", ".join(label for key, label in _HINTS if t.hint(key)),
            }
            for t in self
        ]


class Resources(Listing[Resource]):
    """The concrete resources of a server (indexable by URI)."""

    _key_attr = "uri"
    _kind = "resource"

    def to_records(self) -> list[dict]:
        return [
            {
                "uri": r.uri,
                "name": r.name,
                "title": r.title,
                "mime_type": r.mime_type,
                "size": r.size,
                "description": r.description,
            }
            for r in self
        ]


class ResourceTemplates(Listing[ResourceTemplate]):
    """The resource templates of a server (indexable by URI template or name)."""

    _key_attr = "uri_template"
    _kind = "resource template"

    def __init__(self, items: Sequence[ResourceTemplate], server: str = "") -> None:
        super().__init__(items, server)
        for item in self._items:
            self._by_key.setdefault(item.name, item)

    def keys(self) -> list[str]:
        return [t.uri_template for t in self._items]

    def to_records(self) -> list[dict]:
        return [
            {
                "uri_template": t.uri_template,
                "name": t.name,
                "title": t.title,
                "mime_type": t.mime_type,
                "description": t.description,
            }
            for t in self
        ]


class Prompts(Listing[Prompt]):
    """The prompts of a server."""

    _kind = "prompt"

    def to_records(self) -> list[dict]:
        return [
            {
                "name": p.name,
                "title": p.title,
                "description": p.description,
                "arguments": ", ".join(a.name + ("*" if a.required else "") for a in p.arguments),
            }
            for p in self
        ]


# -- content blocks ------------------------------------------------------------------------


@dataclass(frozen=True)
class TextBlock:
    """Text content."""

    text: str
    annotations: dict | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    type: str = "text"


@dataclass(frozen=True)
class _BinaryBlock:
    data_b64: str = field(repr=False)
    mime_type: str
    annotations: dict | None = None
    raw: Any = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> int:
        """Decoded size in bytes (computed without decoding)."""
        return decoded_size(self.data_b64)

    @property
    def data(self) -> bytes:
        """The decoded bytes (refused above ``MAX_DECODE_BYTES``)."""
        return decode_base64(self.data_b64, what=f"{self.type} content")

    def save(self, path: str) -> str:
        """Write the decoded bytes to ``path``; return the path."""
        with open(path, "wb") as fh:
            fh.write(self.data)
        return path


@dataclass(frozen=True, repr=False)
class ImageBlock(_BinaryBlock):
    """An image (base64 in ``data_b64``, bytes in ``data``)."""

    type: str = "image"

    def __repr__(self) -> str:
        return f"ImageBlock(mime_type={self.mime_type!r}, size={self.size})"


@dataclass(frozen=True, repr=False)
class AudioBlock(_BinaryBlock):
    """Audio (base64 in ``data_b64``, bytes in ``data``)."""

    type: str = "audio"

    def __repr__(self) -> str:
        return f"AudioBlock(mime_type={self.mime_type!r}, size={self.size})"


@dataclass(frozen=True)
class ResourceLinkBlock:
    """A link to a resource; read it with ``conn.read(block.uri)``."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None
    annotations: dict | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    type: str = "resource_link"


@dataclass(frozen=True)
class EmbeddedResourceBlock:
    """A resource embedded in a result: ``text`` or ``blob_b64`` (``blob`` decodes it)."""

    uri: str
    mime_type: str | None
    text: str | None = None
    blob_b64: str | None = field(default=None, repr=False)
    annotations: dict | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    type: str = "resource"

    @property
    def blob(self) -> bytes | None:
        """Decoded bytes of a binary resource, None for a text one."""
        return None if self.blob_b64 is None else decode_base64(self.blob_b64, what="embedded resource")


@dataclass(frozen=True)
class UnknownBlock:
    """A content block of a type this version does not know; ``data`` holds it as JSON."""

    type: str
    data: dict
    raw: Any = field(default=None, repr=False, compare=False)
    annotations: dict | None = None


ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock | UnknownBlock


def wrap_block(block: Any) -> ContentBlock:
    """Wrap one SDK content block."""
    kind = getattr(block, "type", None)
    annotations = _dump(getattr(block, "annotations", None))
    if kind == "text":
        return TextBlock(block.text, annotations, block)
    if kind == "image":
        return ImageBlock(block.data, block.mime_type, annotations, block)
    if kind == "audio":
        return AudioBlock(block.data, block.mime_type, annotations, block)
    if kind == "resource_link":
        return ResourceLinkBlock(
            str(block.uri),
            block.name,
            block.title,
            block.description,
            block.mime_type,
            block.size,
            annotations,
            block,
        )
    if kind == "resource":
        res = block.resource
        return EmbeddedResourceBlock(
            str(res.uri),
            res.mime_type,
            getattr(res, "text", None),
            getattr(res, "blob", None),
            annotations,
            block,
        )
    data = _dump(block) if hasattr(block, "model_dump") else {"value": repr(block)}
    return UnknownBlock(str(kind), data or {}, block)


def _joined_text(blocks: Sequence[ContentBlock]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


# -- results -------------------------------------------------------------------------------


@dataclass
class ToolResult:
    """The result of ``tools/call``. ``is_error`` results are results, not exceptions."""

    content: list[ContentBlock]
    structured: Any
    is_error: bool
    tool: Tool | None = None
    server: str | None = None
    raw: Any = field(default=None, repr=False)

    @classmethod
    def from_sdk(cls, result: Any, tool: Tool | None = None, server: str | None = None) -> ToolResult:
        """Wrap an ``mcp_types.CallToolResult``."""
        blocks = [wrap_block(b) for b in (result.content or [])]
        return cls(blocks, result.structured_content, bool(result.is_error), tool, server, result)

    @property
    def text(self) -> str:
        """All text blocks joined by newlines ("" when there are none)."""
        return _joined_text(self.content)

    @property
    def data(self) -> Any:
        """Structured content when present, else the text parsed as JSON when it is JSON, else the text."""
        if self.structured is not None:
            return self.structured
        try:
            return json.loads(self.text)
        except ValueError:
            return self.text

    @property
    def images(self) -> list[ImageBlock]:
        """The image blocks."""
        return [b for b in self.content if isinstance(b, ImageBlock)]

    def schema_errors(self) -> list[str]:
        """Where the structured content disagrees with the tool's ``outputSchema`` (empty when fine)."""
        if self.tool is None or not self.tool.output_schema or self.is_error:
            return []
        if self.structured is None:
            return ["the tool declares an outputSchema but returned no structuredContent"]
        import jsonschema

        validator_cls = jsonschema.validators.validator_for(
            self.tool.output_schema, jsonschema.Draft202012Validator
        )
        try:
            validator = validator_cls(self.tool.output_schema)
            return [
                f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
                for e in validator.iter_errors(self.structured)
            ][:20]
        except jsonschema.SchemaError as exc:
            return [f"the tool's outputSchema is itself invalid: {exc.message}"]

    def to_dataframe(self) -> Any:
        """Tabular structured content (a list of records, or a dict holding one) as a DataFrame."""
        import pandas as pd

        data = self.data
        if isinstance(data, dict):
            lists = [v for v in data.values() if isinstance(v, list)]
            if len(data) == 1 and lists:
                data = lists[0]
            elif not lists:
                data = [data]
        if isinstance(data, list):
            return (
                pd.DataFrame.from_records(data)
                if all(isinstance(r, Mapping) for r in data)
                else pd.DataFrame({"value": data})
            )
        return pd.DataFrame({"value": [data]})

    def __repr__(self) -> str:
        kinds = ", ".join(b.type for b in self.content)
        flag = " is_error" if self.is_error else ""
        text = self.text
        preview = (text[:60] + "...") if len(text) > 60 else text
        return f"<ToolResult{flag} [{kinds}] {preview!r}>"


@dataclass(frozen=True)
class ResourceContent:
    """One item of a ``resources/read`` result."""

    uri: str
    mime_type: str | None
    text: str | None = None
    blob_b64: str | None = field(default=None, repr=False)
    raw: Any = field(default=None, repr=False, compare=False)

    @property
    def blob(self) -> bytes | None:
        """Decoded bytes of binary content, None for text."""
        return None if self.blob_b64 is None else decode_base64(self.blob_b64, what="resource blob")

    @property
    def size(self) -> int:
        """Size in bytes (text as UTF-8, blobs decoded size)."""
        if self.text is not None:
            return len(self.text.encode("utf-8", "replace"))
        return decoded_size(self.blob_b64 or "")


@dataclass
class ResourceResult:
    """The result of ``resources/read``; ``.text``/``.blob``/``.mime_type`` describe the first item."""

    uri: str
    contents: list[ResourceContent]
    server: str | None = None
    raw: Any = field(default=None, repr=False)

    @classmethod
    def from_sdk(cls, uri: str, result: Any, server: str | None = None) -> ResourceResult:
        """Wrap an ``mcp_types.ReadResourceResult``."""
        items = [
            ResourceContent(str(c.uri), c.mime_type, getattr(c, "text", None), getattr(c, "blob", None), c)
            for c in result.contents
        ]
        return cls(uri, items, server, result)

    @property
    def text(self) -> str | None:
        """Text of all text items joined (None when there are none)."""
        texts = [c.text for c in self.contents if c.text is not None]
        return "\n".join(texts) if texts else None

    @property
    def blob(self) -> bytes | None:
        """Bytes of the first binary item (None when there is none)."""
        for c in self.contents:
            if c.blob_b64 is not None:
                return c.blob
        return None

    @property
    def mime_type(self) -> str | None:
        """MIME type of the first item."""
        return self.contents[0].mime_type if self.contents else None

    def json(self) -> Any:
        """The text parsed as JSON."""
        return json.loads(self.text or "null")

    def to_dataframe(self) -> Any:
        """CSV or JSON content as a DataFrame."""
        import io

        import pandas as pd

        if (self.mime_type or "").endswith("csv"):
            return pd.read_csv(io.StringIO(self.text or ""))
        data = self.json()
        return pd.DataFrame.from_records(data if isinstance(data, list) else [data])

    def __repr__(self) -> str:
        return f"<ResourceResult {self.uri!r} {self.mime_type or ''} ({len(self.contents)} item(s))>"


@dataclass(frozen=True)
class PromptMessage:
    """One message of a rendered prompt."""

    role: str
    content: ContentBlock

    @property
    def text(self) -> str:
        """The message text ("" for non-text content)."""
        return self.content.text if isinstance(self.content, TextBlock) else ""


@dataclass
class PromptResult:
    """The result of ``prompts/get``."""

    name: str
    description: str | None
    messages: list[PromptMessage]
    server: str | None = None
    raw: Any = field(default=None, repr=False)

    @classmethod
    def from_sdk(cls, name: str, result: Any, server: str | None = None) -> PromptResult:
        """Wrap an ``mcp_types.GetPromptResult``."""
        messages = [PromptMessage(m.role, wrap_block(m.content)) for m in result.messages]
        return cls(name, result.description, messages, server, result)

    @property
    def text(self) -> str:
        """All message texts, one per line, prefixed by role."""
        return "\n".join(f"{m.role}: {m.text}" for m in self.messages)

    def to_openai(self) -> list[dict]:
        """The messages as OpenAI-style chat messages (text only)."""
        return [{"role": m.role, "content": m.text} for m in self.messages]

    def __repr__(self) -> str:
        return f"<PromptResult {self.name!r}: {len(self.messages)} message(s)>"


@dataclass(frozen=True)
class LogEntry:
    """A ``notifications/message`` log record received from a server."""

    level: str
    logger: str | None
    data: Any
    time: float
    server: str | None = None
