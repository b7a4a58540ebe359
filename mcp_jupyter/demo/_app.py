"""The bundled demo MCP server: `create_server()` builds a fresh, fully loaded `MCPServer`.

Every name below is stable: tutorials, notebooks and tests are written against them.

Tools (arguments in call order; ``=`` marks a default):

- ``add(a: int, b: int)`` -> structured ``{"result": int}``.
- ``echo(message: str)`` -> plain text, no output schema.
- ``weather(city: str, units: "metric" | "imperial" = "metric")`` -> structured ``Weather``
  (enum argument; made-up but deterministic numbers).
- ``create_user(user: {name, email, age?, role?: "admin"|"editor"|"viewer", address: {street, city,
  country?}}, tags: list[str] | None = None)`` -> structured ``CreatedUser`` ``{id, user, tags}``.
- ``stats(values: list[float])`` -> structured ``Stats`` ``{count, mean, min, max}``; an empty list is
  an ``isError`` result.
- ``table(rows: int = 5)`` -> structured ``{"result": [{id, name, city, score, active}, ...]}`` (1..1000).
- ``image(color: str = "teal", size: int = 32)`` -> a caption and a PNG ``ImageContent`` (a disc);
  ``color`` is a name (red, green, blue, teal, ...) or ``#rrggbb``; size 1..256.
- ``mixed()`` -> one of each content block: text, image, embedded resource, resource link.
- ``countdown(steps: int = 5, delay: float = 0.2)`` -> reports progress ``i/steps`` with a message.
- ``log_messages(message: str = "hello from the demo server")`` -> sends ``notifications/message``
  at debug, info, notice, warning and error (logger "demo"), honouring ``logging/setLevel`` (2025 era);
  a 2026-07-28 client gets them only when it opts in with a log level on the request.
- ``fail(message: str = "This tool always fails.")`` -> an ``isError`` result carrying ``message``.
- ``slow(seconds: float = 5.0)`` -> sleeps; a cancelled call is counted in ``demo://status``.
- ``crash(exit_code: int = 1)`` -> the server process exits at once (only when run as its own
  process; in-process it refuses, with an ``isError`` result, so it cannot kill your kernel).
- ``add_tool(name: str = "shout")`` -> adds a tool ``name`` (``text`` -> ``TEXT``) and tells clients
  the tool list changed (``notifications/tools/list_changed``; a ``subscriptions/listen`` event in
  2026-07-28); adding a name that exists is an ``isError`` result.
- ``increment(by: int = 1)`` -> structured ``{"result": new value}``; bumps ``demo://counter`` and notifies
  its subscribers (``resources/subscribe`` in 2025, ``subscriptions/listen`` in 2026-07-28).
- ``ask_user(question: str = "Tell us about yourself")`` -> elicits a form ``{name: str, color:
  "red"|"green"|"blue", newsletter: bool = false}``; returns structured ``FormOutcome`` ``{action,
  name, color, newsletter}`` (decline and cancel are results, not errors).
- ``greet()`` -> elicits ``{name: str}`` ("What is your name?") and returns the text
  ``Hello, <name>! Welcome to the MCP demo server.`` (a decline or cancel gets a greeting too).
- ``summarize(text: str, max_words: int = 30)`` -> asks the client's LLM (sampling); returns
  structured ``Summary`` ``{summary, model, stop_reason}``.
- ``forecast(question: str = "What is the weather in Paris?")`` -> asks the client's LLM, offering it
  the tool ``get_weather(city, units?)`` (sampling with tools); when the answer calls it, the server
  runs it and asks again with the ``tool_result`` (``tool_choice`` ``none``: answer in words); returns
  structured ``ToolUseReport`` ``{model, stop_reason, text, tool_calls, weather, answer}``.
- ``roots()`` -> asks the client for its roots; returns structured ``{"result": [{uri, name}]}``.

``ask_user``, ``summarize`` and ``roots`` work in both protocol eras: a 2025-era client gets a pushed
``elicitation/create`` / ``sampling/createMessage`` / ``roots/list`` request mid-call; a 2026-07-28 client
gets an ``input_required`` result and retries with the answers (the SDK's ``Resolve`` markers do this).

Resources: ``demo://readme`` (text/markdown), ``demo://data.csv`` (text/csv), ``demo://config.json``
(application/json), ``demo://logo.png`` (image/png, binary), ``demo://counter`` (text/plain, changes
with ``increment``; subscribable), ``demo://status`` (application/json: ``{counter, cancelled_calls,
log_level, subscribed_uris}``), and the template ``demo://items/{item_id}`` (application/json; ``item_id`` completes by prefix).

Prompts: ``review_code(code: str, language: str)`` (``language`` completes by prefix) and
``greeting(name: str)``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import re
import statistics
import sys
import warnings
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, get_args

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import (
    Context,
    Elicit,
    ElicitationResult,
    Image,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    CreateMessageResult,
    CreateMessageResultWithTools,
    EmbeddedResource,
    EmptyResult,
    Icon,
    ImageContent,
    ListRootsResult,
    LoggingLevel,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    SamplingMessage,
    SamplingMessageContentBlock,
    SetLevelRequestParams,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
    ToolChoice,
    ToolResultContent,
    ToolUseContent,
    UnsubscribeRequestParams,
)
from pydantic import Field

from mcp_jupyter._compat import mcp_sdk
from mcp_jupyter.demo import _data as data
from mcp_jupyter.demo._models import (
    CreatedUser,
    FormOutcome,
    Lookup,
    Name,
    Profile,
    RootInfo,
    Row,
    Stats,
    Summary,
    ToolCall,
    ToolUseReport,
    User,
    Weather,
)
from mcp_jupyter.demo._png import CLEAR, disc_png, logo_png, parse_color

SERVER_NAME = "mcp-jupyter-demo"
SERVER_VERSION = "0.1.0"
INSTRUCTIONS = (
    "A demo server for exploring MCP from a notebook. Try `add` and `weather` for structured "
    "results, `image` for pictures, `countdown` for progress, `log_messages` for logging, `ask_user` "
    "and `summarize` for elicitation and sampling, and read `demo://readme` for the full list."
)
COUNTER_URI = "demo://counter"
ITEM_TEMPLATE = "demo://items/{item_id}"

# Only the demo's own calls of the SDK's deprecated logging helpers are silenced: logging is
# deprecated in 2026-07-28 but still what 2025-era clients use, and the demo shows both eras.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning, module=r"mcp_jupyter\.demo\.")

_LOG_LEVELS: tuple[LoggingLevel, ...] = get_args(LoggingLevel)  # least to most severe
_DEMO_LOG_LEVELS: list[LoggingLevel] = ["debug", "info", "notice", "warning", "error"]
_MAX_COMPLETIONS = 100  # the spec's cap on completion values per response


@dataclass
class DemoState:
    """Mutable state of one demo server instance (counter, cancellations, subscriptions)."""

    allow_crash: bool = False
    counter: int = 0
    cancelled_calls: int = 0
    log_level: LoggingLevel = "debug"
    lookups: dict[str, int] = field(default_factory=dict)  # `lookup`: calls so far per key
    # 2025-era `resources/subscribe`: for each URI, the subscribed connections and a session to notify them.
    subscribers: dict[str, dict[object, ServerSession]] = field(default_factory=dict)

    def status(self) -> dict[str, Any]:
        """The JSON served as `demo://status`."""
        return {
            "counter": self.counter,
            "cancelled_calls": self.cancelled_calls,
            "log_level": self.log_level,
            "subscribed_uris": sorted(uri for uri, sessions in self.subscribers.items() if sessions),
        }


def create_server(*, allow_crash: bool = False) -> MCPServer:
    """Build a fresh demo server with its own state.

    Args:
        allow_crash: let the `crash` tool really end the process. Only `python -m mcp_jupyter.demo`
            sets this; an in-process server keeps it off so a call cannot kill the notebook's kernel.
    """
    state = DemoState(allow_crash=allow_crash)
    with _root_logging_untouched():
        server = MCPServer(
            name=SERVER_NAME, version=SERVER_VERSION, instructions=INSTRUCTIONS, icons=SERVER_ICONS
        )
    _add_basic_tools(server)
    _add_content_tools(server)
    _add_behaviour_tools(server, state)
    _add_list_changing_tool(server)
    _add_client_feature_tools(server)
    _add_resources(server, state)
    _add_prompts(server)
    _add_completions(server)
    _add_legacy_handlers(server, state)
    return server


@contextmanager
def _root_logging_untouched() -> Iterator[None]:
    """Undo the `logging.basicConfig` that `MCPServer()` runs, so importing the demo in a kernel
    does not start printing every library's INFO logs into the notebook."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        yield
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers


