"""A demo MCP Registry on 127.0.0.1: real ``server.json`` entries behind the registry's REST API (v0.1).

    python -m mcp_jupyter.demo.registry_server [--port 8790] [--page-size 30]

or from Python (what the tutorials and tests do)::

    from mcp_jupyter.demo.registry_server import start
    demo = start()                       # a free port; demo.url, demo.requests, demo.stop()
    mj.registry.url = demo.url

It serves what the official registry serves, for the entries in ``registry_entries/`` (their
sources are in that folder's README):

- ``GET /v0.1/servers?search=&limit=&cursor=&version=latest&updated_since=``: ``{"servers":
  [{"server": ..., "_meta": ...}], "metadata": {"nextCursor", "count"}}``, pages of ``limit`` servers
  (at most the page size, as the official registry serves at most 100), ``search`` a case-insensitive
  substring of the name;
- ``GET /v0.1/servers/{name}/versions/{version|latest}`` (the name URL-encoded) and
  ``GET /v0.1/servers/{name}/versions``; ``GET /v0.1/health``.

``extra`` entries (``server.json`` objects) are published too, e.g. one whose remote is a local
server. The demo imports nothing of mcp_jupyter: it is what a registry is, not how the client reads it.
"""

from __future__ import annotations

import argparse
import base64
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["start", "load_entries", "RunningRegistry", "main"]

ENTRIES = Path(__file__).with_name("registry_entries")
OFFICIAL = "io.modelcontextprotocol.registry/official"


def load_entries(folder: Path = ENTRIES) -> list[dict[str, Any]]:
    """The registry's items (``{"server": ..., "_meta": ...}``) for the entries in ``folder``'s
    ``index.json``: each ``server.json`` as published, at its ``publish_as`` version."""
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    items = []
    for record in index["entries"]:
        server = json.loads((folder / record["file"]).read_text(encoding="utf-8"))
        if record.get("publish_as"):
            server = _published_as(server, record["publish_as"])
        items.append(
            _item(server, record.get("published", "2025-12-11T00:00:00Z"), record.get("latest", True))
        )
    return items


def _published_as(server: dict[str, Any], version: str) -> dict[str, Any]:
    """The entry at the released ``version``: the server's and its packages' placeholder version."""
    placeholder = server.get("version")
    server = {**server, "version": version}
    server["packages"] = [
        {**p, "version": version} if p.get("version") == placeholder else p
        for p in server.get("packages", [])
    ]
    return server


def _item(server: dict[str, Any], published: str, latest: bool = True) -> dict[str, Any]:
    return {
        "server": server,
        "_meta": {
            OFFICIAL: {
                "status": "active",
                "publishedAt": published,
                "updatedAt": published,
                "isLatest": latest,
            }
        },
    }


@dataclass
class RunningRegistry:
    """The demo registry serving on a background thread: ``url``, the ``requests`` it answered (path
    and query), ``stop()`` (or leave a ``with`` block)."""

    url: str
    items: list[dict[str, Any]]
    page_size: int
    requests: list[str] = field(default_factory=list)
    _server: Any = None
    _thread: threading.Thread | None = None

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def __enter__(self) -> RunningRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the API ---------------------------------------------------------------------------
    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        """(status, JSON) for a GET of ``path``."""
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts[:2] != ["v0.1", "servers"] and parts != ["v0.1", "health"]:
            return 404, {"error": "Not found"}
        if parts == ["v0.1", "health"]:
            return 200, {"status": "ok"}
        if len(parts) == 2:
            return 200, self.listing(query)
        name, rest = _name_and_rest(parts[2:])
        versions = [i for i in self.items if i["server"].get("name") == name]
        if not versions or rest[:1] != ["versions"]:
            return 404, {"error": "Server not found"}
        if len(rest) == 1:
            return 200, {"servers": versions, "metadata": {"count": len(versions)}}
        wanted = rest[1]
        for item in versions:
            official = item["_meta"][OFFICIAL]
            if (wanted == "latest" and official["isLatest"]) or item["server"].get("version") == wanted:
                return 200, item
        return 404, {"error": "Server not found"}

    def listing(self, query: dict[str, list[str]]) -> dict[str, Any]:
        """One page of ``GET /v0.1/servers``."""
        search = (query.get("search") or [""])[0].lower()
        version = (query.get("version") or [""])[0]
        since = (query.get("updated_since") or [""])[0]
        limit = max(1, min(int((query.get("limit") or [str(self.page_size)])[0]), self.page_size))
        chosen = [
            i
            for i in self.items
            if search in i["server"].get("name", "").lower()
            and (not version or _version_matches(i, version))
            and (not since or i["_meta"][OFFICIAL]["updatedAt"] >= since)
        ]
        chosen.sort(key=lambda i: (i["server"].get("name", ""), i["server"].get("version", "")))
        start = _decode((query.get("cursor") or [""])[0])
        page = chosen[start : start + limit]
        metadata: dict[str, Any] = {"count": len(page)}
        if start + limit < len(chosen):
            metadata["nextCursor"] = _encode(start + limit)
        return {"servers": page, "metadata": metadata}


def _name_and_rest(parts: list[str]) -> tuple[str, list[str]]:
    """A server name is ``namespace/name``: encoded it is one segment, decoded by a proxy it is two."""
    if len(parts) >= 2 and "/" in parts[0]:
        return parts[0], parts[1:]
    if len(parts) >= 3 and parts[1] != "versions":
        return f"{parts[0]}/{parts[1]}", parts[2:]
    return parts[0] if parts else "", parts[1:]


def _version_matches(item: dict[str, Any], version: str) -> bool:
    if version == "latest":
        return bool(item["_meta"][OFFICIAL]["isLatest"])
    return item["server"].get("version") == version


def _encode(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _decode(cursor: str) -> int:
    try:
        return int(base64.urlsafe_b64decode(cursor.encode()).decode().split(":", 1)[1])
    except (ValueError, IndexError):
        return 0


def start(
    port: int = 0, *, page_size: int = 30, extra: Iterable[dict[str, Any]] = (), entries: Path = ENTRIES
) -> RunningRegistry:
    """Start the demo registry on 127.0.0.1 (port 0: a free one) in a background thread.

    ``page_size``: the most servers one page holds (the official registry's is 100). ``extra``: more
    ``server.json`` objects to publish (the latest of their name)."""
    items = load_entries(entries) + [_item(server, "2026-11-01T00:00:00Z") for server in extra]
    registry = RunningRegistry("", items, page_size)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            parts = urlsplit(self.path)
            registry.requests.append(self.path)
            status, body = registry.answer(parts.path, parse_qs(parts.query))
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    registry.url = f"http://127.0.0.1:{server.server_address[1]}"
    registry._server = server
    registry._thread = threading.Thread(target=server.serve_forever, name="demo-registry", daemon=True)
    registry._thread.start()
    return registry


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted; the first line on stdout is ``{"url": ...}``."""
    parser = argparse.ArgumentParser(
        prog="python -m mcp_jupyter.demo.registry_server",
        description="Serve the demo MCP Registry (real server.json entries) on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument(
        "--page-size", type=int, default=30, help="the most servers a page holds (default 30)"
    )
    args = parser.parse_args(argv)
    registry = start(args.port, page_size=args.page_size)
    print(json.dumps({"url": registry.url}), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        registry.stop()


if __name__ == "__main__":
    main()
