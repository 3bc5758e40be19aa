"""Queries behind the insights: the published posts and their newest metric snapshots
(`history.py`), drafts to rank (`ranking.py`), the scheduled times a best time avoids
(`suggest.py`). Every function takes the caller's session, is scoped to one workspace
and never commits. Rows come back as the database gives them (no ORM objects where a
10,000-post report reads them: see `published_rows`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Row
from sqlmodel import Session, col

from socialgen.store.tables.posts import Post, PostStatus
from socialgen.store.tables.publishing import MetricSnapshot


def published_rows(
    session: Session,
    workspace_id: str,
    *,
    since: datetime | None = None,
    post_ids: Sequence[str] | None = None,
) -> Sequence[Row[str, str, datetime | None, Any]]:
    """(id, content, published_at, has_media) of each published post of the workspace
    (published since `since`, among `post_ids` when given), in no order. has_media is
    what the database says (SQLite: 0 or 1)."""
    posts_query: Any = select(
        col(Post.id),
        col(Post.content),
        col(Post.published_at),
        # Whether a post carries media, asked of the database: decoding every post's
        # JSON columns was half the time of a 10,000-post report.
        (
            col(Post.carousel).is_not(None)
            | col(Post.custom_image).is_not(None)
            | col(Post.infographic).is_not(None)
        ).label("has_media"),
    ).where(
        col(Post.workspace_id) == workspace_id,
        col(Post.status) == PostStatus.PUBLISHED,
        col(Post.published_at).is_not(None),
    )
    if since is not None:
        posts_query = posts_query.where(col(Post.published_at) >= since)
    if post_ids is not None:
        posts_query = posts_query.where(col(Post.id).in_(list(post_ids)))
    return session.execute(posts_query).all()


def latest_snapshot_rows(
    session: Session, workspace_id: str, since: datetime | None
) -> Sequence[Row[str | None, str | None, int, int, int, int | None]]:
    """(post_id, publication_id, likes, reposts, comments, impressions) of the newest
    snapshot of each (post, publication-or-import) of the workspace's posts (published
    since `since` when given); one query for the newest times. Two snapshots taken in
    the same instant both come back: the caller counts one."""
    newest: Any = (
        select(
            col(MetricSnapshot.post_id).label("post_id"),
            col(MetricSnapshot.publication_id).label("publication_id"),
            func.max(MetricSnapshot.taken_at).label("taken_at"),
        )
        .join(Post, col(Post.id) == col(MetricSnapshot.post_id))
        .where(col(Post.workspace_id) == workspace_id)
        .group_by(col(MetricSnapshot.post_id), col(MetricSnapshot.publication_id))
    )
    if since is not None:
        newest = newest.where(col(Post.published_at) >= since)
    latest = newest.subquery()
    return session.execute(
        select(
            col(MetricSnapshot.post_id),
            col(MetricSnapshot.publication_id),
            col(MetricSnapshot.likes),
            col(MetricSnapshot.reposts),
            col(MetricSnapshot.comments),
            col(MetricSnapshot.impressions),
        ).join(
            latest,
            (col(MetricSnapshot.post_id) == latest.c.post_id)
            & (col(MetricSnapshot.taken_at) == latest.c.taken_at)
            # IS for the import's snapshot, whose publication is NULL on both sides.
            & col(MetricSnapshot.publication_id).is_not_distinct_from(latest.c.publication_id),
        )
    ).all()


def posts_in(session: Session, workspace_id: str, post_ids: Sequence[str]) -> list[Post]:
    """The posts among `post_ids` that the workspace has (any status), in no order."""
    return list(
        session.scalars(
            select(Post).where(
                col(Post.workspace_id) == workspace_id, col(Post.id).in_(list(post_ids))
            )
        )
    )


def scheduled_times(
    session: Session, workspace_id: str, *, except_post_id: str | None = None
) -> list[datetime]:
    """When each scheduled post of the workspace (but `except_post_id`) goes out."""
    query: Any = select(col(Post.scheduled_at)).where(
        col(Post.workspace_id) == workspace_id,
        col(Post.status) == PostStatus.SCHEDULED,
        col(Post.scheduled_at).is_not(None),
    )
    if except_post_id is not None:
        query = query.where(col(Post.id) != except_post_id)
    return [row[0] for row in session.execute(query).all()]
