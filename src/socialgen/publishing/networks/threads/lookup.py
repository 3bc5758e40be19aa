"""Finding a post socialgen may already have made live, on the account itself.

Threads has no idempotency key, but it lets an app read the account's own posts: the
first part of a thread in `GET /{user-id}/threads`, the parts after it (replies to
the account's own posts) in `GET /{user-id}/replies` (threads_read_replies). A part
is taken as published when a post with the same text (white space aside: Meta may
tidy it) was created since the attempt that may have sent it, less a margin for
clocks that disagree, and, for a reply, replies to the same post.

The read is short: the newest posts first, a few pages at most; a post is looked for
right after the attempt that may have made it, so it is among the newest.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.threads.client import ThreadsClient

MARGIN = timedelta(minutes=5)  # clocks that disagree; a request that sat in a queue
PAGE_SIZE = 25
PAGES = 4  # 100 posts: far more than an account makes while an attempt is in doubt


def find_part(
    client: ThreadsClient,
    user_id: str,
    text: str,
    since: datetime,
    reply_to: str | None = None,
) -> str | None:
    """The id of the account's post with `text` created since `since` (a reply to
    `reply_to` when given), or None when there is none."""
    wanted = _squeezed(text)
    edge = "replies" if reply_to else "threads"
    fields = "id,text,timestamp,replied_to" if reply_to else "id,text,timestamp"
    params = {
        "fields": fields,
        "since": str(int((since - MARGIN).timestamp())),
        "limit": str(PAGE_SIZE),
    }
    what = "looking for the post on your account"
    seen: set[str] = set()
    for _ in range(PAGES):
        body = client.get(f"/{user_id}/{edge}", params, what=what)
        data = body.get("data")
        if not isinstance(data, list):
            raise PublishError(f"Threads' answer while {what} holds no list", retryable=True)
        for item in data:
            if not isinstance(item, dict):
                continue
            found = str(item.get("id") or "")
            if not found or found in seen:
                continue
            seen.add(found)
            if _squeezed(str(item.get("text") or "")) != wanted:
                continue
            if reply_to and _replied_to(item) not in (None, reply_to):
                continue
            return found
        after = next_cursor(body)
        if after is None or not data:
            return None
        params = {**params, "after": after}
    return None


def _replied_to(item: dict[str, Any]) -> str | None:
    parent = item.get("replied_to")
    if isinstance(parent, dict) and parent.get("id"):
        return str(parent["id"])
    return None


def next_cursor(body: dict[str, Any]) -> str | None:
    """The `after` cursor when the answer says there is a next page."""
    paging = body.get("paging")
    if not isinstance(paging, dict) or not paging.get("next"):
        return None
    cursors = paging.get("cursors")
    after = cursors.get("after") if isinstance(cursors, dict) else None
    return after if isinstance(after, str) and after else None


def _squeezed(text: str) -> str:
    return " ".join(text.split())
