"""The schema form renderer over a corpus of schemas (tests/schemas/): every construct the
renderer supports plus real servers' tool schemas. Value round-trips, defaults, errors attached to
the right field, raw JSON mode, unrenderable parts, untrusted text, no network `$ref` fetching."""

from __future__ import annotations

import html
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import ipywidgets as W
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

from mcp_jupyter.widgets import FormError, SchemaForm, apply_defaults
from mcp_jupyter.widgets._fields import Field, RawField
from mcp_jupyter.widgets._schema_form import format_path

SCHEMAS = Path(__file__).parent / "schemas"
CONSTRUCTS: dict[str, dict] = json.loads((SCHEMAS / "constructs.json").read_text())
REAL_TOOL_SCHEMAS = {
    f"{path.stem}:{name}": schema
    for path in sorted(SCHEMAS.glob("*_tools.json"))
    for name, schema in json.loads(path.read_text()).items()
}


def cases(key: str) -> list:
    """(case name, item) pairs for every corpus entry that has `key`, for parametrize."""
    out = []
    for name, case in CONSTRUCTS.items():
        items = case.get(key, [])
        for i, item in enumerate(items if isinstance(items, list) else [items]):
            out.append(pytest.param(case["schema"], item, id=f"{name}-{i}"))
    return out


def field_at(form: SchemaForm, dotted: str) -> Field:
    """The field at a path written like `address.lines[0]` (for assertions)."""
    path: list[Any] = []
    for part in dotted.replace("[", ".[").split("."):
        if part:
            path.append(int(part[1:-1]) if part.startswith("[") else part)
    field, rest = form.root.locate(path)
    assert rest == [] or isinstance(field, RawField), (
        f"no field at {dotted}: stopped at {field.name} with {rest}"
    )
    return field


# -- value round-trips and defaults ------------------------------------------------------------


@pytest.mark.parametrize(("schema", "value"), cases("valid"))
def test_a_valid_value_round_trips_and_validates(schema: dict, value: Any) -> None:
    form = SchemaForm(schema)
    form.value = value
    assert not form.raw_mode, "a valid value must be shown in the widgets, not the raw editor"
    assert form.value == value
    assert json.dumps(form.value, sort_keys=True) == json.dumps(value, sort_keys=True)  # 1 vs 1.0 vs True
    assert form.validate() == []


@pytest.mark.parametrize(("schema", "value"), cases("valid"))
def test_value_given_to_the_constructor_prefills(schema: dict, value: Any) -> None:
    assert SchemaForm(schema, value=value).value == value


@pytest.mark.parametrize(("schema", "initial"), cases("initial"))
def test_defaults_are_prefilled_and_empty_fields_omitted(schema: dict, initial: Any) -> None:
    assert SchemaForm(schema).value == initial


@pytest.mark.parametrize(("schema", "value"), cases("valid"))
def test_raw_json_toggle_round_trip_keeps_the_value(schema: dict, value: Any) -> None:
    form = SchemaForm(schema, value=value)
    form.raw_toggle.value = True
    assert form.raw_mode
    assert json.loads(form._raw_editor.value) == value
    form.raw_toggle.value = False
    assert not form.raw_mode
    assert form.value == value


def test_editing_in_raw_mode_then_switching_back_updates_the_widgets() -> None:
    form = SchemaForm(CONSTRUCTS["nested_objects"]["schema"])
    form.raw_mode = True
    form._raw_editor.value = json.dumps({"address": {"city": "Rome", "geo": {"lat": 1.5}}})
    form.raw_mode = False
    assert not form.raw_mode
    assert field_at(form, "address.city").input.value == "Rome"
    assert field_at(form, "address.geo.lat").input.value == "1.5"
    assert form.value == {"address": {"city": "Rome", "geo": {"lat": 1.5}}}


def test_invalid_json_keeps_the_form_in_raw_mode_with_a_message() -> None:
    form = SchemaForm(CONSTRUCTS["numbers"]["schema"])
    form.raw_mode = True
    form._raw_editor.value = "{not json"
    form.raw_mode = False
    assert form.raw_mode and form.raw_toggle.value
    assert "Not valid JSON" in form._raw_message.value
    assert form.validate()[0].keyword == "json"


