"""A synthetic creator's history written into a real store: published posts with one
metrics snapshot each (as an import leaves them)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine

from socialgen.insights.history import PublishedPost
from socialgen.posts.service import create_draft
from socialgen.store.engine import transaction
from socialgen.store.tables.posts import PostStatus
from socialgen.store.tables.publishing import MetricSnapshot

MEDIA = {"url": "https://example.com/image.png"}


def put_history(engine: Engine, workspace_id: str, posts: Sequence[PublishedPost]) -> list[str]:
    """Each post stored as published at its time with its counts; the new ids, in order."""
    ids = []
    with transaction(engine) as session:
        for item in posts:
            post = create_draft(session, workspace_id, item.content)
            post.status = PostStatus.PUBLISHED
            post.scheduled_at = post.published_at = item.published_at
            post.custom_image = MEDIA if item.has_media else None
            post.place_on_timeline()
            session.add(post)
            session.flush()
            session.add(
                MetricSnapshot(
                    post_id=post.id,
                    taken_at=item.published_at,
                    likes=item.likes,
                    reposts=item.reposts,
                    comments=item.comments,
                )
            )
            ids.append(post.id)
    return ids
