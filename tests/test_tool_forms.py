"""Tool, prompt and resource widgets driven the way a click drives them (``button.click()``),
against the real demo server in-process and the npm everything server over stdio.

A click returns at once (the work runs on the runtime thread); ``.wait()`` then blocks the test
until the outcome is shown in the widgets.
"""

from __future__ import annotations

import concurrent.futures
import time

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj
from mcp_jupyter.demo import create_server
from mcp_jupyter.widgets._prompt_form import PromptForm
from mcp_jupyter.widgets._resource_views import ResourceBrowser, TemplateForm
from mcp_jupyter.widgets._tool_form import ToolForm, call_code, forget_inputs, remembered_inputs


@pytest.fixture(scope="module")
def demo():
    conn = mj.connect("demo", create_server())
    yield conn
    mj.disconnect("demo")


@pytest.fixture(autouse=True)
def _fresh_memory():
    forget_inputs()


def html_of(output) -> str:
    return "".join(o["data"].get("text/html", "") for o in output.outputs)


def until(predicate, seconds: float = 10.0) -> bool:
    """Poll for something the runtime thread updates (no timing is asserted)."""
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


def test_pressing_call_renders_the_result_below_the_form(demo):
    form = demo.tools["add"].form()
    form.value = {"a": 20, "b": 22}
    form.call_button.click()
    result = form.wait(10)
    assert result.structured == {"result": 42}
    assert "42" in html_of(form.output) and "mcpj-card" in html_of(form.output)
    assert "done" in form.status.value and not form.call_button.disabled


def test_an_invalid_value_is_not_sent_and_the_error_sits_by_its_field(demo):
    form = ToolForm(demo, "add")
    form.value = {"a": 1}
    form.call_button.click()
    assert form.job is None and "add" not in (form.status.value or "")
    field, _rest = form.form.root.locate(["b"])
    assert "required" in field._error_widget.value
    assert "mcpj-field-b" in field.widget._dom_classes


def test_progress_follows_notifications_and_cancel_cancels_the_request(demo):
    form = demo.tools["countdown"].form()
    form.value = {"steps": 200, "delay": 0.05}
    form.call_button.click()
    assert until(lambda: form.progress.value >= 2), "progress never moved"
    assert form.progress.max == 200 and "to go" in form.progress_message.value
    form.cancel_button.click()
    with pytest.raises(concurrent.futures.CancelledError):
        form.wait(10)
    assert "cancelled" in form.status.value
    assert form.result is None and form.cancel_button.disabled


def test_a_tool_reporting_is_error_is_shown_as_an_error_result(demo):
    form = demo.tools["fail"].form(value={"message": "boom <b>x</b>"})
    form.call_button.click()
    assert form.wait(10).is_error
    html = html_of(form.output)
    assert "boom &lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "error" in form.status.value


def test_destructive_tools_ask_for_a_confirmation_click_first(demo):
    form = demo.tools["crash"].form()
    assert form.risks == ["destructive"] and "destructive" in form.children[0].value
    form.call_button.click()
    assert form.job is None and form.confirm_box.layout.display == ""
    form.children[2].children[1].children[1].click()  # Back: nothing is called
    assert form.job is None and form.confirm_box.layout.display == "none"
    form.call_button.click()
    form.confirm_button.click()
    assert form.wait(10).is_error  # in-process the demo refuses to crash the kernel
    assert ToolForm(demo, "add").risks == []  # read-only tools just run


def test_last_inputs_are_remembered_per_server_and_tool(demo):
    first = demo.tools["echo"].form()
    first.value = {"message": "remember me"}
    first.call_button.click()
    first.wait(10)
    assert remembered_inputs("demo", "echo") == {"message": "remember me"}
    assert demo.tools["echo"].form().value == {"message": "remember me"}
    assert demo.tools["add"].form().value != {"message": "remember me"}
    assert ToolForm(demo, "echo", remember=False).value == {}


