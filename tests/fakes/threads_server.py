"""A fake Threads Graph API for tests: a real HTTP server on 127.0.0.1, in a thread.

Meta offers no sandbox, so this is written from Meta's Threads API reference, and is
strict where a client can get it wrong (threads_routes.py has the routes):

- the API lives under /v1.0; a call without a valid token (Authorization: Bearer, or
  the access_token parameter) answers code 190, a call the token lacks the
  permission for code 10, both as Meta's error object, HTTP 400;
- POST /{user-id}/threads makes a container (TEXT with text; a reply with
  reply_to_id, which needs threads_manage_replies); unknown parameters, a text over
  500 characters (an emoji counted as its UTF-8 bytes) or with more than 5 links
  are refused; a container says IN_PROGRESS for `container_polls` reads of its
  status, then FINISHED;
- an IMAGE container's image_url is FETCHED by the fake (an HTTP GET from this
  process, as Meta's servers fetch it; `fetched` lists the URLs, `before_fetch` runs
  first): a URL that gives no 200, or bytes that are not a JPEG or PNG, is refused
  with Meta's "Media download has failed" error; with is_carousel_item=true it is a
  carousel item (no reply); a CAROUSEL names 2 to 20 FINISHED carousel items as
  `children` (comma-separated); the images' bytes are kept (Media.images);
- POST /{user-id}/threads_publish?creation_id= publishes a FINISHED container, and
  refuses one that is not (Meta's "not ready" error), a carousel item on its own,
  one already published, or one past the daily quota (250 posts, 1,000 replies);
- GET /{container-id}?fields=status,error_message; GET /{media-id}?fields=permalink;
  GET /{user-id}/threads and /replies (newest first, `since`, `limit`, `after`
  cursors with paging.next); GET /{media-id}/insights; GET
  /{user-id}/threads_publishing_limit; GET /me;
- OAuth: GET /oauth/authorize (approves at once: 302 to the registered redirect URI
  with code and state), POST /oauth/access_token (short-lived token), GET
  /access_token?grant_type=th_exchange_token, GET /refresh_access_token.

Faults: `fake.add_fault(Fault(...))` makes the next matching request(s) answer an
HTTP status or a Graph error (with headers: Retry-After, x-business-use-case-usage),
drop the connection, or hang; with `after_processing` the request is carried out
first (the post is live) and only its answer is lost.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.fakes.threads_routes import Answer, Fetched, State, graph_error, route

FETCH_TIMEOUT = 5.0  # seconds for the fake's fetch of an image_url

ALL_SCOPES = frozenset(
    {
        "threads_basic",
        "threads_content_publish",
        "threads_manage_insights",
        "threads_manage_replies",
        "threads_read_replies",
    }
)


@dataclass
class Fault:
    """What the next matching request(s) get instead of their answer.

    kind: "status" (HTTP `status` with Meta's error object: `code`, and `headers`),
        "drop" (close the connection without a byte), "hang" (send nothing for
        `seconds`, then close).
    path: how the request path ends ("" matches every request); method likewise;
    fields: the request's `fields` parameter, when given.
    skip: let this many matching requests through first.
    after_processing: carry the request out first (a publish goes through).
    """

    kind: str
    path: str = ""
    method: str = ""
    fields: str | None = None
    skip: int = 0
    status: int = 500
    code: int = 2
    message: str = "An unexpected error has occurred. Please retry your request later."
    headers: dict[str, str] = field(default_factory=dict)
    after_processing: bool = False
    seconds: float = 30.0
    times: int = 1


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    params: dict[str, str]  # query and form, merged (Graph reads both)
    headers: dict[str, str]  # names lower-cased


class _Dropped(Exception):
    pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeThreads

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client that gave up resets the connection: normal
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.open_connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.open_connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        fake = self.server.fake
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        params = {k: v[-1] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        for key, values in parse_qs(body, keep_blank_values=True).items():
            params[key] = values[-1]
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = Recorded(method, split.path, params, headers)
        fault = fake._take_fault(method, split.path, params.get("fields"))
        try:
            fake._record(request)
            if fault is not None and not fault.after_processing:
                self._misbehave(fault)
            fetched = None
            url = params.get("image_url", "")
            if method == "POST" and split.path.endswith("/threads") and url:
                fetched = fake._fetch(url)  # outside the lock: it may take a while
            with fake.lock:
                answer = route(fake.state, request, fetched)
            if fault is not None:
                self._misbehave(fault)
            self._send(answer)
        except (_Dropped, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _misbehave(self, fault: Fault) -> None:
        if fault.kind == "status":
            self._send(graph_error(fault.status, fault.code, fault.message, fault.headers))
            raise _Dropped  # answered
        if fault.kind == "hang":
            self.server.fake._closing.wait(fault.seconds)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise _Dropped

    def _send(self, answer: Answer) -> None:
        data = json.dumps(answer.body).encode() if answer.body is not None else b""
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        if answer.body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeThreads:
    """The fake; use as a context manager. `base_url` is the host (OAuth and token
    endpoints), `api_url` the API base with its version (an account's service URL).

    Attributes: `requests` (every request, faulted ones too), `state` (threads_routes
    State: containers, media, tokens, apps, quota), `lock` (held while routing).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state = State()
        self.requests: list[Recorded] = []
        self.fetched: list[str] = []  # every image_url the fake fetched, in order
        self.before_fetch: Callable[[str], None] | None = None
        self._faults: list[Fault] = []
        self._closing = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    @property
    def api_url(self) -> str:
        return self.base_url + "/v1.0"

    def start(self) -> FakeThreads:
        server = _Server(("127.0.0.1", 0))
        server.fake = self
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}"
        self.state.host = self.base_url
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._closing.set()
        server.shutdown()
        server.server_close()
        with server.connections_lock:
            connections = list(server.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeThreads:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- what tests set and read ----------------------------------------------------

    def add_token(self, token: str = "", *, scopes: frozenset[str] = ALL_SCOPES) -> str:
        with self.lock:
            return self.state.new_token(token, scopes)

    def add_fault(self, fault: Fault) -> None:
        with self.lock:
            self._faults.append(fault)

    def register_app(self, client_id: str, client_secret: str, redirect_uri: str) -> None:
        with self.lock:
            self.state.apps[client_id] = (client_secret, redirect_uri)

    def add_past_post(
        self, text: str, when: datetime, *, media_type: str = "TEXT", **insights: int
    ) -> str:
        """A post of the account's made elsewhere, with its counts."""
        with self.lock:
            media = self.state.new_media(text, None, when, media_type)
            media.insights.update(insights)
            return media.id

    def set_insights(self, media_id: str, **counts: int) -> None:
        with self.lock:
            self.state.media[media_id].insights.update(counts)

    def live_texts(self) -> list[str]:
        """Every post and reply live on the account, oldest first."""
        with self.lock:
            return [m.text for m in self.state.media.values()]

    def requests_to(self, end: str, method: str = "") -> list[Recorded]:
        """The requests whose path ends with `end` (and of `method`, when given)."""
        with self.lock:
            found = list(self.requests)
        return [r for r in found if r.path.endswith(end) and method in ("", r.method)]

    def published_images(self) -> list[list[bytes]]:
        """Each live post's images (their bytes, as fetched), oldest post first."""
        with self.lock:
            return [list(m.images) for m in self.state.media.values()]

    def now(self) -> datetime:
        return datetime.now(UTC)

    # -- used by the handler threads ------------------------------------------------

    def _record(self, request: Recorded) -> None:
        with self.lock:
            self.requests.append(request)

    def _fetch(self, url: str) -> Fetched:
        """GET the image as Meta's servers would (no credentials, redirects followed)."""
        if self.before_fetch is not None:
            self.before_fetch(url)
        with self.lock:
            self.fetched.append(url)
        if not url.startswith(("http://", "https://")):
            return Fetched(0)
        try:
            response = httpx.get(url, timeout=FETCH_TIMEOUT, follow_redirects=True)
        except httpx.HTTPError:
            return Fetched(0)
        return Fetched(response.status_code, response.content)

    def _take_fault(self, method: str, path: str, fields: str | None) -> Fault | None:
        with self.lock:
            for fault in self._faults:
                if not path.endswith(fault.path) or fault.method not in ("", method):
                    continue
                if fault.fields is not None and fault.fields != fields:
                    continue
                if fault.skip > 0:
                    fault.skip -= 1
                    return None
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault
        return None
