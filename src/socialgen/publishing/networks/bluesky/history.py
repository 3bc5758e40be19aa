"""The account's own Bluesky posts with their counts: app.bsky.feed.getAuthorFeed.

Read through the account's session (the PDS proxies app.bsky calls to its AppView,
as for metrics), page by page with the feed's cursor, newest first, until a post is
older than `since` or the pull's bounds stop it (pull.py: a deadline, a page cap, a
cursor that does not move). The `posts_no_replies` filter leaves out replies, so a thread
socialgen wrote counts once, by its root (the id `publish` returns); reposts of
other people's posts are in the feed with a `reason` and are skipped.

Counts: likes, replies as comments, and reposts + quotes as reposts (the snapshot has
no column of its own for quotes, and a quote spreads a post as a repost does).
The moment a post was published is the earlier of its own `createdAt` and the time
the AppView indexed it, as the AppView sorts: a client clock ahead of time cannot put
a post in the future, and an imported old post keeps its date.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from socialgen.kit.clock import parse_iso
from socialgen.kit.control_chars import without_controls
from socialgen.publishing.networks.answers import MAX_COUNT, count_from, moment_from
from socialgen.publishing.networks.base import Metrics, PastPost
from socialgen.publishing.networks.bluesky.session import BlueskySession
from socialgen.publishing.networks.pull import Pull

PAGE_SIZE = 100  # the most getAuthorFeed gives per page
FEED_FILTER = "posts_no_replies"


def read_history(session: BlueskySession, since: datetime | None, pull: Pull) -> Iterator[PastPost]:
    """The account's posts, newest first, down to `since` (all of them without)."""
    session.call("sign-in", lambda client: None)  # signs in when no session is kept yet
    did = session.did
    cursor: str | None = None
    seen: set[str] = set()
    while pull.next_page(cursor):
        params: dict[str, Any] = {"actor": did, "filter": FEED_FILTER, "limit": PAGE_SIZE}
        if cursor:
            params["cursor"] = cursor
        page = session.call("reading your posts", _author_feed(params))
        items = list(page.feed or [])
        for item in items:
            view = item.post
            if item.reason is not None or str(view.author.did) != did or view.uri in seen:
                continue  # a repost (or a pinned post shown again), someone else's post
            seen.add(view.uri)
            past = _past_post(view)
            if since is not None and past.published_at < since:
                return
            yield past
        cursor = page.cursor
        if not items or not cursor:
            return


def _author_feed(params: dict[str, Any]) -> Callable[[Any], Any]:
    return lambda client: client.app.bsky.feed.get_author_feed(params)


def _past_post(view: Any) -> PastPost:
    record = view.record
    handle = str(view.author.handle)
    rkey = str(view.uri).rsplit("/", 1)[-1]
    return PastPost(
        remote_id=str(view.uri),
        url=f"https://bsky.app/profile/{handle}/post/{rkey}",
        text=without_controls(str(_field(record, "text") or "")),
        published_at=_published_at(
            _field(record, "created_at", "createdAt"), view.indexed_at, str(view.uri)
        ),
        metrics=bluesky_metrics(view, 0),
    )


def bluesky_metrics(view: Any, own_replies: int) -> Metrics:
    """A post view's counts: likes, reposts + quotes as reposts (a quote spreads a post
    as a repost does), replies as comments but `own_replies` (socialgen's own thread
    parts), each checked (answers.py)."""
    where = f"post {view.uri}"
    reposts = count_from("Bluesky", view.repost_count, f"the reposts of {where}")
    quotes = count_from("Bluesky", view.quote_count, f"the quotes of {where}")
    replies = count_from("Bluesky", view.reply_count, f"the replies of {where}")
    return Metrics(
        likes=count_from("Bluesky", view.like_count, f"the likes of {where}"),
        reposts=min(reposts + quotes, MAX_COUNT),
        comments=max(0, replies - own_replies),
    )


def _field(record: Any, *names: str) -> Any:
    """A record field, whether atproto gave a typed record or a plain mapping."""
    for name in names:
        value = record.get(name) if isinstance(record, dict) else getattr(record, name, None)
        if value is not None:
            return value
    return None


def _published_at(created: Any, indexed: Any, uri: str) -> datetime:
    indexed_at = moment_from("Bluesky", str(indexed), f"the time {uri} was indexed")
    try:
        created_at = parse_iso(str(created))
    except ValueError:
        return indexed_at  # a malformed createdAt: the AppView's time is the one we have
    return min(created_at, indexed_at)
