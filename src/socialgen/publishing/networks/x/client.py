"""X's API v2 over httpx, through the SSRF guard, with OAuth 2.0 tokens that refresh.

An access token lasts two hours. The client refreshes it a minute before it expires,
or once after a 401, with the refresh token; X rotates refresh tokens (the old one
stops working at once), so the new secret goes to `save_secret` before anything else
is sent: the outbox stores it in its own transaction, and a crash right after cannot
leave the account holding a dead refresh token.

Failures become `PublishError`s the outbox can act on:
- nothing sent (no connection): retryable;
- sent, then no answer (a timeout, a dropped connection), or a 5xx, on the call that
  creates a post: `SentNoAnswer` (outcome unknown): X has no idempotency key, so the
  adapter looks for the post on the account before saying so (lookup.py);
- 429: retryable, after the x-rate-limit-reset moment X names;
- 401 after one refresh, and a 403 that is not about the post itself: `reconnect`;
  a 403 about the post is `DuplicateContent` (the adapter decides) or `TooLong`;
- 400 and the rest: X's own words.

No message carries a token: X's words are scrubbed of every secret value, and
transport errors are described, never quoted.
"""

from __future__ import annotations

import base64
import time
from typing import Any

import httpx

from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    NetworkSettings,
    PublishError,
    SecretSaver,
    brief,
)
from socialgen.publishing.networks.guarded_http import guarded_httpx

DEFAULT_TIMEOUT = 10.0  # seconds per connect, read or write (the network_timeout setting)
RECONNECT = "reconnect the account: socialgen accounts add x"
TOKEN_PATH = "/2/oauth2/token"
REFRESH_MARGIN = 60.0  # seconds before expires_at a token is refreshed first


class SentNoAnswer(PublishError):
    """The create call went out and X gave no clear answer: the post may be live."""

    def __init__(self, why: str) -> None:
        super().__init__(why, outcome_unknown=True)
        self.why = why


class DuplicateContent(PublishError):
    """X refused a post as the same text the account posted recently."""


class TooLong(PublishError):
    """X refused a post's text as heavier than 280."""


def timeout_of(settings: NetworkSettings) -> float:
    """The network_timeout setting (seconds per connect, read or write)."""
    value = settings.network_timeout
    return float(value) if value > 0 else DEFAULT_TIMEOUT


class XClient:
    """One account's calls. `secret`: access_token, and after a browser sign-in
    refresh_token, expires_at (epoch seconds), client_id (+ client_secret)."""

    def __init__(
        self,
        service_url: str,
        secret: dict[str, str],
        save_secret: SecretSaver | None = None,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
    ) -> None:
        self.base_url = service_url.rstrip("/")
        self.secret = dict(secret)
        self._save_secret = save_secret
        self._refreshed = False
        self.timeout = timeout_of(settings)
        self._allow_private = settings.allow_private_urls
        self._http = guarded_httpx("X", allow_private=self._allow_private, timeout=self.timeout)

    def close(self) -> None:
        self._http.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        what: str,
        json: Any = None,
        params: dict[str, str] | None = None,
        files: dict[str, Any] | None = None,
        data: dict[str, str] | None = None,
        creates: bool = False,
        accept: tuple[int, ...] = (),
    ) -> httpx.Response:
        """Call the API (`path` under the service URL). `what` names the call in
        errors; `creates` marks the call that makes a post live; statuses in `accept`
        come back instead of raising."""
        if self._expiring():
            self._refresh()
        for attempt in (1, 2):
            headers = {"Authorization": f"Bearer {self.secret.get('access_token', '')}"}
            response = self._send(
                method,
                path,
                headers,
                what,
                creates,
                json=json,
                params=params,
                files=files,
                data=data,
            )
            if response.status_code == 401 and attempt == 1 and self._refresh():
                continue
            return self._checked(response, what, creates, accept)
        raise AssertionError("unreachable")  # the loop returns or raises

    def json_of(self, response: httpx.Response, what: str) -> dict[str, Any]:
        body = json_body(response)
        if not body:
            raise PublishError(f"X's answer while {what} was not understood", retryable=True)
        return body

    # --- tokens -------------------------------------------------------------------

    def _expiring(self) -> bool:
        raw = self.secret.get("expires_at", "")
        try:
            expires_at = float(raw)
        except ValueError:
            return False
        return time.time() >= expires_at - REFRESH_MARGIN

    def _refresh(self) -> bool:
        """Swap the tokens for new ones, once per client; False if impossible."""
        if self._refreshed or not self.secret.get("refresh_token"):
            return False
        self._refreshed = True
        form = {"grant_type": "refresh_token", "refresh_token": self.secret["refresh_token"]}
        tokens = token_request(
            self.base_url,
            form,
            self.secret,
            what="refreshing the access token",
            timeout=self.timeout,
            allow_private=self._allow_private,
        )
        self.secret.update(tokens)
        if self._save_secret is not None:  # at once: the old refresh token is dead now
            self._save_secret(dict(self.secret))
        return True

    # --- the wire -----------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        what: str,
        creates: bool,
        **content: Any,
    ) -> httpx.Response:
        url = self.base_url + path
        try:
            if creates:
                # A fresh connection: a pooled one X closed meanwhile would fail in a
                # way that looks like "sent, no answer".
                with guarded_httpx(
                    "X", allow_private=self._allow_private, timeout=self.timeout
                ) as once:
                    return once.request(method, url, headers=headers, **content)
            return self._http.request(method, url, headers=headers, **content)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
            raise PublishError(f"could not reach X while {what}", retryable=True) from error
        except (httpx.WriteError, httpx.WriteTimeout) as error:
            # The request did not leave whole: X cannot have acted on it.
            raise PublishError(f"the connection to X broke while {what}", retryable=True) from error
        except httpx.TimeoutException as error:
            if creates:
                raise SentNoAnswer(
                    f"X did not answer within {self.timeout:g} s while {what}"
                ) from error
            raise PublishError(f"X did not answer in time while {what}", retryable=True) from error
        except httpx.HTTPError as error:
            if creates:
                raise SentNoAnswer(f"the connection to X broke while {what}") from error
            raise PublishError(f"the connection to X broke while {what}", retryable=True) from error

    def _checked(
        self, response: httpx.Response, what: str, creates: bool, accept: tuple[int, ...]
    ) -> httpx.Response:
        status = response.status_code
        if status < 300 or status in accept:
            return response
        said = network_message(response, self.secret.values())
        if status == 401:
            raise PublishError(f"X refused the token ({said}); {RECONNECT}", reconnect=True)
        if status == 403 and "duplicate" in said.lower():
            raise DuplicateContent(f"X refused the post as duplicate content while {what} ({said})")
        if status == 403 and "too long" in said.lower():
            raise TooLong(f"X refused the text as too long while {what} ({said})")
        if status == 403:
            raise PublishError(
                f"X refused this account while {what} ({said}): the app or the token may "
                f"lack a permission (scopes tweet.read tweet.write users.read "
                f"offline.access media.write); {RECONNECT}",
                reconnect=True,
            )
        if status == 429:
            raise PublishError(
                f"X's rate limit was reached while {what} ({said})",
                retryable=True,
                retry_after=rate_limit_wait(response),
            )
        if status >= 500 and creates:
            raise SentNoAnswer(f"X answered {status} while {what} ({said})")
        if status >= 500:
            raise PublishError(f"X answered {status} while {what}: {said}", retryable=True)
        raise PublishError(f"X refused the request while {what} ({status}): {said}")


