"""The metrics' statements (metrics.py): publications due a reading, taking one (a
conditional UPDATE, one winner among `serve` processes), snapshots and the posts
`posts stats` shows. Every function takes the caller's session and never commits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from socialgen.publishing.settings import METRICS_WINDOW
from socialgen.store.tables import (
    MetricSnapshot,
    Post,
    PostStatus,
    Publication,
    PublicationState,
    SocialAccount,
)


def _stale(cutoff: datetime) -> Any:
    return or_(col(Publication.metrics_at).is_(None), col(Publication.metrics_at) <= cutoff)


def to_read(
    session: Session,
    now: datetime,
    *,
    workspace_id: str | None,
    post_id: str | None,
    cutoff: datetime | None,
) -> list[tuple[Publication, SocialAccount]]:
    """Published publications younger than METRICS_WINDOW with a remote id, with their
    accounts; with a `cutoff`, only those last read at or before it (or never)."""
    statement = (
        select(Publication, SocialAccount)
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .where(
            col(Publication.state) == PublicationState.PUBLISHED,
            col(Publication.published_at) >= now - METRICS_WINDOW,
            col(Publication.remote_id).is_not(None),
        )
    )
    if workspace_id is not None:
        statement = statement.where(col(Publication.workspace_id) == workspace_id)
    if post_id is not None:
        statement = statement.where(col(Publication.post_id) == post_id)
    if cutoff is not None:
        statement = statement.where(_stale(cutoff))
    return list(session.exec(statement).all())


def take(session: Session, publication_id: str, cutoff: datetime | None, now: datetime) -> bool:
    """Mark the publication read at `now` if its last reading is still at or before
    `cutoff` (None: in any case); whether this caller got it."""
    statement = update(Publication).where(col(Publication.id) == publication_id)
    if cutoff is not None:
        statement = statement.where(_stale(cutoff))
    result = session.connection().execute(statement.values(metrics_at=now))
    return bool(getattr(result, "rowcount", 0))


def published_of_post(session: Session, post_id: str) -> list[Publication]:
    return list(
        session.exec(
            select(Publication).where(
                col(Publication.post_id) == post_id,
                col(Publication.state) == PublicationState.PUBLISHED,
            )
        ).all()
    )


def latest_snapshot(session: Session, publication_id: str) -> MetricSnapshot | None:
    return session.exec(
        select(MetricSnapshot)
        .where(col(MetricSnapshot.publication_id) == publication_id)
        .order_by(col(MetricSnapshot.taken_at).desc())
        .limit(1)
    ).first()


def latest_snapshots(session: Session, publication_id: str, limit: int) -> list[MetricSnapshot]:
    """The publication's newest `limit` snapshots, oldest first."""
    return list(
        session.exec(
            select(MetricSnapshot)
            .where(col(MetricSnapshot.publication_id) == publication_id)
            .order_by(col(MetricSnapshot.taken_at).desc())
            .limit(limit)
        ).all()
    )[::-1]


def latest_published_posts(session: Session, workspace_id: str, limit: int) -> list[Post]:
    """The workspace's `limit` latest published posts (by publish time), newest first:
    those published here and those imported or pulled, with or without a
    publication."""
    return list(
        session.exec(
            select(Post)
            .where(
                col(Post.workspace_id) == workspace_id,
                col(Post.status) == PostStatus.PUBLISHED,
            )
            .order_by(col(Post.published_at).desc().nulls_last(), col(Post.id))
            .limit(limit)
        ).all()
    )
