"""The _compat seam (mcp_jupyter/_compat/): one test per private name of a dependency the package uses.

Each test drives the real dependency through the seam where that is cheap, and otherwise reads the
dependency's own source for the behaviour we rely on. When an upgrade renames or removes a name, the
failure says which dependency changed what and which _compat module to update; pyproject.toml pins
every dependency here to the versions these tests were run against.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import threading
from importlib.metadata import version
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context  # module level: tool signatures are evaluated by name

from mcp_jupyter._compat import anyio as compat_anyio
from mcp_jupyter._compat import comm as compat_comm
from mcp_jupyter._compat import cpython, mcp_sdk
from mcp_jupyter._compat import ipykernel as compat_ipykernel
from mcp_jupyter._compat import uvicorn as compat_uvicorn

_MODULES = {
    "mcp": "mcp_sdk",
    "ipykernel": "ipykernel",
    "comm": "comm",
    "uvicorn": "uvicorn",
    "anyio": "anyio",
    "python": "cpython",
}


def require(ok: Any, dependency: str, what: str) -> None:
    """Fail with what changed and where to adapt, unless ``ok``."""
    if ok:
        return
    release = sys.version.split()[0] if dependency == "python" else version(dependency)
    pytest.fail(
        f"{dependency} {release} changed {what}: update mcp_jupyter/_compat/{_MODULES[dependency]}.py "
        "(and the version pin in pyproject.toml)",
        pytrace=False,
    )


def source_of(obj: Any) -> str:
    return inspect.getsource(obj)


# -- mcp ---------------------------------------------------------------------------------------------


def _server() -> Any:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("compat")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return server


def test_mcpserver_lowlevel_server():
    from mcp.server.lowlevel import Server

    server = _server()
    low = mcp_sdk.lowlevel_server(server)
    require(isinstance(low, Server), "mcp", "MCPServer._lowlevel_server (the low-level Server inside)")
    require(
        callable(getattr(low, "create_initialization_options", None)),
        "mcp",
        "Server.create_initialization_options",
    )
    assert mcp_sdk.lowlevel_server(low) is low
    assert mcp_sdk.is_server_object(server) and mcp_sdk.is_server_object(low)
    assert not mcp_sdk.is_server_object("python -m mcp_jupyter.demo")


def test_in_memory_transport():
    from mcp import Client

    try:
        transport = mcp_sdk.in_memory_transport(_server())
    except ImportError as exc:
        require(False, "mcp", f"mcp.client._memory.InMemoryTransport ({exc})")

    async def go() -> list[str]:
        async with Client(transport, mode="legacy") as client:
            return [t.name for t in (await client.list_tools()).tools]

    require(anyio.run(go) == ["add"], "mcp", "InMemoryTransport (no longer a working transport)")


def test_mcpserver_tool_manager():
    server = _server()
    try:
        names = [t.name for t in mcp_sdk.registered_tools(server)]
        found, missing = mcp_sdk.registered_tool(server, "add"), mcp_sdk.registered_tool(server, "nope")
    except AttributeError as exc:
        require(False, "mcp", f"MCPServer._tool_manager ({exc})")
    require(names == ["add"] and found is not None and missing is None, "mcp", "MCPServer._tool_manager")


def test_server_session_connection():
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("compat")
    seen: dict[str, Any] = {}

    @server.tool()
    async def grab(ctx: Context) -> str:
        """Keep the connection behind this request's session."""
        seen["connection"] = mcp_sdk.server_connection(ctx.session)
        return "ok"

    async def go() -> None:
        async with Client(server) as client:
            await client.call_tool("grab", {})

    anyio.run(go)
    require(
        hasattr(seen.get("connection"), "send_tool_list_changed"),
        "mcp",
        "ServerSession._connection (the connection-scoped object with send_tool_list_changed)",
    )


def test_client_session_stamp_and_dispatcher():
    from mcp import Client
    from mcp.client.session import ClientSession

    require("self._stamp(data, opts)" in source_of(ClientSession.send_request), "mcp", "ClientSession._stamp")

    async def go() -> dict:
        async with Client(_server()) as client:
            return await mcp_sdk.send_raw_request(client.session, "tools/list", None)

    try:
        result = anyio.run(go)
    except AttributeError as exc:
        require(False, "mcp", f"ClientSession._stamp/_dispatcher ({exc})")
    require(
        isinstance(result, dict) and [t["name"] for t in result["tools"]] == ["add"],
        "mcp",
        "ClientSession._dispatcher.send_raw_request (no longer raw JSON)",
    )


