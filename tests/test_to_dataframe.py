"""``ToolResult.to_dataframe``: which answers are tables, and every "not a table" message is true
and its advice works.

Results are the API's own class built from SDK types (``ToolResult.from_sdk``), shaped like what
published servers send: a memory graph (two tables), a spreadsheet range (rows with a header row),
``str(rows)`` from a SQLite server. The real SQLite server is driven in
tests/test_published_servers.py.
"""

from __future__ import annotations

import ast
import json
import re

import pandas as pd
import pytest
from mcp_types import CallToolResult, TextContent

from mcp_jupyter.client import ToolResult
from mcp_jupyter.client import _dataframes as frames
from mcp_jupyter.display import _content as content

SHEET = {"range": "A1:B3", "values": [["region", "amount"], ["north", 120], ["south", 80]]}


def result(structured=None, text=None) -> ToolResult:
    """A tool result as the SDK hands it over: JSON text of the data unless ``text`` is given."""
    if text is None:
        text = json.dumps(structured)
    raw = CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
    return ToolResult.from_sdk(raw)


# -- tables --------------------------------------------------------------------------------


def test_a_spreadsheet_range_is_a_table_with_its_header_row():
    frame = result(SHEET).to_dataframe()
    assert list(frame.columns) == ["region", "amount"]
    assert frame.to_dict("records") == [{"region": "north", "amount": 120}, {"region": "south", "amount": 80}]
    assert result(SHEET).to_dataframe("values").equals(frame)


def test_header_says_whether_the_first_row_is_the_header():
    rows = [["2024", "2025"], ["1", "2"]]  # all strings: a header unless told otherwise
    assert list(result(rows).to_dataframe().columns) == ["2024", "2025"]
    kept = result(rows).to_dataframe(header=False)
    assert list(kept.columns) == [0, 1] and kept.iloc[0].tolist() == ["2024", "2025"]
    numbers = [[1, 2], [3, 4]]  # a first row with a number is data
    assert result(numbers).to_dataframe().shape == (2, 2)
    named = result(numbers).to_dataframe(header=True)
    assert list(named.columns) == ["1", "2"] and named.iloc[0].tolist() == [3, 4]
    assert list(result([["a", "b"]]).to_dataframe().columns) == ["a", "b"]  # a header and no rows


def test_records_flat_objects_and_single_values():
    assert len(result({"rows": [{"a": 1}, {"a": 2}], "total": 2}).to_dataframe()) == 2
    assert list(result({"a": 1, "b": "x"}).to_dataframe().columns) == ["a", "b"]  # one record
    assert result({"result": [3, 4]}).to_dataframe()["value"].tolist() == [3, 4]  # SDK's list[int]
    assert result({"items": [], "next": None}).to_dataframe().empty


def test_a_python_literal_answer_is_parsed_and_says_so():
    rows = [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]
    frame = result(text=str(rows)).to_dataframe()  # what mcp-server-sqlite sends: str(list_of_dicts)
    assert frame.to_dict("records") == rows
    assert frame.attrs["parsed_from"] == "python literal"
    assert repr(frame).startswith(f"# {frames.LITERAL_NOTE}\n")
    assert frames.LITERAL_NOTE in frame._repr_html_()
    assert frame.head(1).attrs["parsed_from"] == "python literal"  # derived frames keep attrs
    tuples = result(text=str([("region", "amount"), ("north", 1)])).to_dataframe()  # rows of tuples
    assert list(tuples.columns) == ["region", "amount"]
    plain = result([{"id": 1}]).to_dataframe()  # JSON: no note
    assert "parsed_from" not in plain.attrs and not repr(plain).startswith("#")


def test_a_python_literal_is_evaluated_never_run(tmp_path):
    marker = tmp_path / "ran"
    text = f"[{{'a': __import__('pathlib').Path({str(marker)!r}).touch()}}]"
    with pytest.raises(ValueError, match="not tabular"):
        result(text=text).to_dataframe()  # a call is not a literal: it stays text
    assert not marker.exists()


def test_the_literal_cap_is_the_display_parse_cap():
    assert frames.LITERAL_PARSE_LIMIT == content.PARSE_LIMIT


# -- every message is true, and its advice works ---------------------------------------------

ADVICE = re.compile(
    r"pd\.DataFrame\(ast\.literal_eval\(result\.text\)\)"
    r"|result\.to_dataframe\([^)]*\)"
    r"|result\.(?:data|text|content)(?:\[[^\]]*\])?"
)

BIG_LITERAL = str([{"n": i, "name": "x" * 40} for i in range(frames.LITERAL_PARSE_LIMIT // 40)])

CASES = {
    "several tables": (
        result({"entities": [{"n": 1}], "relations": [{"r": 2}]}),
        {},
        r"holds 2 tables \(fields 'entities', 'relations'\).*result.to_dataframe\('entities'\)",
    ),
    "a list that mixes": (result([{"a": 1}, 2]), {}, r"mixes records and single values.*result.data$"),
    "plain text": (result(text="hello"), {}, r"not tabular: its data is a str \('hello'\)"),
    "nested, no list": (
        result({"a": {"b": 1}, "c": 2}),
        {},
        r"None of its fields is a table; read it as result.data",
    ),
    "nested, a list of values": (
        result({"a": {"b": 1}, "tags": ["x", "y"]}),
        {},
        r"result.to_dataframe\('tags'\)",
    ),
    "no such field": (result(SHEET), {"field": "nope"}, r"no field 'nope'; its fields: 'range', 'values'"),
    "a field that is no table": (result(SHEET), {"field": "range"}, r"field 'range' .* str \('A1:B3'\)"),
    "a field of a list": (result([{"a": 1}]), {"field": "a"}, r"no field 'a': its data is a list \(1 item\)"),
    "a sole field that mixes": (
        result({"result": [1, {"a": 1}]}),
        {},
        r"only field, 'result', is not a table",
    ),
    "header for records": (result([{"a": 1}]), {"header": True}, r"header= is for a list of rows"),
    "header for values, in a field": (
        result({"v": [1, 2], "w": {}}),
        {"field": "v", "header": False},
        r"header=",
    ),
    "a row longer than the header": (
        result([["a", "b"], [1, 2, 3]]),
        {},
        r"row 2 has 3 cells but the header row has 2",
    ),
    "a huge Python literal": (result(text=BIG_LITERAL), {}, r"over the 2,097,152-character limit"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_message_gives_advice_that_works(case):
    res, kwargs, says = CASES[case]
    with pytest.raises(ValueError, match=says) as caught:
        res.to_dataframe(**kwargs)
    message = str(caught.value)
    offered = ADVICE.findall(message)
    assert offered, f"the message offers no way on: {message}"
    for expression in offered:  # each expression the message offers does what it says
        value = eval(expression, {"result": res, "pd": pd, "ast": ast})
        if "DataFrame" in expression or "to_dataframe" in expression:
            assert isinstance(value, pd.DataFrame) and len(value.columns), expression


def test_the_memory_graph_advice_names_each_table():
    graph = CASES["several tables"][0]
    assert graph.to_dataframe("relations").iloc[0]["r"] == 2


def test_a_bad_header_value_is_named():
    with pytest.raises(ValueError, match="header must be True, False or None"):
        result(SHEET).to_dataframe(header="yes")
