"""Where sign-ins are kept: one JSON file only the user can read, records per server URL and issuer.

The file (``tokens.json`` under ``<jupyter data dir>/mcp_jupyter/auth/``; directory 0700, file 0600)
holds, per MCP server URL, the authorization server's issuer, the tokens and the client
registration the SDK made (dynamic registration or a Client ID Metadata Document), and for a
DPoP-bound token the private key it is bound to (``dpop_key``, PEM: the token is useless without
it, and a kernel restart should not mean signing in again). A secret the
user passed (``OAuth(client_secret=...)``) is never written: it is supplied again on each connect.
Writes are atomic (a 0600 temporary file renamed over the old one) and serialized between kernels
with a lock file, so two notebooks signing in at once do not lose each other's records.

:class:`ServerTokens` is the SDK's ``TokenStorage`` protocol for one server URL; the SDK's OAuth
providers read and write through it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    from ._dpop import DPoPState

__all__ = ["TokenStore", "ServerTokens", "MemoryTokens", "default_store", "store_dir"]

EXPIRY_MARGIN = 30  # seconds: a token this close to expiry is refreshed before use, not after a 401
_LOCAL_LOCK = threading.Lock()


def store_dir() -> Path:
    """The directory of the token file: ``<jupyter data dir>/mcp_jupyter/auth``."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "mcp_jupyter" / "auth"


class TokenStore:
    """The token file: records by server URL (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else store_dir()

    @property
    def path(self) -> Path:
        """The token file (created 0600 on first write)."""
        return self.directory / "tokens.json"

    def __repr__(self) -> str:
        return f"TokenStore({str(self.path)!r})"

    # -- records -----------------------------------------------------------------------------
    def records(self) -> dict[str, dict[str, Any]]:
        """Every stored record, server URL -> record (a copy; contains secrets: do not display)."""
        with self._locked():
            return self._read()

    def get(self, url: str) -> dict[str, Any] | None:
        """The record of ``url``, or None."""
        return self.records().get(url)

    def update(self, url: str, **fields: Any) -> None:
        """Merge ``fields`` into the record of ``url`` (a None value removes the field)."""
        with self._locked():
            data = self._read()
            record = dict(data.get(url) or {})
            for key, value in fields.items():
                if value is None:
                    record.pop(key, None)
                else:
                    record[key] = value
            data[url] = record
            self._write(data)

    def remove(self, url: str) -> bool:
        """Forget ``url`` (tokens and registration); True when there was a record."""
        with self._locked():
            data = self._read()
            found = data.pop(url, None) is not None
            if found:
                self._write(data)
            return found

    # -- file handling -----------------------------------------------------------------------
    def _ensure_dir(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(OSError):  # e.g. a directory owned by someone else: the write will say
            os.chmod(self.directory, 0o700)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with _LOCAL_LOCK:
            self._ensure_dir()
            try:
                import fcntl
            except ImportError:  # Windows: the thread lock is all there is
                yield
                return
            fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
        except ValueError:
            return {}  # a damaged file means signing in again, not a traceback
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, dict[str, Any]]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".tokens-", suffix=".json", dir=self.directory)
        try:
            os.fchmod(fd, 0o600) if hasattr(os, "fchmod") else None
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


_DEFAULT: TokenStore | None = None


def default_store() -> TokenStore:
    """The token store of this user (under the Jupyter data directory; re-read each time it is made)."""
    global _DEFAULT
    directory = store_dir()
    if _DEFAULT is None or _DEFAULT.directory != directory:  # JUPYTER_DATA_DIR may change (tests)
        _DEFAULT = TokenStore(directory)
    return _DEFAULT


def _remaining(token: dict[str, Any], obtained_at: float | None) -> dict[str, Any]:
    """The token with ``expires_in`` counted from now (the SDK counts it from when it reads it)."""
    expires_in = token.get("expires_in")
    if expires_in is None or obtained_at is None:
        return token
    left = int(expires_in) - int(time.time() - obtained_at) - EXPIRY_MARGIN
    return {**token, "expires_in": left}


class ServerTokens:
    """The SDK ``TokenStorage`` for one server URL, backed by a :class:`TokenStore`.

    ``client`` is a registration the user supplied (pre-registered client id/secret): it is
    returned as the client information and never written to the file.
    """

    def __init__(
        self,
        store: TokenStore,
        url: str,
        *,
        client: OAuthClientInformationFull | None = None,
        redirect_uri: str | None = None,
        dpop: DPoPState | None = None,
    ):
        self.store, self.url, self.client = store, url, client
        self.redirect_uri = redirect_uri
        self.dpop = dpop  # the connection's DPoPState: gets the key of a stored DPoP-bound token

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens of this server (``expires_in`` relative to now), or None. A DPoP-bound
        token comes with its key; with DPoP off it cannot be used, so it counts as none."""
        from mcp.shared.auth import OAuthToken

        record = self.store.get(self.url) or {}
        token = record.get("tokens")
        if not token:
            return None
        if record.get("dpop_key"):
            if self.dpop is None or self.dpop.mode is False:
                return None
            self.dpop.adopt(record["dpop_key"], token.get("access_token", ""))
        return OAuthToken.model_validate(_remaining(token, record.get("obtained_at")))

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens (after sign-in or refresh), with the DPoP key when they are bound to it."""
        dpop = self.dpop
        key = dpop.key if dpop is not None and dpop.bound == tokens.access_token else None
        self.store.update(
            self.url,
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            obtained_at=time.time(),
            dpop_key=key.to_pem() if key is not None else None,
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The client registration: the user's own, else a stored one still valid for this redirect URI."""
        from mcp.shared.auth import OAuthClientInformationFull

        if self.client is not None:
            return self.client
        stored = (self.store.get(self.url) or {}).get("client")
        if not stored:
            return None
        info = OAuthClientInformationFull.model_validate(stored)
        uris = [str(u) for u in info.redirect_uris or []]
        if (
            self.redirect_uri
            and uris
            and self.redirect_uri not in uris
            and not _loopback_match(uris, self.redirect_uri)
        ):
            return None  # registered for another redirect (e.g. the Jupyter route): register again
        return info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store the registration the SDK made (dynamic registration or CIMD)."""
        data = client_info.model_dump(mode="json", exclude_none=True)
        self.store.update(self.url, client=data, issuer=data.get("issuer"))


class MemoryTokens:
    """An in-memory ``TokenStorage`` (``OAuth(store=False)``): nothing outlives the connection."""

    def __init__(self, *, client: OAuthClientInformationFull | None = None) -> None:
        self.tokens: OAuthToken | None = None
        self.client = client
        self.redirect_uri: str | None = None

    async def get_tokens(self) -> OAuthToken | None:
        """The tokens of this connection, or None."""
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Keep new tokens."""
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The registration of this connection, or None."""
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Keep the registration."""
        self.client = client_info


def _loopback_match(registered: list[str], wanted: str) -> bool:
    """RFC 8252 §7.3: a loopback redirect URI matches whatever the port."""
    want = urlsplit(wanted)
    if want.hostname not in ("127.0.0.1", "localhost", "::1"):
        return False
    for uri in registered:
        got = urlsplit(uri)
        if (got.scheme, got.hostname, got.path) == (want.scheme, want.hostname, want.path):
            return True
    return False
