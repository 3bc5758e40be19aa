"""Mastodon.py's exceptions, read into `PublishError`s the outbox can act on.

Mastodon.py raises `MastodonRatelimitError("Hit rate limit.")` without the response,
so the headers that say when to come back (Retry-After, X-RateLimit-Reset) are taken
from the last response its requests session saw (`ResponseHeaders`, a session hook).
"""

from __future__ import annotations

import re
import threading
import time
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3
from mastodon import (
    MastodonAPIError,
    MastodonError,
    MastodonNetworkError,
    MastodonNotFoundError,
    MastodonRatelimitError,
    MastodonServerError,
    MastodonUnauthorizedError,
)

from socialgen.publishing.networks.base import PublishError

RECONNECT_HINT = "reconnect the account: socialgen accounts add mastodon --instance {instance}"
REDACTED = "[redacted]"
STATUSES_PATH = "/api/v1/statuses"  # the one call that makes a post live


class ResponseHeaders:
    """The status and headers of the last response a Mastodon client received, per
    thread (one adapter may serve several outbox workers)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def record(self, response: Any, *args: Any, **kwargs: Any) -> Any:
        """A requests response hook: remember, change nothing."""
        self._local.status = int(response.status_code)
        self._local.headers = {str(k).lower(): str(v) for k, v in response.headers.items()}
        return response

    def clear(self) -> None:
        self._local.status = 0
        self._local.headers = {}

    @property
    def status(self) -> int:
        return int(getattr(self._local, "status", 0))

    def get(self, name: str) -> str | None:
        headers: dict[str, str] = getattr(self._local, "headers", {})
        return headers.get(name.lower())


def retry_after(headers: ResponseHeaders, now: float | None = None) -> float | None:
    """Seconds to wait, from Retry-After (seconds or an HTTP date) or else
    X-RateLimit-Reset (Mastodon sends an ISO 8601 time; some servers epoch seconds)."""
    now = time.time() if now is None else now
    raw = headers.get("Retry-After")
    if raw is not None:
        seconds = _seconds(raw, now)
        if seconds is not None:
            return seconds
    raw = headers.get("X-RateLimit-Reset")
    return _seconds(raw, now, epoch=True) if raw is not None else None


def _seconds(raw: str, now: float, *, epoch: bool = False) -> float | None:
    raw = raw.strip()
    try:
        number = float(raw)
    except ValueError:
        number = None
    if number is not None:
        # A reset header's number is a point in time; Retry-After's is a delay.
        return max(0.0, number - now) if epoch and number > 1e9 else max(0.0, number)
    for parse in (_iso, parsedate_to_datetime):
        try:
            moment = parse(raw)
        except (TypeError, ValueError, IndexError):
            continue
        if moment.tzinfo is not None:
            return max(0.0, moment.timestamp() - now)
    return None


def _iso(raw: str) -> datetime:
    return datetime.fromisoformat(raw.replace("Z", "+00:00"))


def instance_words(error: MastodonError) -> str:
    """The instance's own error text (`{"error": ...}`), else the HTTP reason."""
    args = error.args
    if len(args) >= 4 and args[3]:
        return str(args[3])
    if len(args) >= 3 and args[2]:
        return f"{args[1]} {args[2]}"
    return str(args[0]) if args else type(error).__name__


def publish_error(
    error: MastodonError, headers: ResponseHeaders, instance: str, secrets: tuple[str, ...]
) -> PublishError:
    """The outbox's view of a failed call: retry (when), reconnect, or give up."""
    if isinstance(error, MastodonRatelimitError) or headers.status == 429:
        wait = retry_after(headers)
        return PublishError(
            f"{instance} is rate limiting this account (429); retry later",
            retryable=True,
            retry_after=wait,
        )
    if isinstance(error, MastodonUnauthorizedError):
        return PublishError(
            _scrub(f"{instance} refused the access token ({instance_words(error)}); ", secrets)
            + RECONNECT_HINT.format(instance=instance),
            reconnect=True,
        )
    if isinstance(error, MastodonServerError):
        return PublishError(
            _scrub(f"{instance} failed ({instance_words(error)}); will retry", secrets),
            retryable=True,
            retry_after=retry_after(headers),
        )
    if isinstance(error, MastodonNetworkError) and 300 <= headers.status < 400:
        # Redirects are not followed (the SSRF check covered this host only).
        where = headers.get("Location") or "elsewhere"
        return PublishError(
            _scrub(f"{instance} redirects to {where}: ", secrets)
            + "give the instance's own address (socialgen accounts add mastodon --instance URL)"
        )
    if isinstance(error, MastodonNetworkError):
        # Safe to retry even if the request got through: statuses carry an
        # Idempotency-Key, and a repeated media upload only leaves an orphan that
        # the instance deletes.
        return PublishError(_network_failure(error, instance), retryable=True)
    if isinstance(error, MastodonNotFoundError):
        return PublishError(_scrub(f"{instance}: {instance_words(error)}", secrets))
    if isinstance(error, MastodonAPIError):
        return PublishError(_scrub(f"{instance} refused it: {instance_words(error)}", secrets))
    return PublishError(_scrub(f"{instance}: {error}", secrets))


_READ_TIMEOUT = re.compile(r"read timeout=([0-9.]+)")


def _network_failure(error: MastodonNetworkError, instance: str) -> str:
    """What a transport failure means for the user. Mastodon.py wraps requests'
    exception (kept as the context): a read timeout or a connection dropped while
    waiting came after the request was sent, so it may have been carried out; "could
    not reach" is only true when no connection was made."""
    cause = error.__cause__ or error.__context__
    if isinstance(cause, requests.exceptions.ConnectTimeout) or not isinstance(
        cause, requests.exceptions.ReadTimeout | requests.exceptions.ConnectionError
    ):
        return f"could not reach {instance} (the connection failed)"
    if isinstance(cause, requests.exceptions.ConnectionError) and not isinstance(
        cause.args[0] if cause.args else None, urllib3.exceptions.ProtocolError
    ):
        return f"could not reach {instance} (the connection failed)"
    if isinstance(cause, requests.exceptions.ReadTimeout):
        found = _READ_TIMEOUT.search(str(cause))
        within = f"within {float(found.group(1)):g} s " if found else "in time "
        silence = f"no answer from {instance} {within}after the request was sent"
    else:
        silence = f"{instance} closed the connection after the request was sent"
    request = getattr(cause, "request", None)
    path = urlsplit(str(getattr(request, "url", "") or "")).path
    if getattr(request, "method", "") == "POST" and path.endswith(STATUSES_PATH):
        return (
            f"{silence}, so the status may be live. It will be retried with the same "
            "Idempotency-Key, which makes Mastodon answer with that status instead of "
            "posting it again"
        )
    return f"{silence}; that request makes nothing live, so it is safe to retry"


def _scrub(message: str, secrets: tuple[str, ...]) -> str:
    """An instance could echo what it was sent: never let a credential through."""
    for secret in secrets:
        if secret:
            message = message.replace(secret, REDACTED)
    return message