_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def _png_icon(png: bytes) -> list[Icon]:
    """An icon list of one PNG, inlined as a `data:` URI (clients load no address for it)."""
    src = "data:image/png;base64," + base64.b64encode(png).decode()
    return [Icon(src=src, mime_type="image/png", sizes=["32x32"])]


def _svg_icon(path: str, color: str) -> list[Icon]:
    """An icon list of one 24x24 SVG drawing `path` in `color`, inlined as a `data:` URI."""
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="{color}" d="{path}"/></svg>'
    )
    src = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    return [Icon(src=src, mime_type="image/svg+xml", sizes=["any"])]


#: The demo's icons (2025-11-25 `icons`): the server's logo, and a few drawn ones for items.
SERVER_ICONS = _png_icon(logo_png())
_PLUS = _svg_icon("M10 4h4v6h6v4h-6v6h-4v-6H4v-4h6z", "#266ed2")
_BUBBLE = _svg_icon("M4 4h16v11H9l-5 4z", "#8246b4")
_PAGE = _svg_icon("M6 2h8l5 5v15H6zm8 1v5h5", "#287c3c")


def _add_basic_tools(server: MCPServer) -> None:
    """Tools with typed, enum, nested-object and array arguments and structured results."""

    @server.tool(title="Add two integers", annotations=_READ_ONLY, icons=_PLUS)
    def add(
        a: Annotated[int, Field(description="First addend")],
        b: Annotated[int, Field(description="Second addend")],
    ) -> int:
        """Add two integers and return the sum (structured output)."""
        return a + b

    @server.tool(title="Echo", annotations=_READ_ONLY, structured_output=False)
    def echo(message: Annotated[str, Field(description="Text to send back")]) -> str:
        """Return the message unchanged, as plain text."""
        return message

    @server.tool(title="Weather report", annotations=_READ_ONLY)
    def weather(
        city: Annotated[str, Field(description="City name, e.g. Paris")],
        units: Annotated[Literal["metric", "imperial"], Field(description="Unit system")] = "metric",
    ) -> Weather:
        """A made-up but deterministic weather report for a city, in metric or imperial units."""
        return _fake_weather(city, units)

    @server.tool(title="Create a user")
    def create_user(
        user: Annotated[User, Field(description="The user to create")],
        tags: Annotated[list[str] | None, Field(description="Labels for the user")] = None,
    ) -> CreatedUser:
        """Validate and 'store' a user: a nested object (with an address object) plus a list of tags."""
        return CreatedUser(id=zlib.crc32(user.email.encode()) % 100_000, user=user, tags=tags or [])

    @server.tool(title="Statistics", annotations=_READ_ONLY)
    def stats(values: Annotated[list[float], Field(description="The numbers to summarize")]) -> Stats:
        """Count, mean, minimum and maximum of a list of numbers."""
        if not values:
            raise ToolError("stats needs at least one value, e.g. values=[1, 2, 3].")
        return Stats(count=len(values), mean=statistics.fmean(values), min=min(values), max=max(values))

    @server.tool(title="Sample table", annotations=_READ_ONLY)
    def table(rows: Annotated[int, Field(description="How many rows (1-1000)")] = 5) -> list[Row]:
        """A table of `rows` deterministic records (id, name, city, score, active); 1 to 1000 rows."""
        if not 1 <= rows <= 1000:
            raise ToolError(f"rows must be between 1 and 1000, got {rows}.")
        return [Row.model_validate(row) for row in data.table_rows(rows)]


