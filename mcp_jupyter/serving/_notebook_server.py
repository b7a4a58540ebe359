"""The kernel's MCP server and the ``@tool`` / ``@resource`` / ``@prompt`` decorators.

:class:`NotebookServer` is an SDK ``MCPServer`` (so ``mj.connect("self", mj.server)`` and every
SDK transport accept it) with what a notebook needs on top:

- schemas come from type hints and docstrings, by the SDK, exactly as for any ``MCPServer``;
- redefining a decorated function in a later cell replaces the registration and tells connected
  clients (``notifications/*/list_changed`` for handshake-era clients, ``subscriptions/listen``
  events for 2026-07-28 clients);
- functions run on the kernel's main thread between cells (see :mod:`.kernel_thread`);
- printed output, pandas results and exceptions are turned into proper results (see :mod:`.results`).

Tools can take a ``Context`` (``ctx: Context``) for ``await ctx.report_progress(...)`` and
``await ctx.info(...)``. For elicitation and sampling that work with both handshake-era and
2026-07-28 clients, use the SDK's resolvers: ``Annotated[T, Resolve(fn)]`` where ``fn`` returns
``Elicit(...)`` or ``Sample(...)``; the SDK sends a request mid-call to older clients and an
``input_required`` result to newer ones.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import logging
import threading
import traceback
from collections import deque
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations

from mcp_jupyter._compat.mcp_sdk import lowlevel_server, registered_tool
from mcp_jupyter._version import __version__

from . import _apps as apps
from ._completions import Completer, Completions
from ._kernel_thread import MainThreadExecutor, ToolOutput, kernel_main_loop, run_beside_cell
from ._logging_level import LogLevels
from ._notifications import ConnectionTracker, ListKind, ThreadSafeSubscriptionBus, list_changed_event
from ._results import (
    append_printed,
    error_result,
    is_dataframe,
    is_series,
    pandas_result,
    schema_friendly_signature,
)
from ._same_process import client_port_is_ours
from ._served_history import ServedHistory
from ._skills import ServedSkill, SkillCatalog, build_skill, skills_extension
from ._tasks import TaskRunner, note_started, tasks_extension

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_NAME = "notebook"
SERVED_METHODS = frozenset({"tools/call", "resources/read", "prompts/get"})
INSTRUCTIONS = "Tools, resources and prompts defined live in a Jupyter notebook."

# Printed output of the tool call in flight, collected by the function wrapper and appended to the
# result by the tools/call middleware (the one place that sees the final result).
_printed: ContextVar[list[str] | None] = ContextVar("mcp_jupyter_printed", default=None)


@dataclass(frozen=True)
class ServedError:
    """A served function that raised: what the client saw, and the traceback it did not."""

    name: str
    kind: str
    message: str
    traceback: str
    when: dt.datetime


@contextlib.contextmanager
def _root_logging_untouched():
    """MCPServer() calls logging.basicConfig; in a kernel that would echo SDK logs into cells."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


