"""A fault proxy on 127.0.0.1 in front of a real server (mastodon-mock): it passes
every request through, except that for the requests `hang_on` picks it passes the
request on, so the server acts on it, and then never answers (until closed). That is
a network which took the post and went silent: what a client sees as a read timeout
after sending.

    with HangProxy(server.base_url, hang_on=("POST", "/api/v1/statuses")) as proxy:
        proxy.base_url                   http://127.0.0.1:PORT
        proxy.hung                       how many requests it sat on
        proxy.hang_on = None             pass everything through from now on
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import httpx

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class HangProxy:
    def __init__(self, upstream: str, *, hang_on: tuple[str, str] | None) -> None:
        self.upstream = upstream.rstrip("/")
        self.hang_on = hang_on
        self.hung = 0
        self._release = threading.Event()
        self._http = httpx.Client(timeout=10)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet test output
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                answer = proxy._http.request(
                    self.command, proxy.upstream + self.path, headers=headers, content=body
                )
                if proxy.hang_on == (self.command, self.path.split("?")[0]):
                    proxy.hung += 1
                    proxy._release.wait()  # the server acted; the client hears nothing
                    self.close_connection = True
                    return
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in HOP_BY_HOP | {"content-encoding"}:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HangProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._http.close()


class SilentServer:
    """Accepts connections on 127.0.0.1, reads what comes, and never answers: a
    network that took a request and went silent, without a real server behind."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:  # closed: the test is over
                return
            self._held.append(connection)

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._socket.close()
        for connection in self._held:
            connection.close()