def _fake_weather(city: str, units: Literal["metric", "imperial"]) -> Weather:
    """Derive a stable report from the city's name, so tests and tutorials see the same numbers."""
    seed = zlib.crc32(city.strip().lower().encode())
    celsius = round(-5 + (seed % 400) / 10, 1)
    conditions = ["sunny", "cloudy", "rainy", "windy", "foggy", "snowy"][seed % 6]
    humidity = 30 + (seed >> 8) % 60
    if units == "imperial":
        return Weather(
            city=city, temperature=round(celsius * 9 / 5 + 32, 1), units=units, unit_symbol="°F",
            conditions=conditions, humidity=humidity,
        )  # fmt: skip
    return Weather(
        city=city,
        temperature=celsius,
        units=units,
        unit_symbol="°C",
        conditions=conditions,
        humidity=humidity,
    )


def _add_content_tools(server: MCPServer) -> None:
    """Tools whose results are content blocks other than plain text."""

    @server.tool(
        title="Draw a disc", annotations=_READ_ONLY, icons=_png_icon(disc_png(parse_color("teal"), 32, CLEAR))
    )
    def image(
        color: Annotated[
            str, Field(description="A color name (red, green, blue, teal...) or #rrggbb")
        ] = "teal",
        size: Annotated[int, Field(description="Width and height in pixels (1-256)")] = 32,
    ) -> list[str | Image]:
        """A PNG image of a disc in the given color (a name like 'red' or '#rrggbb'), size x size pixels."""
        if not 1 <= size <= 256:
            raise ToolError(f"size must be between 1 and 256 pixels, got {size}.")
        try:
            rgb = parse_color(color)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        return [f"A {size}x{size} {color} disc", Image(data=disc_png(rgb, size), format="png")]

    @server.tool(title="One of each content type", annotations=_READ_ONLY)
    def mixed() -> list[TextContent | ImageContent | EmbeddedResource | ResourceLink]:
        """Text, an image, an embedded resource and a resource link in one result."""
        return [
            TextContent(type="text", text="Here is one content block of each kind."),
            Image(data=logo_png(), format="png").to_image_content(),
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="demo://config.json", mime_type="application/json", text=data.config_json()
                ),
            ),
            ResourceLink(type="resource_link", uri="demo://readme", name="readme", mime_type="text/markdown"),
        ]


