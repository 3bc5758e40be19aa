"""Pixelfed's answers read into `PublishError`s the outbox can act on.

Pixelfed is Laravel behind a Mastodon-shaped API, and refuses in its own ways:

- A repeated Idempotency-Key is refused (400 "Duplicate idempotency key.") for an hour,
  where Mastodon answers with the status it made: the post is not made twice, but the
  answer does not say which post it is (`KeyTaken`; the adapter looks for it).
- The key is remembered before the post is made, so a create call cut after it was
  sent, or answered 5xx, may or may not have made the post (`MaybeLive`; the adapter
  looks, and a retry with the same key cannot make it twice).
- 403 is a token without the `write` (or `read`) scope: reconnecting fixes it.
- A validation failure is answered 500 with Laravel's `message` and `errors` when the
  client asks for JSON: a refusal, not a failure to retry. Mastodon.py keeps only an
  answer's `error` field, so `Answers` (a session hook) keeps the rest.
"""

from __future__ import annotations

import json
from typing import Any

import requests
import urllib3
from mastodon import MastodonError, MastodonNetworkError, MastodonNotFoundError

from socialgen.publishing.networks.base import PublishError, brief
from socialgen.publishing.networks.mastodon.errors import (
    ResponseHeaders,
    instance_words,
    retry_after,
)

RECONNECT_HINT = "reconnect the account: socialgen accounts add pixelfed --instance {instance}"
REDACTED = "[redacted]"
WORDS_BYTES = 64 * 1024  # an error answer read for its words, at most
AGAIN = (
    ". A retry looks for it on the account first, then sends the same Idempotency-Key, "
    "which Pixelfed refuses if the first request got through"
)


class MaybeLive(PublishError):
    """The create call failed after it was sent: the post may be live."""


class KeyTaken(PublishError):
    """Pixelfed refused the publication's Idempotency-Key as a repeat: an earlier
    attempt sent it, and may have made the post."""


class Answers(ResponseHeaders):
    """ResponseHeaders, plus the words of the last failed answer (per thread)."""

    def record(self, response: Any, *args: Any, **kwargs: Any) -> Any:
        super().record(response)
        self._local.words, self._local.invalid = "", False
        if int(response.status_code) >= 400:
            self._local.words, self._local.invalid = _laravel_words(response)
        return response

    def clear(self) -> None:
        super().clear()
        self._local.words, self._local.invalid = "", False

    @property
    def words(self) -> str:
        return str(getattr(self._local, "words", ""))

    @property
    def invalid(self) -> bool:
        """The answer was Laravel's validation failure (`errors` by field)."""
        return bool(getattr(self._local, "invalid", False))


def _laravel_words(response: Any) -> tuple[str, bool]:
    try:
        answer = json.loads(bytes(response.content[:WORDS_BYTES]))
    except (ValueError, TypeError):
        return "", False
    if not isinstance(answer, dict):
        return "", False
    errors = answer.get("errors")
    if isinstance(errors, dict) and errors:
        found = [str(item) for items in errors.values() for item in _listed(items)]
        return " ".join(found) or str(answer.get("message") or ""), True
    for key in ("error", "message"):
        if isinstance(answer.get(key), str) and answer[key]:
            return str(answer[key]), False
    return "", False


def _listed(items: object) -> list[object]:
    return list(items) if isinstance(items, list) else [items]


def pixelfed_error(
    error: MastodonError,
    answers: Answers,
    instance: str,
    secrets: tuple[str, ...],
    *,
    creating: bool,
) -> PublishError:
    """The outbox's view of a failed call; `creating`: the call that makes a post."""
    status = answers.status
    words = brief(_scrub(answers.words or instance_words(error), secrets), 300)
    if status == 429:
        return PublishError(
            f"{instance} is rate limiting this account (429); retry later",
            retryable=True,
            retry_after=retry_after(answers),
        )
    if status in (401, 403):
        return PublishError(
            f"{instance} refused the access token ({words}); "
            + RECONNECT_HINT.format(instance=instance),
            reconnect=True,
        )
    if isinstance(error, MastodonNetworkError) and not status:
        return _network_failure(error, instance, creating)
    if status == 400 and creating and "idempotency" in words.lower():
        return KeyTaken(f"{instance} refused the post's key as a repeat ({words})")
    if status >= 500 and not answers.invalid:
        failed = f"{instance} failed ({words})"
        if creating:
            return MaybeLive(
                f"{failed} after the post was sent, so it may be live{AGAIN}",
                retryable=True,
                retry_after=retry_after(answers),
            )
        return PublishError(
            f"{failed}; will retry", retryable=True, retry_after=retry_after(answers)
        )
    if isinstance(error, MastodonNotFoundError):
        return PublishError(f"{instance}: {words}")
    return PublishError(f"{instance} refused it: {words}")


def _network_failure(error: MastodonNetworkError, instance: str, creating: bool) -> PublishError:
    """Mastodon.py wraps requests' exception (kept as the context). No connection made
    (refused, no route, a connect timeout): nothing was sent. A read timeout or a
    dropped connection came after the request went out."""
    cause = error.__cause__ or error.__context__
    sent = isinstance(cause, requests.exceptions.ReadTimeout) or (
        isinstance(cause, requests.exceptions.ConnectionError)
        and not isinstance(cause, requests.exceptions.ConnectTimeout)
        and isinstance(cause.args[0] if cause.args else None, urllib3.exceptions.ProtocolError)
    )
    if not sent:
        return PublishError(f"could not reach {instance} (the connection failed)", retryable=True)
    silence = (
        f"no answer from {instance} in time after the request was sent"
        if isinstance(cause, requests.exceptions.ReadTimeout)
        else f"{instance} closed the connection after the request was sent"
    )
    if creating:
        return MaybeLive(f"{silence}, so the post may be live{AGAIN}", retryable=True)
    return PublishError(
        f"{silence}; that request makes nothing live, so it is safe to retry", retryable=True
    )


def _scrub(message: str, secrets: tuple[str, ...]) -> str:
    """An instance could echo what it was sent: never let a credential through."""
    for secret in secrets:
        if secret:
            message = message.replace(secret, REDACTED)
    return message
