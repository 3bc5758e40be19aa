"""A fake LinkedIn API for tests: a real HTTP server on 127.0.0.1, in a thread.

LinkedIn has no public sandbox, so this is written from LinkedIn's documentation of
the calls socialgen makes, and answers like LinkedIn where a client can get it wrong:

- `/rest/*` answers 426 without a `LinkedIn-Version: YYYYMM` header (or with a retired
  one, older than `oldest_version`) and 400 without `X-Restli-Protocol-Version: 2.0.0`;
- a missing, unknown or revoked token is a 401 (LinkedIn's error body), a token without
  the scope a call needs a 403;
- POST /rest/posts answers 201 with an empty body and the post's URN in `x-restli-id`;
  its commentary is read as "little" text (linkedin_little.py): an unescaped reserved
  character cuts the published text there, as LinkedIn does (`little_mode = "reject"`
  answers 400 instead);
- images and documents: POST /rest/{images,documents}?action=initializeUpload, then PUT
  the bytes to the returned upload URL (served here, Bearer token required), then the
  post names the URN in content.media / content.multiImage;
- GET /v2/userinfo (OpenID), GET /rest|v2/socialActions/{urn} (likes and comments
  summary; needs r_member_social, as on LinkedIn);
- the member's own posts (GET /rest/posts?q=author, r_member_social) and their
  analytics (GET /rest/memberCreatorPostAnalytics?q=entity, r_member_postAnalytics):
  linkedin_history_routes.py; `add_past_post` puts a post made elsewhere there;
- the OAuth host: GET /oauth/v2/authorization (the member approves at once: 302 to the
  redirect URI with code and state) and POST /oauth/v2/accessToken (authorization_code
  with client_secret, or code_verifier when the authorization carried a code_challenge;
  refresh_token when `issue_refresh_tokens`). Both live in linkedin_oauth_routes.py.

Faults: `fake.add_fault(Fault(...))` makes the next matching request(s) answer a status
(429 with Retry-After, 500), drop the connection, or hang; with `after_processing` the
request is carried out first (the post exists) and only the answer is lost.

    with FakeLinkedIn() as fake:
        token = fake.add_token()
        ...  # base_url is both the API and the OAuth host
        assert fake.post_count == 1
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.fakes.linkedin_little import Reading
from tests.fakes.linkedin_oauth_routes import OAuthState, authorization, token_endpoint
from tests.fakes.linkedin_rest import Answer, FakePost, FakeToken, RestState, rest_route

__all__ = [
    "DEFAULT_SCOPES",
    "Answer",
    "FakeLinkedIn",
    "FakePost",
    "FakeToken",
    "Fault",
    "Member",
    "Reading",
    "Recorded",
]

DEFAULT_SCOPES = frozenset({"openid", "profile", "email", "w_member_social"})


@dataclass(frozen=True)
class Member:
    sub: str = "aBcD3fGh1J"
    name: str = "Ada Lovelace"
    given_name: str = "Ada"
    family_name: str = "Lovelace"
    email: str = "ada@example.com"

    @property
    def urn(self) -> str:
        return f"urn:li:person:{self.sub}"


@dataclass
class Fault:
    """What the next matching request(s) get instead of their answer.

    kind: "status" (answer `status`, with Retry-After when `retry_after` is set),
        "body" (answer 200 with the bytes `raw` as its JSON body: a garbled answer),
        "drop" (read the request, then close the connection without a byte),
        "cut" (read half the body, then close: a connection dropped mid-upload),
        "hang" (send nothing for `seconds`, then close).
    path: a prefix of the request path ("" matches every request); method likewise.
    after_processing: "drop"/"hang" only: carry the request out first.
    """

    kind: str
    path: str = ""
    method: str = ""
    status: int = 500
    retry_after: str | None = None
    after_processing: bool = False
    seconds: float = 30.0
    times: int = 1
    raw: bytes = b""


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: bytes


class _Dropped(Exception):
    pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeLinkedIn

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout in a test) resets the connection: normal.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY the body waits
    # for the client's delayed ACK, 40 ms a request (a history pull makes thousands).
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

    def do_PUT(self) -> None:
        self._serve("PUT")

    def _serve(self, method: str) -> None:
        fake = self.server.fake
        split = urlsplit(self.path)
        path = unquote(split.path)
        fault = fake._take_fault(method, path)
        try:
            body = self._read_body(fault)
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = Recorded(method, path, parse_qs(split.query), headers, body)
            fake._record(request)
            if fault is not None and not fault.after_processing:
                self._misbehave(fault)
            answer = fake._route(request)
            if fault is not None:
                self._misbehave(fault)
            self._send(answer)
        except (_Dropped, BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _read_body(self, fault: Fault | None) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if fault is not None and fault.kind == "cut":
            self.rfile.read(length // 2)
            self._drop()
        return self.rfile.read(length) if length else b""

    def _misbehave(self, fault: Fault) -> None:
        if fault.kind == "body":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(fault.raw)))
            self.end_headers()
            self.wfile.write(fault.raw)
            raise _Dropped  # answered
        if fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            body = {"status": fault.status, "message": f"Fake fault {fault.status}"}
            if fault.status == 429:
                body.update(serviceErrorCode=101, code="TOO_MANY_REQUESTS")
                body["message"] = "Resource level throttle MEMBER DAY limit reached."
            self._send(Answer(fault.status, body, headers))
            raise _Dropped  # answered: stop here, keep nothing else
        if fault.kind == "hang":
            self.server.fake._closing.wait(fault.seconds)
        self._drop()

    def _drop(self) -> None:
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
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeLinkedIn:
    """The fake; use as a context manager. `base_url` serves the API and OAuth hosts.

    Attributes:
        requests: every request received (`Recorded`), faulted ones included.
        posts: the posts created, in order (`FakePost`: body, raw commentary, reading).
        uploads: URN -> the bytes PUT for that image or document.
        social: post URN -> {"likes": n, "comments": n}; set with `set_social`.
        little_mode: "truncate" (LinkedIn's behaviour) or "reject" (answer 400).
        oldest_version: LinkedIn-Version values older than this are retired (426).
        oauth: the OAuth host's state (linkedin_oauth_routes.OAuthState):
            `oauth.issue_refresh_tokens` (LinkedIn gives refresh tokens to approved
            apps only), `oauth.deny_authorization` (the member cancels),
            `oauth.authorizations` and `oauth.token_requests` (what arrived).
    """

    def __init__(self, member: Member | None = None) -> None:
        self.member = member or Member()
        self.requests: list[Recorded] = []
        self.little_mode = "truncate"
        self.oldest_version = "202411"
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.rest = RestState(self._lock)
        self.oauth = OAuthState()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> FakeLinkedIn:
        server = _Server(("127.0.0.1", 0))
        server.fake = self
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._closing.set()  # wakes handlers asleep in a "hang"
        server.shutdown()
        server.server_close()
        with server.connections_lock:
            connections = list(server.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeLinkedIn:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- what tests set and read ------------------------------------------------------

    def add_token(
        self, token: str = "", *, scopes: frozenset[str] = DEFAULT_SCOPES, sub: str = ""
    ) -> str:
        """Make `token` (or a new one) valid for the member; returns it."""
        with self._lock:
            token = token or f"AQX-fake-token-{len(self.rest.tokens) + 1}"
            self.rest.tokens[token] = FakeToken(sub or self.member.sub, frozenset(scopes))
        return token

    def revoke(self, token: str) -> None:
        with self._lock:
            self.rest.tokens[token].revoked = True

    def register_app(self, client_id: str, client_secret: str, redirect_uri: str) -> None:
        """A LinkedIn app with one authorized redirect URL (LinkedIn matches it exactly)."""
        self.oauth.apps[client_id] = (client_secret, redirect_uri)

    def add_fault(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def set_social(self, urn: str, *, likes: int = 0, comments: int = 0) -> None:
        with self._lock:
            self.rest.social[urn] = {"likes": likes, "comments": comments}

    def add_past_post(
        self,
        commentary: str,
        published_ms: int,
        *,
        counts: dict[str, int] | None = None,
        kind: str = "share",
        **fields: Any,
    ) -> str:
        """A post of the member's made elsewhere (the author finder lists it), with
        `commentary` as raw little text and its analytics by metric (REACTION,
        COMMENT, RESHARE, IMPRESSION, ...; none: LinkedIn has no data for it).
        `fields` add to or replace what LinkedIn lists (reshareContext, ...)."""
        with self._lock:
            number = 7_100_000_000_000_000_000 + len(self.rest.listed) + 1
            urn = f"urn:li:{kind}:{number}"
            self.rest.listed.append(
                {
                    "id": urn,
                    "author": self.member.urn,
                    "commentary": commentary,
                    "visibility": "PUBLIC",
                    "lifecycleState": "PUBLISHED",
                    "createdAt": published_ms,
                    "publishedAt": published_ms,
                    "lastModifiedAt": published_ms,
                    **fields,
                }
            )
            if counts is not None:
                self.rest.analytics[urn] = dict(counts)
        return urn

    def set_analytics(self, urn: str, **counts: int) -> None:
        with self._lock:
            self.rest.analytics.setdefault(urn, {}).update(counts)

    @property
    def posts(self) -> list[FakePost]:
        with self._lock:
            return list(self.rest.posts)

    @property
    def post_count(self) -> int:
        """Posts LinkedIn created (what a reader of the feed would count)."""
        return len(self.posts)

    @property
    def uploads(self) -> dict[str, bytes]:
        with self._lock:
            return dict(self.rest.uploads)

    def requests_to(self, path: str, method: str = "") -> list[Recorded]:
        with self._lock:
            found = list(self.requests)
        return [r for r in found if r.path.startswith(path) and method in ("", r.method)]

    # -- used by the handler threads --------------------------------------------------

    def _record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if path.startswith(fault.path) and fault.method in ("", method):
                    fault.times -= 1
                    if fault.times <= 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def _route(self, request: Recorded) -> Answer:
        if request.path == "/oauth/v2/authorization" and request.method == "GET":
            return authorization(self.oauth, request.query, self.member.sub)
        if request.path == "/oauth/v2/accessToken" and request.method == "POST":
            return token_endpoint(self.oauth, request.body, self.add_token)
        return rest_route(self, request)
