"""The read side: recent posts, the timeline, and conversation pages.

Both post listings are one indexed range scan on (workspace_id, [status,]
timeline_at) with the conversation title joined in; rows go straight to dicts
without building ORM objects, which keeps 1,000 posts in a few milliseconds.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from math import ceil
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, String, Text, func, type_coerce
from sqlmodel import Session, col, select

from socialgen.clock import iso, utcnow
from socialgen.errors import BadRequest
from socialgen.limits import MAX_PAGE_LIMIT, POST_WINDOW_DAYS
from socialgen.posts.schemas import ConversationPage, PostList
from socialgen.posts.views import build_post_view, stored_moment
from socialgen.store.tables import Conversation, Post, PostStatus


def _raw(column: Any, kind: Any) -> Any:
    """The column as the driver returns it, skipping SQLAlchemy's result processing
    (views.raw_timestamp / raw_json finish the job faster, in one pass)."""
    return type_coerce(column, kind).label(column.key)


# In the order views.build_post_view reads them.
_POST_COLUMNS: tuple[Any, ...] = (
    col(Post.id),
    col(Post.conversation_id),
    col(Conversation.title).label("conversation_title"),
    col(Post.content),
    col(Post.post_type),
    col(Post.status),
    _raw(Post.created_at, String()),
    _raw(Post.scheduled_at, String()),
    col(Post.social_account_name),
    col(Post.social_account_email),
    col(Post.likes),
    col(Post.comments),
    col(Post.post_url),
    _raw(Post.carousel, Text()),
    _raw(Post.infographic, Text()),
    _raw(Post.generated_headshot, Text()),
    _raw(Post.custom_image, Text()),
    _raw(Post.timeline_at, String()),
)


def recent_posts(session: Session, workspace_id: str, now: datetime | None = None) -> PostList:
    """Drafts, scheduled and published posts of the last 90 days, plus future scheduled ones."""
    return _window(session, workspace_id, now, status_filter=None)


def posts_timeline(session: Session, workspace_id: str, now: datetime | None = None) -> PostList:
    """Published posts of the last 90 days plus scheduled ones; no drafts."""
    statuses = col(Post.status).in_([PostStatus.SCHEDULED, PostStatus.PUBLISHED])
    return _window(session, workspace_id, now, status_filter=statuses)


def _window(
    session: Session,
    workspace_id: str,
    now: datetime | None,
    status_filter: ColumnElement[bool] | None,
) -> PostList:
    now = now or utcnow()
    start = now - timedelta(days=POST_WINDOW_DAYS)
    statement = (
        sa.select(*_POST_COLUMNS)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(col(Post.workspace_id) == workspace_id, col(Post.timeline_at) >= start)
        .order_by(col(Post.timeline_at).desc())  # the index order: no sort step
    )
    if status_filter is not None:
        statement = statement.where(status_filter)
    rows = session.connection().execute(statement).all()
    posts = [build_post_view(row) for row in rows]
    # The range ends now, or at the furthest scheduled post when one lies ahead.
    latest = stored_moment(rows[0][-1]) if rows else now
    return {
        "posts": posts,
        "total": len(posts),
        "dateRange": {"from": iso(start) or "", "to": iso(max(now, latest)) or ""},
    }


def conversations_page(
    session: Session, workspace_id: str, page: int, limit: int
) -> ConversationPage:
    check_page(page, limit)
    total = session.exec(
        select(func.count())
        .select_from(Conversation)
        .where(col(Conversation.workspace_id) == workspace_id)
    ).one()
    conversations = session.exec(
        select(Conversation)
        .where(col(Conversation.workspace_id) == workspace_id)
        .order_by(col(Conversation.updated_at).desc(), col(Conversation.id))
        .offset((page - 1) * limit)
        .limit(limit)
    ).all()
    return {
        "conversations": [
            {
                "_id": c.id,
                "title": c.title,
                "createdAt": iso(c.created_at) or "",
                "updatedAt": iso(c.updated_at) or "",
                "status": c.status,
                "metadata": c.meta,
            }
            for c in conversations
        ],
        "pagination": {
            "page": page,
            "limit": limit,
            "total": total,
            "pages": ceil(total / limit),
        },
    }


def check_page(page: int, limit: int) -> None:
    if page < 1:
        raise BadRequest("page must be a positive integer")
    if limit < 1:
        raise BadRequest("limit must be a positive integer")
    if limit > MAX_PAGE_LIMIT:
        raise BadRequest(f"limit must be at most {MAX_PAGE_LIMIT}")
