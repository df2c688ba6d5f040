"""Small local servers for the LLM connection's tests: hostile replies, TLS, redirects, Azure.

Each is a ThreadingHTTPServer on 127.0.0.1 with one handler function, ``handle(handler)``, that
writes whatever reply it likes (raw bytes included) and records the request it got.
"""
from __future__ import annotations

import datetime
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

CHAT_REPLY = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
              "choices": [{"index": 0, "message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}


class LocalServer:
    """A server whose every request goes to ``handle(handler)``; ``requests`` lists (method, path, headers)."""

    def __init__(self, handle: Callable[[BaseHTTPRequestHandler], None], *, tls: ssl.SSLContext | None = None):
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.body = self.rfile.read(length) if length else b""
                server.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                try:
                    handle(self)
                except OSError:  # the client hung up on a hostile reply: what it should do
                    self.close_connection = True

            do_GET = do_POST = _any

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def url(self, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}"

    def __enter__(self) -> "LocalServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def send_json(handler: BaseHTTPRequestHandler, payload: Any, status: int = 200,
              headers: dict[str, str] | None = None) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    for name, value in {
        "Content-Type": "application/json",
        "Content-Length": str(len(data)),
        **(headers or {}),
    }.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


# ---------------------------------------------------------------- hostile replies
def huge_body(handler: BaseHTTPRequestHandler) -> None:
    """A 1 GiB body, declared and sent as fast as the client reads it."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(1 << 30))
    handler.end_headers()
    block = b" " * (1 << 20)
    for _ in range(1 << 10):
        handler.wfile.write(block)


def endless_chunked(handler: BaseHTTPRequestHandler) -> None:
    """A chunked body that never ends."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    block = b" " * 65536
    while True:
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))


def drip(handler: BaseHTTPRequestHandler) -> None:
    """A valid reply sent one byte a second (each read gets data well within any read timeout)."""
    data = json.dumps(CHAT_REPLY).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.flush()
    for i in range(len(data)):
        handler.wfile.write(data[i:i + 1])
        handler.wfile.flush()
        time.sleep(1.0)


def lying_length(handler: BaseHTTPRequestHandler) -> None:
    """Declares a 10 kB body, sends its first bytes, then keeps the connection open without a word."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", "10000")
    handler.end_headers()
    handler.wfile.write(b'{"choices": [')
    handler.wfile.flush()
    time.sleep(20)  # far past the deadline of the tests


def chat_ok(handler: BaseHTTPRequestHandler) -> None:
    send_json(handler, CHAT_REPLY if handler.command == "POST" else {"object": "list", "data": [{"id": "m"}]})


# ---------------------------------------------------------------- TLS
def self_signed(folder: Path) -> tuple[Path, Path, Path]:
    """A CA and a certificate it signed for 127.0.0.1 / localhost: ``(ca.pem, cert.pem, key.pem)`` in ``folder``."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rageval test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


def server_tls(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context