def _add_behaviour_tools(server: MCPServer, state: DemoState) -> None:
    """Tools that report progress, log, fail, take long, crash or change a resource."""

    @server.tool(title="Countdown with progress", annotations=_READ_ONLY, structured_output=False)
    async def countdown(
        ctx: Context,
        steps: Annotated[int, Field(description="Number of progress steps (1-1000)")] = 5,
        delay: Annotated[float, Field(description="Seconds between steps (0-10)")] = 0.2,
    ) -> str:
        """Count down `steps` steps, `delay` seconds apart, reporting progress after each step."""
        if not 1 <= steps <= 1000 or not 0 <= delay <= 10:
            raise ToolError("steps must be 1..1000 and delay 0..10 seconds.")
        for done in range(1, steps + 1):
            await anyio.sleep(delay)
            await ctx.report_progress(done, steps, f"{steps - done} to go" if done < steps else "liftoff")
        return f"Counted down {steps} steps."

    @server.tool(title="Send log messages", annotations=_READ_ONLY, structured_output=False)
    async def log_messages(
        ctx: Context, message: Annotated[str, Field(description="Text to log")] = "hello from the demo server"
    ) -> str:
        """Send `message` as a log notification at debug, info, notice, warning and error level."""
        sent = [level for level in _DEMO_LOG_LEVELS if _is_logged(level, state.log_level)]
        for level in sent:
            # The session call, not `ctx.log`: that wrapper trips a second deprecation warning inside the SDK.
            await ctx.session.send_log_message(
                level=level, data=f"{level}: {message}", logger="demo", related_request_id=ctx.request_id
            )
        return f"Sent {len(sent)} log messages ({', '.join(sent) or 'none at this log level'})."

    @server.tool(title="Always fails", annotations=_READ_ONLY, structured_output=False)
    def fail(
        message: Annotated[str, Field(description="The error message")] = "This tool always fails.",
    ) -> str:
        """Fail on purpose: the result has isError set and carries `message`."""
        raise ToolError(message)

    @server.tool(title="Sleep", annotations=_READ_ONLY, structured_output=False)
    async def slow(seconds: Annotated[float, Field(description="How long to sleep (0-600)")] = 5.0) -> str:
        """Sleep for `seconds` (max 600); cancelling the request stops it (see demo://status)."""
        if not 0 <= seconds <= 600:
            raise ToolError(f"seconds must be between 0 and 600, got {seconds}.")
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            state.cancelled_calls += 1
            print(f"{SERVER_NAME}: slow({seconds}) was cancelled", file=sys.stderr, flush=True)
            raise
        return f"Slept {seconds} seconds."

    @server.tool(title="Look up a key (slow, flaky)", annotations=_READ_ONLY)
    async def lookup(
        key: Annotated[str, Field(description="What to look up")],
        latency: Annotated[float, Field(description="Seconds the lookup takes (0-10)")] = 0.0,
        failures: Annotated[int, Field(description="Fail this many first calls for each key")] = 0,
    ) -> Lookup:
        """A made-up record for `key` after `latency` seconds, like a remote API; the first `failures`
        calls for each key fail (a transient error: calling again with the same key succeeds)."""
        if not 0 <= latency <= 10:
            raise ToolError(f"latency must be between 0 and 10 seconds, got {latency}.")
        attempt = state.lookups[key] = state.lookups.get(key, 0) + 1
        if latency:
            await anyio.sleep(latency)
        if attempt <= failures:
            raise ToolError(f"lookup of {key!r} failed (attempt {attempt} of {failures} planned failures).")
        return Lookup(key=key, value=zlib.crc32(key.encode()) % 1000, attempt=attempt)

    @server.tool(
        title="Crash the server",
        annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
        structured_output=False,
    )
    def crash(exit_code: Annotated[int, Field(description="The process exit code")] = 1) -> str:
        """End the server process at once with `exit_code` (for testing how a client copes)."""
        if not state.allow_crash:
            raise ToolError(
                "crash only works when the demo runs as its own process (python -m mcp_jupyter.demo); "
                "in-process it would take your kernel down with it."
            )
        print(f"{SERVER_NAME}: crash tool called, exiting with code {exit_code}", file=sys.stderr, flush=True)
        os._exit(exit_code)

    @server.tool(title="Increment the counter", annotations=ToolAnnotations(open_world_hint=False))
    async def increment(ctx: Context, by: Annotated[int, Field(description="Amount to add")] = 1) -> int:
        """Add `by` to the demo://counter resource and notify its subscribers; returns the new value."""
        state.counter += by
        await _notify_counter_changed(ctx, state)
        return state.counter