def test_a_value_the_widgets_cannot_show_exactly_stays_raw_until_asked_twice() -> None:
    schema = CONSTRUCTS["strings"]["schema"]
    odd = {"name": "Bob", "email": ""}  # an explicitly empty optional string next to "omitted" ones
    form = SchemaForm(schema)
    form.value = {"name": 5}  # wrong type: the text box would turn it into "5"
    assert form.raw_mode and form.value == {"name": 5}
    assert [e.keyword for e in form.validate()] == ["type"]
    form._raw_editor.value = json.dumps({"name": True})
    form.raw_mode = False
    assert form.raw_mode, "first press explains instead of changing the value"
    form.raw_mode = False
    assert not form.raw_mode, "second press with the same text switches anyway"
    form.value = odd
    assert form.value == odd


def test_setting_the_value_in_raw_mode_updates_the_text() -> None:
    form = SchemaForm(CONSTRUCTS["numbers"]["schema"])
    form.raw_mode = True
    form.value = {"count": 4}
    assert json.loads(form._raw_editor.value) == {"count": 4}
    assert form.value == {"count": 4}


# -- validation errors next to their fields ----------------------------------------------------


@pytest.mark.parametrize(("schema", "invalid"), cases("invalid"))
def test_validation_errors_attach_to_the_right_field(schema: dict, invalid: dict) -> None:
    form = SchemaForm(schema)
    form.value = invalid["value"]
    errors = form.validate()
    found = {format_path(e.path): e.keyword for e in errors}
    for path, keyword in invalid["errors"].items():
        assert found.get(path) == keyword, f"expected a {keyword} error at {path}, got {found}"
        if not form.raw_mode:
            assert field_at(form, "" if path == "(form)" else path).error_messages, f"no message under {path}"
    assert "mcpj-error-summary" in form._summary._dom_classes
    assert form._summary.layout.display == ""
    assert f"{len(errors)} problem" in form._summary.value


def test_missing_required_field_says_required_under_that_field() -> None:
    form = SchemaForm(CONSTRUCTS["nested_objects"]["schema"], value={"address": {"zip": "12345"}})
    assert [str(e) for e in form.validate()] == ["address.city: 'city' is a required property"]
    assert field_at(form, "address.city").error_messages == ["required: fill this in"]
    assert field_at(form, "address.zip").error_messages == []


def test_errors_clear_when_fixed() -> None:
    form = SchemaForm(CONSTRUCTS["numbers"]["schema"], value={"count": 99})
    assert form.validate()
    form.value = {"count": 9}
    assert form.validate() == []
    assert field_at(form, "count").error_messages == []
    assert form._summary.layout.display == "none"


def test_text_that_is_not_json_in_a_raw_part_is_reported_on_that_part() -> None:
    form = SchemaForm(CONSTRUCTS["unrenderable"]["schema"])
    field_at(form, "free").input.value = "{oops"
    errors = form.validate()
    assert [e.keyword for e in errors] == ["json"]
    assert "not valid JSON" in field_at(form, "free").error_messages[0]


def test_typed_numbers_are_parsed_and_bad_text_is_reported_not_coerced() -> None:
    form = SchemaForm(CONSTRUCTS["numbers"]["schema"])
    field_at(form, "count").input.value = " 7 "
    field_at(form, "ratio").input.value = "-0.25"
    assert form.value == {"count": 7, "ratio": -0.25}
    field_at(form, "big").input.value = "lots"
    assert form.value["big"] == "lots"
    assert [str(e) for e in form.validate()] == ["big: 'lots' is not of type 'number'"]


# -- the constructs render as the right widgets ------------------------------------------------


def kinds(form: SchemaForm) -> dict[str, str]:
    """Field name -> kind for the root object's properties."""
    return {name: field.kind for name, field in form.root.fields.items()}


