"""Mastodon, on Mastodon.py: a post fitted to the instance's own limit, published
exactly once (an Idempotency-Key per thread part), and its counts read back.

What Mastodon.py does here: the API calls and their types (verify_credentials,
status_post with `idempotency_key`, v2 media upload, status, instance_v2) and the
mapping of HTTP failures to exception classes. What it does not: PKCE (see
oauth.py), and it keeps the Retry-After of a 429 to itself (a session hook
reads it, see errors.py). Its requests session is guarded_http's: every
request passes the SSRF guard when it is sent, and redirects are refused.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from mastodon import Mastodon, MastodonError, MastodonNotFoundError

from socialgen.kit.errors import BadRequest
from socialgen.publishing.loopback import authorize_in_browser
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    MediaItem,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PastPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
    brief,
)
from socialgen.publishing.networks.guarded_http import (
    GuardRefused,
    guard_refusal,
    guarded_session,
)
from socialgen.publishing.networks.mastodon import oauth
from socialgen.publishing.networks.mastodon.errors import ResponseHeaders, publish_error
from socialgen.publishing.networks.mastodon.history import mastodon_metrics, read_history
from socialgen.publishing.networks.mastodon.text import DEFAULT_MAX_CHARACTERS, count, split
from socialgen.publishing.networks.pull import Pull

NETWORK = "mastodon"
DEFAULT_SERVICE_URL = ""  # no default instance: the user names theirs
# Mastodon remembers an Idempotency-Key for about an hour (Redis, 3600 s): a claim that
# expired longer ago than that cannot be sent again safely (the outbox marks it unknown).
IDEMPOTENCY_WINDOW_SECONDS: float | None = 3600.0
CAN_REPLY = True  # a follow-up is a status in_reply_to the post (OutgoingPost.reply_to)
REQUEST_TIMEOUT = 60.0  # Mastodon.py's own default is 300 s per request
MEDIA_PROCESSING_TIMEOUT = 120.0  # the instance transcodes an upload asynchronously
DEFAULT_MAX_MEDIA = 4
DEFAULT_DESCRIPTION_LIMIT = 1500  # alt text, Mastodon's default
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


@dataclass(frozen=True)
class InstanceLimits:
    max_characters: int = DEFAULT_MAX_CHARACTERS
    max_media: int = DEFAULT_MAX_MEDIA
    description_limit: int = DEFAULT_DESCRIPTION_LIMIT
    known: bool = False  # False: /api/v2/instance said nothing, defaults apply


class MastodonAdapter:
    network = NETWORK

    def __init__(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        *,
        media_timeout: float = MEDIA_PROCESSING_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        allow_private: bool = False,
    ) -> None:
        self.instance = oauth.normalise_instance(credentials.service_url)
        self._allow_private = allow_private  # settings.allow_private_urls (the guard)
        self._token = credentials.secret.get("access_token", "")
        self._secrets = tuple(v for v in credentials.secret.values() if v)
        self._save_secret = save_secret  # Mastodon tokens do not expire: never called
        self._media_timeout = media_timeout
        self._sleep = sleep
        self._headers = ResponseHeaders()
        self._client: Mastodon | None = None
        self._limits: InstanceLimits | None = None

    # --- the protocol -------------------------------------------------------------

    def check(self) -> AccountIdentity:
        with self._calls():
            return identity_of(self._api().account_verify_credentials(), self.instance)

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        limits = self.limits()
        texts = split(post.text, limits.max_characters, number=post.number_parts)
        images = [item for item in post.media if item.kind == "image"]
        attached = images[: limits.max_media]
        parts = []
        for index, text in enumerate(texts):
            details: dict[str, Any] = {
                "characters": count(text),
                "limit": limits.max_characters,
                "idempotency_key": part_key(post, index),
            }
            if not limits.known:
                details["limit_note"] = "the instance did not say its limit: 500 assumed"
            if index > 0:
                details["in_reply_to"] = f"part {index}"
            if index == 0 and attached:
                details["media"] = [_media_view(item, limits) for item in attached]
            if index == 0 and len(images) > len(attached):
                details["media_left_out"] = len(images) - len(attached)
            if index == 0 and len(images) < len(post.media):
                details["documents_left_out"] = "Mastodon takes images, not documents"
            parts.append(PreparedPart(text=text, details=details))
        return PreparedPost(network=NETWORK, parts=tuple(parts))

    def publish(self, post: OutgoingPost) -> Published:
        prepared = self.prepare(post)
        limits = self.limits()
        images = [item for item in post.media if item.kind == "image"][: limits.max_media]
        with self._calls():
            media_ids = [self._upload(item, index, limits) for index, item in enumerate(images)]
            statuses: list[Any] = []
            for index, part in enumerate(prepared.parts):
                status = self._api().status_post(
                    part.text,
                    in_reply_to_id=statuses[-1].id if statuses else post.reply_to,
                    media_ids=media_ids if index == 0 and media_ids else None,
                    idempotency_key=part_key(post, index),
                )
                statuses.append(status)
        root = statuses[0]
        return Published(
            remote_id=str(root.id),
            url=str(root.url or root.uri),
            part_ids=tuple(str(status.id) for status in statuses),
        )

    def metrics(self, published: Published) -> Metrics:
        with self._calls():
            try:
                status = self._api().status(published.remote_id)
            except MastodonNotFoundError:
                raise PublishError(
                    f"status {published.remote_id} is gone from {self.instance}"
                ) from None
        # Our own thread hangs under the root as a reply: it is not a comment.
        own_replies = 1 if len(published.part_ids) > 1 else 0
        return mastodon_metrics(status, own_replies)

    def history(self, since: datetime | None, pull: Pull) -> Iterator[PastPost]:
        """The account's own statuses with their counts (history.py)."""
        return read_history(self._api, self._calls, since, pull)

    # --- the instance ---------------------------------------------------------------

    def limits(self) -> InstanceLimits:
        """The instance's own limits from /api/v2/instance, once per adapter."""
        if self._limits is None:
            self._limits = self._read_limits()
        return self._limits

    def _read_limits(self) -> InstanceLimits:
        try:
            with self._calls():
                instance = self._api().instance_v2()
        except PublishError as exc:
            # Older instances (before 4.0) have no v2: publish with the default limit.
            # An unreachable, failing or refused one is an error: publishing would
            # fail too.
            if exc.retryable or exc.reconnect or isinstance(exc, GuardRefused):
                raise
            return InstanceLimits()
        configuration = _dict(instance.get("configuration"))
        statuses = _dict(configuration.get("statuses"))
        media = _dict(configuration.get("media_attachments"))
        max_characters = _positive(statuses.get("max_characters"))
        return InstanceLimits(
            max_characters=max_characters or DEFAULT_MAX_CHARACTERS,
            max_media=_positive(statuses.get("max_media_attachments")) or DEFAULT_MAX_MEDIA,
            description_limit=_positive(media.get("description_limit"))
            or DEFAULT_DESCRIPTION_LIMIT,
            known=max_characters is not None,
        )

    def _upload(self, item: MediaItem, index: int, limits: InstanceLimits) -> str:
        """v2 media upload, then poll while the instance processes it (GET answers
        206 with no url until the file is ready)."""
        api = self._api()
        extension = EXTENSIONS.get(item.mime_type, "bin")
        media = api.media_post(
            item.data,
            mime_type=item.mime_type,
            description=item.alt_text[: limits.description_limit] or None,
            file_name=f"image-{index + 1}.{extension}",
        )
        deadline = time.monotonic() + self._media_timeout
        pause = 0.25
        while media.get("url") is None:
            if time.monotonic() > deadline:
                raise PublishError(
                    f"{self.instance} was still processing image {index + 1} after "
                    f"{self._media_timeout:g} s",
                    retryable=True,
                )
            self._sleep(pause)
            pause = min(pause * 2, 5.0)
            media = api.media(media.id)
        return str(media.id)

    def _api(self) -> Mastodon:
        if self._client is None:
            self._client = client_for(
                self.instance, self._token, self._headers, self._allow_private
            )
        return self._client

    @contextmanager
    def _calls(self) -> Iterator[None]:
        """Every Mastodon.py error leaves as a PublishError (never with a token)."""
        self._headers.clear()
        try:
            yield
        except MastodonError as exc:
            refused = guard_refusal(exc)
            if refused is not None:
                raise refused from None
            error = publish_error(exc, self._headers, self.instance, self._secrets)
            # The instance's own words, short: an error text is the server's to write.
            error.message = brief(error.message, 400)
            raise error from None


