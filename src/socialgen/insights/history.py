"""The creator's published posts with the engagement each one got, read in one pass.

A post's counts are the latest snapshot of each place it was read from, summed: each
publication it went out through (Bluesky, Mastodon, LinkedIn) and the snapshot an
import carried (no publication). A published post with no snapshot at all was never
measured and is left out: zero likes and "never read" are not the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from socialgen.store.tables.posts import Post, PostStatus
from socialgen.store.tables.publishing import MetricSnapshot


@dataclass(frozen=True)
class PublishedPost:
    """One published post and its latest counts (summed over where it was read)."""

    post_id: str
    content: str
    published_at: datetime  # UTC
    likes: int
    reposts: int
    comments: int
    impressions: int | None  # None when no place it was read from reports them
    has_media: bool

    @property
    def engagement(self) -> int:
        """What every network reports: likes + reposts + comments."""
        return self.likes + self.reposts + self.comments


def load_published(
    session: Session,
    workspace_id: str,
    *,
    since: datetime | None = None,
    post_ids: Sequence[str] | None = None,
) -> list[PublishedPost]:
    """The workspace's measured published posts, oldest first."""
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
    posts = {row[0]: row for row in session.execute(posts_query).all()}
    if not posts:
        return []
    counts = _latest_counts(session, workspace_id, since)
    measured = []
    for post_id, (_, content, published_at, has_media) in posts.items():
        summed = counts.get(post_id)
        if summed is None or published_at is None:
            continue
        likes, reposts, comments, impressions = summed
        measured.append(
            PublishedPost(
                post_id=post_id,
                content=content,
                published_at=published_at,
                likes=likes,
                reposts=reposts,
                comments=comments,
                impressions=impressions,
                has_media=bool(has_media),
            )
        )
    measured.sort(key=lambda post: (post.published_at, post.post_id))
    return measured


def _latest_counts(
    session: Session, workspace_id: str, since: datetime | None
) -> dict[str, tuple[int, int, int, int | None]]:
    """post id -> (likes, reposts, comments, impressions): the newest snapshot of each
    (post, publication-or-import), summed per post. One query for the newest times."""
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
    rows = session.execute(
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
    summed: dict[str, tuple[int, int, int, int | None]] = {}
    seen: set[tuple[str, str | None]] = set()
    for post_id, publication_id, likes, reposts, comments, impressions in rows:
        if post_id is None or (post_id, publication_id) in seen:
            continue  # two snapshots taken in the same instant: count one
        seen.add((post_id, publication_id))
        before = summed.get(post_id, (0, 0, 0, None))
        shown = before[3] if impressions is None else (before[3] or 0) + impressions
        summed[post_id] = (
            before[0] + likes,
            before[1] + reposts,
            before[2] + comments,
            shown,
        )
    return summed