def _add_list_changing_tool(server: MCPServer) -> None:
    """`add_tool`: a server-side change of the tool list, for clients that show it live."""

    @server.tool(title="Add a tool", annotations=ToolAnnotations(open_world_hint=False))
    async def add_tool(
        ctx: Context,
        name: Annotated[str, Field(description="The new tool's name (letters, digits, _ and -)")] = "shout",
    ) -> str:
        """Add a tool called `name` that upper-cases its `text`, and notify clients that the tool list changed."""
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", name):
            raise ToolError("name must be 1-64 letters, digits, _ or -, starting with a letter or _.")
        if name in {tool.name for tool in await server.list_tools()}:
            raise ToolError(f"there is already a tool called {name!r}.")

        def upper(text: Annotated[str, Field(description="Text to upper-case")]) -> str:
            return text.upper()

        server.add_tool(upper, name=name, title=f"Upper-case ({name})", description="Upper-cases `text`.")
        await ctx.notify_tools_changed()  # 2026-07-28 `subscriptions/listen` streams
        with contextlib.suppress(Exception):  # 2025-era sessions get the notification directly
            await ctx.session.send_tool_list_changed()
        return f"Added the tool {name!r}."


def _is_logged(level: LoggingLevel, threshold: LoggingLevel) -> bool:
    return _LOG_LEVELS.index(level) >= _LOG_LEVELS.index(threshold)


