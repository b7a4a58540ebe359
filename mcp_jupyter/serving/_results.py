"""Turning what a notebook function returned, printed or raised into an MCP tool result.

- pandas DataFrames and Series become structured content (JSON records) plus a readable text table,
  and a ``-> pd.DataFrame`` annotation becomes an output schema a client can rely on;
- printed output is appended as one more text block, so ``print()`` debugging reaches the client;
- an exception becomes an ``isError`` result carrying ``ExceptionType: message`` only: the traceback
  (file paths, source lines, locals) stays in the kernel, in :attr:`NotebookServer.errors`.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from mcp_types import CallToolResult, TextContent

TABLE_MAX_ROWS = 60
TABLE_MAX_COLS = 20
PRINTED_HEADER = "Printed output:\n"


def is_dataframe(value: Any) -> bool:
    """Whether ``value`` is a pandas DataFrame (without importing pandas)."""
    return type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pandas")


def is_series(value: Any) -> bool:
    """Whether ``value`` is a pandas Series (without importing pandas)."""
    return type(value).__name__ == "Series" and type(value).__module__.startswith("pandas")


def _is_pandas_class(annotation: Any, name: str) -> bool:
    return (
        inspect.isclass(annotation)
        and annotation.__name__ == name
        and annotation.__module__.startswith("pandas")
    )


def schema_friendly_signature(fn: Any) -> inspect.Signature | None:
    """The signature to publish when the return annotation is a pandas type, else None.

    Pydantic cannot describe a DataFrame; the wire form is its records (a list of objects), and a
    Series' is an object mapping index labels to values, so those become the declared return types.
    """
    try:
        sig = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, ValueError):
        return None
    if _is_pandas_class(sig.return_annotation, "DataFrame"):
        return sig.replace(return_annotation=list[dict[str, Any]])
    if _is_pandas_class(sig.return_annotation, "Series"):
        return sig.replace(return_annotation=dict[str, Any])
    return None


def pandas_result(value: Any) -> CallToolResult:
    """A DataFrame or Series as records (structured) plus a text table (for people and LLMs)."""
    if is_dataframe(value):
        records = json.loads(value.to_json(orient="records", date_format="iso"))
        text = value.to_string(max_rows=TABLE_MAX_ROWS, max_cols=TABLE_MAX_COLS)
    else:
        records = json.loads(value.to_json(date_format="iso"))
        text = value.to_string(max_rows=TABLE_MAX_ROWS)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content={"result": records}
    )


def error_result(exc: BaseException) -> CallToolResult:
    """An ``isError`` result naming the exception, without its traceback."""
    name = "Interrupted" if isinstance(exc, KeyboardInterrupt) else type(exc).__name__
    message = str(exc) or "(no message)"
    return CallToolResult(content=[TextContent(type="text", text=f"{name}: {message}")], is_error=True)


def append_printed(result: Any, printed: str) -> None:
    """Add the function's printed output to a ``tools/call`` result as a final text block."""
    if not printed:
        return
    block = TextContent(type="text", text=PRINTED_HEADER + printed)
    if isinstance(result, CallToolResult):
        result.content.append(block)
    elif isinstance(result, dict) and isinstance(result.get("content"), list):
        result["content"].append(block.model_dump(by_alias=True, exclude_none=True))
