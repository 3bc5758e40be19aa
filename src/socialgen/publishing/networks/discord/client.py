"""A Discord webhook's routes over httpx, through the SSRF guard, and their failures.

The routes: GET the webhook (who it is), POST a message (`?wait=true`: without it
Discord answers 204 with no message id), PATCH and DELETE one of its messages. None
takes an auth header: the token is in the path, so the URL is the secret. Hence the
requests go straight through guarded_http's `GuardedTransport` (the guard, the
checked address, redirects refused, answers capped) rather than an `httpx.Client`,
which logs every request's URL at INFO. No message here carries the token: Discord's
own words are scrubbed of it, transport errors are described, never quoted.

Failures become `PublishError`s the outbox acts on:
- nothing sent (no connection): retryable;
- a message sent, then no answer (a timeout, a dropped connection) or a 5xx: outcome
  unknown: a webhook has no idempotency key and cannot list the channel, so a resend
  could post it twice; reads, edits and deletes are retryable (repeating them is
  harmless);
- 429: Discord did not act on it: waited for and sent again when the wait is short
  (MAX_INLINE_WAIT), retryable with Discord's `retry_after` otherwise; and when an
  answer says the bucket is empty (X-RateLimit-Remaining: 0), the next request waits
  for X-RateLimit-Reset-After first rather than meet the 429;
- 401, 403, and 404 Unknown Webhook: reconnect (the webhook was deleted or its token
  reset).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from socialgen import __version__
from socialgen.publishing.networks.base import PublishError, brief
from socialgen.publishing.networks.discord.media import Attachment
from socialgen.publishing.networks.guarded_http import GuardedTransport

API_VERSION = "v10"
DEFAULT_TIMEOUT = 10.0  # seconds per connect, read or write (the network_timeout setting)
MAX_INLINE_WAIT = 3.0  # the longest rate-limit wait spent inside a call, in seconds
INLINE_RETRIES = 2  # 429s waited for and resent within one call
# Discord wants a User-Agent naming the library, "DiscordBot ($url, $version)" (a
# request without one may be refused by its proxy); socialgen has no public URL.
USER_AGENT = f"DiscordBot (socialgen, {__version__})"
UNKNOWN_WEBHOOK = 10015
UNKNOWN_MESSAGE = 10008
RECONNECT = (
    "create a new webhook in the channel's settings (Integrations > Webhooks), then "
    "reconnect the account: socialgen accounts add discord --channel NAME"
)


class WebhookClient:
    """One webhook's calls. `service_url`: the API base (https://discord.com/api)."""

    def __init__(
        self,
        service_url: str,
        webhook_id: str,
        token: str,
        *,
        allow_private: bool,
        timeout: float = DEFAULT_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._root = f"{service_url.rstrip('/')}/{API_VERSION}/webhooks/{webhook_id}/{token}"
        self._token = token
        self._allow_private = allow_private
        self._timeout = timeout
        self._sleep = sleep
        self._clock = clock
        self._transport = GuardedTransport("Discord", allow_private=allow_private)
        self._ready_at: dict[str, float] = {}  # method -> when its bucket has room again

    def close(self) -> None:
        self._transport.close()

    # --- the routes -------------------------------------------------------------------

    def webhook(self) -> dict[str, Any]:
        return json_object(self._call("GET", "", what="reading the webhook"))

    def send_message(self, payload: dict[str, Any], files: Sequence[Attachment]) -> dict[str, Any]:
        """Post a message; the message object Discord created."""
        response = self._call(
            "POST",
            "",
            what="sending the message",
            payload=payload,
            files=files,
            params={"wait": "true"},
            creates=True,
        )
        return json_object(response)

    def edit(self, message_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        path = f"/messages/{message_id}"
        return json_object(
            self._call("PATCH", path, what=f"editing message {message_id}", payload=payload)
        )

    def delete(self, message_id: str) -> bool:
        """Delete a message; False when Discord no longer had it."""
        path = f"/messages/{message_id}"
        response = self._call("DELETE", path, what=f"deleting message {message_id}", gone_ok=True)
        return response.status_code < 300

    # --- one call -----------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        what: str,
        payload: dict[str, Any] | None = None,
        files: Sequence[Attachment] = (),
        params: dict[str, str] | None = None,
        creates: bool = False,
        gone_ok: bool = False,
    ) -> httpx.Response:
        for attempt in range(INLINE_RETRIES + 1):
            self._wait_for_room(method, what)
            request = self._request(method, path, payload, files, params)
            response = self._send(request, what, creates)
            self._note_bucket(method, response)
            if response.status_code != 429:
                return self._checked(response, what, creates, gone_ok)
            # Discord acted on nothing: the same request may go again once it allows.
            wait = retry_after(response)
            if wait is not None and wait <= MAX_INLINE_WAIT and attempt < INLINE_RETRIES:
                self._sleep(wait)
                continue
            _, said = self.words(response)
            later = f"; try again in {wait:.1f} s" if wait is not None else ""
            raise PublishError(
                f"Discord is rate limiting this webhook while {what} ({said}){later}",
                retryable=True,
                retry_after=wait,
            )
        raise AssertionError("unreachable")  # the loop returns or raises

    def _request(
        self,
        method: str,
        path: str,
        payload: dict[str, Any] | None,
        files: Sequence[Attachment],
        params: dict[str, str] | None,
    ) -> httpx.Request:
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        extensions = {"timeout": httpx.Timeout(self._timeout).as_dict()}
        url = self._root + path
        if files:
            # multipart/form-data: the JSON in `payload_json`, each file as `files[n]`
            # where n is its id in the payload's `attachments`.
            parts = [(f"files[{a.index}]", (a.filename, a.data, a.mime_type)) for a in files]
            form = {"payload_json": json.dumps(payload or {})}
            return httpx.Request(
                method, url, params=params, headers=headers, data=form, files=parts,
                extensions=extensions,
            )  # fmt: skip
        return httpx.Request(
            method, url, params=params, headers=headers, json=payload, extensions=extensions
        )

    def _send(self, request: httpx.Request, what: str, creates: bool) -> httpx.Response:
        # A message goes on a fresh connection: a pooled one the server closed meanwhile
        # would fail in a way that looks like "sent, no answer".
        transport = (
            GuardedTransport("Discord", allow_private=self._allow_private)
            if creates
            else self._transport
        )
        try:
            response = transport.handle_request(request)
            try:
                response.read()
            finally:
                response.close()
            return response
        except PublishError as error:  # the guard's refusal: its words, never the token
            error.message = self.scrub(error.message)
            raise
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout):
            raise PublishError(f"could not reach Discord while {what}", retryable=True) from None
        except (httpx.WriteError, httpx.WriteTimeout):
            # The request did not leave whole: Discord cannot have acted on it.
            raise PublishError(
                f"the connection to Discord broke while {what}", retryable=True
            ) from None
        except httpx.TimeoutException:
            if creates:
                raise unknown(f"Discord did not answer within {self._timeout:g} s") from None
            raise PublishError(
                f"Discord did not answer in time while {what}", retryable=True
            ) from None
        except httpx.HTTPError:
            if creates:
                raise unknown("The connection to Discord broke before its answer") from None
            raise PublishError(
                f"the connection to Discord broke while {what}", retryable=True
            ) from None
        finally:
            if creates:
                transport.close()

    def _checked(
        self, response: httpx.Response, what: str, creates: bool, gone_ok: bool
    ) -> httpx.Response:
        status = response.status_code
        if status < 300:
            return response
        code, said = self.words(response)
        if status == 404 and code == UNKNOWN_MESSAGE:
            if gone_ok:
                return response
            raise PublishError(f"Discord no longer has the message while {what} ({said})")
        if status in (401, 403, 404):
            raise PublishError(
                f"Discord refused the webhook while {what} ({said}): it was deleted or its "
                f"URL is wrong; {RECONNECT}",
                reconnect=True,
            )
        if status >= 500:
            if creates:
                raise unknown(f"Discord answered {status} ({said})")
            raise PublishError(f"Discord answered {status} while {what}: {said}", retryable=True)
        raise PublishError(f"Discord refused {what} ({status}): {said}")

    # --- rate limits --------------------------------------------------------------------

    def _note_bucket(self, method: str, response: httpx.Response) -> None:
        remaining = response.headers.get("x-ratelimit-remaining", "").strip()
        reset_after = _seconds(response.headers.get("x-ratelimit-reset-after"))
        if remaining == "0" and reset_after is not None:
            self._ready_at[method] = self._clock() + reset_after
        else:
            self._ready_at.pop(method, None)

    def _wait_for_room(self, method: str, what: str) -> None:
        ready = self._ready_at.pop(method, None)
        wait = 0.0 if ready is None else ready - self._clock()
        if wait <= 0:
            return
        if wait > MAX_INLINE_WAIT:
            # Nothing sent for this request: the outbox tries again once there is room.
            raise PublishError(
                f"Discord's rate limit for this webhook has no room left before {what}; "
                f"it resets in {wait:.1f} s",
                retryable=True,
                retry_after=wait,
            )
        self._sleep(wait)

    # --- words --------------------------------------------------------------------------

    def words(self, response: httpx.Response) -> tuple[int | None, str]:
        """Discord's error code and its words (message, code, the first field error)."""
        body = json_object(response)
        code = body.get("code") if isinstance(body.get("code"), int) else None
        said = str(body.get("message") or f"HTTP {response.status_code}")
        if code is not None:
            said += f", code {code}"
        detail = first_field_error(body.get("errors"))
        if detail:
            said += f": {detail}"
        return code, brief(self.scrub(said), 300)

    def scrub(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


def unknown(why: str) -> PublishError:
    # The outbox adds how to retry once the channel was checked (worker.verdict_for).
    return PublishError(
        f"{why} after the message was sent: it may be in the channel. Check the Discord "
        "channel first: a webhook can neither send a message only once nor list the "
        "channel, so a retry would post it again",
        outcome_unknown=True,
    )


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait after a 429: the body's `retry_after` (to the millisecond),
    else Retry-After, else X-RateLimit-Reset-After."""
    said = json_object(response).get("retry_after")
    if isinstance(said, int | float) and not isinstance(said, bool) and said >= 0:
        return float(said)
    for header in ("retry-after", "x-ratelimit-reset-after"):
        seconds = _seconds(response.headers.get(header))
        if seconds is not None:
            return seconds
    return None


def first_field_error(errors: Any, path: str = "") -> str:
    """The first of Discord's nested form errors, as "content: Must be 2000 or fewer
    in length." ({"content": {"_errors": [{"code", "message"}]}})."""
    if not isinstance(errors, dict):
        return ""
    listed = errors.get("_errors")
    if isinstance(listed, list) and listed and isinstance(listed[0], dict):
        message = str(listed[0].get("message") or listed[0].get("code") or "")
        return f"{path}: {message}" if path else message
    for key, value in errors.items():
        found = first_field_error(value, f"{path}.{key}" if path else str(key))
        if found:
            return found
    return ""


def json_object(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _seconds(raw: str | None) -> float | None:
    try:
        value = float((raw or "").strip())
    except ValueError:
        return None
    return value if 0 <= value < 10**7 else None
