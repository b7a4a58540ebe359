"""Results: what a call, a read or a prompt returns, the SDK's types wrapped once.

Nothing above the client layer touches ``mcp_types``: content blocks and results are plain objects
with readable attributes, ``.raw`` for the SDK object, and ``to_dataframe()`` where a table makes
sense. Server data is untrusted; these objects keep it as data and never render it (rendering,
with escaping, lives in ``mcp_jupyter.display``). What a server *offers* (tools, resources,
prompts) lives in :mod:`mcp_jupyter.client._items`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import _hooks as hooks
from .._wording import counted
from . import _tabular as tabular

if TYPE_CHECKING:
    from ._items import Tool

__all__ = [
    "MAX_DECODE_BYTES",
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


def _dump(model: Any) -> dict[str, Any] | None:
    """A pydantic model as wire-format JSON data (camelCase keys), or None."""
    if model is None:
        return None
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


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


# -- content blocks ------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class TextBlock:
    """Text content."""

    text: str
    annotations: dict[str, Any] | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    type: str = "text"

    def __init__(
        self, text: str, annotations: dict[str, Any] | None = None, raw: Any = None, type: str = "text"
    ) -> None:
        # Every result has text blocks: the fields are set in one step, where a frozen dataclass's
        # own __init__ calls object.__setattr__ per field (about 5,000 instructions a block).
        fields = self.__dict__
        fields["text"], fields["annotations"], fields["raw"], fields["type"] = text, annotations, raw, type


@dataclass(frozen=True)
class _BinaryBlock:
    data_b64: str = field(repr=False)
    mime_type: str
    annotations: dict[str, Any] | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    type: str = "binary"  # "image" or "audio" (the subclasses)

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
    annotations: dict[str, Any] | None = None
    raw: Any = field(default=None, repr=False, compare=False)
    type: str = "resource_link"


@dataclass(frozen=True)
class EmbeddedResourceBlock:
    """A resource embedded in a result: ``text`` or ``blob_b64`` (``blob`` decodes it)."""

    uri: str
    mime_type: str | None
    text: str | None = None
    blob_b64: str | None = field(default=None, repr=False)
    annotations: dict[str, Any] | None = None
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
    data: dict[str, Any]
    raw: Any = field(default=None, repr=False, compare=False)
    annotations: dict[str, Any] | None = None


ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock | UnknownBlock


def wrap_block(block: Any) -> ContentBlock:
    """Wrap one SDK content block."""
    kind = getattr(block, "type", None)
    annotations = getattr(block, "annotations", None)
    if annotations is not None:  # most blocks have none: no call for them (a list sends 50,000)
        annotations = _dump(annotations)
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

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)
    _repr_mimebundle_ = hooks.repr_mimebundle  # and an MCP App's output type, when its tool has one
    content: list[ContentBlock]
    structured: Any
    is_error: bool
    tool: Tool | None = None
    server: str | None = None
    raw: Any = field(default=None, repr=False)
    arguments: dict[str, Any] | None = field(default=None, repr=False)  # what the tool was called with
    #: milliseconds from sending the call to its result (set by ``conn.map`` for each row)
    latency_ms: float | None = field(default=None, repr=False, compare=False)
    # (outputSchema, structured, problems) of the last schema check: see schema_errors()
    _checked: tuple[Any, Any, tuple[str, ...]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

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
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
            return self.text

    @property
    def images(self) -> list[ImageBlock]:
        """The image blocks."""
        return [b for b in self.content if isinstance(b, ImageBlock)]

    def schema_errors(self) -> list[str]:
        """Where the structured content disagrees with the tool's ``outputSchema`` (empty when fine).

        Checked as the SDK checks it: the schema as the server wrote it, in the draft its ``$schema``
        names; ``$ref``s resolve within the schema only and a network ``$ref`` is never fetched
        (:func:`mcp_jupyter._schema.schema_problems`, built on
        :func:`mcp_jupyter._schema.make_validator`). The check runs once per result (again only
        if ``structured`` or the tool's schema is replaced), and a result from ``conn.call`` comes
        already checked: the SDK validates structured content against the listed ``outputSchema``
        before returning it (a result that does not match is an error, not a result).
        """
        if self.tool is None or not self.tool.output_schema or self.is_error:
            return []
        if self.structured is None:
            return ["the tool declares an outputSchema but returned no structuredContent"]
        schema, structured = self.tool.output_schema, self.structured
        checked = self._checked
        if checked is None or checked[0] is not schema or checked[1] is not structured:
            from .._schema import schema_problems

            checked = self._checked = (schema, structured, tuple(schema_problems(structured, schema) or ()))
        return list(checked[2])

    def _checked_by_sdk(self) -> None:
        """Record that the SDK found the structured content valid for the tool's outputSchema."""
        if self.tool is not None and self.tool.output_schema and self.structured is not None:
            self._checked = (self.tool.output_schema, self.structured, ())

    def to_dataframe(self, field: str | None = None, *, header: bool | None = None) -> Any:
        """The result as a pandas DataFrame: every shape the notebook shows as a table is one here.
        From its ``data`` (structured content, else the text parsed as JSON); when that is text,
        from its content blocks: one JSON object per text block or per line (JSON Lines: a SQL
        server answering a row per block), a Python literal, its one embedded CSV resource, or ten
        or more short text blocks (one ``text`` column, a row per block).

        - ``field``: the field of the data that holds the table (``result.to_dataframe("entities")``).
          Without it, an object's one field that holds a list of records or rows is the table (a
          sole field holding any list too), and an object of scalars is a one-row table.
        - A list of records (objects) gives a column per key; a list of rows (lists) gives a row
          per list, and its first row is the header when every cell of it is a string
          (``header=True`` makes it the header anyway, ``header=False`` keeps it as data, with
          numbered columns); a list of single values gives one ``value`` column. So a
          spreadsheet answer ``{"range": "A1:B3", "values": [["region", "amount"], ...]}`` is a
          table with the columns ``region`` and ``amount``.
        - Text that is a Python literal (a server that sends ``str(rows)``) is parsed with
          ``ast.literal_eval``, which builds plain values and never runs code, up to
          ``mcp_jupyter.client._dataframes.LITERAL_PARSE_LIMIT`` characters. Such a table says so in
          its repr and in ``df.attrs["parsed_from"]`` (``"python literal"``).

        Anything else raises ``ValueError`` saying why it is not a table and the call (or
        attribute) that gets the data instead; a suggested call is checked to work before the
        message offers it.
        """
        from ._dataframes import to_dataframe

        return to_dataframe(self.data, self.text, field, header, self.content)

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

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)
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
        """CSV, JSON or JSON Lines content as a DataFrame (CSV by its MIME type, ``text/csv``, as
        the notebook shows it as a table); a ValueError saying why when it is none of them."""
        import pandas as pd

        from ._dataframes import read_csv

        if tabular.is_csv(self.mime_type):
            return read_csv(self.text or "")
        try:
            data = self.json()
        except (ValueError, RecursionError):
            data = tabular.json_lines(self.text or "")
            if data is None:
                raise ValueError(
                    f"resource {self.uri!r} ({self.mime_type or 'no MIME type'}) is not CSV, JSON or JSON "
                    "Lines; read its .text or .blob"
                ) from None
        return pd.DataFrame.from_records(data if isinstance(data, list) else [data])

    def __repr__(self) -> str:
        return f"<ResourceResult {self.uri!r} {self.mime_type or ''} ({counted(len(self.contents), 'item')})>"


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

    _repr_html_ = hooks.repr_html  # drawn by the display layer (mcp_jupyter/_hooks.py, RICH_DISPLAY)
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

    def to_openai(self) -> list[dict[str, Any]]:
        """The messages as OpenAI-style chat messages (text only)."""
        return [{"role": m.role, "content": m.text} for m in self.messages]

    def __repr__(self) -> str:
        return f"<PromptResult {self.name!r}: {counted(len(self.messages), 'message')}>"


@dataclass(frozen=True)
class LogEntry:
    """A ``notifications/message`` log record received from a server."""

    level: str
    logger: str | None
    data: Any
    time: float
    server: str | None = None
