"""Signing in to X with the user's own X app: OAuth 2.0 Authorization Code with PKCE.

X hands user tokens only to apps registered at developer.x.com, so the user creates
one (User authentication settings: OAuth 2.0, "Read and write", callback URL
`http://127.0.0.1:PORT/callback`) and gives socialgen its client id, and its client
secret when the app is a confidential client ("Web App, Automated App or Bot"); a
public client ("Native App") has none. X compares the callback URL exactly, hence a
fixed port (options["port"], default 8765).

The browser goes to https://x.com/i/oauth2/authorize with the S256 code challenge
of publishing/loopback.py; the code comes back to the loopback redirect and is
exchanged at the API's /2/oauth2/token with the code verifier (client.token_request:
HTTP Basic for a confidential client, client_id in the form for a public one).
`offline.access` brings a refresh token: without it the account would need a new
sign-in every two hours.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from socialgen.kit.errors import BadRequest
from socialgen.publishing.loopback import authorize_in_browser
from socialgen.publishing.networks.base import NetworkSettings
from socialgen.publishing.networks.x.client import timeout_of, token_request

SCOPES = "tweet.read tweet.write users.read offline.access media.write"
DEFAULT_AUTHORIZE_URL = "https://x.com/i/oauth2/authorize"
DEFAULT_PORT = 8765
SIGN_IN_TIMEOUT = 300.0


def authorize_url(options: dict[str, str], settings: NetworkSettings) -> str:
    """Where the browser signs in: the options' (a test's fake), the x_authorize_url
    setting when the settings carry one, else X's own page."""
    given = (options.get("authorize_url") or "").strip()
    setting = getattr(settings, "x_authorize_url", "")
    chosen = given or (setting.strip() if isinstance(setting, str) else "")
    return chosen or DEFAULT_AUTHORIZE_URL


def authorize_tokens(
    api_base: str,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    settings: NetworkSettings,
) -> dict[str, str]:
    """Run the browser round and the code exchange; the account's secret fields
    (access_token, refresh_token, expires_at, scope, client_id, and client_secret for
    a confidential client)."""
    client_id = (options.get("client_id") or "").strip()
    client_secret = (options.get("client_secret") or "").strip()
    if not client_id:
        raise BadRequest(
            "X sign-in needs your X app's client id (developer.x.com > your app > Keys "
            "and tokens > OAuth 2.0 Client ID); or give an access token with --token-stdin"
        )
    port = _port(options.get("port"))
    page = authorize_url(options, settings)

    def build_url(redirect_uri: str, state: str, code_challenge: str) -> str:
        query = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "scope": SCOPES,
            "state": state,
            "code_challenge": code_challenge,
            "code_challenge_method": "S256",
        }
        return f"{page}?{urlencode(query)}"

    announce(
        f"X sign-in: your app must list http://127.0.0.1:{port}/callback as a "
        "callback URL (User authentication settings)."
    )
    authorization = authorize_in_browser(
        build_url,
        port=port,
        open_browser=open_browser,
        announce=announce,
        timeout=float(options.get("timeout") or SIGN_IN_TIMEOUT),
    )
    app = {"client_id": client_id} | ({"client_secret": client_secret} if client_secret else {})
    form = {
        "grant_type": "authorization_code",
        "code": authorization.code,
        "redirect_uri": authorization.redirect_uri,
        "code_verifier": authorization.code_verifier,
    }
    tokens = token_request(
        api_base,
        form,
        app,
        what="exchanging the sign-in code for a token",
        timeout=timeout_of(settings),
        allow_private=settings.allow_private_urls,
    )
    return {**tokens, **app}


def _port(raw: str | None) -> int:
    try:
        port = int(raw) if raw else DEFAULT_PORT
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise BadRequest(f"X sign-in: {raw!r} is not a port number")
    return port