def test_copy_as_code_shows_a_magic_line_and_python_that_make_the_same_call(demo):
    form = demo.tools["add"].form(value={"a": 1, "b": 2})
    form.copy_button.value = True
    assert "%mcp call demo add a=1 b=2" in form.code.value
    assert "mj.get_connection('demo').call('add', {'a': 1, 'b': 2})" in form.code.value
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_jupyter")
    tricky = {"message": "it's $HOME {x} 'q' \"d\""}
    magic, python = call_code("demo", "echo", tricky, demo.tools["echo"].input_schema)
    assert shell.run_line_magic("mcp", magic.removeprefix("%mcp ")).text == tricky["message"]
    namespace: dict = {}
    exec(python, namespace)
    assert namespace["result"].text == tricky["message"]
    magic, _ = call_code("demo", "stats", {"values": [1.5, 2.5]}, demo.tools["stats"].input_schema)
    assert magic == "%mcp call demo stats 'values=[1.5, 2.5]'"
    assert shell.run_line_magic("mcp", magic.removeprefix("%mcp ")).structured["mean"] == 2.0
    magic, _ = call_code("demo", "echo", {"message": "5"}, {})  # untyped: only JSON keeps "5" a string
    assert "--json" in magic
    # pasted into a cell, the line sends exactly the form's values, whatever quotes follow a "$"
    for value in ["$US", "cost: $5 {total}", "{}", "back\\slash", "new\nline", "it's $HOME's", '"$x"', "$$"]:
        magic, _ = call_code("demo", "echo", {"message": value}, demo.tools["echo"].input_schema)
        shell.user_ns.update(US="dollars", HOME="/root", x="X")
        result = shell.run_cell(magic)
        assert result.success and result.result.text == value, (value, magic)


def test_prompt_arguments_get_completion_suggestions_and_messages_render(demo):
    form = PromptForm(demo, "review_code")
    form.inputs["language"].value = "ja"
    assert form.suggestions("language") == ("java", "javascript")
    form.submit_button.click()
    assert form.job is None and "required" in form._errors["code"].value
    form.value = {"code": "print(1)", "language": "python"}
    form.submit_button.click()
    assert form.wait(10).messages
    assert "print(1)" in html_of(form.output)


def test_a_template_expands_with_completed_variables_and_is_read(demo):
    form = TemplateForm(demo, "demo://items/{item_id}")
    form.inputs["item_id"].value = "a"
    assert form.inputs["item_id"].wait_for_suggestions() == ("apple", "apricot")
    form.inputs["item_id"].value = "apple"
    assert "demo://items/apple" in form.uri.value
    form.read_button.click()
    assert form.wait(10).uri == "demo://items/apple"
    assert "apple" in html_of(form.output)


def test_resources_page_read_and_update_live_when_subscribed(demo):
    browser = ResourceBrowser(demo, page_size=4)
    assert browser.pages == 2 and browser.page_label.value == "1–4 of 6"
    browser.next_button.click()
    assert [uri for _, uri in browser.list.options] == ["demo://counter", "demo://status"]
    browser.list.value = "demo://counter"
    browser.subscribe_toggle.value = True
    browser.wait(10)
    assert until(lambda: "demo://counter" in demo.subscriptions)  # listed once the server has it
    assert until(lambda: browser.updates_label.value == "subscribed"), browser.updates_label.value
    before = int(browser.result.text)
    demo.call("increment", by=3)
    assert until(lambda: browser.updates >= 1 and browser.result.text == str(before + 3))
    browser.subscribe_toggle.value = False
    assert until(lambda: "demo://counter" not in demo.subscriptions)


def test_forms_work_against_the_everything_server(everything_cmd):
    conn = mj.connect("everything-forms", everything_cmd)
    try:
        form = conn.tools["get-sum"].form(value={"a": 2, "b": 5})
        form.call_button.click()
        assert "7" in form.wait(30).text
        long = conn.tools["trigger-long-running-operation"].form(value={"duration": 30, "steps": 30})
        long.call_button.click()
        assert until(lambda: long.progress.value >= 1, 30), "no progress from the everything server"
        long.cancel_button.click()
        with pytest.raises(concurrent.futures.CancelledError):
            long.wait(10)
        prompt = conn.prompts["completable-prompt"].form()
        name = prompt.prompt.arguments[0].name
        prompt.inputs[name].value = "E"
        assert prompt.suggestions(name) == ("Engineering",)
    finally:
        mj.disconnect("everything-forms")
