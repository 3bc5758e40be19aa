"""LinkedIn's REST API over httpx, by hand (its official Python client is unmaintained).

Every call carries the three headers LinkedIn's versioned API wants: the bearer token,
`LinkedIn-Version: YYYYMM` and `X-Restli-Protocol-Version: 2.0.0`. Failures become
`PublishError`s the outbox can act on:

- nothing sent (no connection): retryable;
- sent, then no answer (a timeout, a dropped connection): retryable for reads and
  uploads (nothing is live yet), but `outcome_unknown` for the one call that creates
  the post: LinkedIn has no idempotency key, so it may be live, and a retry could post
  it twice;
- 429 and 5xx: retryable, with Retry-After when LinkedIn gives one;
- 401: the refresh token is used once (when the app has one) and the call repeated;
  after that, `reconnect`;
- 426: the API version in use is retired.

No message here carries a token: LinkedIn's own words are scrubbed of the secret, and
transport errors are described, never quoted (their text may hold an upload URL).
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    NetworkSettings,
    PublishError,
    SecretSaver,
    brief,
)
from socialgen.publishing.networks.guarded_http import guarded_httpx

# LinkedIn versions its API by month and retires each version about a year after its
# release, so the default below must move forward at least once a year; operators
# can pin another with SOCIALGEN_LINKEDIN_VERSION meanwhile.
VERSION_ENV = "SOCIALGEN_LINKEDIN_VERSION"
DEFAULT_VERSION = "202610"
# LinkedIn's OAuth host unless the linkedin_oauth_url setting names another (tests: a fake).
DEFAULT_OAUTH_URL = "https://www.linkedin.com"
TIMEOUT_ENV = "SOCIALGEN_LINKEDIN_TIMEOUT"  # seconds per connect, read or write
DEFAULT_TIMEOUT = 10.0
RECONNECT = "reconnect the account: socialgen accounts add linkedin"
SCOPE_FIELD = "scope"  # the account secret's field: the scopes LinkedIn granted
_VERSION = re.compile(r"^\d{6}(\.\d{2})?$")


def api_version(settings: NetworkSettings) -> str:
    version = settings.linkedin_version.strip() or DEFAULT_VERSION
    if not _VERSION.match(version):
        raise PublishError(f"{VERSION_ENV}={version!r} is not a LinkedIn API version (YYYYMM)")
    return version


def oauth_url(settings: NetworkSettings) -> str:
    """Where sign-in and token refresh go: the linkedin_oauth_url setting (handed in
    with the Runtime's settings), else LinkedIn's own host."""
    return (settings.linkedin_oauth_url.strip() or DEFAULT_OAUTH_URL).rstrip("/")


class LinkedInClient:
    """One account's calls. `secret` holds access_token (and, after OAuth with an app
    LinkedIn gives refresh tokens to, refresh_token, client_id, client_secret)."""

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
        self.settings = settings
        self._timeout = settings.linkedin_timeout
        self._allow_private = settings.allow_private_urls
        self._http = guarded_httpx(
            "LinkedIn", allow_private=self._allow_private, timeout=self._timeout
        )

    def close(self) -> None:
        self._http.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        what: str,
        json: Any = None,
        creates: bool = False,
        accept: tuple[int, ...] = (),
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """Call the API (`path` under the service URL). `what` names the call in
        errors; `creates` marks the call that makes something live (see the module
        note); statuses in `accept` come back instead of raising; `headers` are
        sent besides the three every call carries."""
        for attempt in (1, 2):
            sent = {
                **(headers or {}),
                "Authorization": f"Bearer {self.secret.get('access_token', '')}",
                "LinkedIn-Version": api_version(self.settings),
                "X-Restli-Protocol-Version": "2.0.0",
            }
            url = self.base_url + path
            if creates:
                # A fresh connection: a pooled one the server has closed meanwhile
                # would fail in a way that looks like "sent, no answer".
                with guarded_httpx(
                    "LinkedIn", allow_private=self._allow_private, timeout=self._timeout
                ) as once:
                    response = _send(once, method, url, sent, json, None, what, creates)
            else:
                response = _send(self._http, method, url, sent, json, None, what, creates)
            if response.status_code == 401 and attempt == 1 and self._refresh():
                continue
            return self._checked(response, what, creates, accept)
        raise AssertionError("unreachable")  # the loop returns or raises

    def upload(self, url: str, data: bytes, mime_type: str, *, what: str) -> None:
        """PUT bytes to an upload URL LinkedIn handed out. Nothing is live yet, so
        every failure is retryable (after a refresh once for a 401)."""
        if not _is_linkedin_host(url, self.base_url):
            # The token and the user's files go to LinkedIn only, whatever it answers.
            raise PublishError(f"LinkedIn handed out an upload address off LinkedIn while {what}")
        for attempt in (1, 2):
            headers = {
                "Content-Type": mime_type,
                "Authorization": f"Bearer {self.secret.get('access_token', '')}",
            }
            response = _send(self._http, "PUT", url, headers, None, data, what, False)
            if response.status_code == 401 and attempt == 1 and self._refresh():
                continue
            self._checked(response, what, False, ())
            return

    def _refresh(self) -> bool:
        """Swap the access token for a new one, once per client; False if impossible."""
        needed = ("refresh_token", "client_id", "client_secret")
        if self._refreshed or not all(self.secret.get(key) for key in needed):
            return False
        self._refreshed = True
        form = {"grant_type": "refresh_token", **{key: self.secret[key] for key in needed}}
        base = self.secret.get("oauth_url") or oauth_url(self.settings)
        what = "refreshing the access token"
        tokens = token_request(
            base,
            form,
            self.secret,
            what=what,
            timeout=self._timeout,
            allow_private=self._allow_private,
        )
        self.secret.update(tokens)
        if self._save_secret is not None:
            self._save_secret(dict(self.secret))
        return True

    def _checked(
        self, response: httpx.Response, what: str, creates: bool, accept: tuple[int, ...]
    ) -> httpx.Response:
        status = response.status_code
        if status < 300 or status in accept:
            return response
        said = network_message(response, self.secret.values())
        if status == 401:
            raise PublishError(f"LinkedIn refused the token ({said}); {RECONNECT}", reconnect=True)
        if status == 426:
            raise PublishError(
                f"LinkedIn refused API version {api_version(self.settings)} ({said}): set "
                f"{VERSION_ENV} to a recent month (YYYYMM)"
            )
        if status == 504 and creates:
            raise _unknown(f"LinkedIn's gateway timed out while {what}")
        if status == 429 or status >= 500:
            raise PublishError(
                f"LinkedIn answered {status} while {what}: {said}",
                retryable=True,
                retry_after=retry_after(response),
            )
        raise PublishError(f"LinkedIn refused the request while {what} ({status}): {said}")


def _send(
    http: httpx.Client,
    method: str,
    url: str,
    headers: dict[str, str],
    json: Any,
    content: bytes | None,
    what: str,
    creates: bool,
) -> httpx.Response:
    try:
        return http.request(method, url, headers=headers, json=json, content=content)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
        raise PublishError(f"could not reach LinkedIn while {what}", retryable=True) from error
    except (httpx.WriteError, httpx.WriteTimeout) as error:
        # The request did not leave whole: LinkedIn cannot have acted on it.
        raise PublishError(
            f"the connection to LinkedIn broke while {what}", retryable=True
        ) from error
    except httpx.TimeoutException as error:
        if creates:
            raise _unknown(
                f"LinkedIn did not answer within {http.timeout.read} s while {what}"
            ) from error
        raise PublishError(
            f"LinkedIn did not answer in time while {what}", retryable=True
        ) from error
    except httpx.HTTPError as error:
        if creates:
            raise _unknown(f"the connection to LinkedIn broke while {what}") from error
        raise PublishError(
            f"the connection to LinkedIn broke while {what}", retryable=True
        ) from error


def _unknown(why: str) -> PublishError:
    return PublishError(
        f"{why}. The post was sent and may be live: check your LinkedIn feed "
        "before retrying with `socialgen posts publish POST_ID --retry` (LinkedIn has no "
        "way to send a post only once)",
        outcome_unknown=True,
    )


def token_request(
    base: str,
    form: dict[str, str],
    secrets: dict[str, str],
    *,
    what: str,
    timeout: float,
    allow_private: bool,
) -> dict[str, str]:
    """POST LinkedIn's OAuth token endpoint; the new access_token (+ refresh_token).
    `timeout`: seconds per connect, read or write (settings.linkedin_timeout);
    `allow_private`: settings.allow_private_urls (the guard)."""
    with guarded_httpx("LinkedIn", allow_private=allow_private, timeout=timeout) as http:
        try:
            response = http.post(f"{base.rstrip('/')}/oauth/v2/accessToken", data=form)
        except httpx.HTTPError as error:
            raise PublishError(f"could not reach LinkedIn while {what}", retryable=True) from error
    body = json_body(response)
    token = body.get("access_token")
    if response.status_code != 200 or not isinstance(token, str) or not token:
        said = network_message(response, [*secrets.values(), *form.values()])
        if response.status_code >= 500 or response.status_code == 429:
            raise PublishError(
                f"LinkedIn answered {response.status_code} while {what}", retryable=True
            )
        raise PublishError(f"LinkedIn said no while {what} ({said}); {RECONNECT}", reconnect=True)
    tokens = {"access_token": token}
    if isinstance(body.get("refresh_token"), str) and body["refresh_token"]:
        tokens["refresh_token"] = body["refresh_token"]
    granted = granted_scopes(body.get("scope"))
    if granted is not None:
        # What LinkedIn granted, which may be less than asked: `accounts history`
        # decides from it (history.py). Kept with the token it came with.
        tokens[SCOPE_FIELD] = " ".join(sorted(granted))
    return tokens


def granted_scopes(raw: Any) -> frozenset[str] | None:
    """The scopes of a token answer's `scope` (LinkedIn separates them with commas,
    OAuth with spaces); None when the answer names none."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    return frozenset(raw.replace(",", " ").split())


