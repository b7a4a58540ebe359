"""The client package's shape, as users see it: items hold their own connection, twins cannot
drift, listings re-list on demand, and each kind of missing thing has its own error."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import subprocess
import sys

import pytest

import mcp_jupyter as mj
from mcp_jupyter.client import Connection
from mcp_jupyter.demo import create_server


@pytest.fixture(autouse=True)
def clean():
    yield
    mj.disconnect_all()


def test_items_of_an_unregistered_connection_work():
    with Connection("solo", create_server()).open() as conn:
        assert "solo" not in mj.connections()
        form = conn.tools["add"].form()
        assert form.conn is conn
        assert conn.resources["demo://readme"].read().text.startswith("# mcp-jupyter demo server")
        assert conn.prompts["greeting"].form().conn is conn


def test_an_item_of_a_replaced_connection_refuses_to_talk_to_the_new_server():
    old = mj.connect("same", create_server())
    readme, add = old.resources["demo://readme"], old.tools["add"]
    new = mj.connect("same", create_server())  # replaces (closes) the old connection
    assert mj.get_connection("same") is new and old.status == "closed"
    for action in (readme.read, add.form):
        with pytest.raises(mj.ConnectionFailed, match="this connection was closed"):
            action()
    assert new.resources["demo://readme"].read().text  # items of the new one work


def test_every_sync_twin_has_its_async_twin_signature():
    twins = [
        (getattr(Connection, name), getattr(Connection, "a" + name))
        for name in dir(Connection)
        if not name.startswith("_") and callable(getattr(Connection, "a" + name, None))
    ]
    assert {sync.__name__ for sync, _ in twins} >= {
        "call",
        "map",
        "read",
        "prompt",
        "complete",
        "ping",
        "list_tools",
    }
    for sync, async_ in twins:
        if sync.__name__ in ("close",):  # lifecycle: the sync close must not start the runtime
            continue
        assert inspect.signature(sync) == inspect.signature(async_), sync.__name__
        assert sync.__doc__ == async_.__doc__
    assert inspect.signature(mj.connect) == inspect.signature(mj.aconnect)
    assert "progress_bar" in inspect.signature(Connection.amap).parameters


def test_aconnect_takes_the_same_options_as_connect():
    async def go():
        conn = await mj.aconnect("async", create_server(), timeout=5, mode="legacy")
        return conn.timeout, conn.mode, (await conn.amap("add", [{"a": 1, "b": 2}], progress_bar=False))

    timeout, mode, results = asyncio.run(go())
    assert (timeout, mode, results[0].structured) == (5, "legacy", {"result": 3})


def test_sync_listings_refresh_on_demand():
    conn = mj.connect("lists", create_server(), mode="legacy")

    def listed() -> int:
        return len([m for m in conn.history if m.method == "tools/list" and m.kind == "request"])

    first = conn.tools
    assert listed() == 1 and conn.list_tools() is first  # cached
    assert conn.list_tools(refresh=True) is not first and listed() == 2
    assert len(conn.list_prompts(refresh=True)) == len(conn.prompts)
    assert len(conn.list_resources(refresh=True)) == len(conn.resources)
    assert len(conn.list_resource_templates(refresh=True)) == len(conn.resource_templates)


@pytest.mark.parametrize(
    ("lookup", "error"),
    [
        (lambda c: c.tools["ad"], mj.ToolNotFound),
        (lambda c: c.call("ad", a=1), mj.ToolNotFound),
        (lambda c: c.prompts["greetin"], mj.PromptNotFound),
        (lambda c: c.prompt("greetin", name="x"), mj.PromptNotFound),
        (lambda c: c.resources["demo://readm"], mj.ResourceNotFound),
        (lambda c: c.resource_templates["demo://item/{x}"], mj.ResourceNotFound),
    ],
)
def test_each_kind_of_missing_thing_has_its_own_error(lookup, error):
    conn = mj.connect("missing", create_server())
    with pytest.raises(error) as caught:
        lookup(conn)
    assert isinstance(caught.value, mj.NotFound) and caught.value.suggestions
    assert "did you mean" in str(caught.value)


def test_the_quick_argument_check_never_accepts_what_json_schema_rejects():
    import itertools

    import jsonschema

    from mcp_jupyter.client._session import quick_check

    values = [None, True, False, 0, 1, -3, 1.0, 1.5, "", "x", [], [1], {}, {"a": 1}]
    for kind, extra in itertools.product(
        ["string", "integer", "number", "boolean", "array", "object", "null"], [True, False]
    ):
        schema = {
            "type": "object",
            "properties": {"v": {"type": kind, "description": "d"}, "w": {"type": "string"}},
            "required": ["v"],
            "additionalProperties": extra,
        }
        quick, full = quick_check(schema), jsonschema.Draft202012Validator(schema)
        assert quick is not None
        for value, other in itertools.product(values, [None, "s", 2]):
            for args in ({"v": value}, {"v": value, "w": other}, {"v": value, "zz": 1}, {"w": "s"}):
                if quick(args):
                    assert full.is_valid(args), (schema, args)
                elif full.is_valid(args):
                    raise AssertionError(f"quick check refused valid arguments {args} for {schema}")
    assert quick_check({"type": "object", "properties": {"v": {"type": "string", "minLength": 3}}}) is None
    assert quick_check({"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"}) is None


def test_a_likely_typo_is_refused_and_other_extra_names_warn_once():
    conn = mj.connect("names", create_server())
    with pytest.raises(mj.InvalidArguments, match="has no argument 'cty'; did you mean 'city'"):
        conn.call("weather", cty="Paris")
    with pytest.warns(UserWarning, match="does not declare: 'zzz'"):
        assert conn.call("weather", city="Paris", zzz=1).structured["city"] == "Paris"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per tool: the second call is quiet
        conn.call("weather", city="Oslo", zzz=1)
    assert any("zzz" in w for w in conn.warnings)


def test_required_arguments_with_a_default_are_not_refused_locally():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("defaults")

    @server.tool()
    def greet(name: str = "world") -> str:
        return f"hello {name}"

    conn = mj.connect("defaults", server)
    tool = conn.tools["greet"]
    schema = dict(tool.input_schema, required=["name"])  # required, yet with a default
    object.__setattr__(tool, "input_schema", schema)
    assert conn.call("greet").text == "hello world"


def test_templates_expand_any_json_value():
    conn = mj.connect("templates", create_server())
    template = conn.resource_templates["demo://items/{item_id}"]
    assert template.expand(item_id=3) == "demo://items/3"
    assert template.variables == ["item_id"]


def test_a_miss_in_an_empty_cached_listing_relists_once_not_twice():
    from mcp.server.mcpserver import MCPServer

    conn = mj.connect("empty-prompts", MCPServer("no-prompts"), mode="legacy")  # declares prompts, has none

    def listed() -> int:
        return len([m for m in conn.history if m.method == "prompts/list" and m.kind == "request"])

    assert len(conn.prompts) == 0
    before = listed()
    with pytest.raises(mj.PromptNotFound):
        conn.prompt("nope")
    assert listed() - before == 1  # one re-list on the miss; the cached empty listing is not re-fetched


def test_check_and_record_are_methods_of_connection_done_by_the_testing_layer_on_first_use():
    """``help(conn.check)`` shows a method of Connection; the testing layer (and pandas) load only when
    it is first called, through the CONNECTION_TESTING hook; ``mcp_jupyter.testing.check(conn)`` is the same."""
    code = (
        "import sys\n"
        "from mcp_jupyter.client._connection import Connection\n"
        "from mcp_jupyter.demo import create_server\n"
        "print(Connection.check.__qualname__, Connection.acheck.__qualname__, Connection.record.__qualname__,\n"
        "      'Lint the server' in Connection.check.__doc__, 'pytest file' in Connection.record.__doc__,\n"
        "      'mcp_jupyter.testing' in sys.modules, 'pandas' in sys.modules)\n"
        "with Connection('checked', create_server()).open() as conn:\n"
        "    report = conn.check(eras=False)\n"
        "    import mcp_jupyter.testing as t\n"
        "    again = t.check(conn, eras=False)\n"
        "    print(type(report).__name__, report.ok, 'mcp_jupyter.testing._checking' in sys.modules,\n"
        "          list(again['rule']) == list(report['rule']))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == [
        *("Connection.check", "Connection.acheck", "Connection.record", "True", "True", "False", "False"),
        *("CheckReport", "True", "True", "True"),
    ], out.stdout + out.stderr


def test_the_public_signatures_list_exactly_the_connection_options():
    """The settings are one frozen ConnectionOptions; Connection's signature (help()) and
    mj.connect's (its keywords, then **callbacks named in its docstring) list the same names with
    the same defaults, so the two cannot drift."""
    import dataclasses

    from mcp_jupyter.client import ConnectionOptions

    fields = {f.name: f.default for f in dataclasses.fields(ConnectionOptions)}
    init = inspect.signature(Connection.__init__).parameters
    keywords = {p.name: p.default for p in init.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keywords == fields
    connect = inspect.signature(mj.connect).parameters
    explicit = {p.name: p.default for p in connect.values() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert explicit == {name: fields[name] for name in explicit}
    assert connect["callbacks"].kind is inspect.Parameter.VAR_KEYWORD
    assert all(f"``{name}" in mj.connect.__doc__ for name in set(fields) - set(explicit))


def test_settings_are_made_once_frozen_and_an_unknown_keyword_names_the_call():
    conn = mj.connect("settings", create_server(), timeout=5, env={"A": "1"})
    options = conn._session.options
    assert (options.timeout, options.env["A"], conn._session.lifecycle.session.options is options) == (
        5,
        "1",
        True,
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.timeout = 9
    with pytest.raises(TypeError):
        options.env["A"] = "2"  # a read-only copy: the caller's dict may change, the settings do not
    assert conn.spec.options().timeout == 5
    with conn.spec.connect(timeout=7) as again:
        assert (again.timeout, again.mode, again.name) == (7, "auto", "settings")
    with pytest.raises(
        TypeError, match=r"^connect\(\) got an unexpected keyword argument 'timout'; its options are"
    ):
        mj.connect("typo", create_server(), timout=5)


def test_a_connection_nobody_holds_is_freed_at_once_its_items_refer_to_it_weakly():
    """The session knows its connection weakly (items get that reference, not the session's), so
    dropping the last reference frees a connection without waiting for the cycle collector."""
    import gc
    import weakref

    with Connection("weak", create_server()).open() as conn:
        tool = conn.tools["add"]
    ref = weakref.ref(conn)
    gc.collect()
    gc.disable()
    try:
        del conn
        assert ref() is None
    finally:
        gc.enable()
    with pytest.raises(mj.ConnectionFailed, match="not attached to an open connection"):
        tool.form()
