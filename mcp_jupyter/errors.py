"""The one exception hierarchy of mcp_jupyter.

Every failure a user can meet is an :class:`MCPJupyterError`; each message says what went wrong,
which server it concerns, and what to do next. SDK and transport exceptions are translated into
these classes in one place (the client's translate module, ``mcp_jupyter/client/_translate.py``), so no caller ever has to know
the SDK's codes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "MCPJupyterError",
    "ConnectionFailed",
    "ServerExited",
    "RequestTimeout",
    "RequestCancelled",
    "ProtocolError",
    "ToolError",
    "NotFound",
    "ToolNotFound",
    "PromptNotFound",
    "ResourceNotFound",
    "UnknownConnection",
    "InvalidArguments",
    "ConfigError",
    "ConsentDeclined",
    "AuthorizationFailed",
    "TaskNotSupported",
    "TaskFailed",
    "TaskNotFound",
    "SkillNotFound",
    "SkillVerificationFailed",
    "RegistryUnavailable",
    "ServerNotListed",
    "InvalidServerJson",
    "suggest",
    "did_you_mean",
]


class MCPJupyterError(Exception):
    """Base class of every error raised by mcp_jupyter."""

    def __init__(self, message: str, *, server: str | None = None, stderr: str | None = None) -> None:
        self.server = server
        self.stderr = stderr or ""
        super().__init__(message)

    def __str__(self) -> str:
        message = super().__str__()
        if self.stderr.strip():
            return f"{message}\n--- last lines of the server's stderr ---\n{self.stderr.rstrip()}"
        return message

    def _render_traceback_(self) -> list[str]:
        """IPython's hook for an exception that renders itself: the user's own lines and this
        message, without mcp_jupyter's frames (``%xmode Verbose`` shows every frame)."""
        from ._tracebacks import render_for_ipython

        return render_for_ipython(self)


class ConnectionFailed(MCPJupyterError):
    """The connection to a server could not be established (bad command, refused port, not MCP...)."""


class ServerExited(MCPJupyterError):
    """The server closed the connection or its process died; reconnect with the same name."""


class RequestTimeout(MCPJupyterError):
    """A request took longer than its timeout; the SDK has sent ``notifications/cancelled``."""


class RequestCancelled(MCPJupyterError):
    """A request was cancelled by the user (Ctrl-C, a Cancel button, a cancelled task)."""


class ProtocolError(MCPJupyterError):
    """The server answered with a JSON-RPC error, or sent something that is not valid MCP."""

    def __init__(self, message: str, *, code: int | None = None, data: object = None, **kwargs) -> None:
        self.code = code
        self.data = data
        super().__init__(message, **kwargs)


class ToolError(MCPJupyterError):
    """A tool returned ``isError: true`` and the caller asked for errors to raise."""

    def __init__(self, message: str, *, result: object = None, **kwargs) -> None:
        self.result = result
        super().__init__(message, **kwargs)


class NotFound(MCPJupyterError):
    """A name (tool, prompt, resource URI...) that the server does not list.

    ``.suggestions`` holds the closest names it does list, best first (maybe empty) and
    ``.server`` the connection's name; catch this base class to handle every kind at once.
    """

    def __init__(self, message: str, *, suggestions: list[str] | None = None, **kwargs) -> None:
        self.suggestions = list(suggestions or [])
        super().__init__(message, **kwargs)


class ToolNotFound(NotFound):
    """The server lists no tool of that name: check the spelling against ``.suggestions`` or
    ``conn.tools``; if the server's tools changed, ``conn.refresh()`` reloads the list."""


class PromptNotFound(NotFound):
    """The server lists no prompt of that name: check the spelling against ``.suggestions`` or
    ``conn.prompts``; if the server's prompts changed, ``conn.refresh()`` reloads the list."""


class ResourceNotFound(NotFound):
    """The server lists no resource with that URI: check it against ``.suggestions`` or
    ``conn.resources``; a URI built from a template is listed in ``conn.resource_templates``."""


class UnknownConnection(MCPJupyterError):
    """No connection of that name exists in this kernel."""


class InvalidArguments(MCPJupyterError):
    """Arguments do not match the tool's input schema (checked before anything is sent)."""


class ConfigError(MCPJupyterError):
    """A server configuration file (``mcpServers`` / ``servers`` JSON) is missing or malformed."""


class ConsentDeclined(MCPJupyterError):
    """The user (or the configured policy) declined a server's request."""