async def _notify_counter_changed(ctx: Context, state: DemoState) -> None:
    """Tell both eras' subscribers: 2026-07-28 `subscriptions/listen` streams and 2025 subscribed sessions."""
    await ctx.notify_resource_updated(COUNTER_URI)
    subscribed = state.subscribers.get(COUNTER_URI, {})
    for connection, session in list(subscribed.items()):
        try:
            await session.send_resource_updated(COUNTER_URI)
        except Exception:  # that client's connection is gone: forget its subscription
            del subscribed[connection]


def _profile_form(question: str) -> Elicit[Profile]:
    """Resolver for `ask_user`: elicit the `Profile` form with the caller's question as message."""
    return Elicit(question, Profile)


def _name_form() -> Elicit[Name]:
    """Resolver for `greet`: elicit the user's name."""
    return Elicit("What is your name?", Name)


def _summary_request(text: str, max_words: int) -> Sample:
    """Resolver for `summarize`: ask the client's LLM for a summary."""
    prompt = f"Summarize the following text in at most {max_words} words:\n\n{text}"
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=max(16, max_words * 4),
        system_prompt="You are a concise assistant.",
        temperature=0.2,
    )


#: The tool `forecast` offers the client's LLM (sampling with tools): the demo's own weather report.
WEATHER_TOOL = Tool(
    name="get_weather",
    description="The current weather in a city (made up, but the same every time).",
    input_schema={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city"},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
        },
        "required": ["city"],
    },
)


_FORECAST_SYSTEM_PROMPT = "Use the get_weather tool for questions about the weather."


def _forecast_request(question: str) -> Sample:
    """Resolver for `forecast`: ask the client's LLM, offering it the `get_weather` tool."""
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=200,
        system_prompt=_FORECAST_SYSTEM_PROMPT,
        tools=[WEATHER_TOOL],
        tool_choice=ToolChoice(mode="auto"),
    )


def _weather_calls(reply: CreateMessageResultWithTools) -> list[ToolUseContent]:
    """The `get_weather` calls an answer asks for."""
    return [b for b in reply.content_as_list if isinstance(b, ToolUseContent) and b.name == WEATHER_TOOL.name]


def _run_weather(call: ToolUseContent) -> Weather:
    """What `get_weather` gives for one call (the demo runs the tools its LLM asks for)."""
    units: Literal["metric", "imperial"] = "imperial" if call.input.get("units") == "imperial" else "metric"
    return _fake_weather(str(call.input.get("city", "?")), units)


def _forecast_answer(
    question: str, reply: Annotated[CreateMessageResultWithTools, Resolve(_forecast_request)]
) -> Sample | None:
    """Resolver for `forecast`'s second round: when the first answer called `get_weather`, ask again
    with the tool results (the conversation so far, then a `tool_result` per call) for the final
    answer in words; nothing to ask when it answered in text."""
    calls = [b for b in reply.content_as_list if isinstance(b, ToolUseContent)]
    if not calls:
        return None
    results: list[SamplingMessageContentBlock] = [
        ToolResultContent(
            type="tool_result",
            tool_use_id=call.id,
            content=[TextContent(type="text", text=_run_weather(call).model_dump_json())],
        )
        if call.name == WEATHER_TOOL.name
        else ToolResultContent(
            type="tool_result",
            tool_use_id=call.id,
            content=[TextContent(type="text", text=f"no tool named {call.name!r}")],
            is_error=True,
        )
        for call in calls
    ]
    return Sample(
        [
            SamplingMessage(role="user", content=TextContent(type="text", text=question)),
            SamplingMessage(role="assistant", content=reply.content_as_list),
            SamplingMessage(role="user", content=results),
        ],
        max_tokens=200,
        system_prompt=_FORECAST_SYSTEM_PROMPT,
        tools=[WEATHER_TOOL],
        tool_choice=ToolChoice(mode="none"),
    )


def _client_roots() -> ListRoots:
    """Resolver for `roots`: ask the client which roots it exposes."""
    return ListRoots()


