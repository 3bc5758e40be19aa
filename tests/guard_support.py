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