class AuthorizationFailed(ConnectionFailed):
    """A server refused the credentials, or signing in (OAuth) failed.

    ``step`` names where: ``"credentials"`` (the server answered 401/403 and no sign-in applies),
    ``"discovery"``, ``"registration"``, ``"authorization"``, ``"token"``, ``"cancelled"`` or ``"timeout"``;
    ``status`` is the HTTP status when there was one. Messages never contain tokens or secrets.
    """

    def __init__(
        self, message: str, *, step: str, status: int | None = None, server: str | None = None
    ) -> None:
        self.step = step
        self.status = status
        super().__init__(message, server=server)


class TaskNotSupported(MCPJupyterError):
    """A tool cannot run as a task on this server (its ``taskSupport`` is ``forbidden`` or absent,
    or the server does not offer tasks): call it with ``conn.call`` instead of ``conn.start``."""


class TaskFailed(MCPJupyterError):
    """A task ended ``failed``: the server reports a protocol error for it (``.code``, ``.data``),
    not a tool error (a tool that fails reports a ``completed`` task whose result ``is_error``)."""

    def __init__(self, message: str, *, code: int | None = None, data: object = None, **kwargs) -> None:
        self.code = code
        self.data = data
        super().__init__(message, **kwargs)


class TaskNotFound(NotFound):
    """The server does not know that task id (any more): it expired after its ``ttl``, the server
    restarted and kept no tasks, or the id is mistyped. Start the task again with ``conn.start``."""


class SkillNotFound(NotFound):
    """The server lists no skill of that name or URI: check it against ``.suggestions`` or
    ``conn.skills``; if the server's skills changed, ``conn.refresh()`` reloads the list."""


class SkillVerificationFailed(MCPJupyterError):
    """A skill's file did not match its listing entry, so the skill was not loaded.

    ``.skill`` (its name), ``.uri`` (the file), ``.field`` (``size``, ``digest`` or
    ``frontmatter.<key>``), ``.expected`` (what the listing says) and ``.actual`` (what was read).
    The server serves something other than what it listed: do not use the skill; tell whoever runs
    the server, or list the skills again (``conn.refresh()``) if they changed since listing."""

    def __init__(
        self,
        message: str,
        *,
        skill: str,
        uri: str,
        field: str,
        expected: object = None,
        actual: object = None,
        **kwargs,
    ) -> None:
        self.skill = skill
        self.uri = uri
        self.field = field
        self.expected = expected
        self.actual = actual
        super().__init__(message, **kwargs)


class RegistryUnavailable(MCPJupyterError):
    """An MCP Registry could not be reached, or did not answer as the registry API does (offline, a
    name that does not resolve, HTTP 5xx, no answer in time). ``.url`` is the registry's address;
    results from an earlier search stay usable (marked stale)."""

    def __init__(self, message: str, *, url: str, **kwargs) -> None:
        self.url = url
        super().__init__(message, **kwargs)


class ServerNotListed(NotFound):
    """The MCP Registry lists no server (or no version) of that name: check the spelling against
    ``.suggestions``, or search again with ``mj.registry.search(...)``."""


class InvalidServerJson(ConfigError):
    """A ``server.json`` breaks its schema. ``.problems`` lists ``(json_path, message)`` pairs, each
    saying what to fix, e.g. ``("$.packages[0].version", "use one specific version, not 'latest'")``."""

    def __init__(self, message: str, *, problems: list[tuple[str, str]] | None = None, **kwargs) -> None:
        self.problems = list(problems or [])
        super().__init__(message, **kwargs)


def suggest(name: str, candidates: Iterable[str], *, limit: int = 3) -> list[str]:
    """Return the candidates closest to ``name``, best first (for "did you mean ...?" hints)."""
    pool = list(candidates)
    close = difflib.get_close_matches(name, pool, n=limit, cutoff=0.5)
    if not close:
        lowered = name.lower()
        close = [c for c in pool if lowered in c.lower() or c.lower() in lowered][:limit]
    return close


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """The one "did you mean" hint of the package: the closest candidates, or what exists.

    Returns a clause without leading punctuation, to put after a semicolon::

        f"server {server!r} has no tool {name!r}; {did_you_mean(name, names)}"
        # ... has no tool 'ad'; did you mean 'add'?
        # ... has no tool 'zzz'; available: add, echo
        # ... has no tool 'zzz'; there are none.
    """
    pool = sorted(candidates)
    close = suggest(name, pool)
    if close:
        return "did you mean " + " or ".join(repr(c) for c in close) + "?"
    if not pool:
        return "there are none."
    shown = ", ".join(pool[:12]) + (", ..." if len(pool) > 12 else "")
    return f"available: {shown}"
