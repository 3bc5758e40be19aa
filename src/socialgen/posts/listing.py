"""The read side: recent posts, the timeline and every post filtered (conversation
pages live in posts.conversations; `conversations_page` and `check_page` are
re-exported here for the callers that import them from this module).

The three listings are one query shape: a workspace's posts that a PostFilter keeps
(posts.post_filter: statuses, a range of timeline times, search words), latest
timeline time first. recent and timeline are SPEC.md's 90-day windows (timeline
without drafts); a filter's `since` moves the window's start, so older posts are
reached too. `list_posts` has no window: every post, unless the filter says otherwise.

Without search words a listing is one indexed range scan on (workspace_id, [status,]
timeline_at) with the conversation title joined in (posts.repository_listing); rows
go straight to PostList's JSON object (posts.views.PostListJson) without building ORM
objects or models, which keeps 1,000 posts in a few milliseconds.

`limit` and `cursor` are optional (SPEC.md knows neither): without them every post
kept comes back exactly as SPEC.md shapes it; with either, one page of it plus
`nextCursor` (posts.cursor), and `total` still counts every post kept. A cursor is a
position, so the next page must be asked with the same filter.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from socialgen.kit.clock import utcnow
from socialgen.kit.limits import POST_LIST_LIMIT, POST_WINDOW_DAYS
from socialgen.posts.conversations import check_page as check_page
from socialgen.posts.conversations import conversations_page as conversations_page
from socialgen.posts.cursor import Position, decode_cursor, encode_cursor
from socialgen.posts.post_filter import (
    NO_FILTER,
    TIMELINE_STATUSES,
    PostFilter,
    date_range,
    in_window,
)
from socialgen.posts.repository_listing import (
    window_count_and_bounds,
    window_page_rows,
    window_rows,
)
from socialgen.posts.views import PostListJson, post_views, stored_moment


def recent_posts(
    session: Session,
    workspace_id: str,
    now: datetime | None = None,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    where: PostFilter = NO_FILTER,
) -> PostListJson:
    """Drafts, scheduled and published posts of the last 90 days (or from `since`),
    plus future scheduled ones."""
    now = now or utcnow()
    return _listing(
        session, workspace_id, in_window(where, now, POST_WINDOW_DAYS), now, limit, cursor
    )


def posts_timeline(
    session: Session,
    workspace_id: str,
    now: datetime | None = None,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    where: PostFilter = NO_FILTER,
) -> PostListJson:
    """Published posts of the last 90 days (or from `since`) plus scheduled ones; no drafts."""
    now = now or utcnow()
    kept = in_window(where, now, POST_WINDOW_DAYS).keeps_only(TIMELINE_STATUSES)
    return _listing(session, workspace_id, kept, now, limit, cursor)


def list_posts(
    session: Session,
    workspace_id: str,
    now: datetime | None = None,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    where: PostFilter = NO_FILTER,
) -> PostListJson:
    """Every post `where` keeps, of any age."""
    return _listing(session, workspace_id, where, now or utcnow(), limit, cursor)


def _listing(
    session: Session,
    workspace_id: str,
    where: PostFilter,
    now: datetime,
    limit: int | None,
    cursor: str | None,
) -> PostListJson:
    if limit is not None or cursor is not None:
        return _page(session, workspace_id, where, now, limit, cursor)
    rows = window_rows(session, workspace_id, where)
    posts = post_views(rows)
    earliest = rows[-1].timeline_at if rows else None
    latest = rows[0].timeline_at if rows else None
    return {
        "posts": posts,
        "total": len(posts),
        "dateRange": date_range(where, now, earliest, latest),
    }


def _page(
    session: Session,
    workspace_id: str,
    where: PostFilter,
    now: datetime,
    limit: int | None,
    cursor: str | None,
) -> PostListJson:
    """One page of the posts kept, from `cursor` on, at most `limit` posts."""
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    after = decode_cursor(cursor) if cursor is not None else None
    # Counted and dated over every post kept, so every page says the same.
    total, earliest, latest = window_count_and_bounds(session, workspace_id, where)
    rows = window_page_rows(
        session,
        workspace_id,
        where,
        after=after,
        at_most=None if limit is None else limit + 1,  # one more: is there a next page?
    )
    more = limit is not None and len(rows) > limit
    rows = rows[:limit] if limit is not None else rows
    last = rows[-1] if rows else None
    next_cursor = (
        encode_cursor(Position(stored_moment(last.timeline_at), last.id))
        if more and last is not None
        else None
    )
    return {
        "posts": post_views(rows),
        "total": total,
        "dateRange": date_range(where, now, earliest, latest),
        "nextCursor": next_cursor,
    }
