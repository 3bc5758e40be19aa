"""A Bluesky session kept across calls, and the network's failures as PublishError.

createSession is rate-limited (30 per 5 minutes, 300 a day per handle), so the
session's tokens live in the account's secret and are refreshed, not recreated: the
atproto client refreshes on its own shortly before the access token expires, and a
token the PDS refuses (expired, revoked) is refreshed once here; if the refresh
token is refused too, the app password opens one new session; if that is refused,
the user must reconnect the account. Every new pair of tokens goes to `save_secret`.

Nothing here puts a password or a token into a message: errors carry the PDS's own
error name and a short message only. Every client is built by `guarded_client`: each
request passes the SSRF guard when it is sent and redirects are refused (see
guarded_http.py), so a PDS that turns private or starts redirecting is refused at use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
from atproto import Client, Session, SessionEvent  # type: ignore[import-untyped]
from atproto_client import exceptions as xrpc  # type: ignore[import-untyped]
from atproto_client.client.session import (  # type: ignore[import-untyped]
    get_session_pds_endpoint,
)
from atproto_client.request import Request  # type: ignore[import-untyped]

from socialgen.publishing.networks.base import PublishError, SecretSaver, brief
from socialgen.publishing.networks.guarded_http import GuardedTransport, check_destination

T = TypeVar("T")

# What a PDS answers when it will not take a token: 401/403, or 400 with these names.
_TOKEN_ERRORS = frozenset(
    {"ExpiredToken", "InvalidToken", "AuthMissing", "AuthenticationRequired", "AccountTakedown"}
)
SECRET_FIELDS = ("app_password", "access_jwt", "refresh_jwt", "did")


def reconnect_message(handle: str) -> str:
    return f"reconnect the account: socialgen accounts add bluesky {handle}"


def error_name(error: Exception) -> str:
    response = getattr(error, "response", None)
    content = getattr(response, "content", None)
    name = getattr(content, "error", None)
    if name is None and isinstance(content, dict):
        name = content.get("error")
    return str(name or "")


def is_token_error(error: Exception) -> bool:
    if isinstance(error, xrpc.UnauthorizedError):
        return True
    return isinstance(error, xrpc.BadRequestError) and error_name(error) in _TOKEN_ERRORS


def status_of(error: Exception) -> int | None:
    response = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _retry_after(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None) or {}
    lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    if "retry-after" in lowered:
        try:
            return max(float(lowered["retry-after"]), 0.0)
        except ValueError:
            pass
    if "ratelimit-reset" in lowered:
        # Seconds since 1970 when the window resets.
        try:
            reset = float(lowered["ratelimit-reset"])
        except ValueError:
            return None
        return max(reset - datetime.now(UTC).timestamp(), 0.0)
    return None


def guarded_client(service_url: str, *, allow_private: bool) -> Any:
    """An atproto client whose every request goes through the SSRF guard."""
    transport = GuardedTransport("Bluesky", allow_private=allow_private)
    request = Request(transport=transport, trust_env=False)
    return Client(base_url=service_url, request=request)


def xrpc_words(error: Exception, status: int) -> str:
    """`400 InvalidRequest: the message`: the XRPC error name and a short message,
    never the answer's body as such."""
    name = error_name(error)
    content = getattr(getattr(error, "response", None), "content", None)
    said = getattr(content, "message", None)
    if said is None and isinstance(content, dict):
        said = content.get("message")
    words = f"{status} {brief(name, 60)}".strip()
    return f"{words}: {brief(str(said))}" if said else words


def as_publish_error(error: Exception, doing: str) -> PublishError:
    """The atproto client's exception as the outbox's PublishError.

    A dropped connection or a timeout is retryable without risk here: every record
    has a key derived from the publication, so a retry cannot post twice.
    """
    if isinstance(error, PublishError):  # the guard's refusal: as it is
        return error
    status = status_of(error)
    words = xrpc_words(error, status) if status is not None else type(error).__name__
    message = f"Bluesky {doing}: {words}"
    if isinstance(error, xrpc.RateLimitExceededError) or status == 429:
        return PublishError(message, retryable=True, retry_after=_retry_after(error))
    # atproto wraps some transport failures in NetworkError and lets others (a
    # connection closed before the answer: RemoteProtocolError) through as httpx's.
    if status is None and isinstance(error, xrpc.NetworkError | httpx.TransportError):
        return PublishError(_transport_failure(error, doing), retryable=True)
    if status is not None and (status >= 500 or status == 408):
        return PublishError(message, retryable=True, retry_after=_retry_after(error))
    return PublishError(message)


def _transport_failure(error: Exception, doing: str) -> str:
    """A transport failure in words that say whether the request was sent: a read
    timeout or a connection dropped while waiting came after it, so it may have been
    carried out (atproto keeps httpx's exception as the cause)."""
    cause = error if isinstance(error, httpx.TransportError) else error.__cause__
    if isinstance(cause, httpx.ReadTimeout | httpx.RemoteProtocolError | httpx.ReadError):
        return (
            f"Bluesky {doing}: no answer{_within(cause)} after the request was sent, so it "
            "may have been carried out (a post may be live). It will be retried safely: "
            "every record has a key of its own, so a retry cannot post it twice"
        )
    return f"Bluesky {doing}: the connection failed"


