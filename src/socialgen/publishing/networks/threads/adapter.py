"""Threads (Meta): a member's posts through the Threads Graph API.

The contract is networks/base.py. What is Threads' own:
- a post is made in two steps, a container then its publication (containers.py);
- 500 characters a post, an emoji counted as its UTF-8 bytes; a longer post is a
  thread, each part a reply to the one before (`reply_to_id`; text.py);
- images only from a public web address Meta fetches them from (media.py): with the
  files in a bucket, the outbox hands each image a presigned link and the first part
  goes as an IMAGE or a CAROUSEL (2 to 20 images); without one, as text, and the dry
  run says what is left out (and the PDF always is: Threads takes no documents);
- 250 posts and 1,000 replies a day per account: the quota is read before a post
  goes out, and a post over it waits (retryable, an hour later) instead of failing;
- no idempotency key, but the account's own posts can be read: exactly once comes
  from `posted_parts` (never sent again), `note_posted` after each part, and looking
  on the account (lookup.py) before sending when an earlier attempt may have gone
  live, and after a publish that got no answer, where the container's own status
  (PUBLISHED or not) settles what the listing cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from socialgen.kit.clock import iso, utcnow
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PageBudget,
    PastPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)
from socialgen.publishing.networks.guarded_http import check_destination
from socialgen.publishing.networks.threads import containers
from socialgen.publishing.networks.threads.client import (
    QUOTA_WAIT_SECONDS,
    ThreadsClient,
    Unanswered,
    timeout_of,
)
from socialgen.publishing.networks.threads.history import media_metrics, read_history
from socialgen.publishing.networks.threads.lookup import find_part
from socialgen.publishing.networks.threads.media import Images, images_of
from socialgen.publishing.networks.threads.oauth import authorize_tokens
from socialgen.publishing.networks.threads.text import part_details, thread_parts

DEFAULT_SERVICE_URL = "https://graph.threads.net/v1.0"
IDEMPOTENT = False  # publishing the same text twice makes two posts
FINDS_ITS_POSTS = True  # it reads the account's posts before sending again
CAN_REPLY = True  # a follow-up is a reply to the post (OutgoingPost.reply_to)
LIMIT_WAIT_SECONDS = QUOTA_WAIT_SECONDS  # at the daily quota: look again in an hour
PROFILE = "https://www.threads.com/@"
CHECK = "check your Threads profile"
RETRY = "socialgen posts publish POST_ID --to ACCOUNT --retry"


class ThreadsAdapter:
    network = "threads"

    def __init__(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
    ) -> None:
        self._credentials = credentials
        self._settings = settings
        self._secret = dict(credentials.secret)
        self._save_secret = save_secret
        self.container_wait = containers.CONTAINER_WAIT

    def _client(self) -> ThreadsClient:
        client = ThreadsClient(
            self._credentials.service_url, self._secret, self._saved, self._settings
        )
        try:
            client.refresh_if_due()
        except BaseException:
            client.close()
            raise
        return client

    def _saved(self, secret: dict[str, str]) -> None:
        # The refreshed token serves this adapter's next calls too, not only the row.
        self._secret = dict(secret)
        self._save_secret(dict(secret))

    def check(self) -> AccountIdentity:
        with self._client() as client:
            return me(client)[1]

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        # The guard at use: a dry run makes no other request that would meet it.
        check_destination(
            "Threads",
            self._credentials.service_url,
            allow_private=self._settings.allow_private_urls,
        )
        parts = thread_parts(post.text, post.number_parts)
        images = images_of(post.media)
        prepared = []
        for index, part in enumerate(parts):
            details = part_details(part, index, len(parts))
            if index == 0 and images.sent:
                details["mediaType"] = images.media_type
                details["images"] = [
                    {"mimeType": item.mime_type, "bytes": len(item.data), "altText": item.alt_text}
                    for item in images.sent
                ]
            if index == 0 and images.left_out:
                details["leftOut"] = list(images.left_out)
            if index < len(post.posted_parts):
                details["alreadyLive"] = post.posted_parts[index]
            prepared.append(PreparedPart(text=part, details=details))
        return PreparedPost(network=self.network, parts=tuple(prepared))

    def publish(self, post: OutgoingPost) -> Published:
        parts = thread_parts(post.text, post.number_parts)  # a refusal before any call
        images = images_of(post.media)
        live = list(post.posted_parts)
        with self._client() as client:
            user_id = self._user_id(client)
            since = post.earlier_attempt_at
            while since is not None and len(live) < len(parts):
                # An earlier attempt may have made the next part live unanswered, and
                # one whose claim was lost, more parts it could not record.
                reply_to = live[-1] if live else post.reply_to
                found = find_part(client, user_id, parts[len(live)], since, reply_to)
                if not found:
                    break
                post.note_posted(len(live), found)
                live.append(found)
            if len(live) < len(parts):
                root = not live and post.reply_to is None  # a follow-up is replies only
                room(client, user_id, root, len(parts) - len(live) - int(root))
            for index in range(len(live), len(parts)):
                media_id = self._send(
                    client,
                    user_id,
                    parts[index],
                    live[-1] if live else post.reply_to,
                    images if index == 0 else None,
                )
                post.note_posted(index, media_id)
                live.append(media_id)
            url = containers.permalink(client, live[0]) or self._profile()
        return Published(remote_id=live[0], url=url, part_ids=tuple(live))

    def metrics(self, published: Published) -> Metrics:
        with self._client() as client:
            return media_metrics(client, published.remote_id)

    def history(self, since: datetime | None, pull: PageBudget) -> Iterator[PastPost]:
        """The account's own posts with their counts, newest first (history.py)."""
        with self._client() as client:
            yield from read_history(client, self._user_id(client), since, pull)

    def _send(
        self,
        client: ThreadsClient,
        user_id: str,
        text: str,
        reply_to: str | None,
        images: Images | None = None,
    ) -> str:
        """One part live: a container (with the post's images, for the first part),
        its wait, its publication; an unanswered publication is settled on the
        account before anything else is sent."""
        started = utcnow()
        container = self._container(client, user_id, text, reply_to, images)
        containers.wait_finished(client, container, self.container_wait)
        try:
            return containers.publish(client, user_id, container)
        except Unanswered as unanswered:
            return settle(client, user_id, text, reply_to, container, started, unanswered)

    def _container(
        self,
        client: ThreadsClient,
        user_id: str,
        text: str,
        reply_to: str | None,
        images: Images | None,
    ) -> str:
        """The part's container: TEXT, IMAGE, or a CAROUSEL of FINISHED items (made
        all at once, so Meta fetches them side by side, then waited for)."""
        sent = images.sent if images is not None else ()
        if not sent:
            return containers.create_text(client, user_id, text, reply_to)
        if len(sent) == 1:
            return containers.create_image(client, user_id, sent[0], text, reply_to)
        children = [
            containers.create_image(client, user_id, item, text, None, carousel_item=True)
            for item in sent
        ]
        for child in children:
            containers.wait_finished(client, child, self.container_wait)
        return containers.create_carousel(client, user_id, children, text, reply_to)

    def _user_id(self, client: ThreadsClient) -> str:
        known = self._secret.get("user_id", "").strip()
        if not known:
            known = me(client)[0]
            self._secret["user_id"] = known  # for this adapter's next calls
        return known

    def _profile(self) -> str:
        name = self._credentials.handle.strip().lstrip("@")
        return PROFILE + name if name else "https://www.threads.com/"