def test_client_session_build_capabilities():
    from mcp import Client
    from mcp.types import SamplingCapability

    async def answer(*_: Any) -> Any:
        raise NotImplementedError

    async def go() -> dict:
        capabilities = SamplingCapability()
        async with Client(_server(), sampling_callback=answer, sampling_capabilities=capabilities) as client:
            return mcp_sdk.advertised_capabilities(client.session, client.protocol_version)

    try:
        offered = anyio.run(go)
    except AttributeError as exc:
        require(False, "mcp", f"ClientSession._build_capabilities ({exc})")
    require(isinstance(offered, dict) and "sampling" in offered, "mcp", "ClientSession._build_capabilities")


def test_a_raw_task_augmented_tools_call_returns_the_create_task_result(everything_cmd):
    import mcp_jupyter as mj
    from mcp_jupyter.runtime import runtime

    conn = mj.connect("compat-tasks", everything_cmd)
    try:
        client_session = conn._session.require_client().session

        async def create() -> dict:
            params = {"name": "simulate-research-query", "arguments": {"topic": "x"}, "task": {"ttl": 60000}}
            return await mcp_sdk.send_raw_request(client_session, "tools/call", params, timeout=30)

        try:
            raw = runtime().call(create)
        except AttributeError as exc:
            require(
                False, "mcp", f"ClientSession._stamp/_dispatcher ({exc}): 2025-11-25 tasks depend on them"
            )
        require(
            isinstance(raw, dict) and raw.get("task", {}).get("status") == "working",
            "mcp",
            f"ClientSession._dispatcher.send_raw_request (no raw CreateTaskResult: {raw!r})",
        )
        conn.task(raw["task"]["taskId"]).cancel()
    finally:
        conn.close()


def test_client_session_stamp_can_opt_in_to_a_log_level():
    from mcp import Client
    from mcp_types import LOG_LEVEL_META_KEY

    async def go() -> tuple[dict, dict]:
        async with Client(_server()) as client:
            mcp_sdk.opt_in_log_level(client.session, "debug", LOG_LEVEL_META_KEY)
            mcp_sdk.opt_in_log_level(client.session, "error", LOG_LEVEL_META_KEY)  # wrapped once
            call: dict = {"method": "tools/call", "params": {"name": "add"}}
            init: dict = {"method": "initialize", "params": {}}
            for data in (call, init):
                client.session._stamp(data, {})
            return call, init

    call, init = anyio.run(go)
    require(call["params"]["_meta"].get(LOG_LEVEL_META_KEY) == "error", "mcp", "ClientSession._stamp")
    assert LOG_LEVEL_META_KEY not in init["params"].get("_meta", {})


def test_oauth_provider_initialize():
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata, OAuthToken

    from mcp_jupyter.client.auth._store import MemoryTokens

    flow = source_of(OAuthClientProvider._auth_flow)
    require(
        "if not self._initialized" in flow and "await self._initialize()" in flow,
        "mcp",
        "OAuthClientProvider._initialize/_initialized (the flow no longer loads tokens through them)",
    )
    loaded: list[Any] = []

    class Provider(mcp_sdk.oauth_provider_class()):
        async def tokens_loaded(self) -> None:
            loaded.append(self.context.current_tokens)

    storage = MemoryTokens()
    storage.tokens = OAuthToken(access_token="t", token_type="Bearer", expires_in=60)
    provider = Provider(
        server_url="http://127.0.0.1:9/mcp",
        client_metadata=OAuthClientMetadata(redirect_uris=["http://127.0.0.1:9/callback"]),
        storage=storage,
    )
    mcp_sdk.reload_oauth_provider(provider)
    require(provider._initialized is False, "mcp", "OAuthClientProvider._initialized")
    anyio.run(provider._initialize)
    require(loaded and loaded[0].access_token == "t", "mcp", "OAuthClientProvider._initialize")


def test_identity_assertion_provider_tokens():
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    require(
        "self._tokens = await self._storage.get_tokens()"
        in source_of(IdentityAssertionOAuthProvider._auth_flow)
        and "self._tokens" in source_of(IdentityAssertionOAuthProvider.__init__),
        "mcp",
        "IdentityAssertionOAuthProvider._tokens",
    )

    class Holder:
        _tokens = "token"

    holder = Holder()
    mcp_sdk.forget_identity_assertion_tokens(holder)
    assert holder._tokens is None


