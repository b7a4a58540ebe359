"""Where task records of HTTP servers are kept, so a restarted kernel finds its tasks again.

One JSON file (``tasks.json`` under ``<jupyter data dir>/mcp_jupyter/tasks/``; directory 0700,
file 0600), records per server URL: task id -> tool, era, status, message, times, ttl, poll
interval and the arguments whose names do not look secret. Results are never written (the server
keeps them until the task's ``ttl`` ends: ``conn.task(id).result()`` fetches them). The file is
written like the token file (:mod:`.auth.store`): atomically, under a lock shared between kernels.
"""

from __future__ import annotations

import os
from pathlib import Path

from .auth._store import TokenStore

__all__ = ["TaskStore", "default_task_store", "task_store_dir"]


def task_store_dir() -> Path:
    """The directory of the task file: ``<jupyter data dir>/mcp_jupyter/tasks``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "mcp_jupyter" / "tasks"


class TaskStore(TokenStore):
    """The task file: ``{server URL: {task id: record}}`` (same file handling as the token store)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        super().__init__(directory if directory is not None else task_store_dir())

    @property
    def path(self) -> Path:
        """The task file (created 0600 on first write)."""
        return self.directory / "tasks.json"

    def __repr__(self) -> str:
        return f"TaskStore({str(self.path)!r})"


_DEFAULT: TaskStore | None = None


def default_task_store() -> TaskStore:
    """The task store of this user (follows ``JUPYTER_DATA_DIR`` when it changes, e.g. in tests)."""
    global _DEFAULT
    directory = task_store_dir()
    if _DEFAULT is None or _DEFAULT.directory != directory:
        _DEFAULT = TaskStore(directory)
    return _DEFAULT