def test_each_construct_gets_its_widget() -> None:
    assert kinds(SchemaForm(CONSTRUCTS["strings"]["schema"]))["email"] == "string"
    assert isinstance(field_at(SchemaForm(CONSTRUCTS["strings"]["schema"]), "secret").input, W.Password)
    assert kinds(SchemaForm(CONSTRUCTS["numbers"]["schema"])) == {
        "count": "number",
        "ratio": "number",
        "big": "number",
    }
    assert set(kinds(SchemaForm(CONSTRUCTS["booleans"]["schema"])).values()) == {"boolean"}
    assert set(kinds(SchemaForm(CONSTRUCTS["enums"]["schema"])).values()) == {"enum"}
    assert set(kinds(SchemaForm(CONSTRUCTS["titled_consts"]["schema"])).values()) == {"enum"}
    assert set(kinds(SchemaForm(CONSTRUCTS["multi_select"]["schema"])).values()) == {"multi_enum"}
    assert kinds(SchemaForm(CONSTRUCTS["array_of_objects"]["schema"]))["people"] == "array"
    assert kinds(SchemaForm(CONSTRUCTS["nested_objects"]["schema"])) == {"address": "object"}
    assert set(kinds(SchemaForm(CONSTRUCTS["nullable"]["schema"])).values()) == {"nullable"}
    assert set(kinds(SchemaForm(CONSTRUCTS["unions"]["schema"])).values()) == {"union"}


def test_enum_labels_come_from_enum_names_and_const_titles() -> None:
    form = SchemaForm(CONSTRUCTS["enums"]["schema"])
    assert [label for label, _ in field_at(form, "color").input.options] == ["—", "Red", "Green"]
    titled = SchemaForm(CONSTRUCTS["titled_consts"]["schema"])
    assert [label for label, _ in field_at(titled, "level").input.options] == ["—", "Low", "High"]
    multi = SchemaForm(CONSTRUCTS["multi_select"]["schema"])
    assert [label for label, _ in field_at(multi, "picks").input.options] == ["Ex", "Why"]


def test_a_value_outside_the_enum_is_kept_and_marked() -> None:
    form = SchemaForm(CONSTRUCTS["enums"]["schema"], value={"color": "blue"})
    assert form.value == {"color": "blue"}
    assert "not allowed" in field_at(form, "color").input.label


def test_picking_from_widgets_produces_plain_json() -> None:
    form = SchemaForm(CONSTRUCTS["multi_select"]["schema"])
    field_at(form, "tags").input.value = (0, 2)
    field_at(form, "picks").input.value = (1,)
    assert form.value == {"tags": ["a", "c"], "picks": ["y"]}
    enums = SchemaForm(CONSTRUCTS["enums"]["schema"])
    field_at(enums, "mixed").input.value = 3
    assert enums.value == {"mixed": {"k": True}}


def test_array_add_and_remove_buttons() -> None:
    form = SchemaForm(CONSTRUCTS["array_of_objects"]["schema"])
    people = field_at(form, "people")
    add = next(w for w in people.widget.children if "mcpj-array-add" in getattr(w, "_dom_classes", ()))
    add.click()
    add.click()
    field_at(form, "people[0].name").input.value = "Ann"
    field_at(form, "people[1].name").input.value = "Bo"
    assert form.value == {"people": [{"name": "Ann"}, {"name": "Bo"}]}
    first_row = people._rows.children[0]
    remove = next(w for w in first_row.children if "mcpj-array-remove" in w._dom_classes)
    remove.click()
    assert form.value == {"people": [{"name": "Bo"}]}
    remove_last = next(w for w in people._rows.children[0].children if "mcpj-array-remove" in w._dom_classes)
    remove_last.click()
    assert form.value == {"people": []}, "removing every item leaves an explicit empty list"


def test_optional_toggle_sets_and_unsets_a_nullable_field() -> None:
    form = SchemaForm(CONSTRUCTS["nullable"]["schema"])
    nick = field_at(form, "nick")
    assert form.value == {"must": None, "start": 5}
    nick.toggle.value = True
    nick.inner().input.value = "zed"
    assert form.value["nick"] == "zed"
    nick.toggle.value = False
    assert "nick" not in form.value
    nick.toggle.value = True
    assert form.value["nick"] == "zed", "re-ticking restores what was typed"


