"""The kernel side of `SubmitButton`: a click message carries the browser's input values, which are
applied to the inputs of the button's form before its handlers run (the browser tests prove the
browser side by typing). Plus the theme rules every form and card follows."""

from __future__ import annotations

import re
from pathlib import Path

import ipywidgets as W

from mcp_jupyter.widgets._schema_form import SchemaForm
from mcp_jupyter.widgets._submit import SubmitButton

WIDGETS = Path(__file__).resolve().parents[1] / "mcp_jupyter" / "widgets"


def click_from_browser(button: SubmitButton, values: dict) -> None:
    """What the button's view sends when a person clicks it."""
    button._handle_message(button, {"event": "click", "values": values}, [])


def test_a_click_applies_the_typed_values_before_the_handlers_run():
    form = SchemaForm(
        {"type": "object", "properties": {"name": {"type": "string"}, "color": {"enum": ["red", "blue"]}}},
        submit_label="Send",
    )
    submitted = []
    form.on_submit(submitted.append)
    name = next(w for w in _inputs(form) if isinstance(w, W.Text))
    color = next(w for w in _inputs(form) if isinstance(w, W.Dropdown))
    click_from_browser(
        form.submit_button, {name.model_id: {"value": "Grace Hopper"}, color.model_id: {"index": 2}}
    )
    assert submitted == [{"name": "Grace Hopper", "color": "blue"}]


def test_values_for_widgets_outside_the_form_or_not_inputs_are_ignored():
    outside = W.Text("untouched")
    label = W.HTML("<b>label</b>")
    box = W.VBox([label, W.Text("inside")])
    button = SubmitButton("Go", scope=box)
    clicks = []
    button.on_click(clicks.append)
    inside = box.children[1]
    click_from_browser(
        button,
        {
            outside.model_id: {"value": "changed"},
            label.model_id: {"value": "<script>"},
            inside.model_id: {"value": 42, "description": "not a value key"},  # rejected by the trait
        },
    )
    assert outside.value == "untouched" and label.value == "<b>label</b>" and inside.value == "inside"
    assert clicks == [button]


def test_a_disabled_button_applies_values_but_runs_nothing():
    box = W.VBox([W.Text()])
    button = SubmitButton("Go", scope=box, disabled=True)
    clicks = []
    button.on_click(clicks.append)
    click_from_browser(button, {box.children[0].model_id: {"value": "typed"}})
    assert box.children[0].value == "typed" and clicks == []
    button.click()  # from Python, like ipywidgets.Button.click()
    assert clicks == [button]


def test_a_schema_title_the_sdk_generates_is_not_a_heading():
    generated = SchemaForm(
        {"title": "addArguments", "type": "object", "properties": {"a": {"type": "integer"}}}
    )
    written = SchemaForm({"title": "Your profile", "type": "object", "properties": {}})
    titles = lambda form: [w for w in _all(form) if "mcpj-form-title" in w._dom_classes]  # noqa: E731
    assert titles(generated) == [] and "Your profile" in titles(written)[0].value


def test_forms_and_cards_use_theme_variables_for_every_colour():
    literal = re.compile(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(")
    offenders = [
        f"{path.name}:{n}: {line.strip()}"
        for path in WIDGETS.glob("*.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if literal.search(line.split("  # ")[0])
    ]
    assert offenders == []


def _all(root):
    from mcp_jupyter.widgets._submit import iter_widgets

    return list(iter_widgets(root))


def _inputs(root):
    return [w for w in _all(root) if isinstance(w, W.Text | W.Dropdown)]