# -- ipykernel, comm -----------------------------------------------------------------------------------


def test_ipykernel_comm_reply_subshell_for():
    from ipykernel.comm.comm import Comm
    from ipykernel.kernelbase import Kernel

    require(
        callable(getattr(Comm, "_reply_subshell_for", None))
        and 'getattr(comm, "_reply_subshell_for", None)' in source_of(Kernel),
        "ipykernel",
        "Comm._reply_subshell_for (how a comm_msg is routed to a subshell)",
    )

    class Routed:
        pass

    comm = Routed()
    compat_ipykernel.route_comm_by_header(comm)
    assert comm._reply_subshell_for({"any": "data"}, "subshell-1") == "subshell-1"


def test_ipykernel_allow_stdin():
    from ipykernel.kernelbase import Kernel

    require("_allow_stdin" in Kernel.class_trait_names(), "ipykernel", "Kernel._allow_stdin")

    class Fake:
        _allow_stdin = True

    assert compat_ipykernel.allows_stdin(Fake()) and not compat_ipykernel.allows_stdin(object())


def test_ipykernel_shell_parent_ident():
    from contextvars import ContextVar

    from ipykernel.kernelbase import Kernel

    require(
        callable(getattr(Kernel, "_get_shell_context_var", None))
        and "self._shell_parent_ident = ContextVar(" in source_of(Kernel.__init__),
        "ipykernel",
        "Kernel._get_shell_context_var/_shell_parent_ident",
    )

    class Fake:
        _shell_parent_ident: ContextVar[bytes] = ContextVar("ident")
        _get_shell_context_var = Kernel._get_shell_context_var

    Fake._shell_parent_ident.set(b"frontend")
    assert compat_ipykernel.shell_parent_ident(Fake()) == b"frontend"


def test_comm_closed():
    from comm import create_comm

    opened = create_comm(target_name="mcp-jupyter-compat")  # outside a kernel: comm's DummyComm
    closed = create_comm(target_name="mcp-jupyter-compat")
    closed.close()
    require(
        not compat_comm.is_closed(opened) and compat_comm.is_closed(closed),
        "comm",
        "BaseComm._closed",
    )


# -- uvicorn, anyio, the Python runtime --------------------------------------------------------------


def test_uvicorn_h11_protocol():
    try:
        protocol = compat_uvicorn.h11_protocol_class()
    except ImportError as exc:
        require(False, "uvicorn", f"uvicorn.protocols.http.h11_impl.H11Protocol ({exc})")
    missing = [
        name for name in compat_uvicorn.H11_PROTOCOL_HOOKS if not callable(getattr(protocol, name, None))
    ]
    require(not missing, "uvicorn", f"H11Protocol's methods {missing}")
    init = source_of(protocol.__init__) + source_of(protocol.connection_made)
    attributes = [a for a in ("self.conn = ", "self.transport = ", "self.loop = ") if a not in init]
    require(not attributes, "uvicorn", f"H11Protocol's attributes {attributes}")


def test_anyio_process_transport():
    async def go() -> tuple[bool, bool]:
        process = await anyio.open_process([sys.executable, "-c", "pass"])
        await process.wait()
        transport = getattr(getattr(process, "_process", None), "_transport", None)
        compat_anyio.close_subprocess_transport(process)
        closed = transport is not None and transport.is_closing()
        await process.aclose()
        return transport is not None, closed

    found, closed = anyio.run(go)
    require(found, "anyio", "Process._process._transport (asyncio's subprocess transport)")
    assert closed


def test_anyio_cancel_scope_type_is_constructed_as_anyio_constructs_it():
    """The backend's class, made directly, is a working scope: its deadline cancels what runs in it,
    ``cancel()`` does too, and a shielded scope keeps an outer cancellation out."""

    async def go() -> tuple[bool, bool, bool, bool]:
        scope_type = compat_anyio.cancel_scope_type()
        with scope_type(deadline=anyio.current_time() + 0.01) as timed:
            await anyio.sleep(30)
        with scope_type() as cancelled:
            cancelled.cancel()
            await anyio.sleep(30)
        shielded_ran = False
        with anyio.CancelScope() as outer:
            outer.cancel()
            with scope_type(shield=True):
                await anyio.sleep(0.01)
                shielded_ran = True
            await anyio.sleep(30)  # the outer cancellation lands here
        return (
            isinstance(timed, anyio.CancelScope) and timed.cancelled_caught,
            cancelled.cancelled_caught,
            shielded_ran,
            outer.cancelled_caught,
        )

    results = anyio.run(go)
    require(all(results), "anyio", f"the backend's CancelScope made directly ({results})")