def test_union_selector_swaps_the_sub_form() -> None:
    form = SchemaForm(CONSTRUCTS["unions"]["schema"])
    pet = form.root.fields["pet"]
    assert [label for label, _ in pet.selector.options] == ["Cat", "Dog"]
    pet.selector.value = 1
    assert form.value["pet"] == {"kind": "dog"}
    pet.active().fields["good"].input.value = True
    assert form.value["pet"] == {"kind": "dog", "good": True}
    pet.selector.value = 0
    assert form.value["pet"] == {"kind": "cat"}
    pet.selector.value = 1
    assert form.value["pet"] == {"kind": "dog", "good": True}, "switching back keeps the other branch"
    form.value = {"id": 3}
    assert form.root.fields["id"].selector.label == "integer"


@pytest.mark.parametrize("name", ["cycles_to_raw", "unrenderable"])
def test_unrenderable_parts_get_a_raw_json_editor(name: str) -> None:
    form = SchemaForm(CONSTRUCTS[name]["schema"])
    for dotted in CONSTRUCTS[name]["raw_fields"]:
        field = field_at(form, dotted)
        assert isinstance(field, RawField), f"{dotted} should be a raw JSON editor, is {field.kind}"
        assert "mcpj-raw-field" in field.input._dom_classes
        assert "edit as JSON" in field._header.value


def test_recursive_schemas_build_lazily_as_deep_as_the_value() -> None:
    form = SchemaForm(CONSTRUCTS["recursive_tree"]["schema"])
    assert field_at(form, "children").items == []
    form.value = {"children": [{"children": [{"children": [{"value": 4}]}]}]}
    assert field_at(form, "children[0].children[0].children[0].value").input.value == "4"


# -- untrusted schemas -------------------------------------------------------------------------


