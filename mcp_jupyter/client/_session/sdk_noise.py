"""Keeping the SDK's own log records and deprecation warnings out of notebook cells."""

from __future__ import annotations

import logging
import warnings


def quiet_sdk() -> None:
    """Silence the SDK's logging and deprecation noise (idempotent; see the two helpers)."""
    _quiet_deprecations()
    _quiet_sdk_logging()


def _quiet_sdk_logging() -> None:
    """Keep the SDK's log records (e.g. a traceback per garbage line on stdout) out of notebook cells.

    With no handler anywhere, Python prints warnings to stderr, which a notebook shows under the
    cell. A NullHandler on the ``mcp`` logger stops that; what matters reaches ``conn.warnings``.
    A user who configures logging still gets the records through the root logger.
    """
    sdk_logger = logging.getLogger("mcp")
    if not any(isinstance(h, logging.NullHandler) for h in sdk_logger.handlers):
        sdk_logger.addHandler(logging.NullHandler())


def _quiet_deprecations() -> None:
    """The SDK flags ping/logging/subscribe as deprecated for 2026-07-28; our users need not see it.

    The warnings are attributed to our modules (the callers of the deprecated methods), so one
    module-scoped filter silences exactly them.
    """
    from mcp.shared.exceptions import MCPDeprecationWarning

    # Raised from our modules (we call a deprecated method) or from inside the SDK (it calls one
    # on our behalf); a user's own code calling the SDK directly still sees them.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning, module=r"(mcp_jupyter|mcp)(\.|$)")
