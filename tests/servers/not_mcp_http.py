"""A plain HTTP server that is not an MCP endpoint (answers 404 to everything)."""

import http.server
import sys


class NotFound(http.server.BaseHTTPRequestHandler):
    def _reply(self) -> None:
        self.send_response(404)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"no MCP here")

    do_GET = do_POST = do_DELETE = _reply

    def log_message(self, *args) -> None:
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), NotFound).serve_forever()
