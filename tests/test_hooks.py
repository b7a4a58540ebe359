"""The one way a lower layer reaches a higher one (mcp_jupyter/_hooks.py): typed hooks.

What the layers rely on: a hook with one provider is replaced by the next one and a withdrawn
provider gives the previous one back; a ``many`` hook calls every provider and a provider's error
never reaches the layer that tells; a hook whose provider lives in a part loaded on first need
imports that part once, even when two threads ask at the same time; a hook nobody provides says what
to install; and every hook of a part is provided once that part is imported.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from mcp_jupyter import _hooks as hooks


def test_one_provider_replaces_the_last_and_withdrawing_it_gives_the_previous_back():
    hook: hooks.Hook[str] = hooks.Hook("test greeting")
    assert hook.get() is None
    withdraw_a = hook.provide("a")
    withdraw_b = hook.provide("b")
    assert hook.get() == "b" and list(hook.all()) == ["b"]
    withdraw_b()
    assert hook.get() == "a"
    withdraw_a()
    assert hook.get() is None


def test_many_providers_are_all_told_and_a_broken_one_is_logged_not_raised(caplog):
    hook: hooks.Hook = hooks.Hook("test observer", many=True)
    seen: list[tuple] = []

    def broken(*_args):
        raise ValueError("a watcher's bug")

    hook.provide(seen.append)
    withdraw = hook.provide(broken)
    hook.provide(lambda *args: seen.append(("second", *args)))
    hook.notify("opened")
    assert seen == ["opened", ("second", "opened")]
    assert "a provider of the test observer hook failed" in caplog.text
    withdraw()
    assert broken not in hook.all()


def test_a_missing_provider_says_what_to_install():
    part = hooks.Part("test part", missing="install the test part with: pip install test-part")
    hook: hooks.Hook = hooks.Hook("test view", part=part)
    with pytest.raises(
        RuntimeError, match="^no test view is available: install the test part with: pip install"
    ):
        hook.require()


def test_a_part_is_imported_once_and_a_second_thread_waits_for_the_first():
    part = hooks.Part("test slow part", missing="")
    hook: hooks.Hook[str] = hooks.Hook("test slow view", part=part)
    loads: list[int] = []

    def slow_import():
        loads.append(1)
        hook.provide("early")  # provided while the rest of the part is still being imported
        time.sleep(0.3)
        hook.provide("complete")

    part.load_with(slow_import)
    got: list[str | None] = []
    threads = [threading.Thread(target=lambda: got.append(hook.get())) for _ in range(2)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(10)
    assert loads == [1] and got == ["complete", "complete"]


def test_importing_each_part_provides_every_hook_that_names_it():
    """In a fresh interpreter: ``import mcp_jupyter`` provides none of the parts' hooks and imports
    none of the parts; looking one hook up imports its part, which provides all of its hooks."""
    code = (
        "import sys\n"
        "import mcp_jupyter\n"
        "from mcp_jupyter import _hooks as hooks\n"
        "declared = [v for v in vars(hooks).values() if isinstance(v, hooks.Hook) and v.part is not None]\n"
        "print(sorted({h.part.name for h in declared}))\n"
        "print(any(h.get(load=False) is not None for h in declared),\n"
        "      [m for m in ('mcp_jupyter.widgets', 'mcp_jupyter.display', 'mcp_jupyter.testing') if m in sys.modules])\n"
        "for part in (hooks.UI, hooks.DISPLAY, hooks.TESTING):\n"
        "    part.load()\n"
        "print([h.name for h in declared if h.get(load=False) is None])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    parts, before, missing = out.stdout.splitlines()
    assert parts == str(sorted({hooks.UI.name, hooks.DISPLAY.name, hooks.TESTING.name}))
    assert before == "False []"
    assert missing == "[]"