def part_key(post: OutgoingPost, index: int) -> str:
    """The Idempotency-Key of one thread part: stable across retries of the
    publication, distinct per part (Mastodon keeps a key for an hour)."""
    return f"{post.idempotency_key}:{index}"


def client_for(instance: str, token: str, headers: ResponseHeaders, private: bool) -> Mastodon:
    client = Mastodon(
        api_base_url=instance,
        access_token=token,
        ratelimit_method="throw",  # the outbox waits, not a worker thread asleep
        request_timeout=REQUEST_TIMEOUT,
        version_check_mode="none",
        user_agent="socialgen",
        session=guarded_session("Mastodon", allow_private=private),
    )
    client.session.hooks["response"].append(headers.record)
    return client


def identity_of(account: Any, instance: str) -> AccountIdentity:
    acct = str(account.acct)
    if "@" not in acct:
        acct = f"{acct}@{urlsplit(instance).netloc}"
    return AccountIdentity(
        handle=f"@{acct}",
        display_name=str(account.display_name or account.username),
        profile_url=str(account.url or ""),
    )


# --- the module's way in (networks/base.py) -------------------------------------------


# `settings` (NetworkSettings, networks/base.py): Mastodon needs allow_private_urls only.


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> MastodonAdapter:
    return MastodonAdapter(credentials, save_secret, allow_private=settings.allow_private_urls)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """An access token the user made in the instance's settings (--token-stdin)."""
    instance = oauth.normalise_instance(service_url)
    token = secret.strip()
    if not token:
        raise BadRequest("the access token is empty")
    identity = _verify(instance, token, settings.allow_private_urls)
    _same_account(identity, handle)
    return Connected(
        service_url=instance,
        identity=identity,
        secret={"access_token": token, "client_id": "", "client_secret": ""},
    )


