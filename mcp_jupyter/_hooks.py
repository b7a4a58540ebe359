"""The one way a lower layer reaches a higher one: typed hooks, declared here, provided from above.

The layers point one way (docs/architecture.md): the client and consent layers never import the UI,
the JupyterLab channel, the display or the testing layer. Where a lower layer needs something only a
higher one has (a form to show, a person to ask, the JupyterLab page, HTML for a result, a lint of a
connection), it asks one of the hooks below; the higher layer provides it when it is imported::

    hooks.TOOL_FORM.provide(ToolForm)                          # widgets/__init__.py (above)
    form = hooks.TOOL_FORM.require()(conn, "add", tool=tool)   # client/_items.py (below)

Each hook is a typed key: the Protocol beside it says what its provider is, so both sides are checked
by the type checker, and the list below is every place where the arrows are crossed upwards. A hook
holds one provider (providing again replaces it) or, declared ``many=True``, any number of them (each
is called).

Some providers live in a part of the package that is imported on first need, so ``import
mcp_jupyter`` imports none of it: the notebook UI (ipywidgets, anywidget), the display layer and the
testing layer. Such a hook names its :class:`Part`, and looking the hook up imports the part first.
How to import a part is said once, by the composition root (``mcp_jupyter/__init__.py``,
:meth:`Part.load_with`), which may import every layer; this module imports nothing of the package.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

if TYPE_CHECKING:  # types only: the hooks' providers and consumers live in the layers above
    from .client._connection import Connection
    from .client._items import Prompt, ResourceTemplate, Tool
    from .client._tasks.handle import Task
    from .client.auth._signin import SignIn
    from .consent._requests import ConsentRequest
    from .testing._checking import CheckReport
    from .testing._recording import Recorder

__all__ = [
    "Part",
    "Hook",
    "UI",
    "DISPLAY",
    "TESTING",
    "TOOL_FORM",
    "PROMPT_FORM",
    "TEMPLATE_FORM",
    "EXPLORER",
    "CONSENT_INBOX",
    "MAP_PROGRESS",
    "TASK_STATUS",
    "CONSENT_CARDS",
    "CONSENT_OVERLAY",
    "SIGNIN_PRESENTERS",
    "SIGNIN_PROMPT_CHECK",
    "JUPYTER_PAGE",
    "CONNECTION_EVENTS",
    "CONNECTION_TESTING",
    "RICH_DISPLAY",
    "HISTORY_VIEWS",
    "repr_html",
    "repr_mimebundle",
]

P = TypeVar("P")
C = TypeVar("C", bound="Callable[..., object]")  # a hook whose providers are called (notify)


class Part:
    """A part of the package imported on first need; the composition root says how (:meth:`load_with`)."""

    def __init__(self, name: str, missing: str) -> None:
        self.name = name
        self.missing = missing  # what to tell a person when the part cannot provide a hook
        self._loader: Callable[[], object] | None = None
        self._loaded = False
        self._lock = threading.RLock()  # RLock: the part's own import may look a hook up

    def load_with(self, loader: Callable[[], object]) -> None:
        """How to import this part (set once, by the composition root)."""
        self._loader = loader

    def load(self) -> None:
        """Import the part if it is not imported yet (ImportError when it cannot be).

        Done means the loader *returned*: while another thread is still importing the part, some of
        its hooks are provided already and others not yet, so this waits for that import to end.
        """
        if self._loaded or self._loader is None:
            return
        with self._lock:
            if not self._loaded:
                self._loader()
                self._loaded = True


class Hook(Generic[P]):
    """One place where a lower layer asks a higher one; ``P`` is what a provider is."""

    def __init__(self, name: str, *, part: Part | None = None, many: bool = False) -> None:
        self.name = name
        self.part = part  # where the providers live, imported on the first lookup
        self.many = many
        self._providers: tuple[P, ...] = ()  # replaced, never mutated: a lookup needs no lock
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<Hook {self.name!r}: {len(self._providers)} provider(s)>"

    def provide(self, provider: P) -> Callable[[], None]:
        """Provide the hook (one provider: replaces it; ``many``: adds one). Returns a function that
        withdraws this provider (one provider: the previous one comes back, as a test wants)."""
        with self._lock:
            previous = self._providers
            if not self.many:
                self._providers = (provider,)
            elif provider not in previous:
                self._providers = (*previous, provider)

        def withdraw() -> None:
            with self._lock:
                if self.many:
                    self._providers = tuple(p for p in self._providers if p is not provider)
                elif self._providers == (provider,):
                    self._providers = previous

        return withdraw

    def get(self, *, load: bool = True) -> P | None:
        """The provider (the latest one of a ``many`` hook), importing the hook's part first unless
        ``load`` is false; None when nothing provides it."""
        if load and self.part is not None:
            self.part.load()
        providers = self._providers
        return providers[-1] if providers else None

    def require(self) -> P:
        """The provider; a RuntimeError that says what to install when nothing provides it."""
        provider = self.get()
        if provider is None:
            missing = f": {self.part.missing}" if self.part is not None else ""
            raise RuntimeError(f"no {self.name} is available{missing}")
        return provider

    def all(self, *, load: bool = True) -> Sequence[P]:
        """Every provider, in the order they came (importing the hook's part first unless ``load`` is false)."""
        if load and self.part is not None:
            self.part.load()
        return self._providers

    def notify(self: Hook[C], *args: Any) -> None:
        """Call every provider with ``args``; a provider's error is logged, never raised to the caller."""
        for provider in self._providers:
            try:
                provider(*args)
            except Exception:  # noqa: BLE001 - a watcher's bug must never break the layer that tells it
                _log().exception("a provider of the %s hook failed", self.name)


# -- the parts imported on first need -----------------------------------------------------------------

UI = Part(
    "the notebook UI (mcp_jupyter.widgets)",
    missing="the notebook UI (mcp_jupyter.widgets) needs ipywidgets and anywidget; "
    "install them with: pip install mcp-jupyter-kit",
)
DISPLAY = Part("rich display (mcp_jupyter.display)", missing="mcp_jupyter.display could not be imported")
TESTING = Part("the testing layer (mcp_jupyter.testing)", missing="mcp_jupyter.testing could not be imported")


# -- views the core hands to a person (provided by the UI: mcp_jupyter/widgets/__init__.py) ---------


class ToolFormView(Protocol):
    """``tool.form()``: a form that calls the tool."""

    def __call__(self, connection: Connection, tool_name: str, *, tool: Tool, **options: Any) -> Any: ...


class PromptFormView(Protocol):
    """``prompt.form()``: a form that gets the prompt."""

    def __call__(
        self, connection: Connection, prompt_name: str, *, prompt: Prompt, **options: Any
    ) -> Any: ...


class TemplateFormView(Protocol):
    """``template.form()``: a form that fills a resource template and reads the resource."""

    def __call__(self, connection: Connection, template: ResourceTemplate, **options: Any) -> Any: ...


class ExplorerView(Protocol):
    """``conn.explore()``: the explorer of one or more connections."""

    def __call__(self, connections: Sequence[Connection], **options: Any) -> Any: ...


class InboxView(Protocol):
    """``mj.consent.inbox()``: the kernel's one consent inbox."""

    def __call__(self) -> Any: ...


class Progress(Protocol):
    """A progress bar already on screen."""

    def step(self, *args: Any) -> None:
        """One more row done (``conn.map`` calls it per result)."""

    def update(self, done: int) -> None:
        """``done`` rows (or partitions) done so far."""


class ProgressView(Protocol):
    """``conn.map``'s (and ``mj.dask.map``'s) progress bar, displayed when built."""

    def __call__(self, total: int, label: str) -> Progress: ...


class TaskStatusView(Protocol):
    """A live status line of a task (``conn.start``), to display."""

    def __call__(self, task: Task) -> Any: ...


TOOL_FORM: Hook[ToolFormView] = Hook("tool form", part=UI)
PROMPT_FORM: Hook[PromptFormView] = Hook("prompt form", part=UI)
TEMPLATE_FORM: Hook[TemplateFormView] = Hook("template form", part=UI)
EXPLORER: Hook[ExplorerView] = Hook("explorer", part=UI)
CONSENT_INBOX: Hook[InboxView] = Hook("consent inbox", part=UI)
MAP_PROGRESS: Hook[ProgressView] = Hook("progress bar", part=UI)
TASK_STATUS: Hook[TaskStatusView] = Hook("task status line", part=UI)


# -- who shows a consent request to a person (docs/architecture.md, "How consent reaches a person") ---


class Presenter(Protocol):
    """What the consent core needs from a UI: whether it can show a request now, and showing it."""

    def can_present(self, request: ConsentRequest) -> bool:
        """True when a person can see and answer ``request`` right now."""
        ...

    def present(self, request: ConsentRequest) -> None:
        """Show ``request``; the person's answer calls ``request.decide(...)`` (any thread)."""
        ...


# The cards (widgets/_consent_cards.py). Looked up at each request, in a kernel only.
CONSENT_CARDS: Hook[Presenter] = Hook("consent card", part=UI)
# In front of the cards while JupyterLab's sidebar is connected (lab/_inbox.py): a hook of its own, so
# that the cards providing themselves when the UI loads (on any thread) never replace it.
CONSENT_OVERLAY: Hook[Presenter] = Hook("consent overlay (the JupyterLab sidebar's inbox)")


# -- signing in (client/auth/_signin.py, _receivers.py asks; widgets and lab/_signin.py provide) -----


class SignInPresenter(Protocol):
    """Shows a sign-in to a person (the card, JupyterLab's notification); True when it was shown."""

    def __call__(self, signin: SignIn) -> bool: ...


class PromptCheck(Protocol):
    """Whether a cell blocked in a sign-in still needs the stdin prompt (runs on the prompt's thread)."""

    def __call__(self, signin: SignIn) -> bool: ...


class PageSource(Protocol):
    """The JupyterLab page of the channel's hello (``origin``, ``base_url``, ``theme``,
    ``server_extension``), or None; may wait briefly for a hello that is on its way."""

    def __call__(self) -> dict[str, Any] | None: ...


SIGNIN_PRESENTERS: Hook[SignInPresenter] = Hook("sign-in presenter", part=UI, many=True)
SIGNIN_PROMPT_CHECK: Hook[PromptCheck] = Hook("sign-in prompt check")
JUPYTER_PAGE: Hook[PageSource] = Hook("JupyterLab page")


# -- what happens to connections (the registry, the session and the task book tell; lab/_channel.py) -

ConnectionEvent = Literal["opened", "closed", "status", "list_changed", "task"]


class ConnectionObserver(Protocol):
    """Told ``(event, connection name)`` on whatever thread saw the change (mostly the runtime
    thread): it must return at once (schedule work, never block).

    - ``"opened"``: a connection was registered under the name (``mj.connect``);
    - ``"closed"``: the registry forgot it (``conn.close()``, ``mj.disconnect``, replaced);
    - ``"status"``: its status changed (``connected``, ``dead`` when the server exited, ...);
    - ``"list_changed"``: the server said a listing changed (the cached listing was dropped);
    - ``"task"``: one of its tasks started, or its status or status message changed.
    """

    def __call__(self, event: ConnectionEvent, name: str) -> None: ...


CONNECTION_EVENTS: Hook[ConnectionObserver] = Hook("connection observer", many=True)


# -- conn.check() and conn.record(): the testing layer (testing/_methods.py) -------------------------


class ConnectionTesting(Protocol):
    """Linting and recording, which are not MCP features: ``Connection``'s methods delegate here."""

    async def acheck(self, connection: Connection, *, call: bool, eras: bool) -> CheckReport:
        """Lint the connection's server (on the runtime loop)."""
        ...

    def record(
        self, connection: Connection, path: str | None, *, ignore: Iterable[str], target: Any
    ) -> Recorder:
        """A recorder of the connection's session, as a pytest file."""
        ...


CONNECTION_TESTING: Hook[ConnectionTesting] = Hook("check and record", part=TESTING)


# -- rich display of the client's objects (display/_renderers.py) -------------------------------------


class RichDisplay(Protocol):
    """What IPython shows for the client's results, listings, history and connections."""

    def html(self, obj: object) -> str | None:
        """Safe HTML for ``obj`` (None: its text alone)."""
        ...

    def extra_mimebundle(self, obj: object) -> dict[str, Any] | None:
        """Output types beside text and HTML (an MCP App's), or None."""
        ...


RICH_DISPLAY: Hook[RichDisplay] = Hook("rich display", part=DISPLAY)


class HistoryViews(Protocol):
    """``history.timeline()`` and ``history.stats()`` of a connection's history and of the in-kernel
    server's (``mj.server.history``): pictures and tables the display layer draws."""

    def timeline(self, history: Any, *, live: bool | None = None, title: str | None = None) -> Any:
        """The history as a timeline (``mj.timeline`` with one source)."""
        ...

    def stats(self, history: Any) -> Any:
        """Per-method and per-tool statistics of the history."""
        ...


HISTORY_VIEWS: Hook[HistoryViews] = Hook("the timeline and statistics", part=DISPLAY)


def repr_html(obj: object) -> str | None:
    """``_repr_html_`` of the client's objects: drawn by the display layer, imported on first need.
    A failure shows the object's text instead of a traceback in the cell."""
    try:
        return RICH_DISPLAY.require().html(obj)
    except Exception:  # noqa: BLE001 - display must never break a cell; text/plain remains
        _log().debug("no HTML for %s", type(obj).__name__, exc_info=True)
        return None


def repr_mimebundle(obj: object, include: Any = None, exclude: Any = None) -> dict[str, Any] | None:
    """``_repr_mimebundle_`` of the client's objects that can carry more than HTML (an MCP App)."""
    try:
        return RICH_DISPLAY.require().extra_mimebundle(obj)
    except Exception:  # noqa: BLE001 - display must never break a cell; text/html remains
        _log().debug("no extra output types for %s", type(obj).__name__, exc_info=True)
        return None


def _log() -> Any:
    """The package's logger (``logging`` is imported on the first failure: ``import mcp_jupyter`` stays light)."""
    import logging

    return logging.getLogger("mcp_jupyter")
