"""Signing in to LinkedIn with the user's own LinkedIn app (3-legged OAuth).

LinkedIn hands tokens only to apps it knows, so the user creates an app at
linkedin.com/developers (products "Share on LinkedIn" and "Sign In with LinkedIn
using OpenID Connect"), adds `http://127.0.0.1:PORT/callback` as an authorized
redirect URL, and gives socialgen its client id and secret. LinkedIn compares the
redirect URL exactly, hence a fixed port (options["port"], default 8765) rather
than whatever port is free.

The code is exchanged with the client secret, as LinkedIn's standard flow documents
(its PKCE flow is a separate one for approved native apps), so the PKCE challenge
the loopback module offers is not sent.

The scopes LinkedIn granted come back with the token and are kept in the account's
secret (client.token_request). With `--history`, the sign-in also asks for
r_member_social and r_member_postAnalytics, which only an app approved for the
Community Management API can get (history.py).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from socialgen.kit.errors import BadRequest
from socialgen.publishing.loopback import authorize_in_browser
from socialgen.publishing.networks.linkedin.client import token_request
from socialgen.publishing.networks.linkedin.history import HISTORY_SCOPES

SCOPES = "openid profile email w_member_social"
HISTORY_OPTION = "history"  # options[...] == "1": ask for the history scopes too
DEFAULT_PORT = 8765
SIGN_IN_TIMEOUT = 300.0


def authorize_tokens(
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    timeout: float,
    allow_private: bool,
    oauth_host: str,
) -> dict[str, str]:
    """Run the browser round and the code exchange; the account's secret fields
    (access_token, client_id, client_secret, and refresh_token when LinkedIn gives
    the app one). `timeout`: the token call's (settings.linkedin_timeout);
    `allow_private`: settings.allow_private_urls (the guard); `oauth_host`: where
    LinkedIn's sign-in is (client.oauth_url of the settings), unless options say."""
    client_id = (options.get("client_id") or "").strip()
    client_secret = (options.get("client_secret") or "").strip()
    if not client_id or not client_secret:
        raise BadRequest(
            "LinkedIn sign-in needs your LinkedIn app's client id and client secret "
            "(linkedin.com/developers); or give an access token with --token-stdin"
        )
    port = _port(options.get("port"))
    base = (options.get("oauth_url") or "").strip().rstrip("/") or oauth_host

    def build_url(redirect_uri: str, state: str, code_challenge: str) -> str:
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "state": state,
            "scope": requested_scopes(options),
        }
        return f"{base}/oauth/v2/authorization?{urlencode(query)}"

    announce(
        f"LinkedIn sign-in: your app must list http://127.0.0.1:{port}/callback "
        "as an authorized redirect URL."
    )
    authorization = authorize_in_browser(
        build_url,
        port=port,
        open_browser=open_browser,
        announce=announce,
        timeout=float(options.get("timeout") or SIGN_IN_TIMEOUT),
    )
    form = {
        "grant_type": "authorization_code",
        "code": authorization.code,
        "redirect_uri": authorization.redirect_uri,
        "client_id": client_id,
        "client_secret": client_secret,
    }
    what = "exchanging the sign-in code for a token"
    secrets = {"client_secret": client_secret}
    tokens = token_request(
        base, form, secrets, what=what, timeout=timeout, allow_private=allow_private
    )
    secret = {**tokens, "client_id": client_id, "client_secret": client_secret}
    if base != oauth_host:
        secret["oauth_url"] = base  # a refresh must go where the token came from
    return secret


def requested_scopes(options: dict[str, str]) -> str:
    """The sign-in's scopes; with the history option also those `accounts history`
    needs (LinkedIn refuses the sign-in when the app was not approved for them)."""
    if options.get(HISTORY_OPTION) == "1":
        return " ".join((SCOPES, *HISTORY_SCOPES))
    return SCOPES


def _port(raw: str | None) -> int:
    try:
        port = int(raw) if raw else DEFAULT_PORT
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise BadRequest(f"LinkedIn sign-in: {raw!r} is not a port number")
    return port
