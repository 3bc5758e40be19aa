"""Loopback servers for the publishing guard tests (tests/test_publish_guard.py).

`Internal` plays an internal service (cloud metadata, an admin API): it records every
request that reaches it (so a test can say it was never reached and never received a
credential) and answers with text that must never appear in anything socialgen says.
`Redirector` plays a network's server that has started answering 307 to it.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

INTERNAL_TEXT = "INTERNAL-METADATA-7f3a9c"  # what the internal service would give away


@dataclass
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Internal:
    url: str = ""
    hits: list[Hit] = field(default_factory=list)
    # What it answers: status and JSON body (an XRPC-shaped error by default).
    status: int = 400
    answer: dict[str, Any] = field(
        default_factory=lambda: {"error": "InternalOnly", "message": INTERNAL_TEXT}
    )

    def received(self, secret: str) -> bool:
        """Whether `secret` reached this server anywhere in a request."""
        return any(
            secret in hit.path
            or secret in hit.body.decode(errors="replace")
            or any(secret in value for value in hit.headers.values())
            for hit in self.hits
        )


@dataclass
class Redirector:
    url: str = ""
    hits: list[Hit] = field(default_factory=list)
    status: int = 307
    target: str = ""  # where it sends every request (the same path under it)


def _handler(record: list[Hit], respond: Any) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            record.append(Hit(self.command, self.path, dict(self.headers.items()), body))
            status, headers, payload = respond(self.path)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = _serve

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def _serve(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(name="internal")
def internal_fixture() -> Iterator[Internal]:
    found = Internal()

    def respond(path: str) -> tuple[int, dict[str, str], bytes]:
        payload = json.dumps(found.answer).encode()
        return found.status, {"Content-Type": "application/json"}, payload

    for url in _serve(_handler(found.hits, respond)):
        found.url = url
        yield found


@pytest.fixture(name="redirector")
def redirector_fixture(internal: Internal) -> Iterator[Redirector]:
    found = Redirector(target=internal.url)

    def respond(path: str) -> tuple[int, dict[str, str], bytes]:
        headers = {"Location": found.target + path, "Content-Type": "text/plain"}
        return found.status, headers, b"moved"

    for url in _serve(_handler(found.hits, respond)):
        found.url = url
        yield found


def self_signed(directory: Any, name: str) -> tuple[str, str]:
    """A test CA and a certificate it signed for `name`, as files: (CA path, server
    chain path); the chain file holds the key too."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def certificate(subject: str, key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if ca:
            usage = x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False,
            )  # fmt: skip
            builder = builder.add_extension(usage, critical=True)
        else:
            names = x509.SubjectAlternativeName([x509.DNSName(subject)])
            builder = builder.add_extension(names, critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key, server_key = (
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP256R1()),
    )
    ca = certificate("socialgen test CA", ca_key, "socialgen test CA", ca_key, True)
    server = certificate(name, server_key, "socialgen test CA", ca_key, False)
    pem = serialization.Encoding.PEM
    ca_path, chain_path = f"{directory}/ca.pem", f"{directory}/server.pem"
    with open(ca_path, "wb") as out:
        out.write(ca.public_bytes(pem))
    with open(chain_path, "wb") as out:
        out.write(server.public_bytes(pem))
        out.write(
            server_key.private_bytes(
                pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return ca_path, chain_path


def serve_tls(hits: list[Hit], chain: str) -> Iterator[str]:
    """An HTTPS server on 127.0.0.1 answering 200 "ok"; yields its port."""
    import ssl

    def respond(path: str) -> tuple[int, dict[str, str], bytes]:
        return 200, {"Content-Type": "text/plain"}, b"ok"

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(hits, respond))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield str(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
