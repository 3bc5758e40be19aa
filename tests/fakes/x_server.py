"""A fake X (API v2 and its OAuth 2.0) for tests: a real HTTP server on 127.0.0.1.

X has no sandbox, so this is written from X's API v2 reference, and is as strict as
X where a client can get it wrong: the routes (x_routes.py) check the token, its
expiry and its scopes, refuse unknown fields and over-long or duplicate texts; the
OAuth routes (x_oauth.py) want PKCE and rotate refresh tokens.

Faults: `fake.add_fault(Fault(...))` makes the next matching request(s) answer a status
(429 with x-rate-limit-reset, 503), drop the connection, or hang; with
`after_processing` the request is carried out first (the post exists) and only the
answer is lost: "a timeout after the tweet was created".

    with FakeX() as fake:
        token = fake.add_token()
        ...  # base_url serves the API, the token endpoint and the authorize page
        assert len(fake.posts) == 1
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes import x_oauth, x_routes
from tests.fakes.x_routes import Answer, FakeToken, Tweet, XState

ALL_SCOPES = frozenset({"tweet.read", "tweet.write", "users.read", "offline.access", "media.write"})
_USER_TWEETS = re.compile(r"^/2/users/(\d+)/tweets$")


@dataclass
class Fault:
    """What the next matching request(s) get instead of their answer.

    kind: "status" (answer `status`; a 429 carries x-rate-limit-reset `reset_in`
    seconds from now), "drop" (close the connection without a byte), "hang" (send
    nothing for `seconds`, then close). path/method: prefix and method to match.
    after_processing: "drop"/"hang" only: carry the request out first.
    skip: let this many matching requests through first (the second part of a thread).
    """

    kind: str
    path: str = ""
    method: str = ""
    status: int = 503
    reset_in: int = 30
    after_processing: bool = False
    seconds: float = 5.0
    times: int = 1
    skip: int = 0


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # names lower-cased
    body: bytes


class _Dropped(Exception):
    pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeX

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client that gave up (a timeout in a test)
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        fake = self.server.fake
        split = urlsplit(self.path)
        fault = fake._take_fault(method, split.path)
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            query = {k: v[0] for k, v in parse_qs(split.query).items()}
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = Recorded(method, split.path, query, headers, body)
            fake._record(request)
            if fault is not None and not fault.after_processing:
                self._misbehave(fault)
            answer = fake._route(request)
            if fault is not None:
                self._misbehave(fault)
            self._send(answer)
        except (_Dropped, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _misbehave(self, fault: Fault) -> None:
        if fault.kind == "status":
            headers = {}
            if fault.status == 429:
                headers["x-rate-limit-reset"] = str(int(time.time()) + fault.reset_in)
                headers["x-rate-limit-remaining"] = "0"
            title = "Too Many Requests" if fault.status == 429 else "Service Unavailable"
            answer = x_routes.problem(fault.status, title, title)
            answer.headers.update(headers)
            self._send(answer)
            raise _Dropped
        if fault.kind == "hang":
            self.server.fake._closing.wait(fault.seconds)
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        raise _Dropped

    def _send(self, answer: Answer) -> None:
        data = b"" if answer.body is None else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        if answer.body is not None:
            self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeX:
    """The fake; a context manager. Attributes: `state` (x_routes.XState: tweets,
    media, tokens, `timeline_lag`), `oauth` (x_oauth.OAuthState), `requests`."""

    def __init__(self, user_id: str = "2244994945", username: str = "ada_ships") -> None:
        self.state = XState(user_id=user_id, username=username, name="Ada Lovelace")
        self.oauth = x_oauth.OAuthState()
        self.requests: list[Recorded] = []
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def __enter__(self) -> FakeX:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        server, self._server = self._server, None
        if server is not None:
            self._closing.set()
            server.shutdown()
            server.server_close()
            if self._thread is not None:
                self._thread.join(timeout=5)

    # --- what tests set and read ------------------------------------------------------

    def add_token(
        self, scopes: frozenset[str] = ALL_SCOPES, lifetime: timedelta = timedelta(hours=2)
    ) -> str:
        token = "xat-" + str(len(self.state.tokens) + 1) + "-" + "k" * 20
        with self.state.lock:
            expires = datetime.now(UTC) + lifetime
            self.state.tokens[token] = FakeToken(self.state.user_id, frozenset(scopes), expires)
        return token

    def add_refresh_token(self, client_id: str, scopes: frozenset[str] = ALL_SCOPES) -> str:
        refresh = "rt-seeded-" + str(len(self.oauth.refresh_tokens) + 1)
        with self.oauth.lock:
            self.oauth.refresh_tokens[refresh] = (client_id, frozenset(scopes))
        return refresh

    def register_app(self, client_id: str, client_secret: str | None, redirect_uri: str) -> None:
        self.oauth.apps[client_id] = x_oauth.App(client_secret, redirect_uri)

    def add_fault(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def add_past_post(self, text: str, created_at: datetime, **metrics: int) -> str:
        """A post of the account's made elsewhere, with its public_metrics."""
        with self.state.lock:
            self.state.next_id += 1
            tweet = Tweet(
                str(self.state.next_id),
                self.state.user_id,
                text,
                x_routes.shown(text, False),
                created_at,
                metrics=dict(metrics),
            )
            self.state.tweets.append(tweet)
            self.state.tweets.sort(key=lambda t: t.created_at)
        return tweet.id

    @property
    def posts(self) -> list[Tweet]:
        with self.state.lock:
            return list(self.state.tweets)

    def requests_to(self, path: str, method: str = "") -> list[Recorded]:
        with self._lock:
            found = list(self.requests)
        return [r for r in found if r.path.startswith(path) and method in ("", r.method)]

    # --- the handler threads ----------------------------------------------------------

    def _record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if path.startswith(fault.path) and fault.method in ("", method):
                    if fault.skip > 0:
                        fault.skip -= 1
                        continue
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _route(self, request: Recorded) -> Answer:
        path, method = request.path, request.method
        if (method, path) == ("GET", "/i/oauth2/authorize"):
            return x_oauth.authorize(self.oauth, {k: [v] for k, v in request.query.items()})
        if (method, path) == ("POST", "/2/oauth2/token"):
            auth = request.headers.get("authorization", "")
            return x_oauth.token(self.oauth, request.body, auth, self.add_token)
        timeline = _USER_TWEETS.match(path)
        key = (method, "/2/users/:id/tweets" if timeline else path)
        scopes = x_routes.SCOPES_BY_ROUTE.get(key)
        if scopes is None:
            return x_routes.problem(404, "Not Found", f"No route {method} {path}")
        with self.state.lock:
            token = self._token(request)
            if token is None:
                return x_routes.problem(401, "Unauthorized", "Unauthorized")
            if not scopes <= token.scopes:
                missing = " ".join(sorted(scopes - token.scopes))
                return x_routes.problem(403, "Forbidden", f"Missing required scopes: {missing}")
            return self._api(request, key, token, timeline)

    def _token(self, request: Recorded) -> FakeToken | None:
        value = request.headers.get("authorization", "")
        token = self.state.tokens.get(value[7:]) if value.startswith("Bearer ") else None
        if token is None or x_oauth.expired(token.expires_at):
            return None
        return token

    def _api(
        self, request: Recorded, key: tuple[str, str], token: FakeToken, timeline: Any
    ) -> Answer:
        state = self.state
        if key == ("GET", "/2/users/me"):
            data = {"id": state.user_id, "name": state.name, "username": state.username}
            return Answer(200, {"data": data})
        if key == ("POST", "/2/tweets"):
            return x_routes.create_tweet(state, token, request.body)
        if key == ("GET", "/2/tweets"):
            return x_routes.lookup(state, request.query)
        if key == ("GET", "/2/users/:id/tweets"):
            return x_routes.timeline(state, timeline.group(1), request.query)
        if key == ("POST", "/2/media/upload"):
            content_type = request.headers.get("content-type", "")
            return x_routes.upload_media(state, content_type, request.body)
        return x_routes.describe_media(state, request.body)