def _add_client_feature_tools(server: MCPServer) -> None:
    """Tools that need the client: elicitation, sampling, roots (both protocol eras, via `Resolve`)."""

    @server.tool(title="Ask the user a question", annotations=_READ_ONLY)
    def ask_user(
        question: Annotated[
            str, Field(description="The message shown above the form")
        ] = "Tell us about yourself",
        *,
        answer: Annotated[ElicitationResult[Profile], Resolve(_profile_form)],
    ) -> FormOutcome:
        """Ask the user to fill in a form (name, favourite color, newsletter) and report what they did."""
        if answer.action != "accept":
            return FormOutcome(action=answer.action)
        return FormOutcome(action="accept", **answer.data.model_dump())

    @server.tool(title="Greet the user", annotations=_READ_ONLY, structured_output=False)
    def greet(*, answer: Annotated[ElicitationResult[Name], Resolve(_name_form)]) -> str:
        """Ask for the user's name (elicitation) and greet them."""
        if answer.action != "accept":
            return f"Hello, whoever you are (you chose to {answer.action})."
        return f"Hello, {answer.data.name}! Welcome to the MCP demo server."

    @server.tool(title="Summarize with the client's LLM", annotations=_READ_ONLY, icons=_BUBBLE)
    def summarize(
        text: Annotated[str, Field(description="The text to summarize")],
        max_words: Annotated[int, Field(description="Upper bound on the summary's length")] = 30,
        *,
        reply: Annotated[CreateMessageResult, Resolve(_summary_request)],
    ) -> Summary:
        """Summarize `text` by asking the client's LLM (sampling)."""
        content = reply.content
        summary = content.text if isinstance(content, TextContent) else f"[{content.type} content]"
        return Summary(summary=summary, model=reply.model, stop_reason=reply.stop_reason)

    @server.tool(title="Ask the client's LLM, offering it a tool", annotations=_READ_ONLY)
    def forecast(
        question: Annotated[str, Field(description="What to ask the LLM")] = "What is the weather in Paris?",
        *,
        reply: Annotated[CreateMessageResultWithTools, Resolve(_forecast_request)],
        final: Annotated[CreateMessageResultWithTools | None, Resolve(_forecast_answer)],
    ) -> ToolUseReport:
        """Ask the client's LLM a question, offering it a `get_weather` tool (sampling with tools);
        run the tool calls it answers with, send their results back in a second sampling request,
        and report the calls, their results and the final answer."""
        blocks = reply.content_as_list
        calls = [b for b in blocks if isinstance(b, ToolUseContent)]
        last = final if final is not None else reply
        return ToolUseReport(
            model=reply.model,
            stop_reason=reply.stop_reason,
            text="\n".join(b.text for b in blocks if isinstance(b, TextContent)),
            tool_calls=[ToolCall(id=c.id, name=c.name, input=c.input) for c in calls],
            weather=[_run_weather(c) for c in _weather_calls(reply)],
            answer="\n".join(b.text for b in last.content_as_list if isinstance(b, TextContent)),
        )

    @server.tool(title="List the client's roots", annotations=_READ_ONLY)
    def roots(listed: Annotated[ListRootsResult, Resolve(_client_roots)]) -> list[RootInfo]:
        """The roots (directories, repositories...) the client exposes to this server."""
        return [RootInfo(uri=str(root.uri), name=root.name) for root in listed.roots]


