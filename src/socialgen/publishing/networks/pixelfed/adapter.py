"""Pixelfed, on the Mastodon adapter: Pixelfed speaks the Mastodon API, so checking the
token, uploading images (v2 media, polled until processed), metrics and history are
the Mastodon adapter's own, through Mastodon.py. What is Pixelfed's here:

- the post: one photo post, an image required, the text its caption, no thread
  (text.py); the instance's limits read from /api/v2/instance, else /api/v1/instance
  (Pixelfed before 0.11), else Pixelfed's defaults;
- exactly once: the publication's key goes as the Idempotency-Key, which Pixelfed
  remembers for an hour and refuses when it comes again, without saying which post
  the first request made. So a retry cannot post twice within the hour, and the post
  an earlier attempt may have made is looked for on the account (finding.py) before
  sending again, after a create call that got no answer, and when the key is refused;
- its refusals (errors.py), and the scopes of its tokens (`read write`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from mastodon import Mastodon, MastodonError

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.answers import web_address
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    NetworkSettings,
    OutgoingPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)
from socialgen.publishing.networks.guarded_http import (
    GuardRefused,
    guard_refusal,
    guarded_session,
)
from socialgen.publishing.networks.mastodon import adapter as mastodon
from socialgen.publishing.networks.mastodon.adapter import (
    MEDIA_PROCESSING_TIMEOUT,
    REQUEST_TIMEOUT,
    InstanceLimits,
    MastodonAdapter,
)
from socialgen.publishing.networks.mastodon.oauth import normalise_instance
from socialgen.publishing.networks.pixelfed import comment
from socialgen.publishing.networks.pixelfed.errors import (
    Answers,
    KeyTaken,
    MaybeLive,
    pixelfed_error,
)
from socialgen.publishing.networks.pixelfed.finding import find_post
from socialgen.publishing.networks.pixelfed.text import (
    DEFAULT_MAX_CHARACTERS,
    DEFAULT_MAX_MEDIA,
    DEFAULT_MIME_TYPES,
    DESCRIPTION_LIMIT,
    Rules,
    album,
    photo_post,
)

NETWORK = "pixelfed"
DEFAULT_SERVICE_URL = ""  # no default instance: the user names theirs
IDEMPOTENT = True  # a repeated key is refused for an hour: never a second post
FINDS_ITS_POSTS = True  # a publication that may be live is looked for first
CAN_REPLY = True  # a follow-up is a comment under the photo (comment.py)
# Pixelfed keeps a key for 3600 s (ApiV1Controller::statusCreate, Cache::put).
KEY_SECONDS = 3600.0
IDEMPOTENCY_WINDOW_SECONDS: float | None = KEY_SECONDS
SCOPES = "read write"  # Pixelfed's tokens have no finer scopes (Passport: read, write, ...)


@dataclass(frozen=True)
class PixelfedLimits(InstanceLimits):
    max_characters: int = DEFAULT_MAX_CHARACTERS
    max_media: int = DEFAULT_MAX_MEDIA
    description_limit: int = DESCRIPTION_LIMIT  # Pixelfed does not say it: its default
    mime_types: tuple[str, ...] = DEFAULT_MIME_TYPES

    def rules(self) -> Rules:
        return Rules(self.max_characters, self.max_media, self.mime_types, self.known)


class PixelfedAdapter(MastodonAdapter):
    """The Mastodon adapter's check, metrics, history and image upload as they are;
    the post, the limits, exactly once, the client (its guard named Pixelfed, JSON
    answers asked for) and the errors are Pixelfed's. It builds on the Mastodon
    adapter's own parts (`_api`, `_calls`, `_upload` and their state)."""

    network = NETWORK

    def __init__(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        *,
        media_timeout: float = MEDIA_PROCESSING_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
        allow_private: bool = False,
        request_timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        super().__init__(
            credentials,
            save_secret,
            media_timeout=media_timeout,
            sleep=sleep,
            allow_private=allow_private,
        )
        self._answers = Answers()  # the Mastodon adapter's headers, and Laravel's words
        self._headers = self._answers
        self._request_timeout = request_timeout
        self._pixelfed_limits: PixelfedLimits | None = None

    # --- the protocol -------------------------------------------------------------

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        """The one photo post, or a PublishError saying why Pixelfed would refuse it
        (no image is refused before the instance is asked anything)."""
        if post.reply_to:  # a follow-up: a comment under the post (comment.py)
            return comment.prepared(self, post)
        has_image = any(item.kind == "image" for item in post.media)
        rules = self.limits().rules() if has_image else Rules()
        part = photo_post(post.text, post.media, rules)
        details = {**part.details, "idempotency_key": post.idempotency_key}
        return PreparedPost(network=NETWORK, parts=(PreparedPart(part.text, details),))

    def publish(self, post: OutgoingPost) -> Published:
        if post.reply_to:  # a follow-up: a comment under the post (comment.py)
            return comment.posted(self, post)
        if post.posted_parts:  # an earlier attempt got it live and said so
            return self._already_live(post.posted_parts[0])
        caption = self.prepare(post).parts[0].text  # refusals before anything is sent
        limits = self.limits()
        images, _ = album(post.media, limits.rules())
        if post.earlier_attempt_at is not None:
            found = self._look(caption, len(images), post.earlier_attempt_at)
            if found is not None:
                return self._live(post, found)
        with self._calls():
            media_ids = [self._upload(item, index, limits) for index, item in enumerate(images)]
        started = utcnow()
        try:
            with self._calls(creating=True):
                status = self._api().status_post(
                    caption, media_ids=media_ids, idempotency_key=post.idempotency_key
                )
        except (MaybeLive, KeyTaken) as error:
            since = post.earlier_attempt_at or (
                started if isinstance(error, MaybeLive) else _window_start(started)
            )
            return self._after_no_answer(post, caption, len(images), since, error)
        if not isinstance(status, dict) or not status.get("id"):
            return self._after_no_answer(post, caption, len(images), started, None)
        return self._live(post, status)

    # --- the instance ---------------------------------------------------------------

    def limits(self) -> PixelfedLimits:
        """The instance's own limits, once per adapter: v2 says the values Pixelfed
        checks a post against (its admin settings); v1 is older Pixelfed's."""
        if self._pixelfed_limits is None:
            self._pixelfed_limits = self._read_pixelfed_limits()
        return self._pixelfed_limits

    def _read_pixelfed_limits(self) -> PixelfedLimits:
        for version in ("instance_v2", "instance_v1"):
            try:
                with self._calls():
                    instance = getattr(self._api(), version)()
            except PublishError as exc:
                # Missing (404) or refused: the next, then the defaults. An unreachable,
                # busy or refused-token instance would fail the post too.
                if exc.retryable or exc.reconnect or isinstance(exc, GuardRefused):
                    raise
                continue
            limits = limits_of(instance)
            if limits.known:
                return limits
        return PixelfedLimits()

    # --- exactly once ---------------------------------------------------------------

    def _look(self, caption: str, images: int, since: datetime) -> Any | None:
        return find_post(self._api, self._calls, caption, images, since)

    def _after_no_answer(
        self,
        post: OutgoingPost,
        caption: str,
        images: int,
        since: datetime,
        error: PublishError | None,
    ) -> Published:
        """The create call may have made the post: take it if it is on the account.
        Else a cut call is retried (the same key cannot make a second post), and a
        refused key or an empty answer is for the user to check."""
        try:
            found = self._look(caption, images, since)
        except PublishError as look:
            if isinstance(error, MaybeLive):
                raise error from None
            raise PublishError(
                f"{_said(error, self.instance)}, and looking for the post on the account "
                f"failed ({look.message}); will look again",
                retryable=True,
            ) from None
        if found is not None:
            return self._live(post, found)
        if isinstance(error, MaybeLive):
            raise error
        why = (
            "an earlier attempt may have failed after Pixelfed took its key, or the post "
            "is still being made"
            if error is not None
            else "Pixelfed answers so for an account not active on the web yet: sign in there once"
        )
        raise PublishError(
            f"{_said(error, self.instance)}, and no post with this caption has been on "
            f"the account since {iso(since)} ({why}). Pixelfed refuses this "
            "publication's key for an hour after it was first sent",
            outcome_unknown=True,
        )

    def _live(self, post: OutgoingPost, status: Any) -> Published:
        remote_id = str(status.get("id"))
        post.note_posted(0, remote_id)
        url = web_address(status.get("url")) or web_address(status.get("uri"))
        return Published(remote_id=remote_id, url=url, part_ids=(remote_id,))

    def _already_live(self, remote_id: str) -> Published:
        """Never sent again; its address read back, when the instance answers."""
        try:
            with self._calls():
                status = self._api().status(remote_id)
            url = web_address(status.get("url")) or web_address(status.get("uri"))
        except PublishError:
            url = ""
        return Published(remote_id=remote_id, url=url, part_ids=(remote_id,))

    # --- the client -----------------------------------------------------------------

    def _api(self) -> Mastodon:
        if self._client is None:
            session = guarded_session("Pixelfed", allow_private=self._allow_private)
            # Laravel answers JSON (its words, not an HTML page) when asked for it.
            session.headers["Accept"] = "application/json"
            client = Mastodon(
                api_base_url=self.instance,
                access_token=self._token,
                ratelimit_method="throw",  # the outbox waits, not a worker thread asleep
                request_timeout=self._request_timeout,
                version_check_mode="none",
                user_agent="socialgen",
                session=session,
            )
            client.session.hooks["response"].append(self._answers.record)
            self._client = client
        return self._client

    @contextmanager
    def _calls(self, creating: bool = False) -> Iterator[None]:
        """Every Mastodon.py error leaves as a PublishError (never with a token);
        `creating`: the call that makes the post, whose failure may hide a success."""
        self._answers.clear()
        try:
            yield
        except MastodonError as exc:
            refused = guard_refusal(exc)
            if refused is not None:
                raise refused from None
            raise pixelfed_error(
                exc, self._answers, self.instance, self._secrets, creating=creating
            ) from None


def limits_of(instance: Any) -> PixelfedLimits:
    """Limits from an /api/v1 or /api/v2/instance answer (the same configuration)."""
    configuration = _dict(_dict(instance).get("configuration"))
    statuses = _dict(configuration.get("statuses"))
    media = _dict(configuration.get("media_attachments"))
    max_characters = _positive(statuses.get("max_characters"))
    types = media.get("supported_mime_types")
    mime_types = (
        tuple(str(t).strip() for t in types if str(t).strip()) if isinstance(types, list) else ()
    )
    return PixelfedLimits(
        max_characters=max_characters or DEFAULT_MAX_CHARACTERS,
        max_media=_positive(statuses.get("max_media_attachments")) or DEFAULT_MAX_MEDIA,
        mime_types=mime_types or DEFAULT_MIME_TYPES,
        known=max_characters is not None,
    )


def _window_start(now: datetime) -> datetime:
    """Where a refused key's post can be: within the hour Pixelfed keeps a key."""
    return now - timedelta(seconds=KEY_SECONDS)


def _said(error: PublishError | None, instance: str) -> str:
    return error.message if error is not None else f"{instance} answered the post with nothing"


# --- the module's way in (networks/base.py) -------------------------------------------


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> PixelfedAdapter:
    return PixelfedAdapter(credentials, save_secret, allow_private=settings.allow_private_urls)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """An access token (Settings > Applications > Personal access tokens, scopes read
    and write), verified against the instance."""
    instance = instance_address(service_url)
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
    """OAuth in the browser, as Mastodon's (app registration, PKCE, the loopback
    redirect), asking for Pixelfed's scopes. The account it names is the one
    /api/v1/accounts/verify_credentials answers, as for Mastodon."""
    return mastodon.authorize(
        instance_address(service_url),
        {**options, "scopes": options.get("scopes") or SCOPES},
        open_browser=open_browser,
        announce=announce,
        settings=settings,
    )


def instance_address(url: str) -> str:
    if not url.strip():
        raise BadRequest("name the Pixelfed instance: --instance https://pixelfed.example")
    return normalise_instance(url)


def _verify(instance: str, token: str, allow_private: bool) -> AccountIdentity:
    credentials = AccountCredentials(NETWORK, instance, "", {"access_token": token})
    adapter = PixelfedAdapter(credentials, lambda _: None, allow_private=allow_private)
    try:
        return adapter.check()
    except PublishError as exc:
        if exc.retryable or exc.outcome_unknown:
            raise  # the instance is down or busy, not the token's fault
        raise BadRequest(exc.message) from None


def _same_account(identity: AccountIdentity, handle: str) -> None:
    wanted = handle.strip().lstrip("@").lower()
    have = identity.handle.lstrip("@").lower()
    if wanted and wanted not in {have, have.split("@")[0]}:
        raise BadRequest(f"the token belongs to {identity.handle}, not @{wanted}")


def _dict(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
