"""Signing in to Threads with the user's own Meta app, and Meta's token exchanges.

The user creates a Meta app with the Threads use case, and gives socialgen its Threads
app id and secret. The browser goes to Threads' Authorization Window; Threads
redirects to the app's registered redirect URI with a code, which the loopback server
of publishing/loopback.py receives. Meta compares the redirect URI exactly and its
dashboard takes only https addresses (localhost over http is refused), so the user
registers an https address that reaches `http://127.0.0.1:PORT/callback` on this
machine (a tunnel, or a local TLS proxy) and names it with `redirect_uri`; without
one the loopback address itself is sent, for a Meta app that accepts it.

The code becomes a short-lived token (`POST /oauth/access_token`, an hour), swapped at
once for a long-lived one (`GET /access_token?grant_type=th_exchange_token`, 60
days), refreshed later by client.py. The app secret is used only here and not kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest
from socialgen.publishing.loopback import CALLBACK_PATH, authorize_in_browser
from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.guarded_http import GuardedTransport
from socialgen.publishing.networks.threads.client import (
    RECONNECT,
    checked,
    token_fields,
    token_root,
)

# threads_manage_replies: a thread's later parts are replies to its first;
# threads_read_replies: finding such a part again after an unanswered publish.
SCOPES = (
    "threads_basic",
    "threads_content_publish",
    "threads_manage_insights",
    "threads_manage_replies",
    "threads_read_replies",
)
AUTHORIZE_URL = "https://threads.net"  # the Authorization Window's host
DEFAULT_PORT = 8765
SIGN_IN_TIMEOUT = 300.0


def authorize_tokens(
    service_url: str,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    timeout: float,
    allow_private: bool,
) -> dict[str, str]:
    """The browser round and both exchanges; the account's secret fields
    (access_token, user_id, issued_at, expires_at). options: client_id,
    client_secret, port, redirect_uri, timeout, authorize_url (a stand-in's)."""
    client_id = (options.get("client_id") or "").strip()
    client_secret = (options.get("client_secret") or "").strip()
    if not client_id or not client_secret:
        raise BadRequest(
            "Threads sign-in needs your Meta app's Threads app id and app secret "
            "(developers.facebook.com > your app > App settings > Basic); or give a "
            "token with --token-stdin"
        )
    port = _port(options.get("port"))
    redirect_uri = redirect_for(options.get("redirect_uri"), port)
    base = (options.get("authorize_url") or AUTHORIZE_URL).strip().rstrip("/")

    def build_url(loopback_uri: str, state: str, code_challenge: str) -> str:
        # The registered redirect, which reaches the loopback (Meta compares it
        # exactly); Meta's flow takes the app secret, not PKCE.
        query = {
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "scope": ",".join(SCOPES),
            "response_type": "code",
            "state": state,
        }
        return f"{base}/oauth/authorize?{urlencode(query)}"

    announce(
        f"Threads sign-in: your Meta app must list {redirect_uri} as a valid OAuth "
        f"redirect URI, and it must reach http://127.0.0.1:{port}{CALLBACK_PATH} here."
    )
    code = authorize_in_browser(
        build_url,
        port=port,
        open_browser=open_browser,
        announce=announce,
        timeout=float(options.get("timeout") or SIGN_IN_TIMEOUT),
    ).code
    root = token_root(service_url)
    quiet = Quiet(timeout, allow_private)
    short = quiet.send(
        "POST",
        f"{root}/oauth/access_token",
        {
            "client_id": client_id,
            "client_secret": client_secret,
            "grant_type": "authorization_code",
            "redirect_uri": redirect_uri,
            "code": code.removesuffix("#_"),
        },
        "exchanging the sign-in code for a token",
        hidden=(client_secret, code),
    )
    token = str(short.get("access_token") or "")
    long_lived = quiet.send(
        "GET",
        f"{root}/access_token",
        {"grant_type": "th_exchange_token", "client_secret": client_secret},
        "exchanging the token for a long-lived one",
        hidden=(client_secret, token),
        token=token,
    )
    now = utcnow()
    secret = token_fields(long_lived, now, "exchanging the token for a long-lived one")
    user_id = short.get("user_id")
    if isinstance(user_id, int | str) and not isinstance(user_id, bool) and str(user_id):
        secret["user_id"] = str(user_id)
    return secret


def redirect_for(given: str | None, port: int) -> str:
    """The redirect URI to send: the registered https one given, else the loopback's."""
    uri = (given or "").strip()
    if not uri:
        return f"http://127.0.0.1:{port}{CALLBACK_PATH}"
    parts = urlsplit(uri)
    if parts.scheme != "https" or not parts.netloc or parts.path != CALLBACK_PATH:
        raise BadRequest(
            f"Threads sign-in: the redirect URI must be an https address ending in "
            f"{CALLBACK_PATH} (the one your Meta app lists), not {uri!r}"
        )
    return uri


class Quiet:
    """Token calls sent through the guard's transport, not an httpx client: the client
    logs every URL, and these carry the app secret or a token in theirs (Meta takes
    th_exchange_token's parameters only in the query)."""

    def __init__(self, timeout: float, allow_private: bool) -> None:
        self.timeout = timeout
        self.allow_private = allow_private

    def send(
        self,
        method: str,
        url: str,
        params: dict[str, str],
        what: str,
        *,
        hidden: tuple[str, ...],
        token: str = "",
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if method == "GET":
            request = httpx.Request(method, url, params=params, headers=headers)
        else:
            request = httpx.Request(method, url, data=params, headers=headers)
        request.extensions["timeout"] = httpx.Timeout(self.timeout).as_dict()
        transport = GuardedTransport("Threads", allow_private=self.allow_private)
        try:
            response = transport.handle_request(request)
            response.read()
        except httpx.HTTPError as error:
            raise PublishError(f"could not reach Threads while {what}", retryable=True) from error
        finally:
            transport.close()
        try:
            return checked(response, what, False, hidden)
        except PublishError as error:
            if error.retryable or RECONNECT in error.message:
                raise
            raise PublishError(f"{error.message}; {RECONNECT}", reconnect=True) from None


def _port(raw: str | None) -> int:
    try:
        port = int(raw) if raw else DEFAULT_PORT
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise BadRequest(f"Threads sign-in: {raw!r} is not a port number")
    return port