class NotebookServer(MCPServer):
    """The kernel's MCP server: an ``MCPServer`` whose functions live in the notebook."""

    def __init__(self, name: str = DEFAULT_NAME, *, instructions: str = INSTRUCTIONS) -> None:
        self.bus = ThreadSafeSubscriptionBus()
        self.connections = ConnectionTracker(self.bus)
        self.errors: deque[ServedError] = deque(maxlen=50)
        # What clients asked of the notebook's functions, and how long they ran (mj.server.history).
        self.history = ServedHistory()
        self.executor = MainThreadExecutor(kernel_main_loop())
        self._registry_lock = threading.Lock()
        self.task_runner = TaskRunner()  # tools served as tasks, both protocol eras (serving/_tasks.py)
        self.completions = Completions(self.executor)  # complete= of prompts and resource templates
        self.log_levels = LogLevels()  # logging/setLevel of handshake-era clients
        self.skills = SkillCatalog()  # agent skills published with mj.skill (serving/_skills.py)
        with _root_logging_untouched():
            super().__init__(
                name,
                version=__version__,  # identifies the server (serverInfo) to clients of both eras
                instructions=instructions,
                subscriptions=self.bus,
                middleware=[self._observe_request, self.task_runner.middleware],
                extensions=[tasks_extension(), skills_extension(self.skills)],
                warn_on_duplicate_tools=False,
                warn_on_duplicate_prompts=False,
                warn_on_duplicate_resources=False,
            )
        self._advertise_list_changed()
        self.completion()(self.completions.complete)
        self.log_levels.install(lowlevel_server(self))
        self.connections.install_subscriptions(lowlevel_server(self))

    def _advertise_list_changed(self) -> None:
        """Handshake-era clients only expect list_changed when the capability says so."""
        low = lowlevel_server(self)
        build = low.create_initialization_options
        changes = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)

        def with_list_changed(
            notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
        ):
            return build(notification_options or changes, *args, **kwargs)

        low.create_initialization_options = with_list_changed  # type: ignore[method-assign]  # this server's own instance, on purpose

    async def _observe_request(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        self.connections.remember(ctx.session)
        self.log_levels.apply(ctx.session)
        if ctx.method in SERVED_METHODS and self._sent_by_this_kernel(ctx):
            run_beside_cell.set(True)  # this task (and the handler it awaits) only
        call, recording = self.history.begin(ctx)  # mj.server.history: who asked what, how long it ran
        try:
            result = await self._answer(ctx, call_next)
        except BaseException as error:
            self.history.end(call, recording, error=error)
            raise
        self.history.end(call, recording, result=result)
        return result

    async def _answer(self, ctx: Any, call_next: Callable[[Any], Any]) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        printed: list[str] = []
        token = _printed.set(printed)
        try:
            result = await call_next(ctx)
        finally:
            _printed.reset(token)
        append_printed(result, "".join(printed))
        return result

    def _sent_by_this_kernel(self, ctx: Any) -> bool:
        """A request from a cell of this kernel, which is blocked until it gets the answer."""
        if not self.executor.cell_running.is_set():
            return False
        client = getattr(getattr(ctx, "request", None), "client", None)
        return client is not None and client_port_is_ours(client.port)

    # -- registration ---------------------------------------------------------------------------

    def register_tool(
        self,
        fn: F,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | dict[str, Any] | None = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        app: Any = None,
        app_vars: dict[str, Any] | None = None,
        app_csp: dict[str, Any] | None = None,
        app_permissions: dict[str, Any] | None = None,
        visibility: list[str] | None = None,
        task: str | None = None,
        input_schema: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> F:
        """Serve ``fn`` as a tool, replacing an earlier tool of the same name.

        ``app``: an MCP App for the tool (HTML, a path, a ``string.Template`` or a function; see
        :mod:`.apps`), served as ``ui://notebook/<name>`` with ``app_csp`` / ``app_permissions``;
        ``visibility``: ``["app"]`` for a tool only its app calls; ``task``: ``"optional"`` or
        ``"required"`` serves it as a task (it runs in the background; :mod:`.tasks`);
        ``input_schema``: the JSON Schema published as the tool's ``inputSchema`` instead of the one
        derived from the signature (arguments still reach ``fn`` by its parameter names);
        ``headers``: ``{argument: header}`` mirrors each argument into an ``Mcp-Param-<header>`` HTTP
        header (the schema's ``x-mcp-header``), which the server checks against the body."""
        if isinstance(annotations, dict):
            annotations = ToolAnnotations(**annotations)
        tool_name = name or fn.__name__
        self.task_runner.declare(tool_name, task)  # checks the value before anything is registered
        if app is not None:
            meta = self._register_app(tool_name, app, app_vars, app_csp, app_permissions, meta, visibility)
        elif visibility is not None:
            raise ValueError("visibility= is part of an MCP App: pass app= too")
        with self._registry_lock:
            if registered_tool(self, tool_name) is not None:
                self.remove_tool(tool_name)
            self.add_tool(
                self._served(fn, tool_name, "tool"),
                name=tool_name,
                title=title,
                description=description,
                annotations=annotations,
                icons=icons,
                meta=meta,
                structured_output=structured_output,
            )
            if input_schema is not None or headers:
                try:
                    _publish_schema(registered_tool(self, tool_name), input_schema, headers)
                except ValueError:
                    self.remove_tool(tool_name)
                    raise
        self.notify_list_changed("tools")
        return fn

    def _register_app(
        self,
        tool_name: str,
        app: Any,
        app_vars: dict[str, Any] | None,
        csp: dict[str, Any] | None,
        permissions: dict[str, Any] | None,
        meta: dict[str, Any] | None,
        visibility: list[str] | None,
    ) -> dict[str, Any]:
        """Serve the tool's app HTML as a ``ui://`` resource; return the tool's ``_meta``."""
        uri = apps.app_uri(tool_name)
        read_html = apps.html_source(app, tool_name, app_vars)
        tool_meta = apps.tool_meta(meta, uri, visibility)  # validates before anything is registered

        self.register_resource(
            uri,
            read_html,
            name=f"{tool_name} app",
            mime_type=apps.APP_MIME_TYPE,
            meta=apps.resource_meta(csp, permissions),
        )
        return tool_meta

    def register_resource(
        self, uri: str, fn: F, *, complete: dict[str, Completer] | None = None, **options: Any
    ) -> F:
        """Serve ``fn`` as the resource (or resource template) ``uri``, replacing an earlier one.

        ``complete``: ``{parameter: values}`` for ``completion/complete`` on a template's parameters,
        where values is a list (filtered by prefix) or a function of the partial value (and, when it
        takes a second parameter, the arguments already chosen) returning a list."""
        self.completions.declare("resource", uri, complete)
        with self._registry_lock:
            # Static resources are kept on a duplicate URI by the SDK; templates are overwritten.
            self._resource_manager._resources.pop(uri, None)
            self.resource(uri, **options)(self._served(fn, options.get("name") or fn.__name__, "resource"))
        self.notify_list_changed("resources")
        self.connections.notify_updated(uri)
        return fn

    def register_prompt(
        self, fn: F, *, name: str | None = None, complete: dict[str, Completer] | None = None, **options: Any
    ) -> F:
        """Serve ``fn`` as a prompt, replacing an earlier prompt of the same name.

        ``complete``: ``{argument: values}`` for ``completion/complete``, as for resource templates."""
        prompt_name = name or fn.__name__
        self.completions.declare("prompt", prompt_name, complete)
        with self._registry_lock:
            with contextlib.suppress(ValueError, KeyError):
                self.remove_prompt(prompt_name)
            self.prompt(name=prompt_name, **options)(self._served(fn, prompt_name, "prompt"))
        self.notify_list_changed("prompts")
        return fn

    def register_skill(self, skill: ServedSkill) -> ServedSkill:
        """Publish ``skill`` (from :func:`skill`): each file becomes a resource ``skill://<name>/<path>``
        and the skill an entry of ``skills/list``; a skill of the same name is replaced."""
        from mcp.server.mcpserver.resources import BinaryResource, TextResource

        with self._registry_lock:
            old = self.skills.put(skill)
            for file in old.files if old is not None else ():
                self._resource_manager._resources.pop(file.uri, None)
            for file in skill.files:
                options = skill.resource_options(file)
                text = file.text
                resource = (
                    TextResource(uri=file.uri, text=text, **options)
                    if text is not None
                    else BinaryResource(uri=file.uri, data=file.data, **options)
                )
                self._resource_manager._resources.pop(file.uri, None)
                self.add_resource(resource)
        self.notify_list_changed("resources")
        return skill

    def remove_skill(self, name: str) -> None:
        """Stop publishing the skill ``name`` and its files."""
        with self._registry_lock:
            old = self.skills.remove(name)
            if old is None:
                published = ", ".join(s.name for s in self.skills.all()) or "none"
                raise KeyError(f"no skill {name!r} is published (published: {published})")
            for file in old.files:
                self._resource_manager._resources.pop(file.uri, None)
        self.notify_list_changed("resources")

    def notify_list_changed(self, kind: ListKind) -> None:
        """Tell every connected client (any era, any thread) that ``kind`` changed."""
        self.connections.notify(kind)
        self.bus.publish_threadsafe(list_changed_event(kind))

    # -- execution ------------------------------------------------------------------------------

    def _served(self, fn: Callable[..., Any], name: str, kind: str) -> Callable[..., Any]:
        """An async stand-in for ``fn`` (same signature, so the same schema) that runs it safely."""
        executor = self.executor

        @functools.wraps(fn)
        async def served(**kwargs: Any) -> Any:
            output = ToolOutput()
            note_started()  # a task tool's call becomes a task now (serving/_tasks.py)
            try:
                value = await executor.run(fn, kwargs, output)
            except MCPError:
                raise
            except (Exception, KeyboardInterrupt) as exc:
                self._record_error(name, kind, exc)
                return self._failed(kind, exc, output)
            return self._succeeded(kind, value, output)

        signature = schema_friendly_signature(fn)
        if signature is not None:
            served.__signature__ = signature  # type: ignore[attr-defined]  # inspect reads it; functions have no declared slot
        return served

    def _succeeded(self, kind: str, value: Any, output: ToolOutput) -> Any:
        if kind != "tool":
            return value.to_json(orient="records") if is_dataframe(value) or is_series(value) else value
        self._collect_printed(output)
        return pandas_result(value) if is_dataframe(value) or is_series(value) else value

    def _failed(self, kind: str, exc: BaseException, output: ToolOutput) -> Any:
        if kind == "tool":
            self._collect_printed(output)
            return error_result(exc)
        text = error_result(exc).content[0].text  # type: ignore[union-attr]  # error_result's one block is text
        raise ResourceError(text) if kind == "resource" else ValueError(text)

    @staticmethod
    def _collect_printed(output: ToolOutput) -> None:
        bucket = _printed.get()
        if bucket is not None and output.text:
            bucket.append(output.text)

    def _record_error(self, name: str, kind: str, exc: BaseException) -> None:
        self.errors.append(
            ServedError(
                name=name,
                kind=kind,
                message=f"{type(exc).__name__}: {exc}",
                traceback="".join(traceback.format_exception(exc)),
                when=dt.datetime.now(),
            )
        )


def _publish_schema(tool: Any, input_schema: dict[str, Any] | None, headers: dict[str, str] | None) -> None:
    """Replace a registered tool's published ``inputSchema`` and add its ``x-mcp-header`` marks."""
    from mcp.shared.inbound import X_MCP_HEADER_KEY, find_invalid_x_mcp_header

    schema = dict(input_schema if input_schema is not None else tool.parameters)
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ValueError(
            'input_schema= must be a JSON Schema object: {"type": "object", "properties": {...}}'
        )
    properties = {name: dict(spec) for name, spec in schema.get("properties", {}).items()}
    for argument, header in (headers or {}).items():
        if argument not in properties:
            raise ValueError(
                f"headers= names {argument!r}, which is not an argument of the tool; "
                f"its arguments are {sorted(properties)}"
            )
        properties[argument][X_MCP_HEADER_KEY] = header
    if properties:
        schema["properties"] = properties
    reason = find_invalid_x_mcp_header(schema)
    if reason is not None:
        raise ValueError(f"headers=: {reason}")
    tool.parameters = schema


_server: NotebookServer | None = None
_server_lock = threading.Lock()


def get_server() -> NotebookServer:
    """The kernel's one notebook server, created on first use."""
    global _server
    with _server_lock:
        if _server is None:
            _server = NotebookServer()
        return _server


def tool(fn: Any = None, /, **options: Any) -> Any:
    """Serve a notebook function as an MCP tool: ``@tool`` or ``@tool(name=..., title=..., annotations=...)``.

    The input schema comes from the type hints, the description from the docstring; a
    ``-> pd.DataFrame`` function returns records as structured content plus a text table.
    ``app=`` gives the tool an MCP App (HTML, a file, a ``string.Template`` or a function; with
    ``app_vars``, ``app_csp``, ``app_permissions``, ``visibility``): see docs/apps.md.
    ``task="optional"`` or ``"required"`` serves it as a task: clients get a task id at once and poll;
    the function runs in the background (``mj.task_status(...)`` inside it reports progress): see
    docs/tasks.md. ``input_schema=`` publishes a hand-written JSON Schema; ``headers={"arg": "Name"}``
    mirrors arguments into ``Mcp-Param-Name`` HTTP headers (``x-mcp-header``): see docs/serve.md.
    Redefining the function in a later cell replaces the tool. Returns the function unchanged.
    """
    if isinstance(fn, str):  # @tool("name")
        options.setdefault("name", fn)
        fn = None

    def register(f: F) -> F:
        return get_server().register_tool(f, **options)

    return register(fn) if fn is not None else register


def resource(uri: str, /, **options: Any) -> Callable[[F], F]:
    """Serve a notebook function as the resource ``uri`` (a template when it has ``{params}``).

    ``complete={"param": values_or_fn}`` answers ``completion/complete`` for a template's parameters."""
    if callable(uri):
        raise TypeError('@resource needs a URI: write @mj.resource("data://name") above the function.')

    def register(f: F) -> F:
        return get_server().register_resource(uri, f, **options)

    return register


def skill(
    source: Any = None, /, *, text: str | None = None, files: dict[str, str | bytes] | None = None
) -> ServedSkill:
    """Publish an agent skill: ``skill("skills/pdf-processing")`` (a folder holding ``SKILL.md`` and
    the files it refers to) or ``skill(text=SKILL_MD, files={"references/FORMS.md": "..."})``.

    ``SKILL.md`` starts with YAML frontmatter giving the skill's ``name`` (lowercase letters, digits,
    hyphens) and ``description``. The files are read now (publish again after editing them) and served
    as resources ``skill://<name>/<path>``; clients find the skill with ``skills/list`` and verify each
    file against the digest and size listed (``conn.skills["name"].load()``). Publishing a skill of
    the same name replaces it. See docs/serve.md."""
    return get_server().register_skill(build_skill(source, text=text, files=files))


def prompt(fn: Any = None, /, **options: Any) -> Any:
    """Serve a notebook function as an MCP prompt: ``@prompt`` or ``@prompt(name=..., title=...)``.

    ``complete={"arg": values_or_fn}`` answers ``completion/complete`` for its arguments: a list
    (filtered by the typed prefix) or ``fn(partial)`` / ``fn(partial, chosen)`` returning a list."""
    if isinstance(fn, str):
        options.setdefault("name", fn)
        fn = None

    def register(f: F) -> F:
        return get_server().register_prompt(f, **options)

    return register(fn) if fn is not None else register
