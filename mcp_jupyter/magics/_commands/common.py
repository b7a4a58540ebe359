"""Helpers the command groups share: the API, name lookups with "did you mean", ``-o VAR``, HTML."""

from __future__ import annotations

from typing import Any

from mcp_jupyter.errors import did_you_mean
from mcp_jupyter.magics._parser import MagicUsageError

__all__ = ["api", "lookup", "output_option", "show_html", "store"]


def api() -> Any:
    """The client API (imported late so loading the extension stays cheap)."""
    from mcp_jupyter import client

    return client


def lookup(collection: Any, key: str, kind: str, key_attr: str = "name") -> Any:
    """``collection[key]`` with a one-line error naming the closest matches (by ``item.<key_attr>``)."""
    try:
        return collection[key]
    except KeyError:
        names = [getattr(item, key_attr, "") for item in collection]
        raise MagicUsageError(f"no {kind} {key!r}; {did_you_mean(key, names)}") from None


def output_option(parser: Any) -> None:
    """The ``-o VAR`` option of subcommands whose result can be stored (see :func:`store`)."""
    parser.add_argument("-o", "--output", metavar="VAR", help="also store the result in this variable")


def store(shell: Any, var: str | None, value: Any) -> Any:
    """Store ``value`` in the user's variable ``var`` (``-o VAR``), and return it."""
    if var:
        shell.user_ns[var] = value
    return value


def show_html(html: str) -> None:
    """Display an HTML string in the cell's output."""
    from IPython.display import HTML, display

    display(HTML(html))
