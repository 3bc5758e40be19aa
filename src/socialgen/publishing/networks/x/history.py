"""An X account's own past posts with their counts, and one post's counts.

`GET /2/users/:id/tweets` lists the account's posts newest first, 100 a page
(`pagination_token` from the answer's `meta.next_token`), without replies (a thread's
later parts) and reposts of others (`exclude=replies,retweets`), from `start_time`
when a since is given. X lists at most the 3,200 most recent posts this way. Each
post comes with `public_metrics` (scope tweet.read): likes, reposts and quotes (both
count as reposts here), replies, and impressions. Each page is asked of the pull
first (networks/pull.py), so a server that pages forever cannot hold it.

A count that is not a whole number from 0 up, or a time that is not one, stops the
read as an answer not understood (networks/answers.py).
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from socialgen.kit.control_chars import without_controls
from socialgen.publishing.networks.answers import count_from, moment_from
from socialgen.publishing.networks.base import Metrics, PageBudget, PastPost, PublishError
from socialgen.publishing.networks.x.client import XClient

PAGE_SIZE = 100  # the most X gives per page


def post_url(username: str, post_id: str) -> str:
    name = username.lstrip("@") or "i/web"
    return f"https://x.com/{name}/status/{post_id}"


def metrics_of(item: dict[str, Any], post_id: str) -> Metrics:
    """A post's public_metrics as socialgen's counts."""
    raw = item.get("public_metrics")
    counts = raw if isinstance(raw, dict) else {}
    what = f"of {post_id}"
    reposts = count_from("X", counts.get("retweet_count"), f"reposts {what}")
    quotes = count_from("X", counts.get("quote_count"), f"quotes {what}")
    impressions = counts.get("impression_count")
    return Metrics(
        likes=count_from("X", counts.get("like_count"), f"likes {what}"),
        reposts=reposts + quotes,
        comments=count_from("X", counts.get("reply_count"), f"replies {what}"),
        impressions=None
        if impressions is None
        else count_from("X", impressions, f"impressions {what}"),
    )


def read_history(
    client: XClient, user_id: str, username: str, since: datetime | None, pull: PageBudget
) -> Iterator[PastPost]:
    """The account's posts, newest first, down to `since` (all without)."""
    what = "reading your posts"
    seen: set[str] = set()
    token: str | None = None
    while pull.next_page(token):
        params = {
            "exclude": "replies,retweets",
            "tweet.fields": "created_at,public_metrics",
            "max_results": str(PAGE_SIZE),
        }
        if since is not None:
            params["start_time"] = since.strftime("%Y-%m-%dT%H:%M:%SZ")
        if token:
            params["pagination_token"] = token
        path = f"/2/users/{user_id}/tweets"
        body = client.json_of(client.request("GET", path, what=what, params=params), what)
        items = body.get("data") or []
        if not isinstance(items, list):
            raise _not_understood(what, "it holds no list of posts")
        for item in items:
            post = _past(item, username, what)
            if post.remote_id in seen:
                continue
            seen.add(post.remote_id)
            if since is not None and post.published_at < since:
                return
            yield post
        meta = body.get("meta")
        token = str(meta.get("next_token") or "") if isinstance(meta, dict) else ""
        if not token:
            return


def _past(item: Any, username: str, what: str) -> PastPost:
    if not isinstance(item, dict):
        raise _not_understood(what, "a post in it is not an object")
    post_id, text = item.get("id"), item.get("text")
    if not isinstance(post_id, str) or not post_id.isdigit() or not isinstance(text, str):
        raise _not_understood(what, "a post in it has no id or no text")
    return PastPost(
        remote_id=post_id,
        url=post_url(username, post_id),
        text=without_controls(html.unescape(text)),
        published_at=moment_from("X", item.get("created_at"), f"the time of {post_id}"),
        metrics=metrics_of(item, post_id),
    )


def _not_understood(what: str, why: str) -> PublishError:
    # Retryable: a garbled answer is X's failure, not the user's.
    return PublishError(f"X's answer while {what} was not understood: {why}", retryable=True)