class _CountingHandler(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.hits.append(self.path)
        body = b'{"type": "string"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def schema_server():
    """A real local HTTP server serving a schema, counting requests (none must arrive)."""
    _CountingHandler.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _CountingHandler.hits
    server.shutdown()
    server.server_close()


def test_network_refs_are_never_fetched(schema_server: tuple[str, list]) -> None:
    base, hits = schema_server
    schema = {
        "$id": f"{base}/root.json",
        "type": "object",
        "properties": {
            "remote": {"$ref": f"{base}/remote.json"},
            "relative": {"$ref": "other.json"},
            "union": {"oneOf": [{"$ref": f"{base}/a.json"}, {"type": "integer"}]},
        },
        "required": ["remote"],
    }
    form = SchemaForm(schema)
    assert isinstance(field_at(form, "remote"), RawField)
    assert "not fetched" in field_at(form, "remote")._header.value
    form.value = {"remote": "x", "relative": 1, "union": 5}
    assert form.value == {"remote": "x", "relative": 1, "union": 5}
    assert form.validate() == []
    form.value = {"union": "s"}
    assert [e.keyword for e in form.validate()] == ["required"]
    assert hits == [], f"the form fetched {hits}"


def _server_with_network_refs(base: str) -> Any:
    """An in-process server whose schemas point at ``base``: a tool's input and output schemas, and
    an elicitation's requested schema (pushed mid-call on a handshake-era connection)."""
    server = MCPServer("network-refs")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(remote: str) -> dict[str, Any]:
        """Return the argument as structured content."""
        return {"remote": remote}

    @server.tool()
    async def ask(ctx: Context) -> str:
        """Elicit a form whose schema has a network $ref; return the answer."""
        schema = {
            "type": "object",
            "properties": {"remote": {"$ref": f"{base}/elicit.json"}, "name": {"type": "string"}},
        }
        answer = await ctx.request_context.session.elicit_form("Which one?", schema)
        return f"{answer.action} {json.dumps(answer.content, sort_keys=True)}"

    (tool,) = [t for t in server._tool_manager.list_tools() if t.name == "echo"]
    tool.parameters = {
        "type": "object",
        "properties": {"remote": {"$ref": f"{base}/input.json"}},
        "required": ["remote"],
    }
    tool.fn_metadata.output_schema = {
        "type": "object",
        "properties": {"remote": {"$ref": f"{base}/output.json"}},
    }
    return server


def test_no_check_anywhere_fetches_a_network_ref(schema_server: tuple[str, list]) -> None:
    """Argument check, result check (ours, the SDK's, the display's, the conformance checker's) and
    an elicitation answer's check, each on a schema with a network $ref: nothing is fetched."""
    import mcp_jupyter as mj
    from mcp_jupyter import consent
    from mcp_jupyter import errors as E
    from mcp_jupyter.client._results import ToolResult
    from mcp_jupyter.display._content import tool_result_html

    base, hits = schema_server
    consent.responder(lambda request: {"remote": "picked", "name": "Ada"})
    conn = mj.Connection("network-refs", _server_with_network_refs(base), mode="legacy").open()
    try:
        echo = conn.tools["echo"]
        assert echo.input_schema["properties"]["remote"]["$ref"] == f"{base}/input.json"
        # The argument check passes the part it cannot know; the SDK's result check refuses the
        # output schema's unresolvable $ref (its empty registry) instead of fetching it.
        with pytest.raises(E.MCPJupyterError, match="Unresolvable"):
            conn.call("echo", remote="x")
        # Our own result check (what the display shows) says it could not check, without fetching.
        result = ToolResult([], {"remote": "x"}, False, echo, "network-refs")
        (problem,) = result.schema_errors()
        assert problem.startswith("could not check against the schema") and "output.json" in problem
        assert "does not match outputSchema" in str(tool_result_html(result))
        # The elicitation answer is checked against the requested schema and accepted.
        assert conn.call("ask").text == 'accept {"name": "Ada", "remote": "picked"}'
        # The conformance checker calls the read-only tool and checks its schemas and result.
        report = conn.check(call=True)
        assert len(report) > 0
    finally:
        conn.close()
        consent.responder(None)
    assert hits == [], f"a check fetched {hits}"


def test_every_json_schema_validator_is_built_by_make_validator() -> None:
    """One factory (mcp_jupyter._schema.make_validator, which never fetches a network $ref) builds
    every validator in the package: no module builds one by hand."""
    import re

    import mcp_jupyter

    package = Path(mcp_jupyter.__file__).parent
    hand_built = re.compile(r"Draft\d+Validator\(|validator_for\(|jsonschema\.validate\(|registry=Registry\(")
    offenders = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "_schema.py" or path.parent != package
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if hand_built.search(line)
    ]
    assert offenders == [], f"build validators with mcp_jupyter._schema.make_validator: {offenders}"


def test_titles_and_descriptions_are_escaped_and_truncated() -> None:
    evil = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    schema = {
        "type": "object",
        "title": evil,
        "description": "D" * 50_000,
        "properties": {
            "a": {"type": "string", "title": evil, "description": evil},
            "b": {"type": "boolean", "title": evil},
            "c": {"enum": ["x"], "enumNames": [evil]},
        },
    }
    form = SchemaForm(schema, submit_label=evil)
    markup = [w.value for w in _walk(form) if isinstance(w, W.HTML)]
    assert all("<script>" not in m and "<img" not in m for m in markup)
    assert any(html.escape(evil) in m for m in markup)
    assert all(len(m) < 3000 for m in markup), "a 50,000-character description is truncated"
    # Plain-text widget descriptions (checkbox, button, options) are shown as text by ipywidgets.
    assert not field_at(form, "b").input.description_allow_html


