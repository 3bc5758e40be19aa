"""The read side: recent posts and the timeline (conversation pages live in
posts.conversations; `conversations_page` and `check_page` are re-exported here for
the callers that import them from this module).

Both post listings are one indexed range scan on (workspace_id, [status,]
timeline_at) with the conversation title joined in; rows go straight to dicts
without building ORM objects, which keeps 1,000 posts in a few milliseconds.

`limit` and `cursor` are optional (SPEC.md knows neither): without them the whole
window comes back exactly as SPEC.md shapes it; with either, one page of it plus
`nextCursor` (posts.cursor), and `total` still counts the whole window.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, String, Text, type_coerce
from sqlmodel import Session, col

from socialgen.clock import iso, utcnow
from socialgen.limits import POST_LIST_LIMIT, POST_WINDOW_DAYS
from socialgen.posts.conversations import check_page as check_page
from socialgen.posts.conversations import conversations_page as conversations_page
from socialgen.posts.cursor import Position, decode_cursor, encode_cursor
from socialgen.posts.schemas import PostList
from socialgen.posts.views import PostRow, post_views, stored_moment
from socialgen.store.tables import Conversation, Post, PostStatus


def _raw(column: Any, kind: Any) -> Any:
    """The column as the driver returns it, skipping SQLAlchemy's result processing
    (views.raw_timestamp / raw_json finish the job faster, in one pass)."""
    return type_coerce(column, kind)


# Every PostRow field and what fills it, selected under the field's name and in
# PostRow's field order, so views.post_views turns each row into a PostRow in one
# step (PostRow._make); reading SQLAlchemy Rows by name instead (row.id,
# row._mapping["id"]) costs more than the SQL itself on 1,000 rows.
_SOURCES: dict[str, Any] = {
    "id": col(Post.id),
    "conversation_id": col(Post.conversation_id),
    "conversation_title": col(Conversation.title),
    "content": col(Post.content),
    "post_type": col(Post.post_type),
    "status": col(Post.status),
    "created_at": _raw(Post.created_at, String()),
    "scheduled_at": _raw(Post.scheduled_at, String()),
    "social_account_name": col(Post.social_account_name),
    "social_account_email": col(Post.social_account_email),
    "likes": col(Post.likes),
    "comments": col(Post.comments),
    "post_url": col(Post.post_url),
    "carousel": _raw(Post.carousel, Text()),
    "infographic": _raw(Post.infographic, Text()),
    "generated_headshot": _raw(Post.generated_headshot, Text()),
    "custom_image": _raw(Post.custom_image, Text()),
    "timeline_at": _raw(Post.timeline_at, String()),
}
_POST_COLUMNS: tuple[Any, ...] = tuple(_SOURCES[name].label(name) for name in PostRow._fields)


def recent_posts(
    session: Session,
    workspace_id: str,
    now: datetime | None = None,
    *,
    limit: int | None = None,
    cursor: str | None = None,
) -> PostList:
    """Drafts, scheduled and published posts of the last 90 days, plus future scheduled ones."""
    return _window(session, workspace_id, now, None, limit, cursor)


def posts_timeline(
    session: Session,
    workspace_id: str,
    now: datetime | None = None,
    *,
    limit: int | None = None,
    cursor: str | None = None,
) -> PostList:
    """Published posts of the last 90 days plus scheduled ones; no drafts."""
    statuses = col(Post.status).in_([PostStatus.SCHEDULED, PostStatus.PUBLISHED])
    return _window(session, workspace_id, now, statuses, limit, cursor)


def _window(
    session: Session,
    workspace_id: str,
    now: datetime | None,
    status_filter: ColumnElement[bool] | None,
    limit: int | None,
    cursor: str | None,
) -> PostList:
    now = now or utcnow()
    start = now - timedelta(days=POST_WINDOW_DAYS)
    in_window = [col(Post.workspace_id) == workspace_id, col(Post.timeline_at) >= start]
    if status_filter is not None:
        in_window.append(status_filter)
    if limit is not None or cursor is not None:
        return _page(session, in_window, start, now, limit, cursor)
    statement = (
        sa.select(*_POST_COLUMNS)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(*in_window)
        .order_by(col(Post.timeline_at).desc())  # the index order: no sort step
    )
    rows = session.connection().execute(statement).all()
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
    in_window: list[ColumnElement[bool]],
    start: datetime,
    now: datetime,
    limit: int | None,
    cursor: str | None,
) -> PostList:
    """One page of the window, from `cursor` on, at most `limit` posts."""
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    # Counted and dated over the whole window, so every page says the same.
    total, latest = (
        session.connection()
        .execute(sa.select(sa.func.count(), sa.func.max(col(Post.timeline_at))).where(*in_window))
        .one()
    )
    statement = (
        sa.select(*_POST_COLUMNS)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(*in_window)
        # The index order; ties (same timeline time) by id, so a cursor is exact.
        .order_by(col(Post.timeline_at).desc(), col(Post.id).desc())
    )
    if cursor is not None:
        after = decode_cursor(cursor)
        # `<=` first: a range on the index (an OR alone makes SQLite sort the window).
        statement = statement.where(
            col(Post.timeline_at) <= after.timeline_at,
            sa.or_(col(Post.timeline_at) < after.timeline_at, col(Post.id) < after.post_id),
        )
    if limit is not None:
        statement = statement.limit(limit + 1)  # one more: is there a next page?
    rows = session.connection().execute(statement).all()
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