def _within(cause: httpx.TransportError) -> str:
    """' within N s' for a read timeout whose limit httpx kept, else nothing."""
    try:
        limit = cause.request.extensions.get("timeout", {}).get("read")
    except RuntimeError:  # no request attached
        return ""
    return f" within {limit:g} s" if isinstance(cause, httpx.ReadTimeout) and limit else ""


class BlueskySession:
    """One account's authenticated atproto client, made on first use. `allow_private`:
    the allow_private_urls setting (NetworkSettings), for every request it sends."""

    def __init__(
        self,
        service_url: str,
        handle: str,
        secret: dict[str, str],
        save_secret: SecretSaver,
        *,
        allow_private: bool,
    ) -> None:
        self.service_url = service_url.rstrip("/")
        self.allow_private = allow_private
        self.handle = handle.lstrip("@")
        self._secret = {key: secret.get(key, "") for key in SECRET_FIELDS}
        self._save_secret = save_secret
        self._client: Any = None
        self._lock = threading.RLock()

    @property
    def did(self) -> str:
        return self._secret["did"]

    def secret(self) -> dict[str, str]:
        return dict(self._secret)

    def call(self, doing: str, operation: Callable[[Any], T]) -> T:
        """Run `operation(client)`; a refused token gets one refresh (or one new
        session) and one more try; other failures become PublishError."""
        try:
            return operation(self._authenticated())
        except PublishError:
            raise
        except Exception as error:
            if not is_token_error(error):
                raise as_publish_error(error, doing) from None
        self._recover()
        try:
            return operation(self._authenticated())
        except Exception as error:
            if is_token_error(error):
                raise PublishError(reconnect_message(self.handle), reconnect=True) from None
            raise as_publish_error(error, doing) from None

    def open(self) -> None:
        """A new session from the app password (connect, or when the stored tokens
        are gone)."""
        with self._lock:
            try:
                client = guarded_client(self.service_url, allow_private=self.allow_private)
                response = client.com.atproto.server.create_session(
                    {
                        "identifier": self.handle or self.did,
                        "password": self._secret["app_password"],
                    }
                )
            except Exception as error:
                if is_token_error(error):
                    raise PublishError(reconnect_message(self.handle), reconnect=True) from None
                raise as_publish_error(error, "sign-in") from None
            self._adopt(response)

    # --- inside -----------------------------------------------------------------------

    def _authenticated(self) -> Any:
        with self._lock:
            if self._client is not None:
                return self._client
            if not (self._secret["access_jwt"] and self._secret["refresh_jwt"]):
                self.open()
                return self._client
            try:
                self._client = self._client_for_tokens()
            except Exception:
                # A stored token that does not even decode: start over.
                self.open()
            return self._client

    def _recover(self) -> None:
        with self._lock:
            refresh_jwt = self._secret["refresh_jwt"]
            if refresh_jwt:
                try:
                    client = guarded_client(self.service_url, allow_private=self.allow_private)
                    response = client.com.atproto.server.refresh_session(
                        headers={"Authorization": f"Bearer {refresh_jwt}"}
                    )
                except Exception as error:
                    if not is_token_error(error):
                        raise as_publish_error(error, "session refresh") from None
                else:
                    self._adopt(response)
                    return
            self.open()

    def _adopt(self, response: Any) -> None:
        """Keep a createSession/refreshSession answer and hand it to the store."""
        endpoint = get_session_pds_endpoint(response)
        if endpoint:
            # The DID document names the PDS the client talks to from now on (a
            # bsky.social account lives on a *.host.bsky.network PDS): guard it
            # like any URL we are told to reach.
            checked = check_destination("Bluesky", str(endpoint), allow_private=self.allow_private)
            self.service_url = checked.url.rstrip("/")
        self.handle = str(response.handle)
        self._secret.update(
            access_jwt=str(response.access_jwt),
            refresh_jwt=str(response.refresh_jwt),
            did=str(response.did),
        )
        self._save_secret(self.secret())
        self._client = self._client_for_tokens()

    def _client_for_tokens(self) -> Any:
        # No network call: the client takes the stored session as it is and
        # refreshes it by itself shortly before the access token expires.
        client = guarded_client(self.service_url, allow_private=self.allow_private)
        session = Session(
            handle=self.handle,
            did=self.did,
            access_jwt=self._secret["access_jwt"],
            refresh_jwt=self._secret["refresh_jwt"],
            pds_endpoint=self.service_url,
        )
        # The client reads the access token's expiry before every call; a token that
        # does not decode must fail here, where the caller signs in again instead.
        _ = session.access_jwt_payload.exp
        client.login(session_string=session.encode(), fetch_bsky_profile=False)
        client.on_session_change(self._on_client_refresh)
        return client

    def _on_client_refresh(self, event: Any, session: Any) -> None:
        # The client refreshed ahead of expiry by itself: keep the new tokens.
        if event not in (SessionEvent.REFRESH, SessionEvent.CREATE):
            return
        self._secret.update(
            access_jwt=str(session.access_jwt),
            refresh_jwt=str(session.refresh_jwt),
            did=str(session.did),
        )
        self._save_secret(self.secret())
