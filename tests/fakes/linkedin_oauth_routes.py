"""The fake LinkedIn's OAuth host (www.linkedin.com/oauth/v2/...), from LinkedIn's
"Authorization Code Flow (3-legged OAuth)" documentation.

The member is always signed in and approves at once (or cancels, when the test says
so): a test's "browser" only has to follow the redirect to the loopback URI.
LinkedIn matches the redirect URI exactly against the app's registered ones, hands a
code valid for one exchange, and authenticates the app at the token endpoint with
its client secret. A code_challenge sent with the authorization is honoured (the
code_verifier then stands for the secret), as LinkedIn's native PKCE flow does.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

from tests.fakes.linkedin_rest import Answer

TokenMaker = Callable[..., str]  # FakeLinkedIn.add_token(scopes=..., sub=...)


@dataclass
class OAuthState:
    apps: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (secret, uri)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    refresh_tokens: dict[str, dict[str, str]] = field(default_factory=dict)
    authorizations: list[dict[str, str]] = field(default_factory=list)  # query params
    token_requests: list[dict[str, str]] = field(default_factory=list)  # form fields
    issue_refresh_tokens: bool = False
    deny_authorization: bool = False
    # The scopes the app's products allow (None: any); asking for another one sends
    # the browser back with unauthorized_scope_error, as LinkedIn does.
    app_scopes: frozenset[str] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


def _single(values: dict[str, list[str]]) -> dict[str, str]:
    return {name: found[0] for name, found in values.items() if found}


def _oauth_error(status: int, error: str, description: str) -> Answer:
    return Answer(status, {"error": error, "error_description": description})


def authorization(state: OAuthState, query: dict[str, list[str]], sub: str) -> Answer:
    params = _single(query)
    with state.lock:
        state.authorizations.append(params)
        app = state.apps.get(params.get("client_id", ""))
        if params.get("response_type") != "code" or app is None:
            return _oauth_error(400, "invalid_request", "Unknown client_id or response_type")
        redirect_uri = params.get("redirect_uri", "")
        if redirect_uri != app[1]:
            # LinkedIn shows this page and never redirects to an unregistered URI.
            return _oauth_error(400, "invalid_redirect_uri", "The redirect_uri does not match")
        back: dict[str, str] = {"state": params.get("state", "")}
        asked = set(params.get("scope", "").replace(",", " ").split())
        outside = sorted(asked - state.app_scopes) if state.app_scopes is not None else []
        if outside:
            back.update(
                error="unauthorized_scope_error",
                error_description=f'Scope "{outside[0]}" is not authorized for your application',
            )
        elif state.deny_authorization:
            back.update(
                error="user_cancelled_authorize",
                error_description="The user cancelled the authorization",
            )
        else:
            code = "AQT" + secrets.token_urlsafe(12)
            state.codes[code] = {
                "client_id": params["client_id"],
                "redirect_uri": redirect_uri,
                "scope": params.get("scope", ""),
                "challenge": params.get("code_challenge", ""),
                "sub": sub,
            }
            back["code"] = code
    return Answer(302, None, {"Location": f"{redirect_uri}?{urlencode(back)}"})


def token_endpoint(state: OAuthState, body: bytes, make_token: TokenMaker) -> Answer:
    form = _single(parse_qs(body.decode("utf-8", errors="replace")))
    with state.lock:
        state.token_requests.append(form)
    grant = form.get("grant_type")
    if grant == "authorization_code":
        return _exchange_code(state, form, make_token)
    if grant == "refresh_token":
        return _refresh(state, form, make_token)
    return _oauth_error(400, "unsupported_grant_type", f"grant_type {grant!r}")


def _app_authenticated(state: OAuthState, form: dict[str, str], challenge: str = "") -> bool:
    app = state.apps.get(form.get("client_id", ""))
    if app is None:
        return False
    if form.get("client_secret"):
        return secrets.compare_digest(form["client_secret"], app[0])
    verifier = form.get("code_verifier", "")
    if challenge and verifier:
        digest = hashlib.sha256(verifier.encode()).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == challenge
    return False


def _exchange_code(state: OAuthState, form: dict[str, str], make_token: TokenMaker) -> Answer:
    with state.lock:
        grant = state.codes.pop(form.get("code", ""), None)  # a code is good once
    if grant is None or grant["client_id"] != form.get("client_id"):
        return _oauth_error(400, "invalid_request", "The authorization code is invalid")
    if grant["redirect_uri"] != form.get("redirect_uri"):
        return _oauth_error(400, "invalid_request", "redirect_uri does not match")
    if not _app_authenticated(state, form, grant["challenge"]):
        return _oauth_error(401, "invalid_client", "Client authentication failed")
    return _issue(state, grant["client_id"], grant["sub"], grant["scope"], make_token)


def _refresh(state: OAuthState, form: dict[str, str], make_token: TokenMaker) -> Answer:
    with state.lock:
        known = state.refresh_tokens.get(form.get("refresh_token", ""))
    if known is None or known["client_id"] != form.get("client_id"):
        return _oauth_error(400, "invalid_request", "The provided refresh token is invalid")
    if not _app_authenticated(state, form):
        return _oauth_error(401, "invalid_client", "Client authentication failed")
    # LinkedIn keeps the refresh token (its lifetime runs on): the same one comes back.
    refresh = form["refresh_token"]
    return _issue(state, known["client_id"], known["sub"], known["scope"], make_token, refresh)


def _issue(
    state: OAuthState,
    client_id: str,
    sub: str,
    scope: str,
    make_token: TokenMaker,
    refresh: str = "",
) -> Answer:
    scopes = frozenset(scope.replace(",", " ").split())
    body: dict[str, Any] = {
        "access_token": make_token(scopes=scopes, sub=sub),
        "expires_in": 5184000,
        "scope": ",".join(sorted(scopes)),  # LinkedIn's way: comma-separated
    }
    if state.issue_refresh_tokens:
        refresh = refresh or "AQW" + secrets.token_urlsafe(16)
        with state.lock:
            state.refresh_tokens[refresh] = {"client_id": client_id, "sub": sub, "scope": scope}
        body.update(refresh_token=refresh, refresh_token_expires_in=31536000)
    return Answer(200, body)
