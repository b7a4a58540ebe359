"""A real, tiny OpenAI-compatible chat-completions endpoint on 127.0.0.1, for sampling tests.

``POST /v1/chat/completions`` answers deterministically: ``"<model> says: "`` followed by the first
eight words of the last user message's last paragraph. Given ``tools`` (and a ``tool_choice`` other
than ``"none"``) it answers with a call of the first tool instead, its required string arguments
filled with the last word of that message (``"... in Paris?"`` -> ``{"city": "Paris"}``), unless the
last message is a tool result, which it answers in text. ``POST /v1/messages`` does the same in the
Anthropic Messages format. ``GET /v1/models`` lists the models. Every request body is kept in
``LLMEndpoint.requests`` (the Authorization or x-api-key header too, to prove the key was sent), so
tests can assert what the client sent.

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
    """The deterministic answer for these chat messages (a tool result counts as the user's words)."""
    users = [m for m in messages if m.get("role") in ("user", "tool")]
    content = users[-1]["content"] if users else ""
    if isinstance(content, list):
        content = " ".join(
            part.get("text")
            or (part["content"] if isinstance(part.get("content"), str) else f"[{part.get('type')}]")
            for part in content
        )
    last_paragraph = str(content).strip().split("\n\n")[-1]
    return f"{model} says: " + " ".join(last_paragraph.split()[:8])


def tool_arguments(tool_schema: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The deterministic arguments of a tool call: each required string property gets the last word
    of the last user message (without punctuation)."""
    users = [m for m in messages if m.get("role") == "user"]
    content = users[-1].get("content", "") if users else ""
    if isinstance(content, list):
        content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    words = str(content).replace("?", " ").replace(".", " ").replace("!", " ").split()
    word = words[-1] if words else ""
    props = tool_schema.get("properties") or {}
    return {
        name: word
        for name in tool_schema.get("required") or []
        if (props.get(name) or {}).get("type", "string") == "string"
    }


def _last_is_tool_result(messages: list[dict[str, Any]]) -> bool:
    if not messages:
        return False
    last = messages[-1]
    if last.get("role") == "tool":
        return True
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") == "tool_result" for part in content
    )


def _wants_tool(body: dict[str, Any]) -> bool:
    choice = body.get("tool_choice")
    mode = choice.get("type") if isinstance(choice, dict) else choice
    return bool(body.get("tools")) and mode != "none" and not _last_is_tool_result(body.get("messages") or [])


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
        path = self.path.rstrip("/")
        if path not in ("/v1/chat/completions", "/v1/messages"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        key = self.headers.get("x-api-key") or self.headers.get("Authorization")
        self.server.requests.append({"body": body, "authorization": key, "path": path})
        model = body.get("model") or MODELS[0]
        messages = body.get("messages") or []
        if path == "/v1/messages":
            self._send(200, self._anthropic_reply(body, model, messages))
            return
        number = len(self.server.requests)
        if _wants_tool(body):
            function = body["tools"][0]["function"]
            arguments = tool_arguments(function.get("parameters") or {}, messages)
            call = {"id": f"call_{number}", "type": "function",
                    "function": {"name": function["name"], "arguments": json.dumps(arguments)}}  # fmt: skip
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish, words = "tool_calls", 5
        else:
            text = reply_text(model, messages)
            message, finish, words = {"role": "assistant", "content": text}, "stop", len(text.split())
        self._send(
            200,
            {
                "id": f"chatcmpl-{number}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": words, "total_tokens": 10 + words},
            },
        )

    def _anthropic_reply(
        self, body: dict[str, Any], model: str, messages: list[dict[str, Any]]
    ) -> dict[str, Any]:
        number = len(self.server.requests)
        if _wants_tool(body):
            tool = body["tools"][0]
            content: list[dict[str, Any]] = [
                {"type": "tool_use", "id": f"toolu_{number}", "name": tool["name"],
                 "input": tool_arguments(tool.get("input_schema") or {}, messages)}
            ]  # fmt: skip
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": reply_text(model, messages)}]
            stop = "end_turn"
        return {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }


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
