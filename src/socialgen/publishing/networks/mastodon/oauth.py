"""Signing in to a Mastodon instance: app registration, the authorization URL and the
code exchange, with PKCE.

By hand over httpx rather than Mastodon.py: its `auth_request_url` and `log_in` have
no PKCE parameters (code_challenge, code_verifier), and its `create_app` drops the
instance's error text (a KeyError on any refusal). Mastodon.py takes over once there
is a token (see adapter.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import httpx

from socialgen.kit.errors import BadRequest
from socialgen.publishing.loopback import Authorization
from socialgen.publishing.networks.base import brief
from socialgen.publishing.networks.guarded_http import guarded_httpx

CLIENT_NAME = "socialgen"

# Least privilege: read the account (identity, check), post statuses with media, and
# read statuses back for their counts.
SCOPES = "read:accounts read:statuses write:statuses write:media"
TIMEOUT = httpx.Timeout(30.0, connect=10.0)


@dataclass(frozen=True)
class App:
    client_id: str
    client_secret: str


def normalise_instance(url: str) -> str:
    """`mastodon.social`, `https://mastodon.social/` -> `https://mastodon.social`."""
    url = url.strip().rstrip("/")
    if not url:
        raise BadRequest("name the Mastodon instance: --instance https://mastodon.example")
    if "://" not in url:
        url = f"https://{url}"
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise BadRequest(f"not a Mastodon instance address: {url!r}")
    if parts.path or parts.query or parts.fragment:
        raise BadRequest(f"give the instance's address only, without a path: {url!r}")
    return f"{parts.scheme}://{parts.netloc}"


def register_app(
    instance: str, redirect_uri: str, scopes: str = SCOPES, *, allow_private: bool
) -> App:
    """POST /api/v1/apps: one app per sign-in, bound to this sign-in's redirect URI
    (a loopback port chosen now cannot be known to an app registered earlier)."""
    body = {
        "client_name": CLIENT_NAME,
        "redirect_uris": redirect_uri,
        "scopes": scopes,
    }
    answer = _post(instance, "/api/v1/apps", body, "register socialgen as an app", allow_private)
    client_id, client_secret = answer.get("client_id"), answer.get("client_secret")
    if not isinstance(client_id, str) or not isinstance(client_secret, str):
        raise BadRequest(f"{instance} registered the app but sent no client id and secret")
    return App(client_id=client_id, client_secret=client_secret)


def authorization_url(
    instance: str,
    app: App,
    redirect_uri: str,
    state: str,
    code_challenge: str,
    scopes: str = SCOPES,
) -> str:
    query = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": redirect_uri,
        "scope": scopes,
        "state": state,
        "code_challenge": code_challenge,
        "code_challenge_method": "S256",
    }
    return f"{instance}/oauth/authorize?{urlencode(query)}"


def exchange_code(
    instance: str,
    app: App,
    authorization: Authorization,
    scopes: str = SCOPES,
    *,
    allow_private: bool,
) -> str:
    """POST /oauth/token: the authorization code (and its PKCE verifier) for a token."""
    body = {
        "grant_type": "authorization_code",
        "code": authorization.code,
        "redirect_uri": authorization.redirect_uri,
        "client_id": app.client_id,
        "client_secret": app.client_secret,
        "code_verifier": authorization.code_verifier,
        "scope": scopes,
    }
    answer = _post(instance, "/oauth/token", body, "exchange the authorization code", allow_private)
    token = answer.get("access_token")
    if not isinstance(token, str) or not token:
        raise BadRequest(f"{instance} answered the code exchange without an access token")
    return token


def _post(
    instance: str, path: str, body: dict[str, str], doing: str, allow_private: bool
) -> dict[str, object]:
    try:
        # Through the guard, at this request; a redirect is refused (GuardRefused).
        # allow_private: settings.allow_private_urls (NetworkSettings).
        with guarded_httpx("Mastodon", allow_private=allow_private, timeout=TIMEOUT) as http:
            response = http.post(f"{instance}{path}", data=body)
    except httpx.HTTPError as exc:
        raise BadRequest(f"could not reach {instance} to {doing} ({type(exc).__name__})") from exc
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if not response.is_success or not isinstance(answer, dict):
        raise BadRequest(f"{instance} refused to {doing}: {_words(response, answer)}")
    return answer


def _words(response: httpx.Response, answer: object) -> str:
    """The instance's own reason (`error_description`, `error`), else the status."""
    if isinstance(answer, dict):
        for key in ("error_description", "error", "detail"):
            value = answer.get(key)
            if isinstance(value, str) and value:
                return f"{brief(value)} ({response.status_code})"
    return f"HTTP {response.status_code} {brief(response.reason_phrase, 60)}".strip()