def _add_resources(server: MCPServer, state: DemoState) -> None:
    """Text, binary, changing and templated resources."""

    @server.resource(
        "demo://readme", name="readme", title="About the demo server", mime_type="text/markdown", icons=_PAGE
    )
    def readme() -> str:
        """What the demo server offers, in Markdown."""
        return data.README

    @server.resource("demo://data.csv", name="data.csv", title="Sample data", mime_type="text/csv")
    def data_csv() -> str:
        """Ten records as CSV (the same rows the `table` tool returns)."""
        return data.data_csv()

    @server.resource(
        "demo://config.json", name="config.json", title="Configuration", mime_type="application/json"
    )
    def config_json() -> str:
        """The demo's (pretend) configuration as JSON."""
        return data.config_json()

    @server.resource("demo://logo.png", name="logo.png", title="Logo", mime_type="image/png")
    def logo() -> bytes:
        """A 32x32 PNG logo (binary content)."""
        return logo_png()

    @server.resource(COUNTER_URI, name="counter", title="Counter", mime_type="text/plain")
    def counter() -> str:
        """A number that the `increment` tool changes; subscribe to be told when it does."""
        return str(state.counter)

    @server.resource("demo://status", name="status", title="Server status", mime_type="application/json")
    def status() -> str:
        """The counter, how many calls were cancelled, the log level and subscribed URIs."""
        return json.dumps(state.status())

    @server.resource(ITEM_TEMPLATE, name="item", title="Catalog item", mime_type="application/json")
    def item(item_id: str) -> str:
        """One catalog item by id (the id completes: try 'a', 'b', 'c')."""
        if item_id not in data.ITEMS:
            raise ResourceError(f"No item {item_id!r}; known items: {', '.join(data.ITEMS)}.")
        return json.dumps({"id": item_id, **data.ITEMS[item_id]})


def _add_prompts(server: MCPServer) -> None:
    """Prompts with arguments (one of them completable)."""

    @server.prompt(title="Review code", icons=_BUBBLE)
    def review_code(
        code: Annotated[str, Field(description="The source code to review")],
        language: Annotated[str, Field(description="Programming language (completes: try 'py')")],
    ) -> list[Message]:
        """Ask for a careful code review of `code` written in `language`."""
        return [
            UserMessage(
                f"Please review this {language} code. Point out bugs, risks and unclear names.\n\n```{language}\n{code}\n```"
            )
        ]

    @server.prompt(title="Greeting")
    def greeting(name: Annotated[str, Field(description="Who to greet")]) -> str:
        """A friendly greeting for `name`."""
        return f"Write a short, warm greeting for {name}."


def _add_completions(server: MCPServer) -> None:
    """Argument completion for the `review_code` prompt and the `demo://items/{item_id}` template."""

    @server.completion()
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if isinstance(ref, PromptReference) and ref.name == "review_code" and argument.name == "language":
            return _prefix_completion(data.LANGUAGES, argument.value)
        if (
            isinstance(ref, ResourceTemplateReference)
            and ref.uri == ITEM_TEMPLATE
            and argument.name == "item_id"
        ):
            return _prefix_completion(list(data.ITEMS), argument.value)
        return None


def _prefix_completion(options: list[str], prefix: str) -> Completion:
    matches = [option for option in options if option.lower().startswith(prefix.lower())]
    return Completion(
        values=matches[:_MAX_COMPLETIONS], total=len(matches), has_more=len(matches) > _MAX_COMPLETIONS
    )


def _add_legacy_handlers(server: MCPServer, state: DemoState) -> None:
    """Serve `logging/setLevel` and `resources/(un)subscribe` for 2025-era clients.

    MCPServer has no decorator for them (2026-07-28 removed both); the SDK's documented way to
    re-provide a removed spec method is the low-level `Server.add_request_handler`, and an `MCPServer`
    has no public way to hand out its low-level server: the package's one seam to private names gives
    it (mcp_jupyter/_compat/mcp_sdk.py, checked by tests/test_compat.py).
    """
    lowlevel = mcp_sdk.lowlevel_server(server)

    async def set_level(ctx: ServerRequestContext[Any], params: SetLevelRequestParams) -> EmptyResult:
        state.log_level = params.level
        return EmptyResult()

    async def subscribe(ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        state.subscribers.setdefault(str(params.uri), {})[_connection_of(ctx.session)] = ctx.session
        return EmptyResult()

    async def unsubscribe(ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        state.subscribers.get(str(params.uri), {}).pop(_connection_of(ctx.session), None)
        return EmptyResult()

    lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)


def _connection_of(session: ServerSession) -> object:
    """The client connection a per-request `ServerSession` belongs to (the SDK has no public accessor:
    the seam gives it); subscriptions are per connection, and a later unsubscribe arrives with a new
    session object."""
    return mcp_sdk.server_connection(session) or session