def settle(
    client: ThreadsClient,
    user_id: str,
    text: str,
    reply_to: str | None,
    container: str,
    started: datetime,
    unanswered: Unanswered,
) -> str:
    """After a publication that got no answer: the part's id when it is live (found
    on the account); a retryable error when the container says it was not published;
    outcome unknown when neither can tell."""
    try:
        found = find_part(client, user_id, text, started, reply_to)
    except PublishError:
        found = None  # the container's status may still tell
    if found:
        return found
    try:
        state, _ = containers.status(client, container)
    except PublishError:
        raise _unknown(unanswered, "nor could socialgen read the post's state") from None
    if state == containers.PUBLISHED:
        try:
            found = find_part(client, user_id, text, started, reply_to)
        except PublishError:
            found = None
        if found:
            return found
        raise _unknown(unanswered, "Threads says it is live, but it is not on the account yet")
    if state in (containers.FINISHED, containers.ERROR, containers.EXPIRED):
        raise PublishError(
            f"{unanswered.message}; the post is not live (Threads says it was not "
            "published) and will be tried again, looking on the account first",
            retryable=True,
        )
    raise _unknown(unanswered, f"and Threads gives it the state {state or 'none'}")


def room(client: ThreadsClient, user_id: str, root: bool, replies: int) -> None:
    """Refuse, retryable, a post the account's daily quota has no room for (250 posts
    and 1,000 replies in 24 hours, by `threads_publishing_limit`)."""
    body = client.get(
        f"/{user_id}/threads_publishing_limit",
        {"fields": "quota_usage,config,reply_quota_usage,reply_config"},
        what="reading the account's daily quota",
    )
    data = body.get("data")
    quota = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
    checks = (
        ("quota_usage", "config", 1 if root else 0, "posts"),
        ("reply_quota_usage", "reply_config", replies, "replies"),
    )
    for used_key, config_key, needed, kind in checks:
        used = _whole(quota.get(used_key))
        total = _whole(_get(quota.get(config_key), "quota_total"))
        if needed and used is not None and total is not None and used + needed > total:
            raise PublishError(
                f"Threads' daily quota is used up: {used} of {total} {kind} in the last "
                "24 hours; the post waits for room",
                retryable=True,
                retry_after=LIMIT_WAIT_SECONDS,
            )


