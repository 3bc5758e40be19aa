"""A Threads account's own past posts and every post's counts.

Counts come from `GET /{media-id}/insights?metric=views,likes,replies,reposts,quotes`
(threads_manage_insights): likes, replies as comments, reposts and quotes together
as reposts, views as impressions. Without the permission the counts are 0 with a note
saying why, rather than a failure: the post itself is still read.

Past posts come from `GET /{user-id}/threads`, newest first, paged by the `after`
cursor while the answer names a next page. Reposts of other people's posts
(media_type REPOST_FACADE) are left out, and replies are not listed there. Every
page, and every post's insights read, is asked of the pull first (networks/pull.py):
a read stops at its deadline or page cap, keeping what it has.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from socialgen.kit.control_chars import without_controls
from socialgen.publishing.networks.answers import count_from, moment_from, web_address
from socialgen.publishing.networks.base import Metrics, PageBudget, PastPost, PublishError
from socialgen.publishing.networks.threads.client import ThreadsClient
from socialgen.publishing.networks.threads.lookup import next_cursor

NETWORK = "Threads"
METRICS = "views,likes,replies,reposts,quotes"
PAGE_SIZE = 50
LISTED = "id,text,timestamp,permalink,media_type,is_quote_post"
NOT_OWN = frozenset({"REPOST_FACADE"})  # a repost of someone else's post
NO_INSIGHTS = (
    "Threads did not let this token read the post's counts: that needs the "
    "threads_manage_insights permission (sign in again with socialgen accounts add threads)"
)


def media_metrics(client: ThreadsClient, media_id: str) -> Metrics:
    """A post's counts (a note instead when the token may not read them)."""
    try:
        body = client.get(
            f"/{media_id}/insights", {"metric": METRICS}, what="reading the post's counts"
        )
    except PublishError as error:
        if error.reconnect and "permission" in error.message:
            return Metrics(note=NO_INSIGHTS)
        raise
    values = _values(body, media_id)
    return Metrics(
        likes=values.get("likes", 0),
        reposts=values.get("reposts", 0) + values.get("quotes", 0),
        comments=values.get("replies", 0),
        impressions=values.get("views"),
    )


def read_history(
    client: ThreadsClient, user_id: str, since: datetime | None, pull: PageBudget
) -> Iterator[PastPost]:
    """The account's posts, newest first, down to `since` (all without)."""
    params = {"fields": LISTED, "limit": str(PAGE_SIZE)}
    if since is not None:
        params["since"] = str(int(since.timestamp()))
    cursor: str | None = None
    seen: set[str] = set()
    while pull.next_page(cursor):
        page = dict(params) if cursor is None else {**params, "after": cursor}
        body = client.get(f"/{user_id}/threads", page, what="reading your posts")
        data = body.get("data")
        if not isinstance(data, list):
            raise _not_understood("it holds no list of posts")
        for item in data:
            post = _own_post(item)
            if post is None or post[0] in seen:
                continue
            seen.add(post[0])
            media_id, text, url, published_at = post
            if since is not None and published_at < since:
                return
            if not pull.next_page(("insights", media_id)):
                return
            yield PastPost(
                remote_id=media_id,
                url=url,
                text=without_controls(text),
                published_at=published_at,
                metrics=media_metrics(client, media_id),
            )
        cursor = next_cursor(body)
        if cursor is None or not data:
            return


def _own_post(item: Any) -> tuple[str, str, str, datetime] | None:
    """(id, text, link, time) of a listed post; None for one that is not the
    account's own."""
    if not isinstance(item, dict):
        raise _not_understood("a post in it is not an object")
    media_id = str(item.get("id") or "").strip()
    if not media_id:
        raise _not_understood("a post in it has no id")
    if item.get("media_type") in NOT_OWN or item.get("is_reply") is True:
        return None
    text = item.get("text") or ""
    if not isinstance(text, str):
        raise _not_understood(f"the text of {media_id} is not text")
    published_at = moment_from(NETWORK, item.get("timestamp"), f"the time of {media_id}")
    return media_id, text, web_address(item.get("permalink")), published_at


def _values(body: dict[str, Any], media_id: str) -> dict[str, int]:
    """Each metric's lifetime value in an insights answer."""
    data = body.get("data")
    if not isinstance(data, list):
        raise _not_understood(f"the counts of {media_id} hold no list")
    values: dict[str, int] = {}
    for metric in data:
        if not isinstance(metric, dict) or not isinstance(metric.get("name"), str):
            continue
        name = metric["name"]
        raw: Any = None
        listed = metric.get("values")
        if isinstance(listed, list) and listed and isinstance(listed[0], dict):
            raw = listed[0].get("value")
        elif isinstance(metric.get("total_value"), dict):
            raw = metric["total_value"].get("value")
        values[name] = count_from(NETWORK, raw, f"{name} of {media_id}")
    return values


def _not_understood(why: str) -> PublishError:
    # Retryable: a garbled answer is Threads' failure, not the user's.
    return PublishError(f"Threads' answer was not understood: {why}", retryable=True)
