"""The read side: recent posts and the timeline (conversation pages live in
posts.conversations; `conversations_page` and `check_page` are re-exported here for
the callers that import them from this module).

Both post listings are one indexed range scan on (workspace_id, [status,]
timeline_at) with the conversation title joined in (posts.repository_listing);
rows go straight to PostList's JSON object (posts.views.PostListJson) without
building ORM objects or models, which keeps 1,000 posts in a few milliseconds.

`limit` and `cursor` are optional (SPEC.md knows neither): without them the whole
window comes back exactly as SPEC.md shapes it; with either, one page of it plus
`nextCursor` (posts.cursor), and `total` still counts the whole window.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.limits import POST_LIST_LIMIT, POST_WINDOW_DAYS
from socialgen.posts.conversations import check_page as check_page
from socialgen.posts.conversations import conversations_page as conversations_page
from socialgen.posts.cursor import Position, decode_cursor, encode_cursor
from socialgen.posts.repository_listing import (
    window_count_and_latest,
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
) -> PostListJson:
    """Drafts, scheduled and published posts of the last 90 days, plus future scheduled ones."""
    return _window(session, workspace_id, now, False, limit, cursor)


def posts_timeline(
    session: Session,
    workspace_id: str,
    now: datetime | None = None,
    *,
    limit: int | None = None,
    cursor: str | None = None,
) -> PostListJson:
    """Published posts of the last 90 days plus scheduled ones; no drafts."""
    return _window(session, workspace_id, now, True, limit, cursor)


def _window(
    session: Session,
    workspace_id: str,
    now: datetime | None,
    timeline_only: bool,
    limit: int | None,
    cursor: str | None,
) -> PostListJson:
    now = now or utcnow()
    start = now - timedelta(days=POST_WINDOW_DAYS)
    if limit is not None or cursor is not None:
        return _page(session, workspace_id, timeline_only, start, now, limit, cursor)
    rows = window_rows(session, workspace_id, start, timeline_only=timeline_only)
    posts = post_views(rows)
    # The range ends now, or at the furthest scheduled post when one lies ahead.
    latest = stored_moment(rows[0].timeline_at) if rows else now
    return {
        "posts": posts,
        "total": len(posts),
        "dateRange": {"from": iso(start) or "", "to": iso(max(now, latest)) or ""},
    }


def _page(
    session: Session,
    workspace_id: str,
    timeline_only: bool,
    start: datetime,
    now: datetime,
    limit: int | None,
    cursor: str | None,
) -> PostListJson:
    """One page of the window, from `cursor` on, at most `limit` posts."""
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    after = decode_cursor(cursor) if cursor is not None else None
    # Counted and dated over the whole window, so every page says the same.
    total, latest = window_count_and_latest(
        session, workspace_id, start, timeline_only=timeline_only
    )
    rows = window_page_rows(
        session,
        workspace_id,
        start,
        timeline_only=timeline_only,
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
        "dateRange": {
            "from": iso(start) or "",
            "to": iso(max(now, stored_moment(latest) if latest else now)) or "",
        },
        "nextCursor": next_cursor,
    }