def test_sys_current_frames():
    require(callable(getattr(sys, "_current_frames", None)), "python", "sys._current_frames")
    code = test_sys_current_frames.__code__
    seen: list[bool] = []
    waiting = threading.Event()

    def look() -> None:
        seen.append(cpython.thread_runs(threading.main_thread(), code))
        seen.append(cpython.thread_runs(threading.main_thread(), require.__code__))
        waiting.set()

    thread = threading.Thread(target=look)
    thread.start()
    waiting.wait(10)
    thread.join()
    assert seen == [True, False]


def test_argparse_actions():
    import argparse

    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("name")
    group = parser.add_argument_group("options")
    output = group.add_argument("-o", "--output")
    exclusive = parser.add_mutually_exclusive_group()
    quiet = exclusive.add_argument("--quiet", action="store_true")
    require(isinstance(getattr(parser, "_actions", None), list), "python", "argparse.ArgumentParser._actions")
    arguments = cpython.parser_arguments(parser)
    require(
        [a.option_strings for a in arguments] == [["-h", "--help"], [], ["-o", "--output"], ["--quiet"]]
        and arguments[2] is output
        and arguments[3] is quiet,
        "python",
        "argparse.ArgumentParser._actions",
    )


def test_threading_register_atexit():
    require(callable(getattr(threading, "_register_atexit", None)), "python", "threading._register_atexit")
    code = (
        "import atexit, threading\n"
        "from mcp_jupyter._compat.cpython import register_before_thread_join\n"
        "atexit.register(lambda: print('atexit', flush=True))\n"
        "def hook():\n"
        "    print('hook', threading.main_thread().is_alive(), flush=True)\n"
        "print(register_before_thread_join(hook), flush=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    require(
        out.stdout.split("\n")[:3] == ["True", "hook True", "atexit"], "python", "threading._register_atexit"
    )


def test_server_session_allowed_log_levels():
    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("compat")
    received: list[str] = []

    @server.tool()
    async def chatty(ctx: Context) -> str:
        """Log at two levels after narrowing this request's gate to warnings and above."""
        mcp_sdk.limit_log_levels(ctx.session, frozenset({"warning", "error"}))
        await ctx.info("dropped")
        await ctx.warning("kept")
        return "ok"

    async def on_log(params: Any) -> None:
        received.append(params.data)

    async def go() -> None:
        async with Client(server, mode="legacy", logging_callback=on_log) as client:
            await client.call_tool("chatty", {})

    try:
        anyio.run(go)
    except AttributeError as exc:
        require(False, "mcp", f"ServerSession._allowed_log_levels ({exc})")
    require(received == ["kept"], "mcp", "ServerSession._allowed_log_levels (the per-request log gate)")


# Distinctive private names of dependencies that _compat/ reads (one test above per name): anywhere else
# in the package such a name would bypass the seam and its check.
SEAM_ONLY = (
    r"\._lowlevel_server\b",
    r"\._tool_manager\b",
    r"\._option_string_actions\b",
    r"\._actions\b",
    r"\b_HelpAction\b",
    r"\b_SubParsersAction\b",
    r"\b_current_frames\b",
    r"\b_register_atexit\b",
    r"\b_reply_subshell_for\b",
    r"\b_allow_stdin\b",
    r"\b_build_capabilities\b",
    r"\bInMemoryTransport\b",
    r"\bH11Protocol\b",
)


def test_dependencies_private_names_are_read_only_through_the_seam():
    import re
    from pathlib import Path

    import mcp_jupyter

    package = Path(mcp_jupyter.__file__).parent
    found = [
        f"{path.relative_to(package.parent)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if "_compat" not in path.relative_to(package).parts
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if any(re.search(name, line) for name in SEAM_ONLY)
    ]
    assert not found, "use mcp_jupyter/_compat/ for these:\n" + "\n".join(found)
