"""A real, tiny OpenAI-compatible chat-completions endpoint on 127.0.0.1, for sampling tests.

``POST /v1/chat/completions`` answers deterministically: ``"<model> says: "`` followed by the first
eight words of the last user message's last paragraph. ``GET /v1/models`` lists the models. Every
request body is kept in ``LLMEndpoint.requests`` (the Authorization header too, to prove the key was
sent), so tests can assert what the client sent.

    with LLMEndpoint() as llm:             # in a test
        mj.consent.openai("tiny-model", base_url=llm.base_url)

    python tests/llm_endpoint.py 8765      # standalone, for a notebook or the browser tests
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODELS = ("tiny-model", "tiny-model-large")


def reply_text(model: str, messages: list[dict[str, Any]]) -> str:
    """The deterministic answer for these chat messages."""
    users = [m for m in messages if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    if isinstance(content, list):
        content = " ".join(part.get("text", f"[{part.get('type')}]") for part in content)
    last_paragraph = str(content).strip().split("\n\n")[-1]
    return f"{model} says: " + " ".join(last_paragraph.split()[:8])


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet: tests read .requests instead
        pass

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._send(
                200,
                {
                    "object": "list",
                    "data": [{"id": m, "object": "model", "owned_by": "test"} for m in MODELS],
                },
            )
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.server.requests.append({"body": body, "authorization": self.headers.get("Authorization")})
        model = body.get("model") or MODELS[0]
        text = reply_text(model, body.get("messages") or [])
        words = len(text.split())
        self._send(
            200,
            {
                "id": f"chatcmpl-{len(self.server.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": words, "total_tokens": 10 + words},
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[dict[str, Any]]


class LLMEndpoint:
    """The endpoint, served from a background thread; ``base_url`` ends with ``/v1``."""

    def __init__(self, port: int = 0) -> None:
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.requests = []
        self._thread = threading.Thread(target=self._server.serve_forever, name="llm-endpoint", daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, what ``openai(base_url=...)`` wants."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every chat-completions request received: ``{"body": ..., "authorization": ...}``."""
        return self._server.requests

    def start(self) -> LLMEndpoint:
        """Start serving (returns self)."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LLMEndpoint:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


if __name__ == "__main__":
    endpoint = LLMEndpoint(int(sys.argv[1]) if len(sys.argv) > 1 else 0).start()
    print(endpoint.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        endpoint.stop()
