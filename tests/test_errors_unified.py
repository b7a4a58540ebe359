"""One error family for "not found", one "did you mean", one escaping path (display.html)."""

from __future__ import annotations

import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams

from mcp_jupyter import consent, errors
from mcp_jupyter.display._html import Safe, clip, esc, short
from mcp_jupyter.magics import _parser as parser
from mcp_jupyter.magics import _registry as registry
from mcp_jupyter.magics._commands import common
from mcp_jupyter.magics._parser import MagicUsageError
from mcp_jupyter.magics._registry import REGISTRY, parse_command
from mcp_jupyter.widgets._consent_cards import ElicitationCard
from mcp_jupyter.widgets._fields import _header_html

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(autouse=True)
def fresh_consent():
    consent.reset()
    yield
    consent.reset()


# ---------------------------------------------------------------- not found, per kind


@pytest.mark.parametrize("cls", [errors.ToolNotFound, errors.PromptNotFound, errors.ResourceNotFound])
def test_every_not_found_shares_one_base_and_carries_suggestions(cls):
    exc = cls("no such thing; did you mean 'add'?", suggestions=["add"], server="demo")
    assert isinstance(exc, errors.NotFound) and isinstance(exc, errors.MCPJupyterError)
    assert exc.suggestions == ["add"] and exc.server == "demo"
    assert cls.__doc__ and ".suggestions" in cls.__doc__  # says what to do next
    assert cls.__name__ in errors.__all__ and "NotFound" in errors.__all__
    with pytest.raises(errors.NotFound):
        raise exc


def test_tool_not_found_keeps_its_constructor():
    bare = errors.ToolNotFound("gone")
    assert bare.suggestions == [] and bare.server is None and str(bare) == "gone"
    full = errors.ToolNotFound("gone", suggestions=["a", "b"], server="s", stderr="boom")
    assert full.suggestions == ["a", "b"] and "boom" in str(full)


# ---------------------------------------------------------------- one "did you mean"


def test_the_magics_use_the_one_did_you_mean_of_errors():
    assert parser.did_you_mean is errors.did_you_mean
    assert registry.did_you_mean is errors.did_you_mean
    assert common.did_you_mean is errors.did_you_mean


def test_a_magic_and_an_error_word_the_hint_the_same_way():
    hint = errors.did_you_mean("cal", REGISTRY.names())
    assert hint == "did you mean 'call'?"
    with pytest.raises(MagicUsageError) as info:
        parse_command("cal demo add", {})
    assert str(info.value) == f"unknown subcommand 'cal'; {hint}"
    # the API's messages put the same clause after a semicolon
    assert errors.did_you_mean("ad", ["add", "echo"]) == "did you mean 'add'?"


def test_did_you_mean_lists_what_exists_when_nothing_is_close():
    assert errors.did_you_mean("zzz", ["echo", "add"]) == "available: add, echo"
    assert errors.did_you_mean("zzz", []) == "there are none."
    with pytest.raises(MagicUsageError, match=r"has no argument 'zzz'; available: a, b"):
        schema = {"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": False}
        parser.convert_arguments({"zzz": "1"}, schema, "add")


# ---------------------------------------------------------------- one escaping path


def test_a_hostile_server_string_is_escaped_by_the_display_helpers():
    assert esc(HOSTILE) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert short(HOSTILE) == esc(HOSTILE)
    assert "<script>" not in short(HOSTILE * 50, 30)
    cut = clip(HOSTILE * 3, 10)
    assert isinstance(cut, Safe) and cut == f"{esc(HOSTILE[:10])}… [{len(HOSTILE) * 3 - 10} more characters]"
    assert clip("short") == "short"


def test_attribute_values_with_quotes_cannot_break_out():
    value = "x\" onmouseover='alert(1)' data-y=\"z"
    attr = esc(value)
    assert '"' not in attr and "'" not in attr and "<" not in attr
    assert attr == "x&quot; onmouseover=&#x27;alert(1)&#x27; data-y=&quot;z"


def test_widgets_escape_hostile_text_through_the_display_helpers():
    header = _header_html(HOSTILE, None, True, HOSTILE)  # the name and the help text
    assert "<script>" not in header and header.count(esc(HOSTILE)) == 2
    params = ElicitRequestFormParams(
        message=HOSTILE, requested_schema={"type": "object", "properties": {"a": {"type": "string"}}}
    )
    card = ElicitationCard(consent.ConsentRequest(HOSTILE, "elicitation", params))
    shown = " ".join(w.value for w in card.children if isinstance(getattr(w, "value", None), str))
    assert "<script>" not in shown and esc(HOSTILE) in shown


def test_a_confirmed_url_is_an_escaped_attribute():
    url = "https://auth.example.com/?q='><script>alert(1)</script>"
    params = ElicitRequestURLParams(mode="url", message="Authorize", url=url, elicitation_id="e1")
    card = ElicitationCard(consent.ConsentRequest("demo", "elicitation", params))
    card._open(url)
    assert f"href='{esc(url)}'" in card.link.value
    assert "<script>" not in card.link.value and "q='>" not in card.link.value
