"""The MCP handshake as the client's ``mode="auto"`` does it, spoken by hand so every answer can be shown.

First ``server/discover`` at the newest modern version (2026-07-28); a server that answers it with a
version this client speaks is modern. Anything else (an error, no answer within the SDK's probe
time, only handshake-era versions) falls back to ``initialize`` at the newest handshake version, and
the server's choice must be one this client speaks. :func:`negotiate` records each offer and answer
so the report says which versions were offered and accepted, and how the era was chosen.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from .._protocol import json_object

__all__ = ["Handshake", "Ended", "negotiate", "discover_request", "initialize_request", "DISCOVER_WAIT"]

DISCOVER_WAIT = 10.0
"""Seconds to wait for an answer to ``server/discover`` before falling back (the SDK's probe time)."""

METHOD_NOT_FOUND = -32601
UNSUPPORTED_PROTOCOL_VERSION = -32022


class Ended(Exception):
    """The server went away (its process exited, its stdout closed) before answering."""


def _versions() -> tuple[tuple[str, ...], tuple[str, ...]]:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

    return tuple(HANDSHAKE_PROTOCOL_VERSIONS), tuple(MODERN_PROTOCOL_VERSIONS)


def _client_info() -> dict[str, str]:
    from .._version import __version__

    return {"name": "mcp-jupyter-doctor", "version": __version__}


def discover_request(request_id: int, version: str) -> dict[str, Any]:
    """A ``server/discover`` request at ``version`` (the 2026-07-28 era's first message)."""
    from mcp_types import CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY

    meta = {
        PROTOCOL_VERSION_META_KEY: version,
        CLIENT_INFO_META_KEY: _client_info(),
        CLIENT_CAPABILITIES_META_KEY: {},
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": "server/discover", "params": {"_meta": meta}}


def initialize_request(request_id: int, version: str) -> dict[str, Any]:
    """An ``initialize`` request offering ``version``."""
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": _client_info()}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


@dataclass
class Handshake:
    """How the handshake went: the ``era`` chosen (``modern``/``handshake``), the ``version``
    accepted, the ``server`` (name and version it gave), each offer and answer in ``notes``, and a
    ``problem`` (with ``advice``) when it failed."""

    era: str = ""
    version: str = ""
    server: str = ""
    notes: list[str] = field(default_factory=list)
    problem: str = ""
    advice: str = ""
    result: dict = field(default_factory=dict)

    @property
    def detail(self) -> str:
        """The offers and answers, then the outcome."""
        text = "; ".join(self.notes)
        if self.problem:
            return f"{text}; {self.problem}" if text else self.problem
        outcome = f"{self.era} era, protocol {self.version}" + (f" ({self.server})" if self.server else "")
        return f"{text} → {outcome}" if text else outcome


Send = Callable[[dict[str, Any], float], Awaitable[dict[str, Any] | None]]


async def negotiate(send: Send, seconds: float) -> Handshake:
    """Run the handshake over ``send(message, timeout) -> answer | None`` within ``seconds``.

    ``send`` returns the JSON-RPC answer to the message, None when none came in time, and raises
    :class:`Ended` when the server went away."""
    handshake_versions, modern_versions = _versions()
    outcome = Handshake()
    deadline = time.monotonic() + seconds
    modern = modern_versions[-1]
    answer = await send(discover_request(1, modern), min(DISCOVER_WAIT, _left(deadline)))
    if answer is None:
        outcome.notes.append(
            f"server/discover ({modern}): no answer within {min(DISCOVER_WAIT, seconds):g} s"
        )
    elif "result" in answer:
        if _adopt_discover(answer["result"], outcome, modern, modern_versions):
            return outcome
    else:
        code, message, data = _error(answer)
        outcome.notes.append(f"server/discover ({modern}): {_said(code, message)}")
        supported = _supported(data) if code == UNSUPPORTED_PROTOCOL_VERSION else None
        if supported is not None and not any(v in handshake_versions + modern_versions for v in supported):
            return _wrong(outcome, supported, handshake_versions + modern_versions)
    if _left(deadline) <= 0:
        outcome.problem = f"it answered nothing in {seconds:g} s: it hangs before the handshake"
        outcome.advice = _hang_advice()
        return outcome
    offered = handshake_versions[-1]
    answer = await send(initialize_request(2, offered), _left(deadline))
    if answer is None:
        outcome.notes.append(f"initialize ({offered}): no answer")
        outcome.problem = f"it answered neither server/discover nor initialize in {seconds:g} s: it hangs before the handshake"
        outcome.advice = _hang_advice()
        return outcome
    if "result" not in answer:
        code, message, data = _error(answer)
        outcome.notes.append(f"initialize ({offered}): {_said(code, message)}")
        supported = _supported(data) if code == UNSUPPORTED_PROTOCOL_VERSION else None
        if supported is not None:
            return _wrong(outcome, supported, handshake_versions + modern_versions)
        outcome.problem = f"the server refused initialize: {_said(code, message)}"
        outcome.advice = "this is the server's own error: its stderr (or log) says why"
        return outcome
    result = answer["result"] if isinstance(answer["result"], dict) else {}
    chosen = str(result.get("protocolVersion", ""))
    outcome.result = result
    outcome.server = _server_name(result.get("serverInfo"))
    outcome.notes.append(f"initialize offered {offered}, the server chose {chosen or '(none)'}")
    if chosen not in handshake_versions:
        return _wrong(outcome, [chosen], handshake_versions + modern_versions)
    outcome.era, outcome.version = "handshake", chosen
    return outcome


def _adopt_discover(result: Any, outcome: Handshake, offered: str, modern_versions: tuple[str, ...]) -> bool:
    """A discover result: modern when it names a modern version this client speaks."""
    result = result if isinstance(result, dict) else {}
    supported = [str(v) for v in result.get("supportedVersions") or []]
    mutual = [v for v in modern_versions if v in supported]
    outcome.notes.append(f"server/discover ({offered}): supports {', '.join(supported) or 'nothing named'}")
    if not mutual:
        outcome.notes[-1] += " (no modern version: falls back to initialize)"
        return False
    from mcp_types import SERVER_INFO_META_KEY

    meta = json_object(result.get("_meta"))
    outcome.era, outcome.version = "modern", mutual[-1]
    outcome.server = _server_name(meta.get(SERVER_INFO_META_KEY) or result.get("serverInfo"))
    outcome.result = result
    return True


def _wrong(outcome: Handshake, theirs: list[str], ours: tuple[str, ...]) -> Handshake:
    outcome.problem = (
        f"the server speaks protocol {', '.join(theirs) or '(none)'}, which this client does not "
        f"(it speaks {', '.join(ours)})"
    )
    outcome.advice = (
        "update the server's MCP SDK to a released protocol version (or use a client that speaks its version)"
    )
    return outcome


def _hang_advice() -> str:
    return (
        "the server started but never answered: it may wait for something (a database, a prompt on its "
        "stdin, a license), or read its input differently; run it in a terminal and watch its stderr"
    )


def _error(answer: dict[str, Any]) -> tuple[int | None, str, Any]:
    error = json_object(answer.get("error"))
    code = error.get("code")
    return (code if isinstance(code, int) else None), str(error.get("message", "")), error.get("data")


def _said(code: int | None, message: str) -> str:
    if code == METHOD_NOT_FOUND:
        return "method not found (a handshake-era server)"
    return f"error {code}: {message}" if code is not None else f"error: {message or 'no message'}"


def _supported(data: Any) -> list[str] | None:
    if isinstance(data, dict) and isinstance(data.get("supported"), list):
        return [str(v) for v in data["supported"]]
    return None


def _server_name(info: Any) -> str:
    if not isinstance(info, dict):
        return ""
    return " ".join(str(info[k]) for k in ("name", "version") if info.get(k))


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())
