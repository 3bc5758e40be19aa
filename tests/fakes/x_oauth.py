"""The fake X's OAuth 2.0 (Authorization Code with PKCE), from X's "OAuth 2.0
Authorization Code Flow with PKCE" page.

- GET /i/oauth2/authorize (x.com): the app's client_id, its registered callback URL
  exactly, `code_challenge_method=S256` and a challenge are required; the user is
  signed in and approves at once: 302 to the callback with `code` and `state`.
- POST /2/oauth2/token (api.x.com): `authorization_code` with `code_verifier` (its
  SHA-256 must be the challenge) and the same redirect_uri; `refresh_token`. A
  confidential client must authenticate with HTTP Basic (client_id:client_secret), a
  public one names client_id in the form. Access tokens last `token_lifetime`
  (two hours); with offline.access a refresh token comes too, and each refresh
  rotates it: the old one is refused from then on (invalid_request).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlencode

from tests.fakes.x_routes import Answer

TokenMaker = Callable[[frozenset[str], timedelta], str]  # FakeX.add_token


@dataclass
class App:
    client_secret: str | None  # None: a public client
    redirect_uri: str
    scopes: frozenset[str] = frozenset(
        {"tweet.read", "tweet.write", "users.read", "offline.access", "media.write"}
    )


@dataclass
class OAuthState:
    apps: dict[str, App] = field(default_factory=dict)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    refresh_tokens: dict[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    authorizations: list[dict[str, str]] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    token_lifetime: timedelta = timedelta(hours=2)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _error(status: int, error: str, description: str) -> Answer:
    return Answer(status, {"error": error, "error_description": description})


def authorize(state: OAuthState, query: dict[str, list[str]]) -> Answer:
    params = {name: values[0] for name, values in query.items() if values}
    with state.lock:
        state.authorizations.append(params)
        app = state.apps.get(params.get("client_id", ""))
        if app is None or params.get("response_type") != "code":
            return _error(400, "invalid_request", "Unknown client_id or response_type")
        if params.get("redirect_uri") != app.redirect_uri:
            return _error(400, "invalid_request", "redirect_uri does not match the app's")
        if params.get("code_challenge_method") != "S256" or not params.get("code_challenge"):
            return _error(400, "invalid_request", "PKCE (S256) is required")
        scopes = frozenset(params.get("scope", "").split())
        if not scopes or not scopes <= app.scopes:
            return _error(400, "invalid_scope", "The app may not ask for these scopes")
        code = secrets.token_urlsafe(16)
        state.codes[code] = {**params, "scopes": " ".join(sorted(scopes))}
    query_back = urlencode({"state": params.get("state", ""), "code": code})
    return Answer(302, None, {"Location": f"{params['redirect_uri']}?{query_back}"})


def token(state: OAuthState, raw: bytes, authorization: str, make: TokenMaker) -> Answer:
    form = {name: values[0] for name, values in parse_qs(raw.decode()).items() if values}
    with state.lock:
        state.token_requests.append({**form, "authorization": authorization})
        client_id = _client(state, form, authorization)
        if client_id is None:
            return _error(401, "unauthorized_client", "Missing valid authorization header")
        grant = form.get("grant_type")
        if grant == "authorization_code":
            scopes = _exchange(state, form, client_id)
        elif grant == "refresh_token":
            old = form.get("refresh_token", "")
            held = state.refresh_tokens.pop(old, None)  # rotation: the old one dies now
            scopes = held[1] if held and held[0] == client_id else None
        else:
            return _error(400, "unsupported_grant_type", f"grant_type {grant!r}")
        if scopes is None:
            return _error(400, "invalid_request", "Value passed for the token was invalid.")
        lifetime = state.token_lifetime
    access = make(scopes, lifetime)
    body = {
        "token_type": "bearer",
        "expires_in": int(lifetime.total_seconds()),
        "access_token": access,
        "scope": " ".join(sorted(scopes)),
    }
    if "offline.access" in scopes:
        refresh = "rt-" + secrets.token_urlsafe(24)
        with state.lock:
            state.refresh_tokens[refresh] = (client_id, scopes)
        body["refresh_token"] = refresh
    return Answer(200, body)


def _client(state: OAuthState, form: dict[str, str], authorization: str) -> str | None:
    """The authenticated client: Basic for a confidential one, the form's for a public one."""
    if authorization.startswith("Basic "):
        try:
            pair = base64.b64decode(authorization[6:]).decode()
        except ValueError:
            return None
        client_id, _, secret = pair.partition(":")
        app = state.apps.get(client_id)
        ok = app is not None and app.client_secret is not None and app.client_secret == secret
        return client_id if ok else None
    app = state.apps.get(form.get("client_id", ""))
    return form["client_id"] if app is not None and app.client_secret is None else None


def _exchange(state: OAuthState, form: dict[str, str], client_id: str) -> frozenset[str] | None:
    asked = state.codes.pop(form.get("code", ""), None)  # a code serves once
    if asked is None or asked["client_id"] != client_id:
        return None
    if form.get("redirect_uri") != asked["redirect_uri"]:
        return None
    verifier = form.get("code_verifier", "").encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
    if digest != asked["code_challenge"]:
        return None
    return frozenset(asked["scopes"].split())


def expired(moment: datetime) -> bool:
    return datetime.now(UTC) >= moment
