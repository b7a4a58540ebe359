"""Broken HTTP endpoints for ``mj.doctor``'s catalogue, on 127.0.0.1 (standard library only).

Usage: python doctor_http.py MODE PORT [DEAD_PORT]

- ``404``         answers 404 to everything
- ``405``         answers 405 to POST (and 404 to GET): not a Streamable HTTP endpoint
- ``500``         answers 500 with a body that says what broke
- ``401-bare``    answers 401 with ``WWW-Authenticate: Bearer`` and publishes no OAuth metadata
- ``401-as-down`` answers 401 naming its protected-resource metadata, which names an authorization
                  server on DEAD_PORT, where nothing listens
- ``tls``         serves ``404`` over HTTPS with a self-signed certificate for 127.0.0.1; prints
                  ``{"cert": PATH}`` on its first stdout line (the certificate, to trust it)
"""

from __future__ import annotations

import http.server
import json
import sys


def make_handler(mode: str, port: int, dead_port: int) -> type:
    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(
            self, status: int, body: bytes = b"", kind: str = "text/plain", headers: dict | None = None
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if mode == "405":
                self.reply(405, b"Method Not Allowed", headers={"Allow": "GET"})
            elif mode == "500":
                self.reply(500, b"Internal Server Error: KeyError 'TENANT' in handler")
            elif mode == "401-bare":
                self.reply(401, b"Unauthorized", headers={"WWW-Authenticate": 'Bearer realm="mcp"'})
            elif mode == "401-as-down":
                metadata = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
                header = f'Bearer resource_metadata="{metadata}"'
                self.reply(401, b"Unauthorized", headers={"WWW-Authenticate": header})
            else:
                self.reply(404, b"Not Found")

        def do_GET(self) -> None:  # noqa: N802
            if mode == "401-as-down" and self.path.startswith("/.well-known/oauth-protected-resource"):
                body = json.dumps(
                    {
                        "resource": f"http://127.0.0.1:{port}/mcp",
                        "authorization_servers": [f"http://127.0.0.1:{dead_port}"],
                    }
                ).encode()
                self.reply(200, body, "application/json")
            else:
                self.reply(404, b"Not Found")

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def self_signed(folder: str) -> tuple[str, str]:
    """A certificate for 127.0.0.1 signed by its own key: (cert path, key path)."""
    import datetime
    import ipaddress
    import os

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "doctor-test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return cert_path, key_path


def main() -> None:
    mode, port = sys.argv[1], int(sys.argv[2])
    dead_port = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(mode, port, dead_port))
    if mode == "tls":
        import ssl
        import tempfile

        cert, key = self_signed(tempfile.mkdtemp(prefix="doctor-tls-"))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(json.dumps({"cert": cert}), flush=True)
    else:
        print(json.dumps({"port": port}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