def _walk(widget: W.Widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def test_hostile_schema_shapes_do_not_crash() -> None:
    for schema in [
        True,
        False,
        {},
        {"type": "object", "properties": {"x": 5, "y": None, "z": "str"}},
        {"type": "object", "properties": {"p": {"$ref": "#/nope/~1deep"}}},
        {"type": "object", "properties": {"p": {"type": "string", "pattern": "("}}},
        {"type": []},
        {"oneOf": []},
        {"anyOf": [{"type": "null"}]},
        {"type": "object", "$schema": "https://evil.example/meta", "properties": {"a": {"type": "integer"}}},
        {"type": "object", "properties": ["a"], "required": "a"},
        {
            "type": "object",
            "properties": {"a": {"type": "string", "minLength": "x", "enum": "nope", "oneOf": 3}},
        },
        {"type": "object", "properties": {"a": {"type": "array", "items": "str", "default": 5}}},
        {"type": "object", "properties": {"a": {"type": "integer", "default": "seven", "title": 7}}},
    ]:
        form = SchemaForm(schema)
        assert isinstance(form.validate(), list)


def test_very_deep_nesting_ends_in_a_raw_editor() -> None:
    schema: dict = {"type": "string"}
    for _ in range(60):
        schema = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    form = SchemaForm(schema)
    field: Field = form.root
    while not isinstance(field, RawField):
        field = field.fields["n"]
    assert "too deeply" in field._header.value


# -- CSS classes, submit -----------------------------------------------------------------------


def test_css_classes_for_browser_tests() -> None:
    form = SchemaForm(CONSTRUCTS["strings"]["schema"], title="T", submit_label="Call")
    name = field_at(form, "name")
    assert {"mcpj-field", "mcpj-field-name", "mcpj-kind-string", "mcpj-required"} <= set(
        name.widget._dom_classes
    )
    assert "mcpj-input" in name.input._dom_classes and name.input.tooltip == "name"
    assert "mcpj-required" not in field_at(form, "email").widget._dom_classes
    assert field_at(form, "email").input.placeholder == "name@example.com"
    assert "mcpj-form" in form._dom_classes
    assert "mcpj-submit" in form.submit_button._dom_classes
    assert "mcpj-raw-toggle" in form.raw_toggle._dom_classes
    assert "mcpj-raw-editor" in form._raw_editor._dom_classes
    form.value = {"name": "x"}
    form.validate()
    assert "mcpj-error" in name._error_widget._dom_classes
    odd = SchemaForm({"type": "object", "properties": {"a b/<c>": {"type": "string"}}})
    assert "mcpj-field-a_b__c_" in odd.root.fields["a b/<c>"].widget._dom_classes
    nullable = SchemaForm(CONSTRUCTS["nullable"]["schema"])
    assert "mcpj-optional-toggle" in field_at(nullable, "nick").toggle._dom_classes
    unions = SchemaForm(CONSTRUCTS["unions"]["schema"])
    assert "mcpj-union-selector" in unions.root.fields["pet"].selector._dom_classes


def test_submit_validates_then_calls_back_with_the_value() -> None:
    got: list = []
    form = SchemaForm(CONSTRUCTS["strings"]["schema"], submit_label="Send")
    form.on_submit(got.append)
    form.submit_button.click()
    assert got == [] and field_at(form, "name").error_messages == ["required: fill this in"]
    field_at(form, "name").input.value = "Ada"
    form.submit_button.click()
    assert got == [{"name": "Ada"}]
    form.on_submit(got.append, remove=True)
    assert form.submit() == {"name": "Ada"} and len(got) == 1
    assert SchemaForm({"type": "object"}).submit_button is None


# -- defaults for elicitation ------------------------------------------------------------------


def test_apply_defaults_fills_omitted_properties_only() -> None:
    schema = CONSTRUCTS["defaults"]["schema"]
    # An omitted object without its own default stays omitted; its children's defaults wait for it.
    assert apply_defaults(schema, {}) == {"mode": "b", "list": ["x", "y"], "greeting": "hi", "pick": 3}
    assert apply_defaults(schema, {"opts": {}, "mode": "a"}) == {
        "opts": {"depth": 2, "deep": False},
        "mode": "a",
        "list": ["x", "y"],
        "greeting": "hi",
        "pick": 3,
    }
    refs = CONSTRUCTS["refs"]["schema"]
    assert apply_defaults(refs, {"b": 1}) == {"a": "anon", "b": 1, "c": "merged"}


def test_value_with_defaults_fills_what_the_user_cleared() -> None:
    form = SchemaForm(CONSTRUCTS["defaults"]["schema"])
    field_at(form, "greeting").input.value = ""
    assert "greeting" not in form.value
    assert form.value_with_defaults()["greeting"] == "hi"


# -- real servers' tool schemas ----------------------------------------------------------------


def sample_value(schema: dict, root: dict) -> Any:
    """A plausible valid value for the simple schemas real tools use (for round-trips)."""
    if "$ref" in schema and schema["$ref"].startswith("#/"):
        target: Any = root
        for part in schema["$ref"][2:].split("/"):
            target = target[part]
        return sample_value({**target, **{k: v for k, v in schema.items() if k != "$ref"}}, root)
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][-1]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return sample_value(next(s for s in schema[key] if s.get("type") != "null"), root)
    kind = schema.get("type", "object")
    if kind == "object":
        return {name: sample_value(prop, root) for name, prop in schema.get("properties", {}).items()}
    if kind == "array":
        return [sample_value(schema.get("items", {"type": "string"}), root)]
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "number":
        return max(1.5, schema.get("minimum", 1.5))
    if kind == "boolean":
        return True
    if schema.get("format") == "uri":
        return "https://example.com/a"
    return "text"