def token_request(
    base_url: str,
    form: dict[str, str],
    secret: dict[str, str],
    *,
    what: str,
    timeout: float,
    allow_private: bool,
) -> dict[str, str]:
    """POST X's token endpoint (under the API base); the new tokens as secret fields.
    A confidential client (one with a client_secret) authenticates with HTTP Basic,
    a public one names its client_id in the form."""
    client_id = secret.get("client_id", "")
    client_secret = secret.get("client_secret", "")
    headers: dict[str, str] = {}
    sent = dict(form)
    if client_secret:
        pair = f"{client_id}:{client_secret}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
    else:
        sent["client_id"] = client_id
    with guarded_httpx("X", allow_private=allow_private, timeout=timeout) as http:
        try:
            response = http.post(base_url.rstrip("/") + TOKEN_PATH, data=sent, headers=headers)
        except httpx.HTTPError as error:
            raise PublishError(f"could not reach X while {what}", retryable=True) from error
    body = json_body(response)
    token = body.get("access_token")
    if response.status_code != 200 or not isinstance(token, str) or not token:
        said = network_message(response, [*secret.values(), *form.values()])
        if response.status_code >= 500 or response.status_code == 429:
            raise PublishError(f"X answered {response.status_code} while {what}", retryable=True)
        raise PublishError(f"X said no while {what} ({said}); {RECONNECT}", reconnect=True)
    tokens = {"access_token": token}
    refresh = body.get("refresh_token")
    if isinstance(refresh, str) and refresh:
        tokens["refresh_token"] = refresh
    lifetime = body.get("expires_in")
    if isinstance(lifetime, int) and not isinstance(lifetime, bool) and lifetime > 0:
        tokens["expires_at"] = str(int(time.time()) + lifetime)
    if isinstance(body.get("scope"), str):
        tokens["scope"] = body["scope"]
    return tokens


def rate_limit_wait(response: httpx.Response) -> float | None:
    """Seconds until X's rate limit window resets (x-rate-limit-reset: epoch seconds;
    Retry-After when that is what came), at least one: never a retry storm."""
    reset = (response.headers.get("x-rate-limit-reset") or "").strip()
    if reset.isdigit():
        return max(1.0, float(reset) - time.time())
    after = (response.headers.get("retry-after") or "").strip()
    if after.isdigit():
        return max(1.0, float(after))
    return None


def network_message(response: httpx.Response, secrets: Any = ()) -> str:
    """X's own words for an error (v2's `detail`, an `errors` entry's `message`, or
    OAuth's `error_description`), short, with every secret value blanked out."""
    body = json_body(response)
    said: Any = body.get("detail") or body.get("error_description") or body.get("error")
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        first = errors[0].get("message") or errors[0].get("detail")
        said = f"{said}: {first}" if said and first else said or first
    if not said:
        said = body.get("title") or f"HTTP {response.status_code}"
    text = str(said)
    for secret in secrets:
        if isinstance(secret, str) and len(secret) >= 6:
            text = text.replace(secret, "***")
    return brief(text, 300)


def json_body(response: httpx.Response) -> dict[str, Any]:
    """The JSON object of an answer ({} when it is none)."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
