"""The queries of the post listings (posts.listing): a workspace's posts on the
timeline from a moment on, newest first, with their conversation's title. Each is one
indexed range scan on (workspace_id, [status,] timeline_at); rows come back as the
driver gives them, ready for views.post_views, without building ORM objects (which
keeps 1,000 posts in a few milliseconds: bench/posts_listing.py). Every function takes
the caller's session and never commits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, Row, String, Text, type_coerce
from sqlmodel import Session, col

from socialgen.posts.cursor import Position
from socialgen.posts.views import PostRow
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


def _in_window(
    workspace_id: str, start: datetime, timeline_only: bool
) -> list[ColumnElement[bool]]:
    """The workspace's posts on the timeline from `start`; with `timeline_only`,
    scheduled and published ones alone (no drafts)."""
    in_window = [col(Post.workspace_id) == workspace_id, col(Post.timeline_at) >= start]
    if timeline_only:
        in_window.append(col(Post.status).in_([PostStatus.SCHEDULED, PostStatus.PUBLISHED]))
    return in_window


def window_rows(
    session: Session, workspace_id: str, start: datetime, *, timeline_only: bool
) -> Sequence[Row[Any]]:
    """Every post of the window as a PostRow-shaped row, latest timeline time first."""
    statement = (
        sa.select(*_POST_COLUMNS)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(*_in_window(workspace_id, start, timeline_only))
        .order_by(col(Post.timeline_at).desc())  # the index order: no sort step
    )
    return session.connection().execute(statement).all()


def window_count_and_latest(
    session: Session, workspace_id: str, start: datetime, *, timeline_only: bool
) -> tuple[int, Any]:
    """How many posts the window has, and its latest timeline time as stored (None
    when it is empty)."""
    in_window = _in_window(workspace_id, start, timeline_only)
    total, latest = (
        session.connection()
        .execute(sa.select(sa.func.count(), sa.func.max(col(Post.timeline_at))).where(*in_window))
        .one()
    )
    return total, latest


def window_page_rows(
    session: Session,
    workspace_id: str,
    start: datetime,
    *,
    timeline_only: bool,
    after: Position | None,
    at_most: int | None,
) -> Sequence[Row[Any]]:
    """The window's posts past `after` (all when None), latest timeline time first and
    ties by id, at most `at_most` of them (all when None)."""
    statement = (
        sa.select(*_POST_COLUMNS)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(*_in_window(workspace_id, start, timeline_only))
        # The index order; ties (same timeline time) by id, so a cursor is exact.
        .order_by(col(Post.timeline_at).desc(), col(Post.id).desc())
    )
    if after is not None:
        # `<=` first: a range on the index (an OR alone makes SQLite sort the window).
        statement = statement.where(
            col(Post.timeline_at) <= after.timeline_at,
            sa.or_(col(Post.timeline_at) < after.timeline_at, col(Post.id) < after.post_id),
        )
    if at_most is not None:
        statement = statement.limit(at_most)
    return session.connection().execute(statement).all()