def me(client: ThreadsClient) -> tuple[str, AccountIdentity]:
    """(user id, identity) of the token's account (threads_basic)."""
    body = client.get(
        "/me",
        {"fields": "id,username,name,threads_profile_picture_url"},
        what="reading who you are",
    )
    user_id = str(body.get("id") or "").strip()
    username = str(body.get("username") or "").strip()
    if not user_id or not username:
        raise PublishError("Threads' answer names no account for this token", retryable=True)
    name = str(body.get("name") or "").strip()
    identity = AccountIdentity(
        handle="@" + username, display_name=name or username, profile_url=PROFILE + username
    )
    return user_id, identity


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> ThreadsAdapter:
    return ThreadsAdapter(credentials, save_secret, settings)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """A long-lived token given by hand (--token-stdin, or the HTTP API's secret).
    `handle`, when given, must be the token's account."""
    fields = {"access_token": secret.strip(), "issued_at": iso(utcnow()) or ""}
    return _connected(service_url, fields, settings, handle)


def authorize(
    service_url: str,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """Sign in through the browser with the user's Meta app (oauth.py). options:
    client_id, client_secret, port (default 8765), redirect_uri (the https address
    the app lists, reaching the loopback)."""
    url = (service_url or DEFAULT_SERVICE_URL).rstrip("/")
    secret = authorize_tokens(
        url,
        options,
        open_browser=open_browser,
        announce=announce,
        timeout=timeout_of(settings),
        allow_private=settings.allow_private_urls,
    )
    return _connected(url, secret, settings, "")


def _connected(
    service_url: str, secret: dict[str, str], settings: NetworkSettings, handle: str
) -> Connected:
    url = (service_url or DEFAULT_SERVICE_URL).rstrip("/")
    with ThreadsClient(url, secret, None, settings) as client:
        user_id, identity = me(client)
    wanted = handle.strip().lstrip("@").lower()
    if wanted and wanted != identity.handle.lstrip("@").lower():
        raise PublishError(f"This token belongs to {identity.handle}, not @{wanted}")
    return Connected(service_url=url, identity=identity, secret={**secret, "user_id": user_id})


def _unknown(unanswered: Unanswered, why: str) -> PublishError:
    return PublishError(
        f"{unanswered.message}, and socialgen could not tell whether the post went out "
        f"({why}): {CHECK} before retrying with `{RETRY}` (Threads has no way to send "
        "a post only once)",
        outcome_unknown=True,
    )


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
