"""Meta's Threads Graph API over httpx, through the SSRF guard.

Every call carries the token as `Authorization: Bearer` (never in the URL: httpx logs
each URL it requests). Failures become `PublishError`s the outbox can act on, from
Meta's error object `{"error": {"message", "type", "code", "error_subcode",
"fbtrace_id", "is_transient"}}`:

- nothing sent (no connection), or sent only in part: retryable;
- code 4, 17, 32, 613 (and the 80xxx business limits), 9 (the daily publishing
  limit, as Meta answers it for Instagram's API) or HTTP 429: rate limited,
  retryable after the time Retry-After or `x-business-use-case-usage` names;
- code 190 or HTTP 401: the token is no longer good, `reconnect`; code 10 and 200-299
  or HTTP 403: a permission the token lacks, `reconnect` (a sign-in grants it);
- sent, then no answer, a 5xx or a transient error: retryable for every call but the
  one that makes a post live (`threads_publish`), where it is `Unanswered`: the
  adapter looks on the account before saying the outcome is unknown.

The long-lived token lasts 60 days; `refresh_if_due` swaps it for a new one when it
nears its end (Meta refreshes a token at least a day old and not expired) and hands
the new one to the account's `save_secret`.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

import httpx

from socialgen.kit.clock import iso, parse_iso, utcnow
from socialgen.publishing.networks.base import NetworkSettings, PublishError, SecretSaver, brief
from socialgen.publishing.networks.guarded_http import guarded_httpx

NETWORK = "Threads"
DEFAULT_TIMEOUT = 10.0  # seconds per connect, read or write
RECONNECT = "reconnect the account: socialgen accounts add threads"
RATE_CODES = frozenset({4, 9, 17, 32, 613}) | frozenset(range(80000, 80100))
TOKEN_CODES = frozenset({102, 190})
PERMISSION_CODES = frozenset({10}) | frozenset(range(200, 300))
TRANSIENT_CODES = frozenset({1, 2})
QUOTA_CODE = 9  # the daily publishing quota is used up
QUOTA_WAIT_SECONDS = 3600.0  # then look again in an hour (Meta names no time for it)
# When a token is refreshed: once it has this long left (Meta's last 60 days), and
# only when it is a day old (Meta refuses to refresh a younger one).
REFRESH_BEFORE = timedelta(days=15)
REFRESH_AGE = timedelta(days=1)
_VERSION_TAIL = re.compile(r"/v\d+(\.\d+)?/?$")


def timeout_of(settings: NetworkSettings) -> float:
    """Seconds per connect, read or write: the network_timeout setting."""
    value = settings.network_timeout
    return float(value) if value > 0 else DEFAULT_TIMEOUT


def token_root(service_url: str) -> str:
    """Where the token endpoints live: the API base without its version
    (https://graph.threads.net/v1.0 -> https://graph.threads.net)."""
    return _VERSION_TAIL.sub("", service_url.rstrip("/"))


class Unanswered(PublishError):
    """The call that makes a post live was sent and no clear answer came back."""

    def __init__(self, message: str) -> None:
        super().__init__(message, outcome_unknown=True)


class ThreadsClient:
    """One account's calls. `secret`: access_token, and as socialgen learns them
    user_id, expires_at and issued_at (ISO 8601)."""

    def __init__(
        self,
        service_url: str,
        secret: dict[str, str],
        save_secret: SecretSaver | None,
        settings: NetworkSettings,
    ) -> None:
        self.base_url = service_url.rstrip("/")
        self.secret = dict(secret)
        self._save_secret = save_secret
        self.timeout = timeout_of(settings)
        self.allow_private = settings.allow_private_urls
        self._http = guarded_httpx(NETWORK, allow_private=self.allow_private, timeout=self.timeout)

    def __enter__(self) -> ThreadsClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get(self, path: str, params: dict[str, str], *, what: str) -> dict[str, Any]:
        return self._call("GET", self.base_url + path, params, what, creates=False)

    def post(
        self,
        path: str,
        params: dict[str, str],
        *,
        what: str,
        creates: bool = False,
        hide: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """POST form parameters; `creates` marks the call that makes a post live;
        `hide`: values Meta's words must not carry (a presigned link it may quote)."""
        return self._call("POST", self.base_url + path, params, what, creates=creates, hide=hide)

    def refresh_if_due(self, now: datetime | None = None) -> None:
        """Swap a long-lived token nearing its end for a new one (saved at once). A
        refusal because the token is dead is `reconnect`; any other failure leaves the
        token as it is (it still works: the call after this one tells)."""
        now = now or utcnow()
        if not refresh_due(self.secret, now):
            return
        try:
            body = self._call(
                "GET",
                token_root(self.base_url) + "/refresh_access_token",
                {"grant_type": "th_refresh_token"},
                "refreshing the access token",
                creates=False,
            )
        except PublishError as error:
            if error.reconnect:
                raise
            return
        self.secret.update(token_fields(body, now, "refreshing the access token"))
        if self._save_secret is not None:
            self._save_secret(dict(self.secret))

    def _call(
        self,
        method: str,
        url: str,
        params: dict[str, str],
        what: str,
        *,
        creates: bool,
        hide: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.secret.get('access_token', '')}"}
        try:
            if method == "GET":
                response = self._http.get(url, params=params, headers=headers)
            else:
                response = self._http.post(url, data=params, headers=headers)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
            raise PublishError(f"could not reach Threads while {what}", retryable=True) from error
        except (httpx.WriteError, httpx.WriteTimeout) as error:
            # The request did not leave whole: Threads cannot have acted on it.
            raise PublishError(
                f"the connection to Threads broke while {what}", retryable=True
            ) from error
        except httpx.TimeoutException as error:
            raise _no_answer(
                f"Threads did not answer within {self.timeout:g} s", what, creates
            ) from error
        except httpx.HTTPError as error:
            # Transport errors are described, never quoted (they may name the URL).
            raise _no_answer("the connection to Threads broke", what, creates) from error
        return checked(response, what, creates, [*hide, *self.secret.values()])


def refresh_due(secret: dict[str, str], now: datetime) -> bool:
    """Whether the token should be refreshed now (see REFRESH_BEFORE, REFRESH_AGE)."""
    issued = _moment(secret.get("issued_at"))
    if issued is None or now - issued < REFRESH_AGE:
        return False
    expires = _moment(secret.get("expires_at"))
    return expires is None or expires - now < REFRESH_BEFORE


def token_fields(body: dict[str, Any], now: datetime, what: str) -> dict[str, str]:
    """The secret's fields from a token answer (access_token, expires_in)."""
    token = body.get("access_token")
    if not isinstance(token, str) or not token:
        raise PublishError(f"Threads' answer while {what} holds no access token", retryable=True)
    fields = {"access_token": token, "issued_at": iso(now) or ""}
    seconds = body.get("expires_in")
    if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds > 0:
        fields["expires_at"] = iso(now + timedelta(seconds=seconds)) or ""
    return fields


def checked(
    response: httpx.Response, what: str, creates: bool, secrets: Any = ()
) -> dict[str, Any]:
    """The JSON object of a good answer; the PublishError for any other."""
    body = json_body(response)
    error = body.get("error")
    status = response.status_code
    if status < 300 and not isinstance(error, dict):
        if not body and response.content.strip() not in (b"{}",):
            # For a publish, not understood is not refused: it may be live.
            raise _no_answer("Threads' answer was not understood", what, creates)
        return body
    details = error if isinstance(error, dict) else {}
    code = _number(details.get("code"))
    said = network_message(response, secrets)
    if code in RATE_CODES or status == 429:
        raise PublishError(
            f"Threads is rate limiting this account while {what}: {said}",
            retryable=True,
            retry_after=retry_after(response)
            or (QUOTA_WAIT_SECONDS if code == QUOTA_CODE else None),
        )
    if code in TOKEN_CODES or status == 401:
        raise PublishError(f"Threads refused the token ({said}); {RECONNECT}", reconnect=True)
    if code in PERMISSION_CODES or status == 403:
        raise PublishError(
            f"Threads refused a permission while {what} ({said}); sign in again granting "
            f"every permission socialgen asks for; {RECONNECT}",
            reconnect=True,
        )
    if status >= 500 or code in TRANSIENT_CODES or details.get("is_transient") is True:
        raise _no_answer(f"Threads failed ({status}: {said})", what, creates)
    raise PublishError(f"Threads refused the request while {what} ({status}): {said}")


def network_message(response: httpx.Response, secrets: Any = ()) -> str:
    """Meta's own words for an error, short, with any secret value blanked out."""
    error = json_body(response).get("error")
    text = f"HTTP {response.status_code}"
    if isinstance(error, dict):
        said = error.get("error_user_msg") or error.get("message") or text
        text = str(said)
        code = error.get("code")
        if code is not None:
            subcode = error.get("error_subcode")
            text = f"{text} (code {code}{f'/{subcode}' if subcode else ''})"
    elif isinstance(error, str) and error:
        text = error
    for secret in secrets:
        if isinstance(secret, str) and len(secret) >= 6:
            text = text.replace(secret, "***")
    return brief(text, 300)


def json_body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait: Retry-After, else the longest `estimated_time_to_regain_access`
    (minutes) of `x-business-use-case-usage`; None when Meta names no time."""
    raw = (response.headers.get("retry-after") or "").strip()
    if raw.isdigit():
        return float(raw)
    try:
        usage = json.loads(response.headers.get("x-business-use-case-usage") or "{}")
    except ValueError:
        return None
    minutes = [
        _number(entry.get("estimated_time_to_regain_access"))
        for entries in (usage.values() if isinstance(usage, dict) else ())
        if isinstance(entries, list)
        for entry in entries
        if isinstance(entry, dict)
    ]
    longest = max((m for m in minutes if m is not None), default=None)
    return None if longest is None else float(longest) * 60.0


def _no_answer(why: str, what: str, creates: bool) -> PublishError:
    if creates:
        return Unanswered(f"{why} while {what}")
    return PublishError(f"{why} while {what}", retryable=True)


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _moment(raw: str | None) -> datetime | None:
    try:
        return parse_iso(raw) if raw else None
    except ValueError:
        return None