def test_the_real_tool_schema_corpus_is_there() -> None:
    assert any(key.startswith("everything_tools:") for key in REAL_TOOL_SCHEMAS)
    assert "everything_tools:get-sum" in REAL_TOOL_SCHEMAS


@pytest.mark.parametrize("key", sorted(REAL_TOOL_SCHEMAS))
def test_real_tool_schemas_build_round_trip_and_validate(key: str) -> None:
    schema = REAL_TOOL_SCHEMAS[key]
    form = SchemaForm(schema, title=key, submit_label="Call")
    assert not form.raw_mode
    initial_errors = form.validate()
    assert all(e.keyword == "required" for e in initial_errors), [str(e) for e in initial_errors]
    value = sample_value(schema, schema)
    form.value = value
    assert not form.raw_mode and form.value == value
    assert form.validate() == []


def test_form_error_str_names_the_field() -> None:
    assert str(FormError(("a", 0, "b"), "bad")) == "a[0].b: bad"
    assert str(FormError((), "bad")) == "(form): bad"


# -- a tool whose arguments are `$ref`s, through a real connection -------------------------------


def _ref_server(schema: dict) -> Any:
    """An in-process MCPServer with one tool, ``get_user``, whose inputSchema is ``schema``."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("refs")

    def get_user(
        id: str | None = None, tags: list | None = None, remote: Any = None, n: int | None = None
    ) -> str:
        given = {"id": id, "tags": tags, "remote": remote, "n": n}
        return json.dumps({k: v for k, v in given.items() if v is not None})

    server.add_tool(get_user, name="get_user")
    for tool in server._tool_manager.list_tools():  # the schema as a server author wrote it
        tool.parameters = schema
    return server


REF_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"$ref": "#/$defs/userId"},
        "tags": {"$ref": "#/definitions/tags"},
        "loop": {"$ref": "#/$defs/a"},
    },
    "required": ["id"],
    "$defs": {
        "userId": {"$ref": "#/$defs/userIdBase"},  # a ref to a ref
        "userIdBase": {"type": "string", "pattern": "^u[0-9]+$"},
        "a": {"$ref": "#/$defs/b"},  # a cycle: described as "any", never followed forever
        "b": {"$ref": "#/$defs/a"},
    },
    "definitions": {"tags": {"type": "array", "items": {"type": "string"}}},
}


def test_a_local_ref_is_described_by_what_it_points_to() -> None:
    import mcp_jupyter as mj
    from mcp_jupyter.display import _tables as tables
    from mcp_jupyter.magics import _parser as parser
    from mcp_jupyter.widgets._fields import StringField

    conn = mj.connect("refs", _ref_server(REF_SCHEMA))
    try:
        with pytest.raises(mj.InvalidArguments) as caught:
            conn.call("get_user", id="x")
        assert "id*: string (pattern ^u[0-9]+$), tags: array, loop: any" in str(caught.value)
        assert json.loads(conn.call("get_user", id="u7", tags=["a"]).text) == {"id": "u7", "tags": ["a"]}
        assert "<code>id*</code> string, <code>tags</code> array, <code>loop</code>" in tables.tools_html(
            conn.tools
        )
        # %mcp call get_user id=123 sends the string "123" the schema asks for, not a number
        typed = parser.parse_pairs(["id=123"], {})
        assert parser.convert_arguments(typed, REF_SCHEMA, "get_user") == {"id": "123"}
        with pytest.raises(parser.MagicUsageError, match=r"needs id \(string \(pattern"):
            parser.convert_arguments({}, REF_SCHEMA, "get_user")
        form = conn.tools["get_user"].form()
        field = field_at(form.form, "id")
        assert isinstance(field, StringField) and "(pattern ^u[0-9]+$)" in field._header.value
    finally:
        conn.close()


def test_a_tool_with_a_network_ref_never_fetches_it(schema_server: tuple[str, list]) -> None:
    import mcp_jupyter as mj
    from mcp_jupyter.display import _tables as tables

    base, hits = schema_server
    schema = {
        "type": "object",
        "properties": {"remote": {"$ref": f"{base}/remote.json"}, "n": {"type": "integer"}},
        "required": ["remote"],
    }
    conn = mj.connect("network-ref", _ref_server(schema))
    try:
        with pytest.raises(mj.InvalidArguments, match=r"remote\*: any, n: integer"):
            conn.call("get_user", remote="x", n="not a number")  # checked locally, the ref unfetched
        assert json.loads(conn.call("get_user", remote="x", n=1).text) == {"remote": "x", "n": 1}
        assert "<code>remote*</code>, <code>n</code> integer" in tables.tools_html(conn.tools)
        form = conn.tools["get_user"].form()
        assert isinstance(field_at(form.form, "remote"), RawField)
        assert conn.check(call=True) is not None  # the conformance check reads the schemas too
    finally:
        conn.close()
    assert hits == [], f"a network $ref was fetched: {hits}"


def test_labels_show_the_name_as_the_server_wrote_it_with_a_title_that_says_more() -> None:
    """`a` is labelled `a`, not the SDK's generated title "A"; a title that says more is shown beside."""
    form = SchemaForm(
        {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "title": "A"},
                "max_words": {"type": "integer", "title": "Max Words"},
                "city": {"type": "string", "title": "Where you are"},
                "subscribe": {"type": "boolean", "title": "Send me news"},
            },
            "required": ["a"],
        }
    )
    header = {
        name: field._header.value for name, field in form.root.fields.items() if field._header is not None
    }
    assert header["a"].startswith('<b class="mcpj-label"><code>a</code></b> <span class="mcpj-required-mark"')
    assert ">A<" not in header["a"]
    assert header["max_words"].startswith('<b class="mcpj-label"><code>max_words</code></b>')
    assert "Max Words" not in header["max_words"]
    assert (
        '<code>city</code></b> <span class="mcpj-label-title"' in header["city"]
        and "Where you are" in header["city"]
    )
    assert form.root.fields["subscribe"].input.description == "subscribe — Send me news"


def test_a_field_is_checked_when_the_person_leaves_it_not_only_on_submit() -> None:
    """A text box syncs its value when the person leaves it (continuous_update off); the form shows
    that field's problem at once, and only that field's."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "minLength": 3}, "age": {"type": "integer"}},
        "required": ["name", "age"],
    }
    form = SchemaForm(schema, submit_label="Call")
    name, age = form.root.fields["name"], form.root.fields["age"]
    assert name.input.continuous_update is False and age.input.continuous_update is False
    name.input.value = "Al"  # what the browser sends when the person leaves the box
    assert name.error_messages == ["'Al' is too short"]
    assert age.error_messages == []  # not touched yet: nothing said about it
    age.input.value = "1.5"
    assert age.error_messages == ["1.5 is not of type 'integer'"]
    name.input.value = "Alice"
    assert name.error_messages == []
    form.value = {"name": "x"}  # filled from Python: no check until the person acts or submits
    assert name.error_messages == []
