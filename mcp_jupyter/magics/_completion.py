"""Tab completion for ``%mcp`` / ``%%mcp`` lines (an IPython "Matcher API v2" matcher).

Everything is derived from the registry: subcommand names; a subcommand's options from its parser;
the values of an argument from its ``choices`` or the completer attached to it
(:mod:`.completers`: connection names, tool and prompt names, ``argument=`` names and enum values,
resource URIs and URI templates). The word under the cursor is matched to the argument it fills the
way argparse would fill it: options and their values are skipped, positionals fill in order.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from mcp_jupyter._compat.cpython import parser_arguments
from mcp_jupyter.magics._completers import CompletionContext, completer_of
from mcp_jupyter.magics._registry import REGISTRY

_MAGIC = re.compile(r"(?:^|=\s*)%%?mcp\s+(?P<rest>.*)$")


def candidates(words: list[str], current: str) -> list[str]:
    """Full-word completions for ``current`` given the finished ``words`` after ``%mcp``."""
    if not words:
        return [*REGISTRY.names(), "--help"]
    spec = REGISTRY.get(words[0])
    if spec is None:
        return []
    parser = spec.parser
    options = options_of(parser)
    if current.startswith("-"):
        return list(options)
    values, action = _argument_at(parser, words[1:])
    if len(words) > 1 and words[-1] in options and options[words[-1]].nargs != 0:
        action = options[words[-1]]  # the cursor is on this option's value
    return _values_of(action, CompletionContext(values, current))


def _argument_at(parser: argparse.ArgumentParser, words: list[str]) -> tuple[dict[str, Any], Any]:
    """The positional values given so far (by ``dest``) and the positional the next word fills."""
    given = _positional_words(words, options_of(parser))
    positionals = [a for a in parser_arguments(parser) if not a.option_strings]
    values: dict[str, Any] = {}
    for action in positionals:
        if action.nargs in ("*", "+", argparse.REMAINDER):
            values[action.dest] = given
            return values, action
        if not given:
            return values, action
        values[action.dest], given = given[0], given[1:]
    return values, None


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each option string of ``parser`` (``-o``, ``--output``, ``--help``...) and the argument it sets."""
    return {string: action for action in parser_arguments(parser) for string in action.option_strings}


def _positional_words(words: list[str], options: dict[str, argparse.Action]) -> list[str]:
    """``words`` without options and the values of options that take one."""
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.startswith("-") and len(word) > 1:
            action = options.get(word)
            skip = action is not None and action.nargs != 0
        else:
            out.append(word)
    return out


def _values_of(action: argparse.Action | None, ctx: CompletionContext) -> list[str]:
    if action is None:
        return []
    if action.choices is not None:
        return [str(choice) for choice in action.choices]
    complete = completer_of(action)
    if complete is None:
        return []
    try:
        return list(complete(ctx))
    except Exception:  # noqa: BLE001 - completion must never raise into the editor
        return []


def mcp_matcher(context: Any) -> dict:
    """IPython matcher: completions for the word under the cursor on a ``%mcp`` line."""
    from IPython.core.completer import SimpleCompletion

    match = _MAGIC.search(context.text_until_cursor)
    if match is None:
        return {"completions": []}
    rest = match.group("rest")
    words = rest.split()
    current = "" if not rest or rest[-1].isspace() else words.pop()
    token = context.token
    # IPython's token stops at delimiters such as ":" or "=", so replace only the token's part of
    # the word: the completion text is the candidate minus what precedes the token in the word.
    if not current.endswith(token):
        return {"completions": []}
    cut = len(current) - len(token)
    found = [c for c in candidates(words, current) if c.startswith(current)]
    completions = [SimpleCompletion(c[cut:], type="mcp") for c in found]
    return {"completions": completions, "matched_fragment": token, "suppress": bool(completions)}


# IPython's matcher API v2 reads these attributes of the function (its own decorator sets the same ones).
mcp_matcher.matcher_api_version = 2  # type: ignore[attr-defined]
mcp_matcher.matcher_priority = 10  # type: ignore[attr-defined]
mcp_matcher.matcher_identifier = "mcp_jupyter.mcp_matcher"  # type: ignore[attr-defined]