def authorize(
    service_url: str,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """OAuth in the browser: register an app whose redirect is this sign-in's
    loopback port, authorize with PKCE, exchange the code, verify the token.
    Options: `port` (fixed loopback port), `scopes`, `timeout` (seconds)."""
    instance = oauth.normalise_instance(service_url)
    scopes = options.get("scopes") or oauth.SCOPES
    apps: list[oauth.App] = []
    allow_private = settings.allow_private_urls

    def build_url(redirect_uri: str, state: str, challenge: str) -> str:
        apps.append(oauth.register_app(instance, redirect_uri, scopes, allow_private=allow_private))
        return oauth.authorization_url(instance, apps[-1], redirect_uri, state, challenge, scopes)

    authorization = authorize_in_browser(
        build_url,
        port=_int_option(options, "port", 0),
        open_browser=open_browser,
        announce=announce,
        timeout=float(_int_option(options, "timeout", 300)),
    )
    token = oauth.exchange_code(
        instance, apps[-1], authorization, scopes, allow_private=allow_private
    )
    return Connected(
        service_url=instance,
        identity=_verify(instance, token, allow_private),
        secret={
            "access_token": token,
            "client_id": apps[-1].client_id,
            "client_secret": apps[-1].client_secret,
        },
    )


def _verify(instance: str, token: str, allow_private: bool) -> AccountIdentity:
    credentials = AccountCredentials(NETWORK, instance, "", {"access_token": token})
    adapter = MastodonAdapter(credentials, lambda _: None, allow_private=allow_private)
    try:
        return adapter.check()
    except PublishError as exc:
        if exc.retryable or exc.outcome_unknown:
            raise  # the instance is down or busy, not the token's fault: a 502 upstream
        raise BadRequest(exc.message) from None


def _same_account(identity: AccountIdentity, handle: str) -> None:
    wanted = handle.strip().lstrip("@").lower()
    if not wanted:
        return
    have = identity.handle.lstrip("@").lower()
    if wanted not in {have, have.split("@")[0]}:
        raise BadRequest(f"the token belongs to {identity.handle}, not @{wanted}")


def _int_option(options: dict[str, str], name: str, default: int) -> int:
    raw = options.get(name, "")
    if not str(raw).strip():
        return default
    try:
        return int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {raw!r}") from None


def _media_view(item: MediaItem, limits: InstanceLimits) -> dict[str, Any]:
    return {
        "mime_type": item.mime_type,
        "bytes": len(item.data),
        "description": item.alt_text[: limits.description_limit],
    }


def _dict(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None
