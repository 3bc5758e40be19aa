"""The one-shot loopback redirect for OAuth's authorization code flow with PKCE.

Used by `socialgen accounts add mastodon` and `... linkedin`: a tiny HTTP server on
127.0.0.1 receives the browser's redirect to `/callback?code=...&state=...`, checks
`state`, answers "You can close this tab" and hands the code back (RFC 8252: native
apps use a loopback redirect; RFC 7636: PKCE, S256).

A request whose `state` is wrong is refused (400) but does NOT end the wait: anything
on this machine can reach the port (another tab, a local process guessing it), and
such a request must neither log the user in as someone else nor abort the user's real
sign-in. It is mentioned in the timeout error if the real redirect never comes. An
`error=` answer carrying the right state (the user clicked "deny") ends the wait.

Two ways in: `LoopbackRedirect` binds the port first (Mastodon registers its app with
the redirect URI before the authorization URL exists; LinkedIn needs a fixed port),
and `authorize_in_browser` does the whole round on top of it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
import socketserver
import sys
import time
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

from socialgen.kit.errors import BadRequest

HOST = "127.0.0.1"
CALLBACK_PATH = "/callback"
# A browser that opened the connection but sends nothing must not hold the single
# thread that serves the real redirect.
REQUEST_READ_TIMEOUT = 10.0


@dataclass(frozen=True)
class Authorization:
    code: str
    redirect_uri: str
    code_verifier: str


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str  # base64url(SHA-256(verifier)), no padding: method "S256"


def new_pkce() -> Pkce:
    # 64 random bytes give 86 URL-safe characters: inside RFC 7636's 43..128.
    verifier = secrets.token_urlsafe(64)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    return Pkce(verifier=verifier, challenge=challenge)


def new_state() -> str:
    return secrets.token_urlsafe(24)


@dataclass
class _Outcome:
    """What the handler saw; read by `wait` between requests (one thread)."""

    expected_state: str = ""
    code: str | None = None
    error: str | None = None
    refused: int = 0  # requests with a wrong or missing state


class _Server(HTTPServer):
    outcome: _Outcome

    def server_bind(self) -> None:
        # HTTPServer's own looks the host name up (getfqdn), a DNS round for nothing.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = HOST, int(self.server_address[1])


class _CallbackHandler(BaseHTTPRequestHandler):
    server: _Server
    timeout = REQUEST_READ_TIMEOUT

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path != CALLBACK_PATH:
            self._page(404, "Not found", "This address only receives the sign-in redirect.")
            return
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        outcome = self.server.outcome
        state = query.get("state", "")
        if not secrets.compare_digest(state.encode(), outcome.expected_state.encode()):
            outcome.refused += 1
            self._page(
                400,
                "Sign-in refused",
                "This redirect does not belong to the sign-in socialgen started "
                "(its state does not match). Start again from socialgen.",
            )
            return
        if "error" in query:
            detail = query.get("error_description") or query["error"]
            outcome.error = detail
            self._page(400, "Sign-in cancelled", f"The service answered: {detail}")
            return
        code = query.get("code", "")
        if not code:
            outcome.error = "the redirect carried no authorization code"
            self._page(400, "Sign-in failed", "The redirect carried no authorization code.")
            return
        outcome.code = code
        self._page(200, "Signed in", "socialgen has the authorization. You can close this tab.")

    def _page(self, status: int, title: str, text: str) -> None:
        body = (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title></head><body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
            "</body></html>"
        ).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        # The request line carries the authorization code: never print it.
        return


class LoopbackRedirect:
    """A listening socket on 127.0.0.1 for one OAuth redirect.

    `with LoopbackRedirect(port) as redirect:` binds (port 0: any free port), then
    `redirect.redirect_uri` is known; `redirect.wait(state, timeout)` serves requests
    until the redirect with that state arrives and returns its code.
    """

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._server: _Server | None = None

    def __enter__(self) -> LoopbackRedirect:
        try:
            server = _Server((HOST, self._port), _CallbackHandler)
        except OSError as exc:
            raise BadRequest(
                f"cannot listen on {HOST}:{self._port} for the sign-in redirect "
                f"({exc.strerror or exc}); free the port or choose another one"
            ) from exc
        server.outcome = _Outcome()
        self._server = server
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._server is not None:
            self._server.server_close()
            self._server = None

    @property
    def port(self) -> int:
        return int(self._bound().server_address[1])

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{CALLBACK_PATH}"

    def wait(self, state: str, timeout: float = 300.0) -> str:
        """The authorization code from the redirect carrying `state`."""
        server = self._bound()
        outcome = server.outcome
        outcome.expected_state = state
        deadline = time.monotonic() + timeout
        while outcome.code is None and outcome.error is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BadRequest(_timeout_message(timeout, outcome.refused))
            server.timeout = remaining
            server.handle_request()  # one request, or returns after `remaining`
        if outcome.error is not None:
            raise BadRequest(f"sign-in failed: {outcome.error}")
        assert outcome.code is not None
        return outcome.code

    def _bound(self) -> _Server:
        if self._server is None:
            raise RuntimeError("LoopbackRedirect is not listening: use it in a with block")
        return self._server


def _timeout_message(timeout: float, refused: int) -> str:
    message = (
        f"sign-in timed out: no redirect came back within {timeout:g} s "
        "(was the page approved in the browser?)"
    )
    if refused:
        message += f"; {refused} redirect(s) with a wrong state were refused"
    return message


def authorize_in_browser(
    build_url: Callable[[str, str, str], str],
    *,
    port: int = 0,
    open_browser: bool = True,
    announce: Callable[[str], None] = print,
    timeout: float = 300.0,
) -> Authorization:
    """Run one authorization round: `build_url(redirect_uri, state, code_challenge)`
    gives the service's authorization URL; the browser goes there, the service
    redirects back here, and the code comes back with what exchanging it needs."""
    pkce = new_pkce()
    state = new_state()
    with LoopbackRedirect(port) as redirect:
        url = build_url(redirect.redirect_uri, state, pkce.challenge)
        if open_browser and _can_open_browser() and _open(url):
            announce(f"Opened your browser to sign in. If nothing happened, open this link:\n{url}")
        else:
            announce(f"Open this link in a browser on this machine to sign in:\n{url}")
        code = redirect.wait(state, timeout)
        return Authorization(
            code=code, redirect_uri=redirect.redirect_uri, code_verifier=pkce.verifier
        )


def _can_open_browser() -> bool:
    # On a Linux server without a display, webbrowser falls back to a text browser
    # (lynx, w3m) in this very terminal, which would block the wait: print instead.
    if sys.platform.startswith("linux"):
        from socialgen.config import environment

        return bool(environment("DISPLAY") or environment("WAYLAND_DISPLAY"))
    return True


def _open(url: str) -> bool:
    try:
        return webbrowser.open(url, new=2)
    except webbrowser.Error:
        return False
