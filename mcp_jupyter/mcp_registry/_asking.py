"""Asking a person for a value a server needs: a secret in a password field, anything else in a text box.

In a notebook the kernel asks through Jupyter's input channel, the same channel ``input()`` uses:
``getpass`` there is a password field under the cell (the frontend shows dots, and the saved notebook
keeps only the prompt, never the value), answered with the keyboard while the cell runs, even a cell
that blocks. Outside a notebook it is the terminal's ``getpass``. The value goes to the connection
only: it is not put in a variable of the notebook, a widget's state, the history or a repr.

A run that cannot ask (nbclient, papermill, a script without a terminal) gets a clear error that says
how to pass the value instead.
"""

from __future__ import annotations

import getpass
import sys

from ..errors import ConfigError
from ._entries import Input

__all__ = ["ask"]


def ask(item: Input, where: str, *, server: str) -> str:
    """Ask for ``item`` (``where``: e.g. "environment variable"); secrets in a password field."""
    prompt = _prompt(item, where, server)
    try:
        value = getpass.getpass(prompt) if item.is_secret else input(prompt)
    except (EOFError, OSError, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _cannot_ask(item, where, server) from None
    except Exception as exc:  # IPython's StdinNotImplementedError: a frontend without input
        if type(exc).__name__ != "StdinNotImplementedError":
            raise
        raise _cannot_ask(item, where, server) from None
    value = value.strip()
    if not value and item.is_required:
        raise ConfigError(f"{server}: no value was given for {item.name}; connect again and type it")
    return value


def _prompt(item: Input, where: str, server: str) -> str:
    about = " ".join(item.description.split())
    if len(about) > 100:
        about = about[:99] + "…"
    secret = " (secret, not shown)" if item.is_secret else ""
    return f"{server} needs the {where} {item.name}{secret}" + (f": {about}" if about else "") + "\n> "


def _cannot_ask(item: Input, where: str, server: str) -> ConfigError:
    how = (
        f"set os.environ[{item.name!r}] in the kernel or pass env={{{item.name!r}: ...}}"
        if where.startswith("environment")
        else f"pass headers={{{item.name!r}: ...}}"
        if where.startswith("header")
        else f"pass arguments={{{item.name!r}: ...}}"
    )
    kind = "secret " if item.is_secret else ""
    frontend = (
        "this run has no way to ask (no input channel)"
        if "ipykernel" in sys.modules
        else "nobody can be asked here"
    )
    return ConfigError(f"{server} needs the {kind}{where} {item.name} and {frontend}: {how}")
