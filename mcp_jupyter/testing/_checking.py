"""``conn.check()``: a lint of an MCP server, returned as a DataFrame of findings.

Each finding is one row: ``severity`` (error, warning, info), ``item`` (the tool, resource, template,
prompt or capability it is about), ``rule`` (a short stable id), ``message`` and ``spec`` (a link to
the section of the specification that states the rule). docs/testing-servers.md lists the rules.

Listings are read RAW (JSON-RPC results as dicts, not through the SDK's types): the SDK rejects a
whole ``tools/list`` when one tool's schema is not an object, which would hide every other finding.
Everything here runs on the runtime loop (:meth:`Connection.acheck` hops onto it).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pandas as pd

from .._protocol import INVALID_PARAMS, METHOD_NOT_FOUND, json_object
from .._schema import make_validator, resolve_schema, schema_dialect
from ..client import _uri_template as uri_template
from ..errors import MCPJupyterError, ProtocolError

__all__ = ["CheckReport", "Checker", "SEVERITIES", "raw_request", "sample_value"]

SEVERITIES = ("error", "warning", "info")
COLUMNS = ["severity", "item", "rule", "message", "spec"]

SPEC = "https://modelcontextprotocol.io/specification/2025-06-18"
LINKS = {
    "lifecycle": f"{SPEC}/basic/lifecycle",
    "capabilities": f"{SPEC}/basic/lifecycle#capability-negotiation",
    "versions": f"{SPEC}/basic/lifecycle#version-negotiation",
    "ping": f"{SPEC}/basic/utilities/ping",
    "tool": f"{SPEC}/server/tools#tool",
    "tool-names": "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
    "annotations": f"{SPEC}/schema#toolannotations",
    "output-schema": f"{SPEC}/server/tools#output-schema",
    "structured": f"{SPEC}/server/tools#structured-content",
    "tool-result": f"{SPEC}/server/tools#tool-result",
    "tools-list-changed": f"{SPEC}/server/tools#list-changed-notification",
    "resources": f"{SPEC}/server/resources",
    "reading": f"{SPEC}/server/resources#reading-resources",
    "templates": f"{SPEC}/server/resources#resource-templates",
    "subscriptions": f"{SPEC}/server/resources#subscriptions",
    "resources-list-changed": f"{SPEC}/server/resources#list-changed-notification",
    "prompts": f"{SPEC}/server/prompts",
    "getting-prompt": f"{SPEC}/server/prompts#getting-a-prompt",
    "prompts-list-changed": f"{SPEC}/server/prompts#list-changed-notification",
    "completion": f"{SPEC}/server/utilities/completion",
    "pagination": f"{SPEC}/server/utilities/pagination",
}

_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_PAGE_CAP = 1000
_READ_CAP = 200  # resources read per check
_CALL_TIMEOUT = 20.0
_LISTINGS = (
    # capability, method, result key, item name key, kind
    ("tools", "tools/list", "tools", "name", "tools"),
    ("resources", "resources/list", "resources", "uri", "resources"),
    ("resources", "resources/templates/list", "resourceTemplates", "uriTemplate", "templates"),
    ("prompts", "prompts/list", "prompts", "name", "prompts"),
)


class CheckReport(pd.DataFrame):
    """The findings of :meth:`Connection.check`: a DataFrame (columns severity, item, rule, message,
    spec) shown as a table in notebooks. ``report.ok`` is True when no row is an error."""

    _metadata = ["server"]

    @property
    def _constructor(self) -> type:
        return CheckReport

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return "severity" not in self or not bool((self["severity"] == "error").any())

    @property
    def errors(self) -> CheckReport:
        """Only the errors."""
        return self[self["severity"] == "error"]

    def rules(self, severity: str | None = None) -> set[str]:
        """The rules that have findings (of ``severity``, if given)."""
        rows = self if severity is None else self[self["severity"] == severity]
        return set(rows["rule"])

    def counts(self) -> dict[str, int]:
        """How many findings of each severity."""
        return {s: int((self["severity"] == s).sum()) for s in SEVERITIES}

    def _repr_html_(self) -> str | None:
        """The summary line and the findings with spec links (display/_checks.py, a layer below this one)."""
        from ..display._checks import check_html

        try:
            return str(check_html(self))
        except Exception:  # noqa: BLE001 - display must never break a cell; text/plain remains
            return None


def make_report(findings: list[dict], server: str) -> CheckReport:
    """Findings as a :class:`CheckReport`, errors first (stable within a severity)."""
    order = {s: i for i, s in enumerate(SEVERITIES)}
    rows = sorted(findings, key=lambda f: order.get(f["severity"], 3))
    report = CheckReport(rows, columns=COLUMNS)
    report.server = server
    return report


async def raw_request(session: Any, method: str, params: dict | None = None, *, timeout: Any = None) -> dict:
    """Send ``method`` and return the server's result as plain JSON data, unvalidated.

    The SDK's typed path validates every result against the protocol's types; a lint must see what
    the server really sent, so this goes through the session's raw channel (with the SDK's
    per-request stamp: protocol version headers, 2026-07-28 ``_meta``). Errors are mapped as for
    any request (:class:`~mcp_jupyter.errors.ProtocolError` carries the JSON-RPC code).
    """
    from .._compat.mcp_sdk import send_raw_request

    sdk_session = session.require_client().session
    kwargs = {} if timeout is None else {"timeout": timeout}
    return await session.request(
        f"checking {method}", lambda _progress: send_raw_request(sdk_session, method, params), **kwargs
    )


# -- sample values -------------------------------------------------------------------------------

_FORMATS = {
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "127.0.0.1",
    "hostname": "example.com",
}


def sample_value(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """A plausible value for ``schema``: its default, const, first example or enum value, else a
    small value of its type (required properties only, minimum lengths and bounds respected)."""
    root = schema if root is None else root
    resolved = resolve_schema(schema, root).schema
    if resolved is None or depth > 8:
        return None
    for key in ("default", "const"):
        if key in resolved:
            return resolved[key]
    examples = resolved.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    if isinstance(resolved.get("enum"), list) and resolved["enum"]:
        return resolved["enum"][0]
    for keyword in ("anyOf", "oneOf"):
        alts = resolved.get(keyword)
        if isinstance(alts, list) and alts:
            non_null = [a for a in alts if not (isinstance(a, dict) and a.get("type") == "null")]
            return sample_value((non_null or alts)[0], root, depth + 1)
    kind = resolved.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in resolved else "array" if "items" in resolved else "string"
    if kind == "object":
        props = json_object(resolved.get("properties"))
        return {
            name: sample_value(props.get(name, {}), root, depth + 1)
            for name in resolved.get("required") or []
            if isinstance(name, str)
        }
    if kind == "array":
        min_items = resolved.get("minItems")
        count = min_items if isinstance(min_items, int) else 0
        return [sample_value(resolved.get("items", {}), root, depth + 1) for _ in range(count)]
    if kind in ("integer", "number"):
        value: Any = 1
        if isinstance(resolved.get("minimum"), int | float):
            value = resolved["minimum"]
        elif isinstance(resolved.get("exclusiveMinimum"), int | float):
            value = resolved["exclusiveMinimum"] + 1
        elif isinstance(resolved.get("maximum"), int | float) and resolved["maximum"] < 1:
            value = resolved["maximum"]
        return int(value) if kind == "integer" else value
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    text = _FORMATS.get(str(resolved.get("format")), "example")
    minimum, maximum = resolved.get("minLength"), resolved.get("maxLength")
    text = text.ljust(minimum if isinstance(minimum, int) else 0, "x")
    return text[:maximum] if isinstance(maximum, int) else text


# -- the checker ---------------------------------------------------------------------------------


class Checker:
    """One run of the lint over a connection (on the runtime loop, through its session)."""

    def __init__(self, connection: Any, *, call: bool = False, eras: bool = True) -> None:
        self.connection = connection
        self.session = connection._session
        self.call = call
        self.eras = eras
        self.findings: list[dict] = []
        self.listed: dict[str, list] = {}

    def add(self, severity: str, item: str, rule: str, message: str, link: str) -> None:
        """Record one finding (``link`` is a key of :data:`LINKS` or a URL)."""
        self.findings.append(
            {
                "severity": severity,
                "item": item,
                "rule": rule,
                "message": message,
                "spec": LINKS.get(link, link),
            }
        )

    async def run(self) -> CheckReport:
        """Every check, in order; returns the report."""
        session = self.session
        client = session.require_client()
        caps = session.capabilities
        version = client.protocol_version
        self.add(
            "info",
            "server",
            "protocol-version",
            f"negotiated protocol {version} over {session.transport_used}",
            "versions",
        )
        await self._ping()
        for capability, method, key, _name_key, kind in _LISTINGS:
            if capability in caps:
                self.listed[kind] = await self._walk(method, key, kind)
        self._check_tools(self.listed.get("tools") or [])
        if self.call and self.listed.get("tools"):
            await self._call_tools(self.listed["tools"])
        await self._check_resources(self.listed.get("resources") or [], caps)
        await self._check_templates(self.listed.get("templates") or [], caps)
        await self._check_prompts(self.listed.get("prompts") or [], caps)
        self._check_capabilities(caps)
        if self.eras:
            await self._check_eras(version)
        return make_report(self.findings, session.name)

    # -- basics ---------------------------------------------------------------------------------
    async def _ping(self) -> None:
        client = self.session.require_client()
        modern = client.protocol_version.startswith("2026")
        start = time.perf_counter()
        try:
            if modern:  # ping is gone at 2026-07-28; a cheap listing proves liveness the same way
                await self.session.request("pinging", lambda _p: client.session.list_tools(), timeout=10.0)
            else:
                await raw_request(self.session, "ping", None, timeout=10.0)
        except MCPJupyterError as exc:
            self.add("error", "server", "ping", f"ping failed: {exc}", "ping")
            return
        ms = (time.perf_counter() - start) * 1000
        how = "a tools/list round trip (no ping at 2026-07-28)" if modern else "ping"
        self.add("info", "server", "ping", f"{how}: {ms:.1f} ms", "ping")

    async def _walk(self, method: str, key: str, kind: str) -> list:
        """Every page of ``method`` (raw items); pagination faults are findings."""
        items: list = []
        seen: set[str] = set()
        cursor = None
        pages = 0
        while True:
            try:
                page = await raw_request(self.session, method, {"cursor": cursor} if cursor else None)
            except ProtocolError as exc:
                if kind == "templates" and exc.code == METHOD_NOT_FOUND:
                    self.add(
                        "warning",
                        kind,
                        "list-not-implemented",
                        f"declares resources but answers {method} with -32601 Method not found "
                        "(an empty list is the expected answer)",
                        "templates",
                    )
                else:
                    self.add("error", kind, "list-failed", f"{method} failed: {exc}", "capabilities")
                return items
            except MCPJupyterError as exc:
                self.add("error", kind, "list-failed", f"{method} failed: {exc}", "capabilities")
                return items
            pages += 1
            got = page.get(key) if isinstance(page, dict) else None
            if not isinstance(got, list):
                self.add(
                    "error", kind, "list-malformed", f"{method} result has no {key!r} array", "capabilities"
                )
                return items
            items.extend(got)
            cursor = page.get("nextCursor")
            if cursor is None or cursor == "":
                break
            if not isinstance(cursor, str):
                self.add("error", kind, "pagination", f"nextCursor is not a string: {cursor!r}", "pagination")
                break
            if cursor in seen:
                del items[len(items) - len(got) :]  # the repeated page's items are already listed
                pages = -1
                self.add(
                    "error",
                    kind,
                    "pagination",
                    f"{method} repeats cursor {cursor[:80]!r}: the listing never ends",
                    "pagination",
                )
                break
            if pages >= _PAGE_CAP:
                self.add(
                    "error", kind, "pagination", f"{method} still has more after {pages} pages", "pagination"
                )
                break
            seen.add(cursor)
        if pages > 1:
            self.add(
                "info",
                kind,
                "pagination",
                f"{len(items)} {kind} in {pages} pages (walked to the end)",
                "pagination",
            )
        return items

    # -- tools ----------------------------------------------------------------------------------
    def _check_tools(self, tools: list) -> None:
        from mcp.shared.tool_name_validation import TOOL_NAME_REGEX

        names: dict[str, int] = {}
        for index, tool in enumerate(tools):
            if not isinstance(tool, dict):
                self.add(
                    "error", f"tools[{index}]", "tool-malformed", "a listed tool is not an object", "tool"
                )
                continue
            name = tool.get("name")
            item = str(name) if isinstance(name, str) else f"tools[{index}]"
            if not isinstance(name, str):
                self.add(
                    "error", item, "tool-name", f"the tool's name is not a string: {name!r}", "tool-names"
                )
            else:
                names[name] = names.get(name, 0) + 1
                if not TOOL_NAME_REGEX.fullmatch(name):
                    reason = (
                        "is empty"
                        if not name
                        else f"is {len(name)} characters long (at most 128)"
                        if len(name) > 128
                        else "has characters outside A-Z a-z 0-9 _ - ."
                    )
                    self.add("error", item, "tool-name", f"tool name {name!r} {reason}", "tool-names")
                elif name[0] in "-." or name[-1] in "-.":
                    self.add(
                        "warning",
                        item,
                        "tool-name",
                        f"tool name {name!r} starts or ends with '-' or '.', which confuses some clients",
                        "tool-names",
                    )
            if not (isinstance(tool.get("description"), str) and tool["description"].strip()):
                self.add(
                    "warning",
                    item,
                    "description-missing",
                    "no description: a model choosing tools has only the name to go on",
                    "tool",
                )
            self._check_schema(item, tool, "inputSchema", required=True)
            if "outputSchema" in tool and tool["outputSchema"] is not None:
                self._check_schema(item, tool, "outputSchema", required=False)
            self._check_annotations(item, tool.get("annotations"))
        for name, count in names.items():
            if count > 1:
                self.add(
                    "error", name, "tool-name-duplicate", f"{count} tools are named {name!r}", "tool-names"
                )

    def _check_schema(self, item: str, tool: dict, field: str, *, required: bool) -> None:
        import jsonschema

        link = "tool" if field == "inputSchema" else "output-schema"
        rule = "input-schema" if field == "inputSchema" else "output-schema"
        if field not in tool:
            if required:
                self.add("error", item, rule, f"the tool has no {field}", link)
            return
        schema = tool[field]
        if not isinstance(schema, dict):
            self.add(
                "error",
                item,
                f"{rule}-not-object",
                f"{field} is {json.dumps(schema)[:80]}, not a JSON Schema object",
                link,
            )
            return
        if schema.get("type") != "object":
            self.add(
                "error",
                item,
                f"{rule}-not-object",
                f'{field} must have "type": "object" at the top, it has {json.dumps(schema.get("type"))}',
                link,
            )
        cls = schema_dialect(schema, None) if "$schema" in schema else None
        if cls is None and "$schema" in schema:
            self.add(
                "warning",
                item,
                f"{rule}-dialect",
                f"{field} declares an unknown $schema {str(schema.get('$schema'))[:100]!r}; checked as 2020-12",
                link,
            )
        cls = cls or jsonschema.Draft202012Validator
        try:
            cls.check_schema(schema)
        except jsonschema.SchemaError as exc:
            where = "/".join(map(str, exc.absolute_path)) or "(root)"
            self.add(
                "error",
                item,
                f"{rule}-invalid",
                f"{field} is not valid JSON Schema at {where}: {exc.message}",
                link,
            )

    def _check_annotations(self, item: str, annotations: Any) -> None:
        if annotations is None:
            return
        if not isinstance(annotations, dict):
            self.add("error", item, "annotations", "annotations is not an object", "annotations")
            return
        for hint in _HINTS:
            if hint in annotations and not isinstance(annotations[hint], bool):
                self.add(
                    "error",
                    item,
                    "annotations",
                    f"{hint} must be true or false, not {annotations[hint]!r}",
                    "annotations",
                )
        read_only = annotations.get("readOnlyHint") is True
        if read_only and annotations.get("destructiveHint") is True:
            self.add(
                "error",
                item,
                "annotations-contradict",
                "readOnlyHint and destructiveHint are both true: a tool that changes nothing cannot destroy",
                "annotations",
            )
        if read_only and annotations.get("idempotentHint") is False:
            self.add(
                "warning",
                item,
                "annotations-contradict",
                "readOnlyHint is true but idempotentHint is false: a read-only tool has no effect to repeat",
                "annotations",
            )

    async def _call_tools(self, tools: list) -> None:
        """``call=True``: call each read-only tool once with sample arguments; check its result."""
        skipped = []
        for tool in tools:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            name = tool["name"]
            annotations = json_object(tool.get("annotations"))
            schema = tool.get("inputSchema")
            if annotations.get("readOnlyHint") is not True:
                skipped.append(name)
                continue
            if not isinstance(schema, dict) or schema.get("type") != "object":
                continue  # already an error; nothing sensible to send
            args = sample_value(schema)
            try:
                valid = make_validator(schema, formats=False, as_declared=True).is_valid(args)
            except Exception:  # noqa: BLE001 - an invalid schema is reported already
                valid = False
            if not valid:
                self.add(
                    "info",
                    name,
                    "tool-call-skipped",
                    f"could not make sample arguments that match the input schema (tried {json.dumps(args)[:200]})",
                    "tool",
                )
                continue
            try:
                result = await raw_request(
                    self.session, "tools/call", {"name": name, "arguments": args}, timeout=_CALL_TIMEOUT
                )
            except MCPJupyterError as exc:
                self.add(
                    "error",
                    name,
                    "tool-call-failed",
                    f"calling with {json.dumps(args)[:200]} failed: {exc}",
                    "tool-result",
                )
                continue
            self._check_result(name, tool, args, result)
        if skipped:
            self.add(
                "info",
                "tools",
                "tool-call-skipped",
                f"not called (not annotated readOnlyHint): {', '.join(skipped[:30])}"
                + (f" and {len(skipped) - 30} more" if len(skipped) > 30 else ""),
                "annotations",
            )

    def _check_result(self, name: str, tool: dict, args: dict, result: Any) -> None:
        if not isinstance(result, dict):
            self.add("error", name, "tool-result", "the tools/call result is not an object", "tool-result")
            return
        if result.get("resultType") == "input_required" or "inputRequests" in result:
            self.add(
                "info",
                name,
                "tool-call-skipped",
                "asked the client for input; not answered by the check",
                "tool-result",
            )
            return
        if not isinstance(result.get("content"), list):
            self.add("error", name, "tool-result", "the result has no content array", "tool-result")
        if result.get("isError") is True:
            self.add(
                "warning",
                name,
                "tool-call-error",
                f"answered isError for the sample arguments {json.dumps(args)[:200]}",
                "tool-result",
            )
            return
        output_schema = tool.get("outputSchema")
        if not isinstance(output_schema, dict):
            return
        structured = result.get("structuredContent")
        if structured is None:
            self.add(
                "error",
                name,
                "structured-content",
                "declares an outputSchema but returned no structuredContent",
                "output-schema",
            )
            return
        try:
            errors = list(
                make_validator(output_schema, formats=False, as_declared=True).iter_errors(structured)
            )
        except Exception:  # noqa: BLE001 - the schema's own errors are reported by _check_schema
            return
        for error in errors[:5]:
            where = "/".join(map(str, error.absolute_path)) or "(root)"
            self.add(
                "error",
                name,
                "structured-content",
                f"structuredContent does not match the outputSchema at {where}: {error.message}",
                "output-schema",
            )

    # -- resources, templates, prompts ----------------------------------------------------------
    async def _check_resources(self, resources: list, caps: dict) -> None:
        for index, resource in enumerate(resources):
            if not isinstance(resource, dict) or not isinstance(resource.get("uri"), str):
                self.add(
                    "error",
                    f"resources[{index}]",
                    "resource-malformed",
                    "a listed resource has no uri",
                    "resources",
                )
                continue
            uri = resource["uri"]
            if not isinstance(resource.get("name"), str):
                self.add("error", uri, "resource-malformed", "the resource has no name", "resources")
            if index >= _READ_CAP:
                continue
            try:
                result = await raw_request(self.session, "resources/read", {"uri": uri})
            except MCPJupyterError as exc:
                self.add("error", uri, "resource-unreadable", f"resources/read failed: {exc}", "reading")
                continue
            contents = result.get("contents") if isinstance(result, dict) else None
            if not isinstance(contents, list):
                self.add(
                    "error", uri, "resource-unreadable", "the read result has no contents array", "reading"
                )
            elif not contents:
                self.add("warning", uri, "resource-empty", "reading it returned no contents", "reading")
            elif any(not isinstance(c, dict) or ("text" not in c and "blob" not in c) for c in contents):
                self.add(
                    "error", uri, "resource-unreadable", "a content item has neither text nor blob", "reading"
                )
        if len(resources) > _READ_CAP:
            self.add(
                "info",
                "resources",
                "resource-unread",
                f"read the first {_READ_CAP} of {len(resources)}",
                "reading",
            )
        subscribe = (caps.get("resources") or {}).get("subscribe")
        if subscribe and resources:
            await self._check_subscribe(resources)

    async def _check_subscribe(self, resources: list) -> None:
        uri = next(
            (
                r["uri"]
                for r in resources
                if isinstance(r, dict)
                and isinstance(r.get("uri"), str)
                and r["uri"] not in self.session.subscriptions
            ),
            None,
        )
        if uri is None:
            return
        try:
            await self.connection.asubscribe(uri)
            await self.connection.aunsubscribe(uri)
        except MCPJupyterError as exc:
            self.session.subscriptions.pop(uri, None)
            self.add(
                "error",
                "capabilities.resources.subscribe",
                "subscribe",
                f"advertises subscribe but subscribing to {uri!r} failed: {exc}",
                "subscriptions",
            )
            return
        self.add(
            "info",
            "capabilities.resources.subscribe",
            "subscribe",
            f"subscribing to {uri!r} works",
            "subscriptions",
        )

    async def _complete(self, ref: dict, argument: str, context: dict | None = None) -> list | str:
        """Completion values (a list), or the error text."""
        params: dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": ""}}
        if context:
            params["context"] = {"arguments": context}
        try:
            result = await raw_request(self.session, "completion/complete", params)
        except MCPJupyterError as exc:
            return str(exc)
        values = (result.get("completion") or {}).get("values") if isinstance(result, dict) else None
        return values if isinstance(values, list) else "the result has no completion.values array"

    async def _check_templates(self, templates: list, caps: dict) -> None:
        completions = "completions" in caps
        for index, template in enumerate(templates):
            if not isinstance(template, dict) or not isinstance(template.get("uriTemplate"), str):
                self.add(
                    "error",
                    f"templates[{index}]",
                    "template-malformed",
                    "a listed template has no uriTemplate",
                    "templates",
                )
                continue
            text = template["uriTemplate"]
            try:
                names = uri_template.variables(text)
            except uri_template.TemplateError as exc:
                self.add(
                    "error",
                    text,
                    "template-invalid",
                    f"not a valid RFC 6570 URI template: {exc}",
                    "templates",
                )
                continue
            if not names:
                self.add("warning", text, "template-invalid", "the template has no variables", "templates")
            if not completions:
                continue
            for name in names:
                values = await self._complete({"type": "ref/resource", "uri": text}, name)
                if isinstance(values, str):
                    self.add(
                        "warning",
                        text,
                        "completion-failed",
                        f"completing variable {name!r} failed: {values}",
                        "completion",
                    )

    async def _check_prompts(self, prompts: list, caps: dict) -> None:
        completions = "completions" in caps
        for index, prompt in enumerate(prompts):
            if not isinstance(prompt, dict) or not isinstance(prompt.get("name"), str):
                self.add(
                    "error", f"prompts[{index}]", "prompt-malformed", "a listed prompt has no name", "prompts"
                )
                continue
            name = prompt["name"]
            arguments = prompt.get("arguments") or []
            if not isinstance(arguments, list):
                self.add("error", name, "prompt-malformed", "arguments is not an array", "prompts")
                continue
            args: dict[str, str] = {}
            guessed: set[str] = set()
            for arg in arguments:
                if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
                    self.add("error", name, "prompt-malformed", "an argument has no name", "prompts")
                    continue
                if not arg.get("required"):
                    continue
                value = "example"
                if completions:
                    values = await self._complete({"type": "ref/prompt", "name": name}, arg["name"], args)
                    if isinstance(values, str):
                        self.add(
                            "warning",
                            name,
                            "completion-failed",
                            f"completing argument {arg['name']!r} failed: {values}",
                            "completion",
                        )
                    elif values and isinstance(values[0], str):
                        value = values[0]
                if value == "example":
                    guessed.add(arg["name"])
                args[arg["name"]] = value
            result, failure = await self._render(name, args, guessed)
            if failure is not None:
                severity, text = failure
                self.add(severity, name, "prompt-failed", text, "getting-prompt")
                continue
            if not isinstance(result, dict) or not isinstance(result.get("messages"), list):
                self.add(
                    "error",
                    name,
                    "prompt-failed",
                    "the prompts/get result has no messages array",
                    "getting-prompt",
                )

    async def _render(
        self, name: str, args: dict[str, str], guessed: set[str]
    ) -> tuple[Any, tuple[str, str] | None]:
        """Render a prompt with ``args``; when the server refuses them, once more with each guessed
        argument "1" (prompt arguments are strings with no schema: a number is a common need)."""
        failure: tuple[str, str] | None = None
        retry = {k: "1" if k in guessed else v for k, v in args.items()}
        for attempt in (args, retry) if retry != args else (args,):
            try:
                return await raw_request(
                    self.session, "prompts/get", {"name": name, "arguments": attempt}
                ), None
            except ProtocolError as exc:
                if failure is None:
                    severity = "warning" if exc.code == INVALID_PARAMS else "error"
                    failure = (severity, f"rendering with {json.dumps(attempt)[:200]} failed: {exc}")
            except MCPJupyterError as exc:
                return None, ("error", f"rendering failed: {exc}")
        return None, failure

    # -- capabilities and eras ------------------------------------------------------------------
    def _check_capabilities(self, caps: dict) -> None:
        for capability in ("tools", "resources", "prompts"):
            declared = caps.get(capability)
            if isinstance(declared, dict) and declared.get("listChanged"):
                self.add(
                    "info",
                    f"capabilities.{capability}",
                    "list-changed",
                    f"advertises {capability} listChanged (notifications are not exercised by the check)",
                    f"{capability}-list-changed",
                )
        if "completions" in caps and not (self.listed.get("templates") or self.listed.get("prompts")):
            self.add(
                "info",
                "capabilities.completions",
                "completion",
                "declares completions but has no template or prompt",
                "completion",
            )

    async def _check_eras(self, version: str) -> None:
        """Which protocol eras the server speaks: the negotiated one, and the handshake era (a
        second, legacy-mode connection) when the first one negotiated 2026-07-28."""
        session = self.session
        if not version.startswith("2026"):
            if session.mode == "auto":
                self.add(
                    "info",
                    "server",
                    "protocol-eras",
                    f"speaks the handshake era ({version}); 2026-07-28 was not negotiated",
                    "versions",
                )
            return
        spec = session.spec
        target = (
            spec.server if spec.kind == "inprocess" else spec.url if spec.kind == "http" else list(spec.argv)
        )
        from ..client._connection import Connection

        probe = Connection(
            f"{session.name}-legacy-probe",
            target,
            env=spec.env or None,
            cwd=spec.cwd,
            headers=spec.headers or None,
            mode="legacy",
            connect_timeout=15,
            timeout=15,
        )
        try:
            await probe.aopen()
            legacy = probe.protocol_version
        except Exception as exc:  # noqa: BLE001 - not speaking the old era is a finding, not a failure
            self.add(
                "info",
                "server",
                "protocol-eras",
                f"speaks 2026-07-28 only: a legacy (initialize) connection failed: {str(exc)[:200]}",
                "versions",
            )
            return
        finally:
            await probe.aclose()
        self.add(
            "info",
            "server",
            "protocol-eras",
            f"speaks 2026-07-28 and the handshake era ({legacy})",
            "versions",
        )
