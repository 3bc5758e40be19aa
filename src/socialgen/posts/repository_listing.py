"""The queries of the post listings (posts.listing): a workspace's posts that a
PostFilter keeps (statuses, a range of timeline times, search words), newest first,
with their conversation's title. Without search words each is one indexed range scan
on (workspace_id, [status,] timeline_at); rows come back as the driver gives them,
ready for views.post_views, without building ORM objects (which keeps 1,000 posts in a
few milliseconds: bench/posts_listing.py). Search words go through the full-text index
of migration 0009 (store/search.py): FTS5 on SQLite, a GIN index on PostgreSQL
(bench/posts_search.py); on SQLite a search filters, counts and pages in the search
keys' small rows, and reads the posts of the page alone (posts.repository_search).
Every function takes the caller's session and never commits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy import ColumnElement, Row, String, Text, type_coerce
from sqlmodel import Session, col

from socialgen.posts.cursor import Position
from socialgen.posts.post_filter import PostFilter
from socialgen.posts.repository_search import (
    ON_KEYS,
    SEARCHED,
    Placed,
    after_position,
    kept_by,
    key_conditions,
    matching_ids,
    uses_search_keys,
    vector_matches,
)
from socialgen.posts.views import PostRow
from socialgen.store.tables import Conversation, Post


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
    "published_at": _raw(Post.published_at, String()),
    "timeline_at": _raw(Post.timeline_at, String()),
}
_POST_COLUMNS: tuple[Any, ...] = tuple(_SOURCES[name].label(name) for name in PostRow._fields)


# The post row's own columns (on SQLite a search reads the search keys' copy of them:
# repository_search.ON_KEYS).
_ON_POST = Placed(col(Post.id), col(Post.workspace_id), col(Post.status), col(Post.timeline_at))


def _kept(session: Session, workspace_id: str, where: PostFilter) -> list[ColumnElement[bool]]:
    """The workspace's posts that `where` keeps, on the post table."""
    if uses_search_keys(session, where):
        return [col(Post.id).in_(matching_ids(workspace_id, where))]
    kept = kept_by(_ON_POST, workspace_id, where)
    if where.words:
        kept.append(vector_matches(where))
    return kept


def _select_posts() -> sa.Select[Any]:
    return sa.select(*_POST_COLUMNS).outerjoin(
        Conversation, col(Conversation.id) == col(Post.conversation_id)
    )


def window_rows(session: Session, workspace_id: str, where: PostFilter) -> Sequence[Row[Any]]:
    """Every post `where` keeps as a PostRow-shaped row, latest timeline time first."""
    statement = (
        _select_posts()
        .where(*_kept(session, workspace_id, where))
        .order_by(col(Post.timeline_at).desc())  # the index order: no sort step
    )
    return session.connection().execute(statement).all()


def window_count_and_bounds(
    session: Session, workspace_id: str, where: PostFilter
) -> tuple[int, Any, Any]:
    """How many posts `where` keeps, and their earliest and latest timeline times as
    stored (None when there are none)."""
    if uses_search_keys(session, where):  # counted in the search keys alone
        at = ON_KEYS.timeline_at
        statement = (
            sa.select(sa.func.count(), sa.func.min(at), sa.func.max(at))
            .select_from(SEARCHED)
            .where(*key_conditions(workspace_id, where))
        )
    else:
        at = col(Post.timeline_at)
        statement = sa.select(sa.func.count(), sa.func.min(at), sa.func.max(at)).where(
            *_kept(session, workspace_id, where)
        )
    total, earliest, latest = session.connection().execute(statement).one()
    return total, earliest, latest


def window_page_rows(
    session: Session,
    workspace_id: str,
    where: PostFilter,
    *,
    after: Position | None,
    at_most: int | None,
) -> Sequence[Row[Any]]:
    """The posts `where` keeps past `after` (all when None), latest timeline time first
    and ties by id, at most `at_most` of them (all when None)."""
    # The index order; ties (same timeline time) by id, so a cursor is exact.
    order = (col(Post.timeline_at).desc(), col(Post.id).desc())
    if uses_search_keys(session, where):
        # The page is chosen in the search keys; only its posts are read.
        page = matching_ids(workspace_id, where, after=after, at_most=at_most)
        statement = _select_posts().where(col(Post.id).in_(page)).order_by(*order)
        return session.connection().execute(statement).all()
    statement = (
        _select_posts()
        .where(*_kept(session, workspace_id, where), *after_position(_ON_POST, after))
        .order_by(*order)
    )
    if at_most is not None:
        statement = statement.limit(at_most)
    return session.connection().execute(statement).all()
