"""A Mastodon look-alike on 127.0.0.1 that answers a history pull the way a hostile
(or broken) instance could: it signs the account in as Mastodon does
(`verify_credentials`), then pages its statuses in one of these ways (`mode`):

- "endless": a full page every time, each with a new max_id: it never ends;
- "same": the same page whatever max_id asks (the cursor never moves);
- "huge": one answer of `huge_bytes` bytes (a JSON page padded with spaces), with
  its Content-Length or (`declare_length` false) without, the connection closing at
  its end;
- "slow": a page that trickles out one byte every `trickle_seconds`;
- "fine": two pages, then an empty one, as a real instance ends.

`fields` overrides fields of every status (a count of -5, a `javascript:` URL). It
counts the status pages asked (`pages`) and the bytes it sent (`sent`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

ACCOUNT = {
    "id": "1",
    "username": "hostile",
    "acct": "hostile",
    "display_name": "Hostile",
    "url": "http://127.0.0.1/@hostile",
    "created_at": "2020-01-01T00:00:00.000Z",
}
PAGE = 40  # Mastodon's page


@dataclass
class HostileMastodon:
    mode: str = "fine"
    huge_bytes: int = 40 * 1024 * 1024
    declare_length: bool = True
    fields: dict[str, Any] = field(default_factory=dict)
    trickle_seconds: float = 0.2
    pages: int = 0
    sent: int = 0
    base_url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def statuses(self, max_id: str | None) -> list[dict[str, Any]]:
        top = int(max_id) - 1 if max_id and self.mode != "same" else 10**9
        if self.mode == "fine" and self.pages > 2:
            return []
        return [{**_status(top - n), **self.fields} for n in range(PAGE)]


def _status(number: int) -> dict[str, Any]:
    return {
        "id": str(number),
        "created_at": "2026-11-01T12:00:00.000Z",
        "content": f"<p>Status {number}</p>",
        "spoiler_text": "",
        "url": f"http://127.0.0.1/@hostile/{number}",
        "uri": f"http://127.0.0.1/users/hostile/statuses/{number}",
        "visibility": "public",
        "reblog": None,
        "favourites_count": 1,
        "reblogs_count": 0,
        "replies_count": 0,
        "account": ACCOUNT,
    }


def _handler(server: HostileMastodon) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/api/v1/accounts/verify_credentials":
                self._json(ACCOUNT)
            elif parts.path.startswith("/api/v1/accounts/1/statuses"):
                with server.lock:
                    server.pages += 1
                max_id = parse_qs(parts.query).get("max_id", [None])[0]
                self._page(server.statuses(max_id))
            elif parts.path.startswith("/api/v1/statuses/"):  # one status: metrics
                self._page(_status(int(parts.path.rsplit("/", 1)[-1])))
            elif parts.path in ("/api/v2/instance", "/api/v1/instance"):
                self._json({"uri": "127.0.0.1", "title": "hostile", "version": "4.3.0"})
            else:
                self._json({"error": "Record not found"}, status=404)

        def _page(self, statuses: list[dict[str, Any]] | dict[str, Any]) -> None:
            body = json.dumps(statuses).encode()
            if server.mode == "huge":
                self._huge(body)
                return
            if server.mode == "slow":
                self._headers(len(body))
                for byte in body:
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return  # the client gave up: as it should
                    server.sent += 1
                    time.sleep(server.trickle_seconds)
                return
            self._headers(len(body))
            try:
                self.wfile.write(body)
            except OSError:
                return
            server.sent += len(body)

        def _huge(self, page: bytes) -> None:
            self._headers(server.huge_bytes if server.declare_length else None)
            padding = b" " * (1024 * 1024)
            try:
                self.wfile.write(page[:-1])
                server.sent += len(page) - 1
                while server.sent < server.huge_bytes - len(padding):
                    self.wfile.write(padding)
                    server.sent += len(padding)
                self.wfile.write(b"]")
            except OSError:
                return  # refused part way: as it should be
            self.close_connection = True

        def _json(self, data: Any, status: int = 200) -> None:
            body = json.dumps(data).encode()
            self._headers(len(body), status)
            self.wfile.write(body)

        def _headers(self, length: int | None, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if length is None:  # the body ends when the connection does
                self.send_header("Connection", "close")
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(length))
            self.end_headers()

    return Handler


@contextmanager
def hostile_mastodon(mode: str = "fine", **options: Any) -> Iterator[HostileMastodon]:
    state = HostileMastodon(mode=mode, **options)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
