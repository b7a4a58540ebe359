"""The demo server over the legacy HTTP+SSE transport (protocol 2024-11-05), for fallback tests.

Usage: python sse_demo.py PORT SSE_PATH
"""

import sys

import uvicorn

from mcp_jupyter.demo import create_server

port, sse_path = int(sys.argv[1]), sys.argv[2]
app = create_server().sse_app(sse_path=sse_path, message_path="/messages/")
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
