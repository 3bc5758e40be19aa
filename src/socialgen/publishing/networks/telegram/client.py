"""Telegram's Bot API over httpx, through the SSRF guard.

Every method is `POST {service_url}/bot<token>/<method>` and answers
`{"ok": true, "result": ...}` or `{"ok": false, "error_code": N, "description": ...,
"parameters": {...}}` (the answer's `ok` is read, not only the HTTP status: an
emulator may say no with a 200). The token sits in the URL's path, so the URLs httpx
sees, logs and puts in its errors carry a stand-in (`/botTOKEN/`) and the token is put
in by the transport alone, at the last moment; no message here quotes a URL or a
transport error, and the network's own words are scrubbed of the token.

Failures become `PublishError`s the outbox can act on:
- nothing sent (no connection, or the upload broke off before it was whole): retryable;
- sent, then no answer (a timeout, a dropped connection), or a 5xx, on a call that
  makes a message live: `outcome_unknown` (the Bot API has no idempotency key and no
  way to read a channel back); on any other call: retryable;
- 429: retryable after `parameters.retry_after` seconds;
- 401 and 403: `reconnect`, in Telegram's words;
- 400 with `parameters.migrate_to_chat_id`: the chat moved; the error names its new id.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from socialgen.publishing.networks.base import PublishError, brief
from socialgen.publishing.networks.guarded_http import GuardedTransport, guarded_httpx

NETWORK = "Telegram"
STAND_IN = "TOKEN"  # in place of the token in every URL httpx itself sees
RECONNECT = "reconnect the account: socialgen accounts add telegram CHANNEL"

Files = dict[str, tuple[str, bytes, str]]  # multipart field: (file name, bytes, type)


class MethodMissing(PublishError):
    """The server has no such method: Telegram's 404, or an emulator's own words (the
    test server has no getChat). Only a caller that can do without it catches it."""


class TelegramClient:
    """One bot's calls to `service_url` (the Bot API's base). `timeout`: seconds per
    connect, read or write; `allow_private`: the allow_private_urls setting."""

    def __init__(
        self, service_url: str, token: str, *, timeout: float, allow_private: bool
    ) -> None:
        self.base_url = service_url.rstrip("/")
        self.timeout = timeout
        self._token = token
        self._allow_private = allow_private
        self._http = self._new_http()

    def _new_http(self) -> httpx.Client:
        # Every request goes through the guard as usual (a GuardedTransport inside);
        # the token is put into its path only there (see the module's note).
        inner = GuardedTransport(NETWORK, allow_private=self._allow_private)
        return guarded_httpx(
            NETWORK,
            allow_private=self._allow_private,
            timeout=self.timeout,
            mounts={"all://": _TokenInPath(self._token, inner)},
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> TelegramClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(
        self,
        method: str,
        fields: dict[str, Any],
        *,
        what: str,
        creates: bool = False,
        files: Files | None = None,
    ) -> Any:
        """Call `method` with `fields` (JSON; form fields beside `files` when there are
        uploads) and return its `result`. `what` names the call in errors; `creates`
        marks a call that makes a message live (see the module's note)."""
        url = f"{self.base_url}/bot{STAND_IN}/{method}"
        # A call that makes a message live goes on a fresh connection: a pooled one the
        # server closed meanwhile would fail in a way that looks like "sent, no answer".
        http = self._new_http() if creates else self._http
        try:
            if files:
                form = {
                    key: value if isinstance(value, str) else json.dumps(value)
                    for key, value in fields.items()
                }
                response = http.post(url, data=form, files=files)
            else:
                response = http.post(url, json=fields)
            body = _json_object(response)
        except PublishError:
            raise
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout):
            raise PublishError(f"could not reach Telegram while {what}", retryable=True) from None
        except (httpx.WriteError, httpx.WriteTimeout):
            # The request did not leave whole: Telegram cannot have acted on it.
            raise PublishError(
                f"the connection to Telegram broke while {what}", retryable=True
            ) from None
        except httpx.HTTPError as error:
            timed_out = isinstance(error, httpx.TimeoutException)
            why = "Telegram did not answer in time" if timed_out else "the connection broke"
            if creates:
                raise unknown(f"{why} while {what}") from None
            raise PublishError(f"{why} while {what}", retryable=True) from None
        finally:
            if creates:
                http.close()
        if body.get("ok") is True and response.status_code < 300:
            return body.get("result")
        raise self._refusal(response, body, what, creates)

    def _refusal(
        self, response: httpx.Response, body: dict[str, Any], what: str, creates: bool
    ) -> PublishError:
        code = body.get("error_code")
        status = code if isinstance(code, int) and code >= 400 else response.status_code
        if status < 400:
            status = 500  # "ok": false with no code: a broken answer
        said = self._words(body, status)
        given = body.get("parameters")
        parameters: dict[str, Any] = given if isinstance(given, dict) else {}
        if status == 429:
            wait = parameters.get("retry_after")
            header = response.headers.get("retry-after", "").strip()
            seconds: float | None = None
            if isinstance(wait, int | float) and not isinstance(wait, bool):
                seconds = float(wait)
            if seconds is None and header.isdigit():
                seconds = float(header)
            return PublishError(
                f"Telegram asked to wait while {what} ({said})",
                retryable=True,
                retry_after=seconds,
            )
        if status in (401, 403):
            return PublishError(
                f"Telegram refused the bot while {what} ({said}); {RECONNECT}", reconnect=True
            )
        moved = parameters.get("migrate_to_chat_id")
        if isinstance(moved, int) and not isinstance(moved, bool):
            return PublishError(
                f"Telegram says the chat moved to the chat id {moved} (a group upgraded to a "
                f"supergroup): connect it as socialgen accounts add telegram -- {moved}"
            )
        if status == 404 or (status >= 500 and "is not supported" in said):
            return MethodMissing(f"Telegram has no method for {what} ({status}): {said}")
        if status >= 500:
            if creates:
                return unknown(f"Telegram answered {status} while {what} ({said})")
            return PublishError(f"Telegram answered {status} while {what} ({said})", retryable=True)
        return PublishError(f"Telegram refused {what} ({status}): {said}")

    def _words(self, body: dict[str, Any], status: int) -> str:
        """Telegram's own words (an emulator's `message` otherwise), token blanked."""
        said = body.get("description") or body.get("message") or f"HTTP {status}"
        text = str(said).replace(self._token, "***") if self._token else str(said)
        return brief(text, 300)


def unknown(why: str) -> PublishError:
    # The outbox adds how to retry; this says what only Telegram's side can tell.
    return PublishError(
        f"{why}. The message was sent and may be live: look at the channel (Telegram's "
        "Bot API has no way to send a message only once, nor to read a channel's posts "
        "back)",
        outcome_unknown=True,
    )


def _json_object(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


class _TokenInPath(httpx.BaseTransport):
    """Puts the token in place of the stand-in, on the request the guard sends only."""

    def __init__(self, token: str, inner: httpx.BaseTransport) -> None:
        self._token = token
        self._inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path.decode("ascii")
        head, marker, tail = path.rpartition(f"/bot{STAND_IN}/")
        if not marker:  # not a Bot API method: sent as it is (never the case here)
            return self._inner.handle_request(request)
        real = httpx.Request(
            request.method,
            request.url.copy_with(raw_path=f"{head}/bot{self._token}/{tail}".encode("ascii")),
            headers=request.headers,
            stream=request.stream,
            extensions=request.extensions,
        )
        return self._inner.handle_request(real)

    def close(self) -> None:
        self._inner.close()
