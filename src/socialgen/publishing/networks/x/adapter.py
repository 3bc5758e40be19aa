"""X (Twitter): posts and threads through API v2 (`POST /2/tweets`), exactly once.

The contract is networks/base.py. What is X's own:
- a post weighs at most 280 (twitter-text's weighted count, text.py); a longer text
  is a thread, each part a reply to the one before;
- up to four images per post (media.py), no documents;
- OAuth 2.0 user tokens that last two hours and refresh with a rotating refresh
  token (client.py, oauth.py);
- no idempotency key (`IDEMPOTENT = False`). Exactly once rests on three things: the
  parts already live (`post.posted_parts`) are never sent again, each new part is
  recorded the moment it is live (`post.note_posted`), and a post that may be live
  without an answer is looked for on the account's own timeline (lookup.py): after
  a timeout, a dropped connection or a 5xx on the create call, and before sending
  anything when an earlier attempt may have gone live (`post.earlier_attempt_at`).
  Found: taken as published. Not found right after a timeout: the outcome is
  unknown (X's timeline lags), never a blind resend (`FINDS_ITS_POSTS = True`).
- "duplicate content" (a 403): X refuses a text the account posted recently. When
  an earlier attempt may be live it is most likely that attempt, so it is looked for
  and taken as published when found; otherwise it is a plain failure that says so
  (the account already has this text: sending it again would be refused again).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    MediaItem,
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
from socialgen.publishing.networks.x.client import DuplicateContent, SentNoAnswer, XClient
from socialgen.publishing.networks.x.history import metrics_of, post_url, read_history
from socialgen.publishing.networks.x.lookup import find_part, recent_posts
from socialgen.publishing.networks.x.media import describe, plan_media, upload
from socialgen.publishing.networks.x.oauth import authorize_tokens
from socialgen.publishing.networks.x.text import part_details, split_text

NETWORK = "x"
DEFAULT_SERVICE_URL = "https://api.x.com"
IDEMPOTENT = False  # sending a post twice makes two posts
FINDS_ITS_POSTS = True  # lookup.py: the timeline is read before any resend
CAN_REPLY = True  # a follow-up is a reply to the post (OutgoingPost.reply_to)
LOOK_AGAIN_AFTER = 2.0  # seconds: a second look, the timeline lags a new post


class XAdapter:
    network = NETWORK

    def __init__(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._credentials = credentials
        self._settings = settings
        self._secret = dict(credentials.secret)
        self._save_secret = save_secret
        self._sleep = sleep

    def _client(self) -> XClient:
        return XClient(self._credentials.service_url, self._secret, self._saved, self._settings)

    def _saved(self, secret: dict[str, str]) -> None:
        # The refreshed tokens serve this adapter's next calls too, not only the row.
        self._secret = dict(secret)
        self._save_secret(dict(secret))

    # --- the protocol -------------------------------------------------------------

    def check(self) -> AccountIdentity:
        client = self._client()
        try:
            return me(client)[1]
        finally:
            client.close()

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        # The guard at use: a dry run makes no other request that would meet it.
        check_destination(
            "X", self._credentials.service_url, allow_private=self._settings.allow_private_urls
        )
        texts, per_part, left_out = _plan(post)
        parts = []
        for index, (text, details) in enumerate(zip(texts, part_details(texts), strict=True)):
            if per_part[index]:
                details["media"] = describe(per_part[index])
            if index == 0 and left_out:
                details["leftOut"] = left_out
            parts.append(PreparedPart(text=text, details=details))
        return PreparedPost(network=NETWORK, parts=tuple(parts))

    def publish(self, post: OutgoingPost) -> Published:
        texts, per_part, _ = _plan(post)  # a refusal before anything is sent
        ids = list(post.posted_parts[: len(texts)])
        client = self._client()
        try:
            user_id, username = self._user(client)
            if post.earlier_attempt_at is not None and len(ids) < len(texts):
                self._found_earlier(client, user_id, post, texts, ids)
            numbers = _image_numbers(per_part)
            for index in range(len(ids), len(texts)):
                part = _Part(index, len(texts), texts[index], per_part[index], numbers[index])
                post_id = self._send(client, user_id, username, post, part, ids)
                ids.append(post_id)
                post.note_posted(index, post_id)  # recorded before the next goes out
        finally:
            client.close()
        return Published(remote_id=ids[0], url=post_url(username, ids[0]), part_ids=tuple(ids))

    def metrics(self, published: Published) -> Metrics:
        client = self._client()
        what = "reading the post's counts"
        try:
            params = {"ids": published.remote_id, "tweet.fields": "public_metrics"}
            body = client.json_of(
                client.request("GET", "/2/tweets", what=what, params=params), what
            )
        finally:
            client.close()
        found = [item for item in body.get("data") or [] if isinstance(item, dict)]
        if not found:
            return Metrics(note="X no longer has this post (deleted?)")
        return metrics_of(found[0], published.remote_id)

    def history(self, since: datetime | None, pull: PageBudget) -> Iterator[PastPost]:
        client = self._client()
        try:
            user_id, username = self._user(client)
            yield from read_history(client, user_id, username, since, pull)
        finally:
            client.close()

    # --- exactly once -------------------------------------------------------------

    def _found_earlier(
        self, client: XClient, user_id: str, post: OutgoingPost, texts: list[str], ids: list[str]
    ) -> None:
        """The parts an earlier attempt got live unanswered, found on the timeline,
        recorded as posted (`ids` grows): they are not sent again."""
        assert post.earlier_attempt_at is not None
        posts = recent_posts(client, user_id, post.earlier_attempt_at)
        while len(ids) < len(texts):
            reply_to = ids[-1] if ids else post.reply_to
            found = find_part(posts, texts[len(ids)], reply_to, set(ids))
            if found is None:
                return
            post.note_posted(len(ids), found)
            ids.append(found)

    def _send(
        self,
        client: XClient,
        user_id: str,
        username: str,
        post: OutgoingPost,
        part: _Part,
        ids: list[str],
    ) -> str:
        """Create one part (after its images), or find it live; its id."""
        media_ids = [
            upload(client, item, n) for item, n in zip(part.images, part.numbers, strict=True)
        ]
        reply_to = ids[-1] if ids else post.reply_to  # a follow-up answers the post
        body: dict[str, Any] = {"text": part.text} if part.text else {}
        if reply_to is not None:
            body["reply"] = {"in_reply_to_tweet_id": reply_to}
        if media_ids:
            body["media"] = {"media_ids": media_ids}
        what = "creating the post" if part.total == 1 else f"creating part {part.number}"
        started = utcnow()
        try:
            response = client.request("POST", "/2/tweets", what=what, json=body, creates=True)
        except SentNoAnswer as error:
            found = self._look(client, user_id, part.text, reply_to, ids, started, again=True)
            if found is not None:
                return found
            raise _unknown(error.why, username, part) from None
        except DuplicateContent as error:
            if post.earlier_attempt_at is not None:
                since = min(post.earlier_attempt_at, started)
                found = self._look(client, user_id, part.text, reply_to, ids, since, again=False)
                if found is not None:
                    return found
            raise PublishError(
                f"{error.message}: the account already has a post with this text, and X "
                "refuses it again; change the text to publish it"
            ) from None
        data = client.json_of(response, what).get("data")
        post_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(post_id, str) or not post_id.isdigit():
            raise _unknown(f"X accepted {what} but named no post id", username, part)
        return post_id

    def _look(
        self,
        client: XClient,
        user_id: str,
        text: str,
        reply_to: str | None,
        ids: list[str],
        since: datetime,
        *,
        again: bool,
    ) -> str | None:
        """The part's id if it is on the timeline since `since`; None when not, or
        when the timeline cannot be read now (the caller then says unknown)."""
        looks = 2 if again and LOOK_AGAIN_AFTER > 0 else 1
        for look in range(looks):
            if look:
                self._sleep(LOOK_AGAIN_AFTER)
            try:
                found = find_part(recent_posts(client, user_id, since), text, reply_to, set(ids))
            except PublishError:
                return None
            if found is not None:
                return found
        return None

    def _user(self, client: XClient) -> tuple[str, str]:
        """The account's user id and username (the stored ones, else X's answer)."""
        user_id = self._secret.get("user_id", "")
        username = self._credentials.handle.lstrip("@")
        if user_id.isdigit() and username:
            return user_id, username
        user_id, identity = me(client)
        return user_id, identity.handle.lstrip("@")


class _Part:
    """One part to send: its place in the thread, text, images and their numbers."""

    def __init__(
        self, index: int, total: int, text: str, images: list[MediaItem], numbers: list[int]
    ) -> None:
        self.number, self.total = index + 1, total
        self.text, self.images, self.numbers = text, images, numbers


def _plan(post: OutgoingPost) -> tuple[list[str], list[list[MediaItem]], list[str]]:
    """The parts' texts, each part's images, and what is left out."""
    has_images = any(item.kind == "image" for item in post.media)
    if not post.text.strip() and not has_images:
        raise PublishError("X: the post has no text and no images")
    texts = split_text(post.text, number_parts=post.number_parts) if post.text.strip() else [""]
    per_part, left_out = plan_media(post.media, len(texts))
    return texts, per_part, left_out


def _image_numbers(per_part: list[list[MediaItem]]) -> list[list[int]]:
    numbers, next_number = [], 1
    for images in per_part:
        numbers.append(list(range(next_number, next_number + len(images))))
        next_number += len(images)
    return numbers


def _unknown(why: str, username: str, part: _Part) -> PublishError:
    which = "the post" if part.total == 1 else f"part {part.number} of {part.total}"
    return PublishError(
        f"{why}; {which} was sent and may be live, and X did not list it on your "
        f"timeline right after: check https://x.com/{username} before retrying with "
        "`socialgen posts publish POST_ID --retry` (the retry looks for it first)",
        outcome_unknown=True,
    )


def me(client: XClient) -> tuple[str, AccountIdentity]:
    """Who the token belongs to (GET /2/users/me; scopes tweet.read users.read)."""
    what = "reading who you are"
    data = client.json_of(client.request("GET", "/2/users/me", what=what), what).get("data")
    user_id = data.get("id") if isinstance(data, dict) else None
    username = data.get("username") if isinstance(data, dict) else None
    if not isinstance(user_id, str) or not isinstance(username, str) or not username:
        raise PublishError("X's answer to users/me names no user")
    name = str(data.get("name") or "").strip() if isinstance(data, dict) else ""
    identity = AccountIdentity(
        handle=f"@{username}",
        display_name=name or username,
        profile_url=f"https://x.com/{username}",
    )
    return user_id, identity


def build(
    credentials: AccountCredentials,
    save_secret: SecretSaver,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> XAdapter:
    return XAdapter(credentials, save_secret, settings)


def connect(
    service_url: str,
    handle: str,
    secret: str,
    *,
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """An access token given by hand (--token-stdin, the HTTP API): it lasts two hours
    and cannot be refreshed. `handle`, when given, must be the token's account."""
    connected = _connected(service_url, {"access_token": secret.strip()}, settings)
    wanted = handle.strip().lstrip("@").lower()
    if wanted and wanted != connected.identity.handle.lstrip("@").lower():
        raise PublishError(
            f"This token belongs to {connected.identity.handle}, not @{wanted}: give that "
            "account's token, or leave the handle out"
        )
    return connected


def authorize(
    service_url: str,
    options: dict[str, str],
    *,
    open_browser: bool,
    announce: Callable[[str], None],
    settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
) -> Connected:
    """Sign in through the browser with the user's X app (oauth.py). options:
    client_id, client_secret (confidential clients), port (default 8765)."""
    url = service_url.rstrip("/")
    secret = authorize_tokens(
        url, options, open_browser=open_browser, announce=announce, settings=settings
    )
    return _connected(url, secret, settings)


def _connected(service_url: str, secret: dict[str, str], settings: NetworkSettings) -> Connected:
    url = service_url.rstrip("/")
    client = XClient(url, secret, None, settings)
    try:
        user_id, identity = me(client)
    finally:
        client.close()
    return Connected(service_url=url, identity=identity, secret={**secret, "user_id": user_id})
