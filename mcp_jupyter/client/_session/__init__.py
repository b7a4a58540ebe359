"""The loop side of a connection: everything that runs on the runtime thread, one module per job.

- :mod:`.core`: :class:`Session`, composed of the parts below;
- :mod:`.startup`: the lifecycle: the owner task that enters and exits the SDK client, transports and fallback,
  OAuth sign-in, the roots wait, closing (and closing everything at exit);
- :mod:`.listings`: the listing caches and pagination;
- :mod:`.arguments`: the argument check before a tool call (a fast path for flat schemas);
- :mod:`.deadlines`: per-request timeouts and the mapping of SDK failures onto our exceptions;
- :mod:`.incoming`: notifications, logs, warnings;
- :mod:`.listen`: the 2026-07-28 ``subscriptions/listen`` stream;
- :mod:`.sdk_noise`: keeping the SDK's log records and deprecation warnings out of cells.
"""

from .arguments import quick_check
from .core import Session
from .deadlines import CONNECTION_DEFAULT, Deadline, MappedErrors
from .startup import adapt_callback

__all__ = [
    "CONNECTION_DEFAULT",
    "Deadline",
    "MappedErrors",
    "Session",
    "adapt_callback",
    "quick_check",
]