def network_message(response: httpx.Response, secrets: Any = ()) -> str:
    """LinkedIn's own words for an error (its JSON `message`, or OAuth's
    `error_description`), short, with any secret value blanked out."""
    body = json_body(response)
    said = body.get("message") or body.get("error_description") or body.get("error")
    text = str(said) if said else f"HTTP {response.status_code}"
    code = body.get("code")
    if isinstance(code, str) and code:
        text = f"{code}: {text}"
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


def retry_after(response: httpx.Response) -> float | None:
    """Seconds from Retry-After (a number or an HTTP date), if LinkedIn sent one."""
    raw = (response.headers.get("retry-after") or "").strip()
    if not raw:
        return None
    if raw.isdigit():
        return float(raw)
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - utcnow()).total_seconds())


def _is_linkedin_host(url: str, base_url: str) -> bool:
    """Whether an upload URL is LinkedIn's: one of its hosts (https), or the API's own
    origin (a stand-in for LinkedIn such as the tests' fake)."""
    target, base = httpx.URL(url), httpx.URL(base_url)
    if (target.scheme, target.host, target.port) == (base.scheme, base.host, base.port):
        return True
    host = target.host.lower()
    return target.scheme == "https" and (host == "linkedin.com" or host.endswith(".linkedin.com"))
